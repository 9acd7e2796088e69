/**
 * The delivery use case on a mocked DynamoDB (`deliver-files.ts`): its refusals in order, a delivery that fits
 * one transaction (every file write and the job's, conditioned on what was read), a larger one committed by the
 * job item alone and then rolled forward a transaction at a time, and a committed delivery found on reading
 * finished first.
 */
import {
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../functions/aws/dynamodb';
import { DYNAMODB } from '../../../functions/aws/failures';
import { ApiError, DependencyUnavailableError } from '../../../functions/errors';
import { DELIVERABLE_STATUSES, DELIVERED_STATUS, DeliverFiles } from '../../../functions/jobs/delivery/deliver-files';
import { readyVariant } from '../../support/pictures';
import { type FileItem, toFileItem as plainFileItem, toJobItem } from '../../../functions/jobs/store/items';
import { type Job, type JobStatus, type Review, unreviewedFile } from '../../../functions/jobs/model/model';
import { deliveredFileItem } from '../../../functions/jobs/store/pending-delivery';
import { estimatedItemSize, TRANSACTION_SIZE_BUDGET } from '../../../functions/jobs/store/item-sizes';
import { countAttributes } from '../../../functions/jobs/model/review';
import { makeJob } from '../../support/jobs';

/** A file item whose edited picture is ready (what a delivery requires), as the images function leaves it. */
const READY_EDIT = readyVariant({ uploadId: 'mi3k2j1h0a1b2c3d4e5f60718' });
const toFileItem = (...args: Parameters<typeof plainFileItem>): FileItem => ({
  ...plainFileItem(...args),
  edited: READY_EDIT,
});
const NOW = new Date('2025-04-01T12:00:00.000Z');
const review: Review = { customRejection: 'Too dark', rejects: [], reviewDate: '2025-03-09T10:00:00.000Z' };

/** A job of three files: 1 rejected (with a review), 2 never reviewed, 3 accepted. */
const job = (status: JobStatus = 'CJ_WORK_PROGRESS'): Job =>
  makeJob({
    id: 42,
    status,
    files: [
      unreviewedFile({
        id: 1,
        fileName: 'a.jpg',
        isReviewed: true,
        isRejected: true,
        rejectionReason: 'Too dark',
        reviewDate: review.reviewDate,
        reviews: review,
      }),
      unreviewedFile({ id: 2, fileName: 'b.jpg' }),
      unreviewedFile({ id: 3, fileName: 'c.jpg', isReviewed: true, acceptedByUser: true, reviewDate: '2025-03-10' }),
    ],
  });

const jobItem = (status?: JobStatus, extra: Record<string, unknown> = {}) => ({
  ...toJobItem(job(status), 4),
  ...extra,
});
const fileItems = (): FileItem[] => job().files.map((file) => toFileItem(42, file));

const operator = { role: 'operator' as const };

describe('the delivery use case with a mocked DynamoDB', () => {
  const client = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: undefined, dependencyTimeoutMs: 1_000 });
  const dynamo = mockClient(DynamoDBDocumentClient);
  const useCase = (options: { transactionItems?: number; maxAttempts?: number } = {}) =>
    new DeliverFiles({
      client,
      tableName: 'jobs',
      now: () => NOW,
      retry: { maxAttempts: options.maxAttempts ?? 1 },
      ...(options.transactionItems === undefined ? {} : { transactionItems: options.transactionItems }),
    });
  const transactions = () =>
    dynamo.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems ?? []);

  beforeEach(() => {
    dynamo.reset();
    dynamo.on(GetCommand).resolves({ Item: jobItem() });
    dynamo.on(QueryCommand).resolves({ Items: [...fileItems(), jobItem()] });
    dynamo.on(TransactWriteCommand).resolves({});
    dynamo.on(UpdateCommand).resolves({});
  });

  it('moves a job on from work in progress or a rejection to review', () => {
    expect(DELIVERABLE_STATUSES).toEqual(['CJ_WORK_PROGRESS', 'CJ_REJECT_READY', 'CJ_REJECT_ERROR']);
    expect(DELIVERED_STATUS).toBe('CJ_REVIEWING');
  });

  it('refuses a caller who is no operator before reading anything', async () => {
    const outcome = useCase().run(42, undefined, { role: 'user' });
    await expect(outcome).rejects.toMatchObject({ code: 'forbidden', message: 'Only operators deliver files.' });
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('refuses an unknown job with job_not_found, writing nothing', async () => {
    dynamo.on(GetCommand).resolves({});
    await expect(useCase().run(42, undefined, operator)).rejects.toMatchObject({ code: 'job_not_found' });
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
    expect(transactions()).toHaveLength(0);
  });

  it('refuses a job whose status allows no delivery with invalid_transition naming status', async () => {
    for (const status of ['CJ_NEW', 'CJ_REVIEWING', 'CJ_ACCEPT'] as const) {
      dynamo.on(GetCommand).resolves({ Item: jobItem(status) });
      dynamo.on(QueryCommand).resolves({ Items: [...fileItems(), jobItem(status)] });
      const error = await useCase()
        .run(42, undefined, operator)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({
        code: 'invalid_transition',
        context: { parameter: 'status' },
        message: `Files cannot be delivered while the job is ${status}.`,
      });
    }
    expect(transactions()).toHaveLength(0);
  });

  it('delivers from each deliverable status', async () => {
    for (const status of DELIVERABLE_STATUSES) {
      dynamo.on(GetCommand).resolves({ Item: jobItem(status) });
      dynamo.on(QueryCommand).resolves({ Items: [...fileItems(), jobItem(status)] });
      await expect(useCase().run(42, [2], operator)).resolves.toMatchObject({ job: { status: 'CJ_REVIEWING' } });
    }
  });

  it('refuses the first requested file, in request order, that is not the job’s or was accepted', async () => {
    const refusal = (fileIds: number[]) =>
      useCase()
        .run(42, fileIds, operator)
        .catch((caught: unknown) => caught as ApiError);
    expect(await refusal([2, 9, 3])).toMatchObject({ code: 'file_not_found', context: { fileId: 9 } });
    expect(await refusal([1, 3, 9])).toMatchObject({ code: 'file_not_deliverable', context: { fileId: 3 } });
    expect(transactions()).toHaveLength(0);
  });

  it('refuses a file whose edited picture is missing or invalid (409 file_not_deliverable naming it), writing nothing', async () => {
    const [first, second, third] = fileItems();
    const invalid = {
      status: 'invalid' as const,
      uploadId: 'x',
      reason: 'Not a picture.',
      uploadedDate: '2026-11-28T09:00:00.000Z',
    };
    const { edited: _dropped, ...withoutEdit } = second!;
    dynamo.on(QueryCommand).resolves({ Items: [{ ...first!, edited: invalid }, withoutEdit, third!, jobItem()] });
    const refusal = (fileIds: number[] | undefined) =>
      useCase()
        .run(42, fileIds, operator)
        .catch((caught: unknown) => caught as ApiError);

    expect(await refusal([2, 1])).toMatchObject({
      code: 'file_not_deliverable',
      context: { fileId: 2 },
      message: 'File 2 has no edited picture yet; upload it before delivering.',
    });
    expect(await refusal([1])).toMatchObject({
      code: 'file_not_deliverable',
      context: { fileId: 1 },
      message: 'File 1 has an edited picture that is not valid; upload it before delivering.',
    });
    // Without a list, every file not accepted, in id order: file 1 first.
    expect(await refusal(undefined)).toMatchObject({ code: 'file_not_deliverable', context: { fileId: 1 } });
    expect(transactions()).toHaveLength(0);
  });

  it('writes every file not accepted and the job in one transaction, conditioned on what was read', async () => {
    const delivered = await useCase().run(42, undefined, operator);
    expect(transactions()).toHaveLength(1);
    const [first, second, jobWrite, ...rest] = transactions()[0]!;
    expect(rest).toEqual([]);
    expect([first?.Update?.Key, second?.Update?.Key]).toEqual([
      { pk: 'JOB#42', sk: 'FILE#0000000000000001' },
      { pk: 'JOB#42', sk: 'FILE#0000000000000002' },
    ]);
    // File 1's review moves to its history; file 2 had none to move.
    expect(first?.Update?.UpdateExpression).toBe(
      'SET #isReviewed = :false, #isRejected = :false, #rejectionReason = :null, #reviews = :null, ' +
        '#reviewDate = :null, #reviewKey = :pending, ' +
        '#previousReviews = list_append(if_not_exists(#previousReviews, :empty), :moved)',
    );
    expect(first?.Update?.ExpressionAttributeValues).toMatchObject({
      ':false': false,
      ':null': null,
      ':pending': '42#pending',
      ':moved': [review],
      ':was_isRejected': true,
      ':was_reviewKey': '42#rejected',
    });
    expect(first?.Update?.ExpressionAttributeNames).toMatchObject({
      '#isReviewed': 'isReviewed',
      '#isRejected': 'isRejected',
      '#rejectionReason': 'rejectionReason',
      '#reviews': 'reviews',
      '#reviewDate': 'reviewDate',
      '#reviewKey': 'reviewKey',
    });
    expect(first?.Update?.ConditionExpression).toContain('size(#previousReviews) = :was_previousReviewCount');
    expect(second?.Update?.UpdateExpression).not.toContain('previousReviews');
    // The file as read, and its edited picture still ready: an invalid re-upload meanwhile cancels the write.
    expect(second?.Update?.ConditionExpression).toBe(
      'attribute_exists(#pk) AND #isRejected = :was_isRejected AND #acceptedByUser = :was_acceptedByUser' +
        ' AND attribute_type(#reviewDate, :nullType) AND #reviewKey = :was_reviewKey' +
        ' AND #edited.#editedStatus = :readyEdit',
    );
    expect(second?.Update?.ExpressionAttributeNames).toMatchObject({ '#edited': 'edited', '#editedStatus': 'status' });
    expect(second?.Update?.ExpressionAttributeValues).toMatchObject({ ':readyEdit': 'ready' });
    expect(jobWrite?.Update).toEqual({
      TableName: 'jobs',
      Key: { pk: 'JOB#42', sk: 'JOB' },
      UpdateExpression:
        'SET #status = :status, #deliveredDate = :at, #reviewPending = :reviewPending, ' +
        '#reviewRejected = :reviewRejected, #reviewAccepted = :reviewAccepted ADD #version :one',
      ConditionExpression: '#version = :expected AND attribute_not_exists(#deliveryCommitted)',
      ExpressionAttributeNames: {
        '#deliveryCommitted': 'deliveryCommitted',
        '#reviewPending': 'reviewPending',
        '#reviewRejected': 'reviewRejected',
        '#reviewAccepted': 'reviewAccepted',
        '#status': 'status',
        '#deliveredDate': 'deliveredDate',
        '#version': 'version',
      },
      ExpressionAttributeValues: {
        ':reviewPending': 2,
        ':reviewRejected': 0,
        ':reviewAccepted': 1,
        ':status': 'CJ_REVIEWING',
        ':at': NOW.toISOString(),
        ':one': 1,
        ':expected': 4,
      },
    });
    expect(delivered.etag).toBe('"5"');
    expect(delivered.job).toMatchObject({
      id: 42,
      status: 'CJ_REVIEWING',
      deliveredDate: NOW.toISOString(),
      version: 5,
      review: { pending: 2, rejected: 0, accepted: 1 },
    });
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('counts the files it does not deliver as they are stored', async () => {
    await useCase().run(42, [2], operator);
    const items = transactions()[0]!;
    expect(items.map((item) => item.Update?.Key?.sk)).toEqual(['FILE#0000000000000002', 'JOB']);
    expect(items[1]?.Update?.ExpressionAttributeValues).toMatchObject({
      ':reviewPending': 1,
      ':reviewRejected': 1,
      ':reviewAccepted': 1,
    });
  });

  it('commits a delivery larger than one transaction by the job item alone, then rolls it forward', async () => {
    const four = [...fileItems(), toFileItem(42, unreviewedFile({ id: 4, fileName: 'd.jpg' }))];
    // Read again to roll forward: the job item now records the delivery.
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: [...four, jobItem()] })
      .resolves({ Items: [...four, jobItem('CJ_REVIEWING', { deliveryCommitted: 'x', deliveryFileIds: [4, 2, 1] })] });
    const delivered = await useCase({ transactionItems: 3 }).run(42, [4, 2, 1], operator);
    const [commit, ...rollForward] = transactions();
    expect(commit).toHaveLength(1);
    const jobWrite = commit![0]?.Update;
    expect(jobWrite?.UpdateExpression).toContain('#deliveryCommitted = :delivery, #deliveryFileIds = :deliveryFileIds');
    expect(jobWrite?.ExpressionAttributeNames).toMatchObject({
      '#deliveryCommitted': 'deliveryCommitted',
      '#deliveryFileIds': 'deliveryFileIds',
    });
    expect(jobWrite?.ExpressionAttributeValues?.[':deliveryFileIds']).toEqual([1, 2, 4]);
    expect(typeof jobWrite?.ExpressionAttributeValues?.[':delivery']).toBe('string');
    // Three files, three items a transaction: one roll-forward transaction, in file order.
    expect(rollForward.map((items) => items.map((item) => item.Update?.Key?.sk))).toEqual([
      ['FILE#0000000000000001', 'FILE#0000000000000002', 'FILE#0000000000000004'],
    ]);
    // Committed, the delivery must finish whatever the pictures hold since: no file write waits on them.
    for (const item of rollForward.flat()) expect(item.Update?.ConditionExpression).not.toContain('#edited');
    expect(dynamo.commandCalls(UpdateCommand)[0]?.args[0].input).toEqual({
      TableName: 'jobs',
      Key: { pk: 'JOB#42', sk: 'JOB' },
      UpdateExpression: 'REMOVE #deliveryCommitted, #deliveryFileIds',
      ConditionExpression: '#deliveryCommitted = :delivery',
      ExpressionAttributeNames: { '#deliveryCommitted': 'deliveryCommitted', '#deliveryFileIds': 'deliveryFileIds' },
      ExpressionAttributeValues: { ':delivery': 'x' },
    });
    expect(delivered.job.status).toBe('CJ_REVIEWING');
    // The partition read before deciding and the one the roll forward starts from are both strongly consistent.
    expect(dynamo.commandCalls(QueryCommand).map((call) => call.args[0].input.ConsistentRead)).toEqual([true, true]);
  });

  it('rolls a large delivery forward in transactions of the configured size, at least two items', async () => {
    const four = [...fileItems(), toFileItem(42, unreviewedFile({ id: 4, fileName: 'd.jpg' }))];
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: [...four, jobItem()] })
      .resolves({ Items: [...four, jobItem('CJ_REVIEWING', { deliveryCommitted: 'x', deliveryFileIds: [1, 2, 4] })] });
    await useCase({ transactionItems: 1 }).run(42, [4, 2, 1], operator);
    expect(transactions().map((items) => items.map((item) => item.Update?.Key?.sk))).toEqual([
      ['JOB'],
      ['FILE#0000000000000001', 'FILE#0000000000000002'],
      ['FILE#0000000000000004'],
    ]);
  });

  it('delivers 99 files and the job in one transaction, and commits 100 first', async () => {
    const files = (count: number) =>
      Array.from({ length: count }, (_, index) => toFileItem(42, unreviewedFile({ id: index + 1, fileName: 'f.jpg' })));
    dynamo.on(QueryCommand).resolves({ Items: [...files(99), jobItem()] });
    await useCase().run(42, undefined, operator);
    expect(transactions().map((items) => items.length)).toEqual([100]);
    dynamo.reset();
    dynamo.on(GetCommand).resolves({ Item: jobItem() });
    dynamo.on(TransactWriteCommand).resolves({});
    dynamo.on(UpdateCommand).resolves({});
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: [...files(100), jobItem()] })
      .resolves({ Items: [...files(100), jobItem('CJ_REVIEWING', { deliveryCommitted: 'x', deliveryFileIds: [] })] });
    await useCase({ transactionItems: 500 }).run(42, undefined, operator);
    expect(transactions().map((items) => items.length)).toEqual([1]);
  });

  describe('the size of its transactions', () => {
    /** Twelve never-reviewed files of about 290 KB each (a long history weighs as much); file 1 `pad` bytes more. */
    const heavyFiles = (pad: number): FileItem[] =>
      Array.from({ length: 12 }, (_, index) =>
        toFileItem(
          42,
          unreviewedFile({
            id: index + 1,
            fileName: 'f.jpg',
            remarkToProcessor: 'r'.repeat(290_000 + (index === 0 ? pad : 0)),
          }),
        ),
      );
    /** The job item as the delivery of twelve files leaves it. */
    const deliveredJobBytes = estimatedItemSize({
      ...jobItem(),
      status: DELIVERED_STATUS,
      deliveredDate: NOW.toISOString(),
      ...countAttributes({ pending: 12, rejected: 0, accepted: 0 }),
      version: 5,
    });
    const fileBytes = (items: FileItem[]) => items.map((item) => estimatedItemSize(deliveredFileItem(item)));
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    /** The pad of file 1 with which the files and the job item add up to exactly the budget. */
    const padToBudget = TRANSACTION_SIZE_BUDGET - deliveredJobBytes - sum(fileBytes(heavyFiles(0)));

    it('writes files and job in one transaction while their items add up to the budget', async () => {
      expect(padToBudget).toBeGreaterThan(0);
      dynamo.on(QueryCommand).resolves({ Items: [...heavyFiles(padToBudget), jobItem()] });
      await useCase().run(42, undefined, operator);
      expect(transactions().map((items) => items.length)).toEqual([13]);
    });

    /** The delivery of `files`, committed first: its transactions after the commit, as file keys. */
    const rolledForward = async (files: FileItem[]): Promise<string[][]> => {
      dynamo
        .on(QueryCommand)
        .resolvesOnce({ Items: [...files, jobItem()] })
        .resolves({
          Items: [
            ...files,
            jobItem('CJ_REVIEWING', { deliveryCommitted: 'x', deliveryFileIds: files.map((f) => f.fileId) }),
          ],
        });
      await useCase().run(42, undefined, operator);
      const [commit, ...rest] = transactions();
      expect(commit?.map((item) => item.Update?.Key?.sk)).toEqual(['JOB']);
      return rest.map((items) => items.map((item) => String(item.Update?.Key?.sk)));
    };

    it('commits first when they add up to a byte more; files that add up to the budget alone roll forward in one', async () => {
      const files = heavyFiles(padToBudget + 1);
      expect(await rolledForward(files)).toEqual([files.map((f) => f.sk)]);
      dynamo.resetHistory();
      const atBudget = heavyFiles(padToBudget + deliveredJobBytes);
      expect(sum(fileBytes(atBudget))).toBe(TRANSACTION_SIZE_BUDGET);
      expect(await rolledForward(atBudget)).toEqual([atBudget.map((f) => f.sk)]);
    });

    it('sends a file whose item alone passes the budget in a transaction of its own, never an empty one', async () => {
      const files = heavyFiles(TRANSACTION_SIZE_BUDGET).slice(0, 2);
      expect(fileBytes(files)[0]).toBeGreaterThan(TRANSACTION_SIZE_BUDGET);
      expect(await rolledForward(files)).toEqual([[files[0]!.sk], [files[1]!.sk]]);
    });

    it('rolls forward in transactions of as many files, in order, as fit the budget', async () => {
      // The files alone add up to a byte over the budget: all but the last fit one transaction.
      const files = heavyFiles(padToBudget + deliveredJobBytes + 1);
      expect(sum(fileBytes(files))).toBe(TRANSACTION_SIZE_BUDGET + 1);
      expect(await rolledForward(files)).toEqual([files.slice(0, 11).map((f) => f.sk), [files[11]!.sk]]);
    });
  });

  it('answers a committed delivery even when rolling it forward fails: the next writer finishes it', async () => {
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: [...fileItems(), jobItem()] })
      .rejects(new Error('network down'));
    await expect(useCase({ transactionItems: 2 }).run(42, [1, 2], operator)).resolves.toMatchObject({
      job: { status: 'CJ_REVIEWING', version: 5 },
    });
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(2);
    expect(transactions()).toHaveLength(1);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('finishes a committed delivery it reads before deciding, writing only the files not yet rolled forward', async () => {
    const [one, two, three] = fileItems() as [FileItem, FileItem, FileItem];
    const alreadyDelivered = toFileItem(42, unreviewedFile({ id: 5, fileName: 'e.jpg' }), true);
    const record = { deliveryCommitted: 'earlier', deliveryFileIds: [2, 5] };
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: jobItem('CJ_REVIEWING', record) })
      .resolves({ Item: jobItem('CJ_REJECT_READY') });
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: [one, two, three, alreadyDelivered, jobItem('CJ_REVIEWING', record)] })
      .resolves({ Items: [one, two, three, alreadyDelivered, jobItem('CJ_REJECT_READY')] });
    await useCase().run(42, [1], operator);
    expect(transactions().map((items) => items.map((item) => item.Update?.Key?.sk))).toEqual([
      ['FILE#0000000000000002'],
      ['FILE#0000000000000001', 'JOB'],
    ]);
    expect(dynamo.commandCalls(UpdateCommand)[0]?.args[0].input.ExpressionAttributeValues).toEqual({
      ':delivery': 'earlier',
    });
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(2);
  });

  it('leaves a job whose record is gone by the roll forward’s read as it is', async () => {
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: jobItem('CJ_REVIEWING', { deliveryCommitted: 'earlier', deliveryFileIds: [2] }) })
      .resolves({ Item: jobItem() });
    await useCase().run(42, [2], operator);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(transactions()).toHaveLength(1);
  });

  it('takes another delivery committed meanwhile as a lost race, and gives up as DynamoDB unavailable', async () => {
    dynamo.on(GetCommand).resolves({ Item: jobItem('CJ_REVIEWING', { deliveryCommitted: 'other' }) });
    dynamo.on(QueryCommand).resolves({ Items: [jobItem('CJ_REVIEWING')] });
    const error = await useCase()
      .run(42, [2], operator)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as DependencyUnavailableError).dependency).toBe(DYNAMODB);
    expect(((error as Error).cause as Error).message).toBe('Another delivery of the job was committed meanwhile');
    expect(transactions()).toHaveLength(0);
  });
});

/**
 * `POST /jobs` on a mocked DynamoDB: the account a caller may create in, the job it writes (new ids from the
 * allocator, `CJ_NEW`, a fresh guid, the files unreviewed, the job item conditioned on `attribute_not_exists`)
 * and what it answers, and an `Idempotency-Key`: the first request's answer stored, a replay answered from it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../functions/http/errors';
import { accountOf, CreateJob, type CreateJobRequest } from '../../../functions/jobs/create/create-job';
import { fingerprintOf } from '../../../functions/jobs/create/idempotency';
import { countAttributes } from '../../../functions/jobs/model/review';
import { TEST_PICTURES, testPictures } from '../../support/pictures';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const mock = mockClient(documents);

const NOW = new Date('2026-11-26T12:00:00.000Z');
const COUNTER = { pk: 'IDS', sk: 'COUNTER' };
const user = { role: 'user', accountId: 1001, clientId: 'client-1', userId: 'alice' } as const;
const operator = { role: 'operator', accountId: 0, clientId: 'client-1', userId: 'ops' } as const;

const request = (overrides: Partial<CreateJobRequest> = {}): CreateJobRequest => ({
  name: 'Spring catalogue',
  description: 'Cut out',
  invoiceReference: 'INV-7',
  tags: ['spring'],
  accountId: undefined,
  accountName: undefined,
  files: [
    { fileName: 'a.jpg', tags: ['front'], remarkToProcessor: 'white background' },
    { fileName: 'b.jpg', tags: [], remarkToProcessor: '' },
  ],
  ...overrides,
});

/** Each test its own table, so the container's allocator of that table starts with no block. */
const pictures = testPictures();

/** A presigned POST of a new upload of the original of a file of account 1001, valid an hour. */
const postTargetOf = (jobId: number, fileId: number) => ({
  url: `${TEST_PICTURES.endpoint}/${TEST_PICTURES.bucket}`,
  method: 'POST',
  fields: expect.objectContaining({
    key: expect.stringMatching(new RegExp(`^uploads/1001/${jobId}/${fileId}/original/[0-9a-z]{25}$`)),
    'Content-Type': 'image/jpeg',
    Policy: expect.any(String),
    'X-Amz-Signature': expect.any(String),
  }),
  expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
});

let tableNumber = 0;
let tableName: string;
const create = () => new CreateJob({ client: documents, tableName, now: () => NOW, pictures });
const transactions = () =>
  mock.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems ?? []);

beforeEach(() => {
  mock.reset();
  tableNumber += 1;
  tableName = `jobs-create-${tableNumber}`;
  mock.on(UpdateCommand, { Key: COUNTER }).resolves({ Attributes: { next: 5_000_001_024 } });
  mock.on(TransactWriteCommand).resolves({});
});

describe('the account a job is created in', () => {
  const refused = (call: () => unknown): ApiError => {
    try {
      call();
    } catch (error) {
      return error as ApiError;
    }
    throw new Error('not refused');
  };

  it("is the operator's choice, which the operator must make", () => {
    expect(accountOf(request({ accountId: 77 }), operator)).toBe(77);
    expect(accountOf(request({ accountId: 0, accountName: 'Zero' }), operator)).toBe(0);
    expect(refused(() => accountOf(request(), operator))).toMatchObject({
      code: 'invalid_parameter',
      context: { parameter: 'accountId' },
      message: 'An operator must name the account.',
    });
  });

  it("is a user's own account, named or not", () => {
    expect(accountOf(request(), user)).toBe(1001);
    expect(accountOf(request({ accountId: 1001 }), user)).toBe(1001);
    expect(accountOf(request(), { role: 'user', accountId: 0 })).toBe(0);
  });

  it('refuses a user another account or an account name (403)', () => {
    expect(refused(() => accountOf(request({ accountId: 1002 }), user))).toMatchObject({
      code: 'forbidden',
      message: 'A user creates jobs in its own account only.',
    });
    expect(refused(() => accountOf(request({ accountId: 0 }), user))).toMatchObject({ code: 'forbidden' });
    expect(refused(() => accountOf(request({ accountName: 'Mine' }), user))).toMatchObject({
      code: 'forbidden',
      message: 'Only operators may set accountName.',
    });
  });
});

describe('a create', () => {
  it('takes the job id and then the file ids from the allocator and writes the job whole, in one transaction', async () => {
    const created = await create().run(request(), user);

    expect(mock.commandCalls(UpdateCommand)[0]?.args[0].input).toMatchObject({ TableName: tableName, Key: COUNTER });
    const [items] = transactions();
    expect(items).toHaveLength(3);
    const jobItem = items?.[0]?.Put?.Item as Record<string, unknown>;
    expect(items?.[0]?.Put).toMatchObject({ TableName: tableName, ConditionExpression: 'attribute_not_exists(pk)' });
    expect(jobItem).toEqual({
      pk: 'JOB#5000000000',
      sk: 'JOB',
      entity: 'job',
      id: 5_000_000_000,
      accountId: 1001,
      accountName: '',
      status: 'CJ_NEW',
      guid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      name: 'Spring catalogue',
      description: 'Cut out',
      invoiceReference: 'INV-7',
      tags: ['spring'],
      realCost: 0,
      createdDate: '2026-11-26T12:00:00.000Z',
      acceptedDate: null,
      orderedDate: null,
      deliveredDate: null,
      reviewedDate: null,
      fileCount: 2,
      fileKeys: 'padded',
      version: NOW.getTime(),
      ...countAttributes({ pending: 0, rejected: 0, accepted: 0 }),
    });
    expect(items?.slice(1).map((item) => item.Put?.Item)).toEqual([
      expect.objectContaining({
        sk: 'FILE#0000005000000001',
        fileId: 5_000_000_001,
        fileName: 'a.jpg',
        tags: ['front'],
        remarkToProcessor: 'white background',
        isReviewed: false,
        isRejected: false,
        acceptedByUser: false,
      }),
      expect.objectContaining({ sk: 'FILE#0000005000000002', fileId: 5_000_000_002, fileName: 'b.jpg' }),
    ]);

    expect(created).toEqual({
      body: {
        _type: 'JobResponseBody',
        job: expect.objectContaining({
          id: 5_000_000_000,
          guid: jobItem.guid,
          status: 'CJ_NEW',
          fileCount: 2,
          version: NOW.getTime(),
          review: { pending: 0, rejected: 0, accepted: 0 },
        }),
        files: [
          { id: 5_000_000_001, fileName: 'a.jpg', upload: postTargetOf(5_000_000_000, 5_000_000_001) },
          { id: 5_000_000_002, fileName: 'b.jpg', upload: postTargetOf(5_000_000_000, 5_000_000_002) },
        ],
      },
      location: '/jobs/5000000000',
      etag: `"${NOW.getTime()}"`,
      replayed: false,
    });
    expect(created.body.job).not.toHaveProperty('files');
  });

  it("keeps an operator's account name, and gives each job a guid of its own", async () => {
    const first = await create().run(request({ accountId: 77, accountName: 'Seventy-seven' }), operator);
    const second = await create().run(request({ accountId: 77 }), operator);

    expect(first.body.job).toMatchObject({ accountId: 77, accountName: 'Seventy-seven' });
    expect(second.body.job).toMatchObject({ accountId: 77, accountName: '' });
    expect(first.body.job.guid).not.toBe(second.body.job.guid);
    expect(second.body.job.id).toBe(first.body.job.id + 3);
  });

  it('gives a file that declared its size and SHA-256 a PUT target binding both, and stores what it declared', async () => {
    const sha256 = 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=';
    const created = await create().run(
      request({
        files: [
          { fileName: 'a.png', tags: [], remarkToProcessor: '', size: 1_234, sha256 },
          { fileName: 'b.jpg', tags: [], remarkToProcessor: '', size: 99 },
          { fileName: 'c.jpg', tags: [], remarkToProcessor: '' },
        ],
      }),
      user,
    );

    const [declared, sized, plain] = created.body.files.map((file) => file.upload);
    expect(declared).toMatchObject({
      method: 'PUT',
      headers: { 'Content-Type': 'image/png', 'x-amz-checksum-sha256': sha256 },
    });
    expect(declared?.url).toMatch(/\/uploads\/1001\/5000000000\/5000000001\/original\/[0-9a-z]{25}\?/);
    expect(sized?.method).toBe('POST');
    expect(plain?.method).toBe('POST');
    const items = transactions()[0]!.map((item) => item.Put?.Item);
    expect(items.find((item) => item?.fileId === 5_000_000_001)?.declaredOriginal).toEqual({ size: 1_234, sha256 });
    expect(items.find((item) => item?.fileId === 5_000_000_002)?.declaredOriginal).toEqual({ size: 99 });
    expect(items.find((item) => item?.fileId === 5_000_000_003)).not.toHaveProperty('declaredOriginal');
    expect(created.body.files.map((file) => Object.keys(file))).toEqual([
      ['id', 'fileName', 'upload'],
      ['id', 'fileName', 'upload'],
      ['id', 'fileName', 'upload'],
    ]);
  });

  it('signs no target, and needs no bucket, for a job without files', async () => {
    const created = await new CreateJob({
      client: documents,
      tableName,
      now: () => NOW,
      pictures: () => {
        throw new Error('no bucket');
      },
    }).run(request({ files: [] }), user);

    expect(created.body.files).toEqual([]);
  });

  it('refuses before it takes an id', async () => {
    await expect(create().run(request({ accountId: 9 }), user)).rejects.toMatchObject({ code: 'forbidden' });
    expect(mock.calls()).toHaveLength(0);
  });
});

describe('a create with an Idempotency-Key', () => {
  it('claims the key with the fingerprint of the request, and stores the answer in the job’s own transaction', async () => {
    mock.on(PutCommand).resolves({});
    mock.on(UpdateCommand).resolves({ Attributes: { next: 5_000_001_024 } });

    const created = await create().run(request(), user, 'key-1');

    const claim = mock.commandCalls(PutCommand)[0]?.args[0].input.Item;
    expect(claim?.fingerprint).toBe(fingerprintOf({ ...request(), accountId: 1001, accountName: '' }));
    expect(claim?.pk).toMatch(/^IDEMPOTENCY#1001#client-1#[0-9a-f]{64}$/);
    // The answer is stored in the job's own transaction, after its items, and nothing is written after it.
    const [items] = transactions();
    expect(items?.map((item) => (item.Put?.Item?.sk as string | undefined) ?? item.Update?.Key?.pk)).toEqual([
      'JOB',
      'FILE#0000005000000001',
      'FILE#0000005000000002',
      claim?.pk,
    ]);
    expect(items?.[3]?.Update).toMatchObject({
      ConditionExpression: '#state = :pending AND #claimId = :claimId',
      ExpressionAttributeValues: {
        ':answer': { job: JSON.stringify(created.body.job), fileIds: [5_000_000_001, 5_000_000_002] },
        ':claimId': claim?.claimId,
      },
    });
    expect(mock.commandCalls(UpdateCommand).filter((call) => call.args[0].input.Key?.pk === claim?.pk)).toEqual([]);
    expect(created.replayed).toBe(false);
  });

  it('answers a replay from the stored answer, with the request’s file names, creating nothing', async () => {
    mock.on(PutCommand).rejects(Object.assign(new Error('held'), { name: 'ConditionalCheckFailedException' }));
    const job = { id: 5_000_000_000, name: 'Spring catalogue', version: 17 };
    const fingerprint = fingerprintOf({ ...request(), accountId: 1001, accountName: '' });
    mock.on(GetCommand).resolves({
      Item: { state: 'done', fingerprint, answer: { job: JSON.stringify(job), fileIds: [11, 12] } },
    });

    const replay = await create().run(request(), user, 'key-1');

    expect(replay).toEqual({
      body: {
        _type: 'JobResponseBody',
        job,
        files: [
          { id: 11, fileName: 'a.jpg', upload: postTargetOf(5_000_000_000, 11) },
          { id: 12, fileName: 'b.jpg', upload: postTargetOf(5_000_000_000, 12) },
        ],
      },
      location: '/jobs/5000000000',
      etag: '"17"',
      replayed: true,
    });
    expect(transactions()).toHaveLength(0);
    expect(mock.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('scopes the key by the account the job is created in, whoever of the client sends it', async () => {
    mock.on(PutCommand).resolves({});
    mock.on(UpdateCommand).resolves({ Attributes: { next: 5_000_001_024 } });

    await create().run(request(), user, 'key-1');
    await create().run(request(), { ...user, accountId: 1002 }, 'key-1');
    await create().run(request({ accountId: 1001 }), operator, 'key-1');

    const pks = mock.commandCalls(PutCommand).map((call) => call.args[0].input.Item?.pk as string);
    expect(pks[0]).toMatch(/^IDEMPOTENCY#1001#client-1#/);
    expect(pks[1]).toBe(pks[0]?.replace('#1001#', '#1002#'));
    expect(pks[2]).toBe(pks[0]);
  });

  it('replays the same request to another user or an operator of the account, and refuses another body (409)', async () => {
    mock.on(PutCommand).rejects(Object.assign(new Error('held'), { name: 'ConditionalCheckFailedException' }));
    const fingerprint = fingerprintOf({ ...request(), accountId: 1001, accountName: '' });
    const job = { id: 5_000_000_000, version: 3 };
    mock
      .on(GetCommand)
      .resolves({ Item: { state: 'done', fingerprint, answer: { job: JSON.stringify(job), fileIds: [11, 12] } } });

    await expect(create().run(request(), { ...user, userId: 'bob' }, 'key-1')).resolves.toMatchObject({
      replayed: true,
      etag: '"3"',
    });
    await expect(create().run(request({ accountId: 1001 }), operator, 'key-1')).resolves.toMatchObject({
      replayed: true,
    });
    await expect(create().run(request({ name: 'Other' }), user, 'key-1')).rejects.toMatchObject({
      code: 'idempotency_key_reused',
    });
    await expect(
      create().run(request({ accountId: 1001, accountName: 'Named' }), operator, 'key-1'),
    ).rejects.toMatchObject({ code: 'idempotency_key_reused' });
  });
});

/**
 * Creating jobs on DynamoDB Local: ids the API assigns are new and never an import's (creates and imports
 * interleaved, an import line naming an API id reported), `Idempotency-Key` (one job per key, the first
 * answer again, another request refused, concurrent requests), and a large job never seen half-written.
 */
import { createHash } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { CreateJob, type CreatedJob, type CreateJobRequest } from '../../functions/jobs/create/create-job';
import { API_ID_RANGE, IdAllocator } from '../../functions/jobs/store/id-allocator';
import { DependencyUnavailableError } from '../../functions/errors';
import { IdempotencyKeyReusedError, IdempotencyStore, LEASE_MS } from '../../functions/jobs/create/idempotency';
import { JobsTable } from '../../functions/jobs/store/jobs-table';
import { JobRepository } from '../../functions/jobs/store/repository';
import { jobKeys } from '../../functions/tables';
import { importJobs } from '../../local/operations/import';
import { createTestTables, localClient } from '../support/dynamo';
import { makeFile, makeJob } from '../support/jobs';
import { testPictures } from '../support/pictures';

const documents = DynamoDBDocumentClient.from(localClient(), { marshallOptions: { removeUndefinedValues: true } });
const user = { role: 'user' as const, accountId: 1001, clientId: 'client-a', userId: 'anna' };
const pictures = testPictures();
let tableName: string;
let repository: JobRepository;

const request = (overrides: Partial<CreateJobRequest> = {}): CreateJobRequest => ({
  name: 'Spring catalogue',
  description: '',
  invoiceReference: '',
  tags: [],
  accountId: undefined,
  accountName: undefined,
  files: [{ fileName: 'shoe.jpg', tags: [], remarkToProcessor: '' }],
  ...overrides,
});

const files = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ fileName: `img_${index}.jpg`, tags: [], remarkToProcessor: '' }));

/** A create's answer without its files' upload targets, which every answer signs afresh. */
const withoutUploads = (created: CreatedJob) => ({
  ...created,
  body: { ...created.body, files: created.body.files.map(({ id, fileName }) => ({ id, fileName })) },
});

/** Every item of the table's job partitions, as `JOB#…` keys (the allocator and idempotency items left out). */
const jobPartitions = async (): Promise<string[]> => {
  const table = new JobsTable(documents, tableName);
  const keys: string[] = [];
  for await (const page of table.scanPages({})) {
    for (const item of page) if (String(item.pk).startsWith('JOB#')) keys.push(`${item.pk} ${item.sk}`);
  }
  return keys;
};

/** Whether a transaction puts a job item (the last write of a create, which makes the job visible). */
const writesJobItem = (command: TransactWriteCommand): boolean =>
  (command.input.TransactItems ?? []).some((item) => item.Put?.Item?.sk === jobKeys.jobSk);

beforeEach(async () => {
  tableName = (await createTestTables()).jobsTable;
  repository = new JobRepository(documents, tableName);
});

describe('ids of created jobs', () => {
  it('never shares an id between creates of several containers and imports running beside them', async () => {
    const table = new JobsTable(documents, tableName);
    // Three containers with small blocks, so they go back to the counter often while imports claim ids.
    const containers = [1, 2, 3].map(() => new IdAllocator(table, { blockSize: 7 }));
    const imported = Array.from({ length: 12 }, (_, index) =>
      makeJob({
        id: API_ID_RANGE.first + 40 + index * 3,
        files: [makeFile({ id: API_ID_RANGE.first + 41 + index * 3 })],
      }),
    );
    const [allocated, importResults] = await Promise.all([
      Promise.all(containers.flatMap((allocator) => [1, 2, 3, 4, 5].map(() => allocator.allocate(4)))),
      Promise.all(imported.map((job) => importJobs([job], { repository }))),
    ]);

    const created = allocated.flat();
    expect(new Set(created).size).toBe(created.length);
    const written = imported.filter((_, index) => importResults[index]?.imported === 1);
    const importedIds = new Set(written.flatMap((job) => [job.id, ...job.files.map((file) => file.id)]));
    expect(created.filter((id) => importedIds.has(id))).toEqual([]);
    for (const id of created) expect(id).toBeGreaterThanOrEqual(API_ID_RANGE.first);
    // Every import line was either written or reported as naming an id the API had taken.
    for (const result of importResults) expect(result.imported + result.failed.length).toBe(1);
  });

  it('reports an import line naming a job or file id the API assigned, as reserved by the API, and writes nothing of it', async () => {
    const created = await new CreateJob({ client: documents, tableName, pictures }).run(
      request({ files: files(2) }),
      user,
    );
    const jobId = created.body.job.id;
    const fileId = created.body.files[1]!.id;

    const result = await importJobs(
      [
        makeJob({ id: jobId, name: 'Overwritten?' }),
        makeJob({ files: [makeFile({ id: fileId })] }),
        makeJob({ id: 55_001 }),
      ],
      { repository },
    );

    expect(result.imported).toBe(1);
    expect(result.failed).toEqual([
      {
        line: 1,
        message: `job ${jobId} has an id the API reserved for the jobs and files it creates; the line was not written`,
      },
      {
        line: 2,
        message: expect.stringMatching(new RegExp(`names id ${fileId}, which the API reserved for the jobs and files`)),
      },
    ]);
    expect((await repository.getJob(jobId))?.job.name).toBe('Spring catalogue');
  });

  it('says an id the API reserved but never handed out was reserved, not that a job was created with it', async () => {
    const created = await new CreateJob({ client: documents, tableName, pictures }).run(request(), user);
    const reserved = created.body.job.id + 100;

    const result = await importJobs([makeJob({ id: reserved })], { repository });

    expect(result.imported).toBe(0);
    expect(result.failed).toEqual([
      {
        line: 1,
        message: `job ${reserved} has an id the API reserved for the jobs and files it creates; the line was not written`,
      },
    ]);
    expect(result.failed[0]?.message).not.toMatch(/created through the API/);
    expect(await repository.getJob(reserved)).toBeUndefined();
  });

  it('never assigns an id an import wrote in its range', async () => {
    const next = API_ID_RANGE.first + 5_000;
    await importJobs([makeJob({ id: next, files: [makeFile({ id: next + 1 })] })], { repository });

    const created = await new CreateJob({ client: documents, tableName, pictures }).run(
      request({ files: files(3) }),
      user,
    );

    expect(created.body.job.id).toBeGreaterThan(next + 1);
    for (const file of created.body.files) expect(file.id).toBeGreaterThan(next + 1);
  });
});

describe('the created job', () => {
  it('is stored whole, files in request order with their ids, unreviewed, with no review counts yet', async () => {
    const created = await new CreateJob({ client: documents, tableName, pictures }).run(
      request({ files: [{ fileName: 'b.jpg', tags: ['x'], remarkToProcessor: 'Crop' }, ...files(2)] }),
      user,
    );

    const stored = await repository.getJob(created.body.job.id);
    expect(stored?.job).toMatchObject({ accountId: 1001, status: 'CJ_NEW', realCost: 0, acceptedDate: null });
    expect(created.body.job).toMatchObject({ fileCount: 3, review: { pending: 0, rejected: 0, accepted: 0 } });
    expect(created.body.files.map((file) => file.fileName)).toEqual(['b.jpg', 'img_0.jpg', 'img_1.jpg']);
    expect(stored?.job.files.find((file) => file.id === created.body.files[0]!.id)).toMatchObject({
      fileName: 'b.jpg',
      tags: ['x'],
      remarkToProcessor: 'Crop',
      isReviewed: false,
      isRejected: false,
    });
    expect(created.etag).toBe(`"${stored?.version}"`);
  });

  it('of 1,000 files leaves nothing a reader can see when the write fails before its job item', async () => {
    const failing = {
      send: async (command: unknown) => {
        if (command instanceof TransactWriteCommand && writesJobItem(command))
          throw Object.assign(new Error('boom'), { name: 'InternalFailure' });
        return documents.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;

    await expect(
      new CreateJob({ client: failing, tableName, pictures }).run(request({ files: files(1_000) }), user),
    ).rejects.toThrow();

    // The files were written, the job item was not: no job exists for a read or the indexer.
    const partitions = await jobPartitions();
    expect(partitions.length).toBe(1_000);
    expect(partitions.some((key) => key.endsWith(' JOB'))).toBe(false);
    const jobPk = partitions[0]!.split(' ')[0]!;
    expect(await repository.getJob(Number(jobPk.slice('JOB#'.length)))).toBeUndefined();
  });

  it('of more files than one transaction holds is written whole', async () => {
    const created = await new CreateJob({ client: documents, tableName, pictures }).run(
      request({ files: files(250) }),
      user,
    );

    const stored = await repository.getJob(created.body.job.id);
    expect(stored?.job.files).toHaveLength(250);
    expect(created.body.files.map((file) => file.id)).toEqual([...created.body.files.map((file) => file.id)].sort());
  });
});

describe('a create whose allocated id is already an item', () => {
  /** The ids a fresh table's first create is given: the job's, then its files' in request order. */
  const jobId = API_ID_RANGE.first;
  const fileId = (index: number) => API_ID_RANGE.first + 1 + index;
  const stray = (fileIndex: number) => ({
    pk: jobKeys.pk(jobId),
    sk: jobKeys.fileSk(fileId(fileIndex)),
    entity: 'file',
    fileId: fileId(fileIndex),
    jobId,
    fileName: 'left-behind.jpg',
  });

  it.each([
    ['in the one transaction of a small job', 3, 1],
    ['in a later transaction of the files of a large job', 250, 180],
  ])('fails %s with 503 (id taken), overwrites nothing and writes no job item', async (_case, count, takenIndex) => {
    const table = new JobsTable(documents, tableName);
    await table.putItem({ Item: stray(takenIndex) });

    const outcome = new CreateJob({ client: documents, tableName, pictures }).run(
      request({ files: files(count) }),
      user,
    );

    await expect(outcome).rejects.toBeInstanceOf(DependencyUnavailableError);
    await expect(outcome).rejects.toMatchObject({ cause: { name: 'IdTakenError', jobId } });
    expect(await table.getItem({ pk: jobKeys.pk(jobId), sk: jobKeys.fileSk(fileId(takenIndex)) })).toEqual(
      stray(takenIndex),
    );
    expect(await table.getJobItem(jobId)).toBeUndefined();
    expect(await repository.getJob(jobId)).toBeUndefined();
  });

  it('gives the retry new ids, which it writes whole', async () => {
    await new JobsTable(documents, tableName).putItem({ Item: stray(0) });
    const create = new CreateJob({ client: documents, tableName, pictures });
    await expect(create.run(request({ files: files(2) }), user)).rejects.toBeInstanceOf(DependencyUnavailableError);

    const retried = await create.run(request({ files: files(2) }), user);

    expect(retried.body.job.id).toBeGreaterThan(fileId(1));
    expect((await repository.getJob(retried.body.job.id))?.job.files).toHaveLength(2);
  });
});

describe('Idempotency-Key', () => {
  it('answers the first answer again and creates one job', async () => {
    const create = new CreateJob({ client: documents, tableName, pictures });
    const first = await create.run(request(), user, 'order-17');
    const again = await create.run(request(), user, 'order-17');

    expect(withoutUploads(again)).toEqual({ ...withoutUploads(first), replayed: true });
    expect(again.etag).toBe(first.etag);
    expect(again.replayed).toBe(true);
    // The stored answer keeps no target: a replay signs fresh ones, for a new upload of the same file's original.
    const [firstTarget, againTarget] = [first, again].map((answer) => answer.body.files[0]!.upload);
    if (firstTarget?.method !== 'POST' || againTarget?.method !== 'POST') throw new Error('expected POST targets');
    expect(againTarget.fields.key).not.toBe(firstTarget.fields.key);
    expect(againTarget.fields.key?.split('/').slice(0, 5)).toEqual(firstTarget.fields.key?.split('/').slice(0, 5));
    expect((await jobPartitions()).filter((key) => key.endsWith(' JOB'))).toHaveLength(1);
  });

  it('refuses the key with another body, and creates nothing', async () => {
    const create = new CreateJob({ client: documents, tableName, pictures });
    await create.run(request(), user, 'order-18');

    await expect(create.run(request({ name: 'Other' }), user, 'order-18')).rejects.toBeInstanceOf(
      IdempotencyKeyReusedError,
    );
    expect((await jobPartitions()).filter((key) => key.endsWith(' JOB'))).toHaveLength(1);
  });

  it('gives sessions of one client in different accounts a job each for one key, and replays it within an account', async () => {
    const create = new CreateJob({ client: documents, tableName, pictures });
    const inOther = { ...user, accountId: 1002, userId: 'otto' };

    const first = await create.run(request(), user, 'order-23');
    const other = await create.run(request({ name: 'Something else entirely' }), inOther, 'order-23');
    const sameAccount = await create.run(request(), { ...user, userId: 'bob' }, 'order-23');
    const otherAgain = await create.run(request({ name: 'Something else entirely' }), inOther, 'order-23');

    expect(other.replayed).toBe(false);
    expect(other.body.job).toMatchObject({ accountId: 1002, name: 'Something else entirely' });
    expect(other.body.job.id).not.toBe(first.body.job.id);
    expect(withoutUploads(sameAccount)).toEqual({ ...withoutUploads(first), replayed: true });
    expect(withoutUploads(otherAgain)).toEqual({ ...withoutUploads(other), replayed: true });
    expect((await jobPartitions()).filter((key) => key.endsWith(' JOB'))).toHaveLength(2);
  });

  it('keeps keys of different clients apart', async () => {
    const create = new CreateJob({ client: documents, tableName, pictures });
    const a = await create.run(request(), user, 'order-19');
    const b = await create.run(request(), { ...user, clientId: 'client-b' }, 'order-19');

    expect(b.body.job.id).not.toBe(a.body.job.id);
  });

  it('creates one job for concurrent requests with one key, the others waiting for it as long as it takes', async () => {
    // The first request's commit is held until the seven others have found the key held, so they are waiting
    // while it writes, however fast or slow the machine; they are told to wait as long as that takes.
    let reads = 0;
    let everyoneWaiting!: () => void;
    const held = new Promise<void>((resolve) => {
      everyoneWaiting = resolve;
    });
    const gated = {
      send: async (command: unknown) => {
        if (command instanceof GetCommand && String(command.input.Key?.pk).startsWith(jobKeys.idempotencyPrefix)) {
          reads += 1;
          if (reads >= 7) everyoneWaiting();
        }
        if (command instanceof TransactWriteCommand && writesJobItem(command)) await held;
        return documents.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;

    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        new CreateJob({
          client: gated,
          tableName,
          pictures,
          idempotency: { waitBudgetMs: Number.POSITIVE_INFINITY },
        }).run(request({ files: files(150) }), user, 'order-20'),
      ),
    );

    expect(new Set(answers.map((answer) => answer.body.job.id)).size).toBe(1);
    expect(answers.filter((answer) => !answer.replayed)).toHaveLength(1);
    expect((await jobPartitions()).filter((key) => key.endsWith(' JOB'))).toHaveLength(1);
    expect((await repository.getJob(answers[0]!.body.job.id))?.job.files).toHaveLength(150);
  });

  it('lets a retry run again after the first request failed', async () => {
    const failing = {
      send: async (command: unknown) => {
        if (command instanceof TransactWriteCommand)
          throw Object.assign(new Error('boom'), { name: 'InternalFailure' });
        return documents.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;
    await expect(
      new CreateJob({ client: failing, tableName, pictures }).run(request(), user, 'order-21'),
    ).rejects.toThrow();

    const retried = await new CreateJob({ client: documents, tableName, pictures }).run(request(), user, 'order-21');

    expect(retried.replayed).toBe(false);
    expect(await repository.getJob(retried.body.job.id)).toBeDefined();
  });

  it('answers the first job to a retry after a crash right after the job committed, creating no second one', async () => {
    // The container dies the moment the job's commit is applied: nothing it would do after runs.
    let dead = false;
    const crashing = {
      send: async (command: unknown) => {
        if (dead) throw Object.assign(new Error('the container is gone'), { name: 'ECONNRESET' });
        if (command instanceof TransactWriteCommand && writesJobItem(command)) {
          await documents.send(command);
          dead = true;
          throw Object.assign(new Error('the container is gone'), { name: 'ECONNRESET' });
        }
        return documents.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;
    await expect(
      new CreateJob({ client: crashing, tableName, pictures }).run(request({ files: files(150) }), user, 'order-24'),
    ).rejects.toThrow();
    const [committed] = (await jobPartitions()).filter((key) => key.endsWith(' JOB'));

    // The retry comes after the dead request's claim would have expired.
    const later = { now: () => Date.now() + LEASE_MS + 1_000 };
    const retried = await new CreateJob({ client: documents, tableName, pictures, idempotency: later }).run(
      request({ files: files(150) }),
      user,
      'order-24',
    );

    expect(retried.replayed).toBe(true);
    expect(committed).toBe(`${jobKeys.pk(retried.body.job.id)} JOB`);
    expect(retried.body.files).toHaveLength(150);
    expect((await jobPartitions()).filter((key) => key.endsWith(' JOB'))).toEqual([committed]);
  });

  it('answers the job to a request whose commit went through while its SDK timed out, and replays it to the retry', async () => {
    const timingOut = {
      send: async (command: unknown) => {
        const answer = await documents.send(command as never);
        if (command instanceof TransactWriteCommand && writesJobItem(command)) {
          throw Object.assign(new Error('Request timed out'), { name: 'TimeoutError' });
        }
        return answer;
      },
    } as unknown as DynamoDBDocumentClient;

    const first = await new CreateJob({ client: timingOut, tableName, pictures }).run(request(), user, 'order-25');
    const retried = await new CreateJob({ client: documents, tableName, pictures }).run(request(), user, 'order-25');

    expect(first.replayed).toBe(false);
    expect(withoutUploads(retried)).toEqual({ ...withoutUploads(first), replayed: true });
    expect((await jobPartitions()).filter((key) => key.endsWith(' JOB'))).toEqual([
      `${jobKeys.pk(first.body.job.id)} JOB`,
    ]);
  });

  it('stores its records with a 24-hour TTL, keyed by account, client and the hash of the key', async () => {
    const before = Math.floor(Date.now() / 1000);
    await new CreateJob({ client: documents, tableName, pictures }).run(request(), user, 'order-22');

    const hash = createHash('sha256').update('order-22').digest('hex');
    const record = await new JobsTable(documents, tableName).getItem(jobKeys.idempotency('client-a', 1001, hash));
    expect(record).toMatchObject({ state: 'done' });
    expect(record?.ttl).toBeGreaterThanOrEqual(before + 86_400);
    expect(record?.ttl).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 86_400);
  });
});

describe('the release of a claim whose work failed', () => {
  const scope = { clientId: 'client-a', accountId: 1001 };
  const recordOf = (key: string) =>
    new JobsTable(documents, tableName).getItem(
      jobKeys.idempotency('client-a', 1001, createHash('sha256').update(key).digest('hex')),
    );

  it('never releases a completed record: the work committed its answer, then failed to say so', async () => {
    const table = new JobsTable(documents, tableName);
    const answer = { job: '{"id":5}', fileIds: [6] };

    const outcome = await new IdempotencyStore(table).run(scope, 'order-30', 'print', async (seal) => {
      await table.transactWrite([seal(answer)]);
      throw Object.assign(new Error('Request timed out'), { name: 'TimeoutError' });
    });

    expect(outcome).toEqual({ answer, replayed: false });
    expect(await recordOf('order-30')).toMatchObject({ state: 'done', answer });
    await expect(new IdempotencyStore(table).run(scope, 'order-30', 'print', async () => answer)).resolves.toEqual({
      answer,
      replayed: true,
    });
  });

  it('never releases a claim another request took over, whose commit it then refuses', async () => {
    const table = new JobsTable(documents, tableName);
    const failure = new Error('the create failed');
    let lateCommit: Promise<unknown> | undefined;

    const outcome = new IdempotencyStore(table).run(scope, 'order-31', 'print', async (seal) => {
      const key = jobKeys.idempotency('client-a', 1001, createHash('sha256').update('order-31').digest('hex'));
      await table.putItem({ Item: { ...key, state: 'pending', fingerprint: 'print', claimId: 'the-other-request' } });
      lateCommit = table.transactWrite([seal({ job: '{}', fileIds: [] })]).catch((error: unknown) => error);
      await lateCommit;
      throw failure;
    });

    await expect(outcome).rejects.toBe(failure);
    expect(await lateCommit).toMatchObject({ name: 'TransactionCanceledException' });
    expect(await recordOf('order-31')).toMatchObject({ state: 'pending', claimId: 'the-other-request' });
  });
});

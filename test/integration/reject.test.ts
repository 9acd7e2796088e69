import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/aws/dynamodb';
import { toFileItem, toFileItems, toJobItem } from '../../functions/jobs/store/items';
import { type Job, type JobFile, unreviewedFile } from '../../functions/jobs/model/model';
import { RejectContentionError } from '../../functions/jobs/review/reject';
import { RejectFiles, type RejectFilesOptions } from '../../functions/jobs/review/reject-files';
import type { FileRejection } from '../../functions/http/reject-request';
import { jobKeys } from '../../functions/tables';
import { createTestTables } from '../support/dynamo';

type Client = ReturnType<typeof createDocumentClient>;

const user = (accountId: number) => ({ role: 'user' as const, accountId });
const operator = { role: 'operator' as const, accountId: 1 };

let nextId = 1_000;
const newId = (): number => {
  nextId += 1;
  return nextId;
};

const jobFile = (overrides: Partial<JobFile> = {}): JobFile =>
  unreviewedFile({
    id: newId(),
    fileName: 'cem_test15.jpg',
    tags: ['shoe'],
    remarkToProcessor: 'Remove the background',
    ...overrides,
  });

const job = (overrides: Partial<Job> = {}): Job => ({
  id: newId(),
  accountId: 10,
  accountName: 'Café Müller Studio',
  status: 'CJ_REVIEWING',
  guid: crypto.randomUUID(),
  name: 'Spring catalogue',
  description: '',
  invoiceReference: 'INV-1',
  tags: [],
  realCost: 12.5,
  createdDate: '2024-01-05T10:00:00.000Z',
  acceptedDate: null,
  orderedDate: null,
  deliveredDate: null,
  reviewedDate: null,
  files: [jobFile(), jobFile(), jobFile()],
  ...overrides,
});

const cropping = (fileId: number, overrides: Partial<FileRejection> = {}): FileRejection => ({
  fileId,
  customRejection: 'Shadow under the shoe is missing',
  rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.61, yPercent: 0.44 }] }],
  ...overrides,
});

describe('rejecting files in DynamoDB', () => {
  let client: Client;
  let tableName: string;

  const store = async (...jobs: Job[]): Promise<void> => {
    for (const stored of jobs) {
      await client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName, Item: toJobItem(stored, 1) } },
            // The files as an import writes them: a job in review has been delivered.
            ...toFileItems(stored).map((item) => ({ Put: { TableName: tableName, Item: item } })),
          ],
        }),
      );
    }
  };

  const jobItem = async (jobId: number) =>
    (await client.send(new GetCommand({ TableName: tableName, Key: { pk: jobKeys.pk(jobId), sk: jobKeys.jobSk } })))
      .Item;

  const fileItem = async (jobId: number, fileId: number) =>
    (
      await client.send(
        new GetCommand({ TableName: tableName, Key: { pk: jobKeys.pk(jobId), sk: jobKeys.fileSk(fileId) } }),
      )
    ).Item;

  const partition = async (jobId: number) =>
    (
      await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': jobKeys.pk(jobId) },
          ConsistentRead: true,
        }),
      )
    ).Items;

  const useCase = (options: Partial<RejectFilesOptions> = {}) =>
    new RejectFiles({ client, tableName, retry: { baseDelayMs: 5, maxDelayMs: 50 }, ...options });

  beforeAll(async () => {
    const tables = await createTestTables();
    tableName = tables.jobsTable;
    client = createDocumentClient({
      region: 'us-east-1',
      dynamodbEndpoint: tables.endpoint,
      dependencyTimeoutMs: 5_000,
    });
  });

  it('rejects files of two jobs in one go: files reviewed, jobs ready for rework, each version bumped once', async () => {
    const first = job();
    const second = job({ status: 'CJ_FINISHED' });
    await store(first, second);
    const now = new Date('2024-03-01T10:00:00.000Z');
    const [a, b] = first.files;
    const [c] = second.files;

    const response = await useCase({ now: () => now }).run(
      { files: [cropping(c!.id), cropping(a!.id, { rejects: [] }), cropping(b!.id)] },
      user(10),
    );

    expect(response).toEqual({
      _type: 'RejectResponseBody',
      files: [
        {
          fileId: c!.id,
          jobId: second.id,
          isRejected: true,
          rejectionReason: ' - Cropping',
          reviewDate: now.toISOString(),
        },
        {
          fileId: a!.id,
          jobId: first.id,
          isRejected: true,
          rejectionReason: 'Shadow under the shoe is missing',
          reviewDate: now.toISOString(),
        },
        {
          fileId: b!.id,
          jobId: first.id,
          isRejected: true,
          rejectionReason: ' - Cropping',
          reviewDate: now.toISOString(),
        },
      ],
      jobs: [
        { id: second.id, status: 'CJ_REJECT_READY' },
        { id: first.id, status: 'CJ_REJECT_READY' },
      ],
    });
    expect(await jobItem(first.id)).toMatchObject({
      status: 'CJ_REJECT_READY',
      reviewedDate: now.toISOString(),
      version: 2,
    });
    expect(await jobItem(second.id)).toMatchObject({ status: 'CJ_REJECT_READY', version: 2 });
    expect(await fileItem(first.id, b!.id)).toMatchObject({
      isRejected: true,
      isReviewed: true,
      reviewDate: now.toISOString(),
      rejectionReason: ' - Cropping',
      reviews: {
        customRejection: 'Shadow under the shoe is missing',
        rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.61, yPercent: 0.44 }] }],
        reviewDate: now.toISOString(),
      },
      previousReviews: [],
      fileName: 'cem_test15.jpg',
    });
    expect(await fileItem(first.id, first.files[2]!.id)).toMatchObject({ isRejected: false, reviewDate: null });
  });

  it('keeps an earlier review in previousReviews when a file is rejected again differently', async () => {
    const stored = job();
    await store(stored);
    const fileId = stored.files[0]!.id;
    const first = new Date('2024-03-01T10:00:00.000Z');
    const second = new Date('2024-03-02T10:00:00.000Z');
    await useCase({ now: () => first }).run({ files: [cropping(fileId)] }, user(10));
    await useCase({ now: () => second }).run(
      { files: [cropping(fileId, { customRejection: 'Still too dark' })] },
      user(10),
    );

    const item = await fileItem(stored.id, fileId);
    expect(item?.reviews).toMatchObject({ customRejection: 'Still too dark', reviewDate: second.toISOString() });
    expect(item?.previousReviews).toEqual([
      {
        customRejection: 'Shadow under the shoe is missing',
        rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.61, yPercent: 0.44 }] }],
        reviewDate: first.toISOString(),
      },
    ]);
    expect(await jobItem(stored.id)).toMatchObject({ version: 3, reviewedDate: second.toISOString() });
  });

  it('changes nothing when one file of the request cannot be rejected', async () => {
    const good = job();
    const archived = job({ status: 'CJ_ARCHIVED' });
    await store(good, archived);
    const before = [await partition(good.id), await partition(archived.id)];

    await expect(
      useCase().run({ files: [cropping(good.files[0]!.id), cropping(archived.files[0]!.id)] }, user(10)),
    ).rejects.toMatchObject({ code: 'job_archived', fileId: archived.files[0]!.id });

    expect([await partition(good.id), await partition(archived.id)]).toEqual(before);
  });

  it('answers file_not_found for a file id no job has', async () => {
    await expect(useCase().run({ files: [cropping(987_654_321)] }, user(10))).rejects.toMatchObject({
      code: 'file_not_found',
      fileId: 987_654_321,
    });
  });

  it("hides another account's file from a user and lets an operator reject it", async () => {
    const foreign = job({ accountId: 77 });
    await store(foreign);
    const fileId = foreign.files[0]!.id;
    await expect(useCase().run({ files: [cropping(fileId)] }, user(10))).rejects.toMatchObject({
      code: 'file_not_found',
      fileId,
    });
    await expect(useCase().run({ files: [cropping(fileId)] }, operator)).resolves.toMatchObject({
      jobs: [{ id: foreign.id, status: 'CJ_REJECT_READY' }],
    });
  });

  it.each([10, 0])(
    "finds the own file of a user of account %i when another account's job has a file with the same id, and leaves that one alone",
    async (account) => {
      const fileId = newId();
      const mine = job({ accountId: account, files: [jobFile({ id: fileId })] });
      const theirs = job({ accountId: 77, files: [jobFile({ id: fileId })] });
      // Both orders of creation, so the file index cannot happen to list the caller's file first.
      await store(theirs, mine);
      const theirsBefore = await partition(theirs.id);

      await expect(useCase().run({ files: [cropping(fileId)] }, user(account))).resolves.toMatchObject({
        files: [{ fileId, jobId: mine.id, isRejected: true }],
        jobs: [{ id: mine.id, status: 'CJ_REJECT_READY' }],
      });
      expect(await partition(theirs.id)).toEqual(theirsBefore);
      expect(await fileItem(mine.id, fileId)).toMatchObject({ isRejected: true });

      await expect(useCase().run({ files: [cropping(fileId)] }, user(77))).resolves.toMatchObject({
        files: [{ fileId, jobId: theirs.id, isRejected: true }],
      });
    },
  );

  it("answers file_not_found to a user when only another account's jobs have the file id", async () => {
    const fileId = newId();
    const first = job({ accountId: 77, files: [jobFile({ id: fileId })] });
    const second = job({ accountId: 78, files: [jobFile({ id: fileId })] });
    await store(first, second);
    const before = [await partition(first.id), await partition(second.id)];

    await expect(useCase().run({ files: [cropping(fileId)] }, user(10))).rejects.toMatchObject({
      code: 'file_not_found',
      fileId,
    });
    expect([await partition(first.id), await partition(second.id)]).toEqual(before);
  });

  it("confines a user of account 0 to account 0: another account's file is not found and stays as it was", async () => {
    const foreign = job({ accountId: 77 });
    const mine = job({ accountId: 0 });
    await store(foreign, mine);
    const foreignBefore = await partition(foreign.id);

    await expect(useCase().run({ files: [cropping(foreign.files[0]!.id)] }, user(0))).rejects.toMatchObject({
      code: 'file_not_found',
      fileId: foreign.files[0]!.id,
    });
    expect(await partition(foreign.id)).toEqual(foreignBefore);
    await expect(useCase().run({ files: [cropping(mine.files[0]!.id)] }, user(77))).rejects.toMatchObject({
      code: 'file_not_found',
      fileId: mine.files[0]!.id,
    });
    await expect(useCase().run({ files: [cropping(mine.files[0]!.id)] }, user(0))).resolves.toMatchObject({
      files: [{ fileId: mine.files[0]!.id, jobId: mine.id, isRejected: true }],
      jobs: [{ id: mine.id, status: 'CJ_REJECT_READY' }],
    });
  });

  it('refuses a file id that names several files the caller may change, and changes none of them', async () => {
    const fileId = newId();
    const first = job({ accountId: 10, files: [jobFile({ id: fileId })] });
    const second = job({ accountId: 77, files: [jobFile({ id: fileId })] });
    const third = job({ accountId: 10, files: [jobFile({ id: fileId })] });
    await store(first, second, third);
    const before = [await partition(first.id), await partition(second.id), await partition(third.id)];

    for (const caller of [operator, user(10)]) {
      await expect(useCase().run({ files: [cropping(fileId)] }, caller)).rejects.toMatchObject({
        code: 'file_not_rejectable',

        fileId,
        message: expect.stringContaining('more than one'),
      });
    }
    expect([await partition(first.id), await partition(second.id), await partition(third.id)]).toEqual(before);
    // The one account that holds the id once is unaffected by the others.
    await expect(useCase().run({ files: [cropping(fileId)] }, user(77))).resolves.toMatchObject({
      files: [{ fileId, jobId: second.id }],
    });
  });

  it('answers file_not_rejectable for a file the customer accepted, or a job not in review', async () => {
    const accepted = job({ files: [jobFile({ acceptedByUser: true })] });
    const inProgress = job({ status: 'CJ_WORK_PROGRESS' });
    await store(accepted, inProgress);
    await expect(useCase().run({ files: [cropping(accepted.files[0]!.id)] }, user(10))).rejects.toMatchObject({
      code: 'file_not_rejectable',
    });
    await expect(useCase().run({ files: [cropping(inProgress.files[0]!.id)] }, user(10))).rejects.toMatchObject({
      code: 'file_not_rejectable',
    });
  });

  it('answers a repeat with the original review date and writes nothing', async () => {
    const stored = job();
    await store(stored);
    const fileId = stored.files[0]!.id;
    const first = new Date('2024-03-01T10:00:00.000Z');
    await useCase({ now: () => first }).run({ files: [cropping(fileId)] }, user(10));
    const after = await partition(stored.id);

    const repeat = await useCase({ now: () => new Date('2024-03-05T00:00:00.000Z') }).run(
      { files: [cropping(fileId)] },
      user(10),
    );

    expect(repeat.files).toEqual([
      { fileId, jobId: stored.id, isRejected: true, rejectionReason: ' - Cropping', reviewDate: first.toISOString() },
    ]);
    expect(await partition(stored.id)).toEqual(after);
  });

  it('writes only the new files of a request that mixes a repeat with new rejections', async () => {
    const repeated = job();
    const fresh = job();
    await store(repeated, fresh);
    const first = new Date('2024-03-01T10:00:00.000Z');
    const later = new Date('2024-03-02T10:00:00.000Z');
    await useCase({ now: () => first }).run({ files: [cropping(repeated.files[0]!.id)] }, user(10));
    const repeatedAfter = await partition(repeated.id);

    const response = await useCase({ now: () => later }).run(
      { files: [cropping(repeated.files[0]!.id), cropping(fresh.files[0]!.id)] },
      user(10),
    );

    expect(response.files.map((file) => file.reviewDate)).toEqual([first.toISOString(), later.toISOString()]);
    expect(await partition(repeated.id)).toEqual(repeatedAfter);
    expect(await jobItem(fresh.id)).toMatchObject({ version: 2, status: 'CJ_REJECT_READY' });
  });

  /**
   * A client that archives a job once, just before the first transaction it is asked to send: a change that
   * lands between the reject's read and its write (with or without the version bump every writer makes).
   */
  const archivingBeforeTheWrite = (jobId: number, { bumpVersion }: { bumpVersion: boolean }) => {
    let interfered = false;
    const archive = new UpdateCommand({
      TableName: tableName,
      Key: { pk: jobKeys.pk(jobId), sk: jobKeys.jobSk },
      UpdateExpression: bumpVersion ? 'SET #status = :archived, #version = #version + :one' : 'SET #status = :archived',
      ExpressionAttributeNames: bumpVersion ? { '#status': 'status', '#version': 'version' } : { '#status': 'status' },
      ExpressionAttributeValues: bumpVersion
        ? { ':archived': 'CJ_ARCHIVED', ':one': 1 }
        : { ':archived': 'CJ_ARCHIVED' },
    });
    const interfering = {
      send: async (command: unknown) => {
        if (command instanceof TransactWriteCommand && !interfered) {
          interfered = true;
          await client.send(archive);
        }
        return client.send(command as never);
      },
    } as unknown as Client;
    return { client: interfering, interfered: () => interfered };
  };

  it('never overwrites a change made between its read and its write: it reads again and decides again', async () => {
    const stored = job();
    await store(stored);
    const interfering = archivingBeforeTheWrite(stored.id, { bumpVersion: true });

    await expect(
      useCase({ client: interfering.client }).run({ files: [cropping(stored.files[0]!.id)] }, user(10)),
    ).rejects.toMatchObject({ code: 'job_archived' });
    expect(interfering.interfered()).toBe(true);
    expect(await fileItem(stored.id, stored.files[0]!.id)).toMatchObject({ isRejected: false, reviews: null });
  });

  it('fails cleanly when a job it only checks leaves review between its read and its write: nothing is written', async () => {
    // The request repeats an earlier rejection of one job (nothing to write there, only a check that the job
    // is still in review) and rejects a file of another job. The checked job is archived meanwhile.
    const repeated = job();
    const fresh = job();
    await store(repeated, fresh);
    await useCase().run({ files: [cropping(repeated.files[0]!.id)] }, user(10));
    const before = [await partition(repeated.id), await partition(fresh.id)];
    const interfering = archivingBeforeTheWrite(repeated.id, { bumpVersion: false });

    await expect(
      useCase({ client: interfering.client }).run(
        { files: [cropping(repeated.files[0]!.id), cropping(fresh.files[0]!.id)] },
        user(10),
      ),
    ).rejects.toMatchObject({ code: 'job_archived', fileId: repeated.files[0]!.id });
    expect(interfering.interfered()).toBe(true);
    expect(await partition(fresh.id)).toEqual(before[1]);
    expect(await partition(repeated.id)).toEqual(
      before[0]!.map((item) => (item.sk === jobKeys.jobSk ? { ...item, status: 'CJ_ARCHIVED' } : item)),
    );
  });

  it('fails the write when a file changed without a version bump', async () => {
    const stored = job();
    await store(stored);
    const fileId = stored.files[0]!.id;
    let interfered = false;
    const interfering = {
      send: async (command: unknown) => {
        if (command instanceof TransactWriteCommand && !interfered) {
          interfered = true;
          await client.send(
            new PutCommand({
              TableName: tableName,
              Item: toFileItem(stored.id, { ...stored.files[0]!, acceptedByUser: true }),
            }),
          );
        }
        return client.send(command as never);
      },
    } as unknown as Client;

    await expect(useCase({ client: interfering }).run({ files: [cropping(fileId)] }, user(10))).rejects.toMatchObject({
      code: 'file_not_rejectable',
      fileId,
    });
    expect(await jobItem(stored.id)).toMatchObject({ version: 1, status: 'CJ_REVIEWING' });
  });

  it('gives up with a contention error after its attempts when every write loses the race', async () => {
    const stored = job();
    await store(stored);
    let touches = 0;
    const touching = {
      send: async (command: unknown) => {
        if (command instanceof TransactWriteCommand) {
          touches += 1;
          await client.send(
            new UpdateCommand({
              TableName: tableName,
              Key: { pk: jobKeys.pk(stored.id), sk: jobKeys.fileSk(stored.files[0]!.id) },
              UpdateExpression: 'SET #reviewDate = :touched',
              ExpressionAttributeNames: { '#reviewDate': 'reviewDate' },
              ExpressionAttributeValues: { ':touched': new Date(Date.UTC(2024, 0, touches)).toISOString() },
            }),
          );
        }
        return client.send(command as never);
      },
    } as unknown as Client;

    const outcome = useCase({ client: touching, retry: { maxAttempts: 3 }, sleep: async () => {} }).run(
      { files: [cropping(stored.files[0]!.id)] },
      user(10),
    );
    await expect(outcome).rejects.toBeInstanceOf(RejectContentionError);
    await expect(outcome).rejects.toMatchObject({ attempts: 3 });
    expect(await fileItem(stored.id, stored.files[0]!.id)).toMatchObject({ isRejected: false });
  });

  it('answers 20 concurrent identical rejects with one review date and one version bump', async () => {
    const stored = job();
    await store(stored);
    const fileId = stored.files[1]!.id;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => useCase().run({ files: [cropping(fileId)] }, user(10))),
    );
    const dates = new Set(responses.map((response) => response.files[0]!.reviewDate));
    expect(dates.size).toBe(1);
    expect(await fileItem(stored.id, fileId)).toMatchObject({ reviewDate: [...dates][0], previousReviews: [] });
    expect(await jobItem(stored.id)).toMatchObject({ version: 2 });
  });

  it('loses no review when different files of one job are rejected concurrently', async () => {
    const stored = job({ files: Array.from({ length: 6 }, () => jobFile()) });
    await store(stored);
    await Promise.all(
      stored.files.map((file, index) =>
        useCase().run({ files: [cropping(file.id, { customRejection: `fix ${index}` })] }, user(10)),
      ),
    );
    for (const [index, file] of stored.files.entries()) {
      expect(await fileItem(stored.id, file.id)).toMatchObject({
        isRejected: true,
        reviews: { customRejection: `fix ${index}` },
      });
    }
    expect(await jobItem(stored.id)).toMatchObject({ version: 1 + stored.files.length, status: 'CJ_REJECT_READY' });
  });

  it('answers success to 20 concurrent rejects of 20 different files of one job, adding one version per write', async () => {
    const stored = job({ files: Array.from({ length: 20 }, () => jobFile()) });
    await store(stored);
    const versionBefore = (await jobItem(stored.id))!.version as number;
    const responses = await Promise.all(
      stored.files.map((file, index) =>
        useCase().run({ files: [cropping(file.id, { customRejection: `rework ${index}` })] }, user(10)),
      ),
    );
    expect(responses.map((response) => response.files[0]!.fileId)).toEqual(stored.files.map((file) => file.id));
    expect(responses.every((response) => response.jobs[0]!.status === 'CJ_REJECT_READY')).toBe(true);
    for (const [index, file] of stored.files.entries()) {
      expect(await fileItem(stored.id, file.id)).toMatchObject({
        isRejected: true,
        reviews: { customRejection: `rework ${index}` },
      });
    }
    expect(await jobItem(stored.id)).toMatchObject({ version: versionBefore + 20, status: 'CJ_REJECT_READY' });
  });
});

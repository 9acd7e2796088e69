/**
 * The pictures of a file item belong to the images function: an import or a seed that rewrites a job's files
 * keeps each file's `original`, `edited` and `previousEdits` — also when a picture is recorded between the
 * rewrite's read and its write, in one transaction or, for a job too large for one, file by file — and neither a
 * job read nor the search document carries them. On DynamoDB Local.
 */
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { ReadyVariant } from '../../functions/images/file-images';
import { newUploadId } from '../../functions/images/object-keys';
import type { Job } from '../../functions/jobs/model/model';
import { recordFileImage } from '../../functions/jobs/store/file-images-write';
import { JobsTable } from '../../functions/jobs/store/jobs-table';
import { JobRepository } from '../../functions/jobs/store/repository';
import { jobKeys } from '../../functions/tables';
import { fileJobsTable } from '../support/dynamo';
import { makeFile, makeJob } from '../support/jobs';

const table = fileJobsTable();

let clock = Date.UTC(2026, 1, 1);
const ready = (): ReadyVariant => {
  clock += 1_000;
  return {
    status: 'ready',
    uploadId: newUploadId(clock),
    contentType: 'image/jpeg',
    size: 1_234,
    width: 800,
    height: 600,
    sha256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
    uploadedDate: new Date(clock).toISOString(),
  };
};

/** Records a picture on a file as the images function does. */
const record = (jobId: number, fileId: number, variant: 'original' | 'edited', value: ReadyVariant) =>
  recordFileImage(
    new JobsTable(table.documents, table.name),
    { jobId, fileId, variant, uploadId: value.uploadId },
    value,
  );

const fileItem = async (jobId: number, fileId: number): Promise<Record<string, unknown> | undefined> =>
  (
    await table.documents.send(
      new GetCommand({ TableName: table.name, Key: { pk: jobKeys.pk(jobId), sk: jobKeys.fileSk(fileId) } }),
    )
  ).Item;

/** A job of `files` files written to the table, with an original on each file and two edited versions on the first. */
const jobWithPictures = async (files = 2) => {
  const job = makeJob({ files: Array.from({ length: files }, () => makeFile()) });
  await new JobRepository(table.documents, table.name).importJob(job);
  const [first] = job.files;
  for (const file of job.files) await record(job.id, file.id, 'original', ready());
  const replaced = ready();
  await record(job.id, first!.id, 'edited', replaced);
  const edited = ready();
  await record(job.id, first!.id, 'edited', edited);
  return { job, first: first!, replaced, edited };
};

/** The job with every file's tags changed (so an import rewrites every file item). */
const retagged = (job: Job): Job => ({
  ...job,
  name: `${job.name} (re-imported)`,
  files: job.files.map((file) => ({ ...file, tags: [...file.tags, 'reimported'] })),
});

/**
 * A document client on the test table that records a picture on the file just before the first request of the
 * given kinds goes out: a picture arriving between a rewrite's read and its write.
 */
const racingClient = (
  kinds: ReadonlyArray<new (...args: never[]) => object>,
  race: () => Promise<unknown>,
): DynamoDBDocumentClient => {
  let raced = false;
  return new Proxy(table.documents, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver) as unknown;
      return async (command: object) => {
        if (!raced && kinds.some((kind) => command instanceof kind)) {
          raced = true;
          await race();
        }
        return target.send(command as never);
      };
    },
  });
};

describe('rewrites of a job keep the pictures of its files', () => {
  it('an import that changes every file keeps each file’s original, edited and previous edited versions', async () => {
    const { job, first, replaced, edited } = await jobWithPictures();
    const before = await fileItem(job.id, first.id);

    const result = await new JobRepository(table.documents, table.name).importJob(retagged(job));

    expect(result.outcome).toBe('updated');
    const after = await fileItem(job.id, first.id);
    expect(after?.tags).toContain('reimported');
    expect(after?.original).toEqual(before?.original);
    expect(after?.edited).toEqual(edited);
    expect(after?.previousEdits).toEqual([replaced]);
    expect((await fileItem(job.id, job.files[1]!.id))?.original).toMatchObject({ status: 'ready' });
  });

  it('a seed of the same job again finds it unchanged: its pictures are no difference to write', async () => {
    const { job } = await jobWithPictures();

    const repository = new JobRepository(table.documents, table.name);

    expect((await repository.importJob(job)).outcome).toBe('unchanged');
    expect((await repository.putJob(job)).outcome).toBe('unchanged');
  });

  it('an import whose read missed a picture recorded before its transaction retries and keeps it', async () => {
    const { job, first } = await jobWithPictures();
    const late = ready();
    const client = racingClient([TransactWriteCommand], () => record(job.id, first.id, 'original', late));

    await new JobRepository(client, table.name).importJob(retagged(job));

    const after = await fileItem(job.id, first.id);
    expect(after?.original).toEqual(late);
    expect(after?.tags).toContain('reimported');
  });

  it('an import of a job too large for one transaction keeps a picture recorded before its file writes', async () => {
    const { job, first } = await jobWithPictures(3);
    const late = ready();
    const client = racingClient([PutCommand, BatchWriteCommand], () => record(job.id, first.id, 'original', late));

    await new JobRepository(client, table.name, { maxTransactionItems: 2 }).importJob(retagged(job));

    const after = await fileItem(job.id, first.id);
    expect(after?.original).toEqual(late);
    expect(after?.tags).toContain('reimported');
  });

  it('neither a job read nor what the search document is built from carries pictures', async () => {
    const { job } = await jobWithPictures();
    const repository = new JobRepository(table.documents, table.name);

    const read = await repository.getJob(job.id);
    const searched = await repository.getSearchedJob(job.id);

    for (const file of [...(read?.job.files ?? []), ...(searched?.job.files ?? [])]) {
      expect(Object.keys(file)).not.toContain('original');
      expect(Object.keys(file)).not.toContain('edited');
      expect(Object.keys(file)).not.toContain('previousEdits');
    }
    expect(read?.job).toEqual(job);
  });
});

import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JobRepository } from '../../functions/jobs/store/repository';
import { demoJobs } from '../../local/demo/data';
import { ImportAbortedError, type ImportProgress, importJobs, importNdjson } from '../../local/operations/import';
import { createTestTables, localClient } from '../support/dynamo';
import { makeFile, makeJob } from '../support/jobs';

const client = localClient();
const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
let repository: JobRepository;
let directory: string;

const file = (name: string, lines: string[], eol = '\n'): string => {
  const path = join(directory, name);
  writeFileSync(path, lines.join(eol));
  return path;
};

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'import-test-'));
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

beforeEach(async () => {
  const tables = await createTestTables(client);
  repository = new JobRepository(documents, tables.jobsTable);
});

describe('NDJSON import', () => {
  it('imports every job of a file, with dates normalised to UTC milliseconds', async () => {
    const job = makeJob({ createdDate: '2016-01-14T14:57:33.8931021+01:00', files: [makeFile(), makeFile()] });
    const other = makeJob({ acceptedDate: '2016-05-06' });
    const path = file('jobs.ndjson', [`\uFEFF${JSON.stringify(job)}`, '', JSON.stringify(other), ''], '\r\n');

    const result = await importNdjson(path, { repository });

    expect(result).toEqual({ imported: 2, unchanged: 0, failed: [] });
    const stored = await repository.getJob(job.id);
    expect(stored?.job).toEqual({ ...job, createdDate: '2016-01-14T13:57:33.893Z' });
    expect((await repository.getJob(other.id))?.job.acceptedDate).toBe('2016-05-06T00:00:00.000Z');
  });

  it('reports each bad line by number with a message naming the field, and imports every other line', async () => {
    const good = [makeJob(), makeJob(), makeJob()];
    const lines = [
      JSON.stringify(good[0]),
      '{ not json',
      JSON.stringify({ ...makeJob(), status: 'CJ_UNKNOWN' }),
      JSON.stringify(good[1]),
      JSON.stringify({ ...makeJob(), files: [{ ...makeFile(), reviewDate: '2016-02-30T10:00:00Z' }] }),
      '[1, 2, 3]',
      JSON.stringify(good[2]),
    ];

    const result = await importNdjson(Readable.from([lines.join('\n')]), { repository });

    expect(result.imported).toBe(3);
    expect(result.failed.map((failure) => failure.line)).toEqual([2, 3, 5, 6]);
    expect(result.failed[0]?.message).toMatch(/not valid JSON/);
    expect(result.failed[1]?.message).toMatch(/^status must be one of/);
    expect(result.failed[2]?.message).toMatch(/^files\[0\]\.reviewDate must be an ISO 8601 datetime/);
    expect(result.failed[3]?.message).toMatch(/^job must be an object/);
    for (const job of good) expect((await repository.getJob(job.id))?.job.id).toBe(job.id);
  });

  it('changes nothing when the same file is imported again', async () => {
    const jobs = Array.from({ length: 12 }, () => makeJob({ files: [makeFile(), makeFile()] }));
    const path = file(
      'rerun.ndjson',
      jobs.map((job) => JSON.stringify(job)),
    );
    await importNdjson(path, { repository, batchSize: 5 });
    const before = await Promise.all(jobs.map(async (job) => (await repository.getJob(job.id))?.version));

    const again = await importNdjson(path, { repository, batchSize: 5 });

    expect(again).toEqual({ imported: 0, unchanged: 12, failed: [] });
    const after = await Promise.all(jobs.map(async (job) => (await repository.getJob(job.id))?.version));
    expect(after).toEqual(before);
  });

  it('keeps the last of several lines for the same job', async () => {
    const job = makeJob({ name: 'First' });
    const lines = [job, { ...job, name: 'Second' }, { ...job, name: 'Third' }].map((value) => JSON.stringify(value));

    const result = await importNdjson(Readable.from([lines.join('\n')]), { repository, batchSize: 100 });

    expect(result).toEqual({ imported: 3, unchanged: 0, failed: [] });
    expect((await repository.getJob(job.id))?.job.name).toBe('Third');
  });

  it('reports progress up to the whole file', async () => {
    const jobs = Array.from({ length: 9 }, () => makeJob());
    const path = file(
      'progress.ndjson',
      jobs.map((job) => JSON.stringify(job)),
    );
    const reports: ImportProgress[] = [];

    await importNdjson(path, { repository, batchSize: 4, onProgress: (progress) => reports.push(progress) });

    expect(reports.length).toBeGreaterThanOrEqual(3);
    expect(reports.map((report) => report.lines)).toEqual(
      [...reports.map((report) => report.lines)].sort((a, b) => a - b),
    );
    expect(reports.at(-1)).toEqual({
      lines: 9,
      imported: 9,
      unchanged: 0,
      failed: 0,
      bytesRead: statSync(path).size,
      totalBytes: statSync(path).size,
    });
  });

  it('stops with ImportAbortedError, keeping what was written, when the table cannot be written', async () => {
    const missing = new JobRepository(documents, 'no-such-table');

    const error = await importNdjson(Readable.from([JSON.stringify(makeJob())]), { repository: missing }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(ImportAbortedError);
    expect((error as ImportAbortedError).partial).toEqual({ imported: 0, unchanged: 0, failed: [] });
    expect((error as Error).message).toMatch(/line 1/);
  });
});

describe('importing job values', () => {
  it('imports demo jobs once and finds them unchanged the second time', async () => {
    const jobs = demoJobs().slice(0, 24);

    const first = await importJobs(jobs, { repository });
    const second = await importJobs(jobs, { repository });

    expect(first).toEqual({ imported: jobs.length, unchanged: 0, failed: [] });
    expect(second).toEqual({ imported: 0, unchanged: jobs.length, failed: [] });
    const sample = jobs[17];
    expect((await repository.getJob(sample?.id ?? 0))?.job).toEqual(sample);
  });

  it('reports an invalid entry by its position', async () => {
    const result = await importJobs([makeJob(), { ...makeJob(), guid: 'not-a-guid' }], { repository });

    expect(result.imported).toBe(1);
    expect(result.failed).toEqual([{ line: 2, message: expect.stringMatching(/^guid must be a UUID/) }]);
  });
});

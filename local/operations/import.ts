/**
 * Imports jobs into the jobs table: from an NDJSON file (one job per line, the shape of docs/contract.md §6
 * with `files`) or from a list (demo data). Every job is validated first; a bad line is reported with
 * its line number and skipped, every other line is written. Upserts are idempotent: importing the same
 * file twice changes nothing the second time (no version is bumped, so nothing is re-indexed).
 *
 * Lines are written in batches: the new jobs of a batch several per transaction without reading them
 * first, the existing ones read and written one by one under the optimistic lock, so a change another
 * writer makes while the import runs is never overwritten (that line is reported instead).
 */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Job } from '../../functions/jobs/model/model';
import { type JobRepository, JobSupersededError, type PutResult } from '../../functions/jobs/store/repository';
import { JobValidationError, validateJob } from './validate-job';

/** A line (or list entry) that was not imported, and why. */
export interface ImportFailure {
  /** 1-based line number (list position for {@link importJobs}). */
  line: number;
  message: string;
}

export interface ImportResult {
  /** Jobs created or changed. */
  imported: number;
  /** Jobs the table already held exactly. */
  unchanged: number;
  failed: ImportFailure[];
}

/** How far an import got, reported after every batch. */
export interface ImportProgress {
  /** Lines (or entries) read so far. */
  lines: number;
  imported: number;
  unchanged: number;
  failed: number;
  /** Bytes of the input read so far (files and streams). */
  bytesRead: number;
  /** The input's size when known (a file path). */
  totalBytes: number | undefined;
}

export interface ImportOptions {
  repository: Pick<JobRepository, 'importJobs' | 'claimImportIds'>;
  onProgress?: (progress: ImportProgress) => void;
  /** Jobs written per batch. */
  batchSize?: number;
  /** Transactions (and careful per-job writes) in flight at once within a batch. */
  concurrency?: number;
}

/** Jobs per batch: enough shared transactions to keep every writer busy until the batch's tail. */
export const DEFAULT_IMPORT_BATCH = 1_000;
/** Writes in flight, measured on DynamoDB Local (`npm run bench -- --only=import`). */
export const DEFAULT_IMPORT_CONCURRENCY = 8;

/**
 * The import stopped because the table could not be written (unavailable, throttled past retries).
 * Everything reported in `partial` was written; rerunning the import is safe.
 */
export class ImportAbortedError extends Error {
  public readonly partial: ImportResult;

  public constructor(line: number, partial: ImportResult, cause: unknown) {
    // "dynamodb is unavailable" alone does not say why: name the underlying error too.
    const inner =
      cause instanceof Error && cause.cause instanceof Error ? `: ${cause.cause.name}: ${cause.cause.message}` : '';
    const detail = cause instanceof Error ? `${cause.message}${inner}` : String(cause);
    super(`The import stopped at line ${line}: the jobs table could not be written (${detail})`, { cause });
    this.name = 'ImportAbortedError';
    this.partial = partial;
  }
}

interface Pending {
  line: number;
  job: Job;
}

/** Errors that belong to one job (DynamoDB refusing the item itself) rather than to the table. */
const isJobSpecificError = (error: unknown): boolean =>
  error instanceof Error &&
  (error.name === 'ValidationException' || error instanceof JobValidationError || error instanceof JobSupersededError);

const refusal = (error: Error): string =>
  error instanceof JobSupersededError ? error.message : `the table refused the job: ${error.message}`;

/**
 * Why a line naming an id the API reserved was not written. The counter tells only that the API reserved an
 * id (a container takes a block at a time), not whether a job or file holds it yet, so the message claims no
 * more than that.
 */
export const apiIdRefusal = (jobId: number, id: number): string =>
  id === jobId
    ? `job ${jobId} has an id the API reserved for the jobs and files it creates; the line was not written`
    : `job ${jobId} names id ${id}, which the API reserved for the jobs and files it creates; the line was not written`;

/** Collects validated jobs into batches and writes each batch, keeping the counts. */
class ImportWriter {
  public readonly result: ImportResult = { imported: 0, unchanged: 0, failed: [] };
  private batch: Pending[] = [];
  private readonly batchIds = new Set<number>();
  private readonly options: ImportOptions;
  private readonly batchSize: number;

  public constructor(options: ImportOptions) {
    this.options = options;
    this.batchSize = Math.max(1, options.batchSize ?? DEFAULT_IMPORT_BATCH);
  }

  public fail(line: number, message: string): void {
    this.result.failed.push({ line, message });
  }

  /** The progress so far, after `lines` lines (`bytesRead` of `totalBytes` when reading a file). */
  public progress(lines: number, bytesRead: number, totalBytes: number | undefined): ImportProgress {
    const { imported, unchanged, failed } = this.result;
    return { lines, imported, unchanged, failed: failed.length, bytesRead, totalBytes };
  }

  /** Queues a job; a batch is written when full, or before a second version of the same job joins it. */
  public async add(line: number, value: unknown): Promise<boolean> {
    let job: Job;
    try {
      job = validateJob(value);
    } catch (error) {
      if (!(error instanceof JobValidationError)) throw error;
      this.fail(line, error.message);
      return false;
    }
    let flushed = false;
    if (this.batchIds.has(job.id)) {
      await this.flush();
      flushed = true;
    }
    this.batch.push({ line, job });
    this.batchIds.add(job.id);
    if (this.batch.length >= this.batchSize) {
      await this.flush();
      flushed = true;
    }
    return flushed;
  }

  /** Writes the queued batch. */
  public async flush(): Promise<void> {
    const claimed = this.batch;
    this.batch = [];
    this.batchIds.clear();
    if (claimed.length === 0) return;
    const batch = await this.withoutApiIds(claimed);
    if (batch.length === 0) return;
    const concurrency = this.options.concurrency ?? DEFAULT_IMPORT_CONCURRENCY;
    const settled = await this.options.repository.importJobs(
      batch.map((pending) => pending.job),
      { concurrency, fallbackConcurrency: concurrency },
    );
    let abort: { line: number; cause: unknown } | undefined;
    settled.forEach((outcome, index) => {
      const { line } = batch[index] as Pending;
      if (outcome.status === 'fulfilled') this.count(outcome.value);
      else if (isJobSpecificError(outcome.reason)) this.fail(line, refusal(outcome.reason as Error));
      else abort ??= { line, cause: outcome.reason };
    });
    if (abort !== undefined) throw new ImportAbortedError(abort.line, this.result, abort.cause);
  }

  /**
   * The lines of a batch that name no id the API reserved: those that do are reported, like a job another
   * writer changed, and not written (and the API will never assign the ids the others name).
   */
  private async withoutApiIds(batch: Pending[]): Promise<Pending[]> {
    const idsOf = (job: Job): number[] => [job.id, ...job.files.map((file) => file.id)];
    let taken: Set<number>;
    try {
      taken = await this.options.repository.claimImportIds(batch.flatMap(({ job }) => idsOf(job)));
    } catch (error) {
      throw new ImportAbortedError((batch[0] as Pending).line, this.result, error);
    }
    if (taken.size === 0) return batch;
    return batch.filter(({ line, job }) => {
      const id = idsOf(job).find((candidate) => taken.has(candidate));
      if (id === undefined) return true;
      this.fail(line, apiIdRefusal(job.id, id));
      return false;
    });
  }

  private count(result: PutResult): void {
    if (result.outcome === 'unchanged') this.result.unchanged += 1;
    else this.result.imported += 1;
  }
}

const sortFailures = (result: ImportResult): ImportResult => ({
  ...result,
  failed: [...result.failed].sort((a, b) => a.line - b.line),
});

/**
 * Imports an NDJSON file (path) or stream: one JSON job per line; blank lines are skipped. Resolves with
 * the counts and every failed line; rejects with {@link ImportAbortedError} only when the table itself
 * cannot be written.
 */
export const importNdjson = async (source: string | Readable, options: ImportOptions): Promise<ImportResult> => {
  const totalBytes = typeof source === 'string' ? statSync(source).size : undefined;
  const input = typeof source === 'string' ? createReadStream(source) : source;
  const writer = new ImportWriter(options);
  let lines = 0;
  let bytesRead = 0;
  const report = (): void => options.onProgress?.(writer.progress(lines, bytesRead, totalBytes));
  const reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const raw of reader) {
      lines += 1;
      bytesRead += Buffer.byteLength(raw) + 1;
      const text = (lines === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
      if (text.length === 0) continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        writer.fail(lines, `the line is not valid JSON (${(error as Error).message})`);
        continue;
      }
      if (await writer.add(lines, value)) report();
    }
    await writer.flush();
  } finally {
    reader.close();
    if (typeof source === 'string') input.destroy();
  }
  if (totalBytes !== undefined) bytesRead = totalBytes;
  report();
  return sortFailures(writer.result);
};

/**
 * Imports jobs given as values (demo data, tests), validating each like an import line; a failure's
 * `line` is the 1-based position in the list.
 */
export const importJobs = async (jobs: readonly unknown[], options: ImportOptions): Promise<ImportResult> => {
  const writer = new ImportWriter(options);
  let lines = 0;
  const report = (): void => options.onProgress?.(writer.progress(lines, 0, undefined));
  for (const job of jobs) {
    lines += 1;
    if (await writer.add(lines, job)) report();
  }
  await writer.flush();
  report();
  return sortFailures(writer.result);
};

/**
 * Rebuilds the search index from the jobs table without a moment in which search answers from a
 * missing or half-built index: the engine builds a new index beside the live one from a table scan and
 * makes it live in one atomic step (`SearchIndex.rebuild`). Every job is written at its table version.
 *
 * Changes the stream indexer writes while the new index is being filled go to the index that is live at
 * that moment, so a catch-up pass follows the switch: a second table scan writes every job again (the
 * index keeps whichever version is newer, so nothing newer is overwritten), and a job the new index holds
 * but the table no longer has (deleted during the fill) is removed once a consistent read confirms it is
 * gone. After the catch-up, the stream indexer alone keeps the index equal to the table.
 */
import type { JobRepository } from '../../functions/jobs/store/repository';
import { checkedSearchDocument, MalformedJobError } from '../../functions/search/search-document';
import type { IndexOperation, IndexWriter, SearchIndex } from '../../functions/search/search-index';
import { sleep } from '../../functions/async';

/** How far a rebuild got. */
export interface ReindexProgress {
  /** Jobs read from the table so far. */
  scanned: number;
  /** Jobs the index took (written, or already newer there). */
  indexed: number;
  failed: number;
}

/** A job the index refused, or kept failing on, during a rebuild. */
export interface ReindexFailure {
  jobId: number;
  reason: string;
}

export interface ReindexResult {
  scanned: number;
  indexed: number;
  failed: ReindexFailure[];
  /** The catch-up pass after the switch: jobs written again, and jobs removed as deleted meanwhile. */
  caughtUp: { rewritten: number; removed: number };
}

export interface ReindexOptions {
  repository: Pick<JobRepository, 'scanJobs' | 'getJob'>;
  index: SearchIndex;
  onProgress?: (progress: ReindexProgress) => void;
  /** Documents per bulk request. */
  batchSize?: number;
  /** Retries of operations the index answered `retryable`. */
  maxRetries?: number;
  /** First retry delay in milliseconds (doubles per retry). */
  retryDelayMs?: number;
}

/** Writes one batch, retrying the operations the index answered `retryable`; returns the failures. */
const applyBatch = async (
  index: IndexWriter,
  batch: IndexOperation[],
  maxRetries: number,
  retryDelayMs: number,
): Promise<ReindexFailure[]> => {
  const failures: ReindexFailure[] = [];
  let pending = batch;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await sleep(retryDelayMs * 2 ** (attempt - 1));
    const outcomes = await index.apply(pending);
    const retry: IndexOperation[] = [];
    outcomes.forEach((outcome, position) => {
      const operation = pending[position] as IndexOperation;
      const jobId = operation.type === 'upsert' ? operation.document.summary.id : operation.jobId;
      if (outcome.status === 'rejected') failures.push({ jobId, reason: outcome.reason });
      else if (outcome.status === 'retryable') {
        if (attempt < maxRetries) retry.push(operation);
        else failures.push({ jobId, reason: outcome.reason });
      }
    });
    pending = retry;
  }
  return failures;
};

/** Scans the table and writes every job through `writer` in batches; returns how many were scanned. */
const writeAll = async (
  options: ReindexOptions,
  writer: IndexWriter,
  onBatch: (written: number, failures: ReindexFailure[]) => void,
): Promise<number> => {
  const batchSize = Math.max(1, options.batchSize ?? 500);
  const maxRetries = options.maxRetries ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 200;
  let scanned = 0;
  let batch: IndexOperation[] = [];
  let malformed: ReindexFailure[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0 && malformed.length === 0) return;
    const failures = [...malformed, ...(await applyBatch(writer, batch, maxRetries, retryDelayMs))];
    onBatch(batch.length + malformed.length, failures);
    batch = [];
    malformed = [];
  };
  for await (const { job, version } of options.repository.scanJobs()) {
    scanned += 1;
    try {
      batch.push({ type: 'upsert', document: checkedSearchDocument(job, version) });
    } catch (error) {
      if (!(error instanceof MalformedJobError)) throw error;
      malformed.push({ jobId: job.id, reason: error.message });
    }
    if (batch.length + malformed.length >= batchSize) await flush();
  }
  await flush();
  return scanned;
};

/**
 * Rebuilds the index from a table scan behind an atomic switch, then catches up with what changed
 * meanwhile. Resolves with the counts and the jobs the index refused; rejects when the table or the index
 * cannot be reached at all (the live index is then the one before the rebuild, or the rebuilt one if the
 * switch happened; a rerun starts over).
 */
export const reindex = async (options: ReindexOptions): Promise<ReindexResult> => {
  const result: ReindexResult = { scanned: 0, indexed: 0, failed: [], caughtUp: { rewritten: 0, removed: 0 } };
  const report = (): void =>
    options.onProgress?.({ scanned: result.scanned, indexed: result.indexed, failed: result.failed.length });

  await options.index.rebuild((writer) =>
    writeAll(options, writer, (written, failures) => {
      result.scanned += written;
      result.indexed += written - failures.length;
      result.failed.push(...failures);
      report();
    }),
  );
  report();

  // Catch-up: what the stream wrote to the previous index while the new one was being filled.
  const seen = new Set<number>();
  const scanAgain: ReindexOptions = {
    ...options,
    repository: {
      getJob: (jobId, readOptions) => options.repository.getJob(jobId, readOptions),
      scanJobs: async function* () {
        for await (const stored of options.repository.scanJobs()) {
          seen.add(stored.job.id);
          yield stored;
        }
      },
    },
  };
  const failedIds = new Set(result.failed.map((failure) => failure.jobId));
  await writeAll(scanAgain, options.index, (written, failures) => {
    result.caughtUp.rewritten += written - failures.length;
    for (const failure of failures) {
      if (!failedIds.has(failure.jobId)) result.failed.push(failure);
    }
  });
  const removals: IndexOperation[] = [];
  for await (const { jobId, version } of options.index.versions()) {
    if (seen.has(jobId)) continue;
    if ((await options.repository.getJob(jobId, { consistent: true })) !== undefined) continue;
    removals.push({ type: 'delete', jobId, version });
  }
  if (removals.length > 0) {
    const failures = await applyBatch(options.index, removals, options.maxRetries ?? 3, options.retryDelayMs ?? 200);
    result.caughtUp.removed += removals.length - failures.length;
    result.failed.push(...failures);
  }
  report();
  return result;
};

/**
 * Rebuilds the search index from the jobs table: clears the index, then scans the table and writes
 * every job in bulk batches, each at its table version. Safe while the stream indexer runs: the index
 * keeps whichever version is newer, so a change indexed during the rebuild is never overwritten by the
 * older state the scan read.
 */
import type { JobRepository } from '../functions/jobs/repository';
import { toSearchDocument } from '../functions/jobs/search-document';
import type { IndexOperation, SearchIndex } from '../functions/search/search-index';

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
}

export interface ReindexOptions {
  repository: Pick<JobRepository, 'scanJobs'>;
  index: SearchIndex;
  onProgress?: (progress: ReindexProgress) => void;
  /** Documents per bulk request. */
  batchSize?: number;
  /** Retries of operations the index answered `retryable`. */
  maxRetries?: number;
  /** First retry delay in milliseconds (doubles per retry). */
  retryDelayMs?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes one batch, retrying the operations the index answered `retryable`; returns the failures. */
const applyBatch = async (
  index: SearchIndex,
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

/**
 * Clears the index and rebuilds it from a table scan. Resolves with the counts and the jobs the index
 * refused; rejects when the table or the index cannot be reached at all (a rerun starts over).
 */
export const reindex = async (options: ReindexOptions): Promise<ReindexResult> => {
  const batchSize = Math.max(1, options.batchSize ?? 500);
  const maxRetries = options.maxRetries ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 200;
  const result: ReindexResult = { scanned: 0, indexed: 0, failed: [] };
  const report = (): void =>
    options.onProgress?.({ scanned: result.scanned, indexed: result.indexed, failed: result.failed.length });
  let batch: IndexOperation[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const failures = await applyBatch(options.index, batch, maxRetries, retryDelayMs);
    result.indexed += batch.length - failures.length;
    result.failed.push(...failures);
    batch = [];
    report();
  };

  await options.index.clear();
  for await (const { job, version } of options.repository.scanJobs()) {
    result.scanned += 1;
    batch.push({ type: 'upsert', document: toSearchDocument(job, version) });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  report();
  return result;
};

/**
 * The stream indexer: turns one batch of jobs-table stream records into one bulk write to the search
 * index and reports, per record, whether it may be checkpointed.
 *
 * Records are only triggers: for every job a batch touches, the indexer reads the job's current state
 * (strongly consistent) and writes that, with the job's `version` as the document version. The engine
 * refuses anything older than what it holds, so duplicated, reordered and replayed records are
 * harmless, and a record that failed for a passing reason (throttling, an unavailable engine or table) is
 * simply delivered again. A record whose job can never be indexed as it is (a document the engine refuses, a
 * malformed job item) is sent to the dead-letter sink (./dead-letters.ts) and reported done, so it never holds
 * up the records behind it.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { JobRepository, StoredJob } from '../jobs/store/repository';
import { checkedSearchDocument } from '../search/search-document';
import type { IndexOperation, IndexOutcome, SearchIndex } from '../search/search-index';
import { settleConcurrently, sleep } from '../async';
import { groupByJob, type JobChange, jobIdOf } from './stream-records';
import { describeError } from '../errors';
import { type DeadLetterSink, deadLetterOf } from './dead-letters';

/** The little of the Powertools logger the indexer uses. */
export type IndexerLogger = Pick<Logger, 'debug' | 'warn' | 'error'>;

export interface StreamIndexerOptions {
  /** The jobs store of this invocation (called once per batch, so configuration changes are seen). */
  repository: () => Pick<JobRepository, 'getSearchedJob'>;
  /** The search index to write to. */
  index: () => Promise<SearchIndex>;
  /** How many jobs are read from the table at once. */
  readConcurrency?: number;
  /**
   * Writes the index answered `retryable` (throttled, overloaded) are sent again within the invocation,
   * after a full-jitter exponential delay, before they are reported as failures.
   */
  retry?: Partial<IndexRetry>;
  /**
   * The time budget of one write to the index, in milliseconds (read per batch): a write is sent again within
   * the invocation only while the invocation has that much time left, and {@link IndexRetry.reserveMs} more.
   */
  writeTimeoutMs?: () => number;
  /**
   * Where the records of a job that can never be indexed go (read per batch); without one they are reported
   * failed like any other, and the event source retries and finally dead-letters them.
   */
  deadLetters?: () => DeadLetterSink | undefined;
  logger?: IndexerLogger;
}

/** How the indexer backs off from an index that throttles or fails part of a bulk write. */
export interface IndexRetry {
  /** Writes sent again at most, after the first. */
  attempts: number;
  /** The cap of the first delay, in milliseconds; doubles per attempt. */
  baseDelayMs: number;
  /** The cap of any delay, in milliseconds. */
  maxDelayMs: number;
  /**
   * Time the invocation keeps in hand after the last retry may have taken its whole time budget, in
   * milliseconds: no retry eats into it.
   */
  reserveMs: number;
  /** A number in [0, 1) (tests fix it). */
  random: () => number;
}

const DEFAULT_RETRY: IndexRetry = {
  attempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  reserveMs: 5_000,
  random: Math.random,
};

/** A stream handler: a batch of records in, the records to retry out. */
export type StreamIndexer = (event: DynamoDBStreamEvent, context?: Context) => Promise<DynamoDBBatchResponse>;

/** Why the records of one job could not be indexed in this invocation. */
export class JobIndexingError extends Error {
  public readonly jobId: number;
  public readonly retryable: boolean;

  public constructor(jobId: number, reason: string, retryable: boolean, cause?: unknown) {
    super(`Job ${jobId} was not indexed: ${reason}`, { cause });
    this.name = 'JobIndexingError';
    this.jobId = jobId;
    this.retryable = retryable;
  }
}

const silent: IndexerLogger = { debug: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * The write that makes the index match a job's current state: the job as a document at its version, or
 * — when the table no longer has it — a delete at the version of its last state.
 *
 * @throws {@link MalformedJobError} when the job's item is malformed.
 */
export const operationFor = (change: JobChange, stored: StoredJob | undefined): IndexOperation =>
  stored === undefined
    ? { type: 'delete', jobId: change.jobId, version: change.highestVersion ?? 0 }
    : { type: 'upsert', document: checkedSearchDocument(stored.job, stored.version) };

/** What became of one job in this batch: indexed (or already current), dead-lettered, or failed. */
type JobResult = { ok: true; outcome: IndexOutcome | 'dead-lettered' } | { ok: false; error: JobIndexingError };

/** A job's current state as read from the table (undefined: the job is gone), or why it could not be read. */
type ReadResult = { read: true; stored: StoredJob | undefined } | { read: false; failure: JobResult };

/**
 * Builds the stream handler. Per batch: the distinct jobs of the records' keys (records about anything
 * but a job item succeed untouched), their current state read with bounded concurrency, one
 * `apply()` with an upsert or delete per job, and the outcomes mapped back to every record of each job:
 * `indexed` and `stale` succeed; `retryable`, a failed read or a failed `apply()` fail the job's records,
 * which the event source then retries and bisects; `rejected` and a malformed job send the job's records to
 * the dead-letter sink and succeed (or fail, should the sink fail or be missing).
 */
export const createStreamIndexer = (options: StreamIndexerOptions): StreamIndexer => {
  const readConcurrency = options.readConcurrency ?? 16;
  const retry: IndexRetry = { ...DEFAULT_RETRY, ...options.retry };
  const logger = options.logger ?? silent;

  /** Reads the current state of each job; a job whose read failed gets its failure instead. */
  const readJobs = async (changes: JobChange[]): Promise<Map<number, ReadResult>> => {
    const repository = options.repository();
    // Only what the document is built from, strongly consistent: the files' reviews are never read.
    const reads = await settleConcurrently(changes, readConcurrency, (change) =>
      repository.getSearchedJob(change.jobId),
    );
    const states = new Map<number, ReadResult>();
    reads.forEach((read, index) => {
      const { jobId } = changes[index] as JobChange;
      if (read.status === 'fulfilled') {
        states.set(jobId, { read: true, stored: read.value });
        return;
      }
      logger.warn('Reading a job for indexing failed', { jobId, error: describeError(read.reason) });
      states.set(jobId, {
        read: false,
        failure: { ok: false, error: new JobIndexingError(jobId, 'the table could not be read', true, read.reason) },
      });
    });
    return states;
  };

  /** One bulk write; a failure of the write itself makes every operation `retryable`. */
  const applyOnce = async (
    index: SearchIndex,
    jobIds: number[],
    operations: IndexOperation[],
  ): Promise<IndexOutcome[]> => {
    try {
      const outcomes = await index.apply(operations);
      if (outcomes.length !== operations.length) {
        throw new Error(`the index answered ${outcomes.length} outcomes to ${operations.length} operations`);
      }
      return outcomes;
    } catch (error) {
      logger.error('The bulk write to the search index failed', { jobs: jobIds.length, error: describeError(error) });
      return operations.map(() => ({ status: 'retryable', reason: `the bulk write failed: ${describeError(error)}` }));
    }
  };

  /**
   * Writes the operations; those the index answers `retryable` are sent again after a full-jitter
   * exponential delay while attempts and the invocation's time allow (Lambda's retry of the whole batch
   * comes later and costs a re-read of every job).
   */
  const applyOperations = async (
    jobIds: number[],
    operations: IndexOperation[],
    results: Map<number, JobResult>,
    context: Context | undefined,
  ): Promise<void> => {
    if (operations.length === 0) return;
    // One index for the whole invocation, retries included.
    let index: SearchIndex;
    try {
      index = await options.index();
    } catch (error) {
      logger.error('The search index could not be opened', { jobs: jobIds.length, error: describeError(error) });
      for (const jobId of jobIds) {
        results.set(jobId, { ok: false, error: new JobIndexingError(jobId, 'the index is unavailable', true, error) });
      }
      return;
    }
    const writeTimeoutMs = options.writeTimeoutMs?.() ?? 0;
    let pendingIds = jobIds;
    let pending = operations;
    for (let attempt = 0; pending.length > 0; attempt++) {
      const outcomes = await applyOnce(index, pendingIds, pending);
      const retryIds: number[] = [];
      const retryOperations: IndexOperation[] = [];
      const anyRetryable = outcomes.some((outcome) => outcome.status === 'retryable');
      const delay = anyRetryable
        ? Math.floor(retry.random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt))
        : 0;
      const mayRetry =
        anyRetryable &&
        attempt < retry.attempts &&
        (context === undefined || context.getRemainingTimeInMillis() - delay > writeTimeoutMs + retry.reserveMs);
      outcomes.forEach((outcome, index) => {
        const jobId = pendingIds[index] as number;
        if (outcome.status === 'indexed' || outcome.status === 'stale') {
          results.set(jobId, { ok: true, outcome });
          return;
        }
        if (outcome.status === 'retryable' && mayRetry) {
          retryIds.push(jobId);
          retryOperations.push(pending[index] as IndexOperation);
          return;
        }
        logger.warn('The search index did not take a job', { jobId, outcome: outcome.status, reason: outcome.reason });
        results.set(jobId, {
          ok: false,
          error: new JobIndexingError(jobId, `${outcome.status}: ${outcome.reason}`, outcome.status === 'retryable'),
        });
      });
      if (retryOperations.length > 0) {
        logger.debug('Backing off before writing again', { jobs: retryIds.length, attempt: attempt + 1, delay });
        await sleep(delay);
      }
      pendingIds = retryIds;
      pending = retryOperations;
    }
  };

  const indexBatch = async (
    records: readonly DynamoDBRecord[],
    context: Context | undefined,
  ): Promise<Map<number, JobResult>> => {
    const { changes, ignored } = groupByJob(records);
    if (ignored.length > 0)
      logger.debug('Ignoring stream records that are not about a job item', { count: ignored.length });
    const states = await readJobs(changes);
    const results = new Map<number, JobResult>();
    const jobIds: number[] = [];
    const operations: IndexOperation[] = [];
    for (const change of changes) {
      const state = states.get(change.jobId);
      if (state === undefined) continue;
      if (!state.read) {
        results.set(change.jobId, state.failure);
        continue;
      }
      let operation: IndexOperation;
      try {
        operation = operationFor(change, state.stored);
      } catch (error) {
        // A job item the table holds in a shape the document cannot be built from: that job's records
        // fail (and end in the dead-letter queue), the rest of the batch goes on.
        logger.error('A job could not be turned into a search document', {
          jobId: change.jobId,
          error: describeError(error),
        });
        const reason = `its search document could not be built: ${describeError(error)}`;
        results.set(change.jobId, { ok: false, error: new JobIndexingError(change.jobId, reason, false, error) });
        continue;
      }
      jobIds.push(change.jobId);
      operations.push(operation);
    }
    await applyOperations(jobIds, operations, results, context);
    return results;
  };

  /**
   * Sends the records of each job that can never be indexed to the dead-letter sink; a job whose letter was
   * kept succeeds, one whose letter failed stays failed (and is retried).
   */
  const deadLetter = async (records: readonly DynamoDBRecord[], results: Map<number, JobResult>): Promise<void> => {
    const refused = [...results].filter(
      (entry): entry is [number, { ok: false; error: JobIndexingError }] => !entry[1].ok && !entry[1].error.retryable,
    );
    if (refused.length === 0) return;
    const sink = options.deadLetters?.();
    if (sink === undefined) return;
    await Promise.all(
      refused.map(async ([jobId, result]) => {
        const letter = deadLetterOf(
          jobId,
          result.error.message,
          records.filter((record) => jobIdOf(record) === jobId),
        );
        try {
          await sink(letter);
        } catch (error) {
          logger.error('A dead letter could not be sent; the job is retried', { jobId, error: describeError(error) });
          return;
        }
        logger.error('A job the search index refuses was dead-lettered', { jobId, reason: letter.reason });
        results.set(jobId, { ok: true, outcome: 'dead-lettered' });
      }),
    );
  };

  return async (event, context) => {
    const records = event.Records ?? [];
    const results = await indexBatch(records, context);
    await deadLetter(records, results);
    const recordHandler = async (record: DynamoDBRecord): Promise<void> => {
      const jobId = jobIdOf(record);
      if (jobId === undefined) return;
      const result = results.get(jobId);
      if (result === undefined) throw new JobIndexingError(jobId, 'the batch produced no outcome for it', true);
      if (!result.ok) throw result.error;
    };
    const response = await processPartialResponse(
      { Records: records },
      recordHandler,
      new BatchProcessor(EventType.DynamoDBStreams),
      {
        ...(context === undefined ? {} : { context }),
        throwOnFullBatchFailure: false,
      },
    );
    const failed = response.batchItemFailures.length;
    logger.debug('Indexed a stream batch', { records: records.length, jobs: results.size, failedRecords: failed });
    return { batchItemFailures: response.batchItemFailures };
  };
};

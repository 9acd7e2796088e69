/**
 * The events function: turns one batch of jobs-table stream records into events (`stream-events.ts`) and puts
 * them in a sink (`event-sink.ts`), reporting per record whether it may be checkpointed.
 *
 * - **Order.** Each job's events go out version by version: the events of a job's next version are handed to
 *   the sink only once every event of its previous version was taken. Events of one version (a rejection of
 *   many files) go out together.
 * - **Failures.** Events the sink refuses are sent again after a full-jitter exponential delay, a few times; a
 *   job with an event still refused sends nothing more in this batch, and every record with an event not taken
 *   fails (`batchItemFailures`), so the event source delivers it — and whatever follows it — again. Ids are
 *   built from the change, so what is sent twice is the same event twice, never a new one: at least once.
 * - **Files.** A file's events need its job's account, version and status, which the file item lacks: the job
 *   item is read (strongly consistent) once per batch for the jobs whose files changed. A failed read fails those
 *   records; a job no longer in the table makes no file event.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { settleConcurrently, sleep } from '../async';
import { describeError } from '../errors';
import type { JobsEvent } from './cloud-event';
import type { EventSink } from './event-sink';
import { eventsOfBatch, type JobContext, needsJobContext, orderedEvents } from './stream-events';

/** The little of the Powertools logger the publisher uses. */
export type PublisherLogger = Pick<Logger, 'debug' | 'warn' | 'error'>;

/** How refused events are sent again within the invocation. */
export interface PublishRetry {
  /** Sends at most, after the first. */
  attempts: number;
  /** The cap of the first delay, in milliseconds; doubles per attempt. */
  baseDelayMs: number;
  /** The cap of any delay, in milliseconds. */
  maxDelayMs: number;
  /** A number in [0, 1) (tests fix it). */
  random: () => number;
}

const DEFAULT_RETRY: PublishRetry = { attempts: 3, baseDelayMs: 100, maxDelayMs: 2_000, random: Math.random };

export interface EventPublisherOptions {
  /** The sink of this invocation (called once per batch, so configuration changes are seen). */
  sink: () => EventSink;
  /** Every event's `source` (read per batch). */
  source: () => string;
  /** The job of a file's events, read strongly consistently; undefined when the table has no such job. */
  readJob: (jobId: number) => Promise<JobContext | undefined>;
  /** How many jobs are read at once. */
  readConcurrency?: number;
  retry?: Partial<PublishRetry>;
  logger?: PublisherLogger;
}

/** A stream handler: a batch of records in, the records to retry out. */
export type StreamPublisher = (event: DynamoDBStreamEvent, context?: Context) => Promise<DynamoDBBatchResponse>;

/** Why a record's events were not all published in this invocation. */
export class EventPublishingError extends Error {
  public constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'EventPublishingError';
  }
}

const silent: PublisherLogger = { debug: () => undefined, warn: () => undefined, error: () => undefined };

interface Entry {
  event: JobsEvent;
  record: DynamoDBRecord;
}

/** Each job's entries, grouped by version in version order (the entries come ordered: `orderedEvents`). */
const versionGroups = (entries: readonly Entry[]): Map<number, Entry[][]> => {
  const jobs = new Map<number, Entry[][]>();
  for (const entry of entries) {
    const groups = jobs.get(entry.event.data.jobId) ?? [];
    const last = groups.at(-1);
    if (last !== undefined && (last[0] as Entry).event.data.version === entry.event.data.version) last.push(entry);
    else groups.push([entry]);
    jobs.set(entry.event.data.jobId, groups);
  }
  return jobs;
};

/** Builds the stream handler. */
export const createEventPublisher = (options: EventPublisherOptions): StreamPublisher => {
  const retry: PublishRetry = { ...DEFAULT_RETRY, ...options.retry };
  const logger = options.logger ?? silent;
  const readConcurrency = options.readConcurrency ?? 16;

  /** The jobs of the batch's file changes; a job whose read failed is missing from `read` and listed in `failed`. */
  const readJobs = async (
    records: readonly DynamoDBRecord[],
  ): Promise<{ read: Map<number, JobContext | undefined>; failed: Set<number> }> => {
    const jobIds = [...new Set(records.map(needsJobContext).filter((jobId): jobId is number => jobId !== undefined))];
    const reads = await settleConcurrently(jobIds, readConcurrency, (jobId) => options.readJob(jobId));
    const read = new Map<number, JobContext | undefined>();
    const failed = new Set<number>();
    reads.forEach((result, index) => {
      const jobId = jobIds[index] as number;
      if (result.status === 'fulfilled') read.set(jobId, result.value);
      else {
        logger.warn('Reading a job for its file events failed', { jobId, error: describeError(result.reason) });
        failed.add(jobId);
      }
    });
    return { read, failed };
  };

  /** Puts entries, sending refused ones again while attempts allow; answers the entries never taken. */
  const putWithRetries = async (sink: EventSink, entries: readonly Entry[]): Promise<Entry[]> => {
    let pending = [...entries];
    for (let attempt = 0; pending.length > 0; attempt++) {
      let refused: Entry[];
      try {
        const results = await sink.put(pending.map((entry) => entry.event));
        refused = pending.filter((_, index) => results[index]?.ok !== true);
        if (refused.length > 0) {
          const reasons = [...new Set(results.flatMap((result) => (result.ok ? [] : [result.reason])))];
          logger.warn('The event sink refused events', { refused: refused.length, attempt, reasons });
        }
      } catch (error) {
        logger.warn('The event sink failed', { events: pending.length, attempt, error: describeError(error) });
        refused = pending;
      }
      if (refused.length === 0 || attempt >= retry.attempts) return refused;
      await sleep(Math.floor(retry.random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt)));
      pending = refused;
    }
    return [];
  };

  /** Publishes a batch's events version by version per job; answers the records whose events were not all taken. */
  const publish = async (records: readonly DynamoDBRecord[]): Promise<Set<DynamoDBRecord>> => {
    const failedRecords = new Set<DynamoDBRecord>();
    const { read, failed: unread } = await readJobs(records);
    const source = options.source();
    const readable = records.filter((record) => {
      const jobId = needsJobContext(record);
      if (jobId !== undefined && unread.has(jobId)) {
        failedRecords.add(record);
        return false;
      }
      return true;
    });
    const batch = eventsOfBatch(readable, { source, jobContext: (jobId) => read.get(jobId) });
    const jobs = versionGroups(orderedEvents(batch));
    const sink = options.sink();
    /** The jobs that stopped, by the round they stopped in. */
    const blocked = new Map<number, number>();
    const rounds = Math.max(0, ...[...jobs.values()].map((groups) => groups.length));
    for (let round = 0; round < rounds; round++) {
      const entries = [...jobs].flatMap(([jobId, groups]) => (blocked.has(jobId) ? [] : (groups[round] ?? [])));
      if (entries.length === 0) continue;
      for (const entry of await putWithRetries(sink, entries)) {
        blocked.set(entry.event.data.jobId, round);
        failedRecords.add(entry.record);
      }
    }
    for (const [jobId, round] of blocked) {
      logger.error('Events of a job were not published; its records are retried', { jobId });
      // Every later version of the job was held back, so none of its records is done.
      for (const group of (jobs.get(jobId) ?? []).slice(round + 1)) {
        for (const entry of group) failedRecords.add(entry.record);
      }
    }
    return failedRecords;
  };

  return async (event, context) => {
    const records = event.Records ?? [];
    const failed = await publish(records);
    const recordHandler = async (record: DynamoDBRecord): Promise<void> => {
      if (failed.has(record)) throw new EventPublishingError('Its events were not all published');
    };
    const response = await processPartialResponse(
      { Records: records },
      recordHandler,
      new BatchProcessor(EventType.DynamoDBStreams),
      { ...(context === undefined ? {} : { context }), throwOnFullBatchFailure: false },
    );
    logger.debug('Published the events of a stream batch', {
      records: records.length,
      failedRecords: response.batchItemFailures.length,
    });
    return { batchItemFailures: response.batchItemFailures };
  };
};

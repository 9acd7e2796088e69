/**
 * Delivery of a shard's records to the stream handler, with Lambda's event source mapping semantics: one
 * invocation per batch within the invocation budget; `batchItemFailures` checkpoint everything before the
 * lowest failed record and retry from there; a thrown error (or a timeout) bisects the batch; failing records
 * are retried until they are `maxRecordAgeMs` old (and, when `maxRetries` is not -1, at most that many times),
 * then go to the dead-letter callback. What is settled is reported to the poller (its {@link DeliveryHost}),
 * which keeps the checkpoints.
 */
import { randomUUID } from 'node:crypto';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describeError } from '../../functions/errors';
import { InvocationTimeoutError, withBudget } from '../lambda/invocation-budget';
import { sequenceOf } from './records';

/** The function the poller invokes: a Lambda stream handler (its result may carry `batchItemFailures`). */
export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<unknown>;

/** Records that failed every attempt, as written to the dead-letter log. */
export interface DeadLetter {
  /** When the records were given up on (ISO 8601). */
  at: string;
  streamArn: string;
  shardId: string;
  /** Why the last attempt failed. */
  reason: string;
  /** How many times the records were delivered. */
  attempts: number;
  records: DynamoDBRecord[];
}

/** The poller's log output (console-like). */
export interface PollerLogger {
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

/** What delivery needs of the poller's settings. */
export interface DeliverySettings {
  handler: StreamHandler;
  functionName: string;
  region: string;
  invocationTimeoutMs: number;
  bisectOnError: boolean;
  /** Retries of a failing record at most; -1: no count, only the record's age limits them. */
  maxRetries: number;
  /** The age past which a failing record is no longer retried, in milliseconds. */
  maxRecordAgeMs: number;
  onDeadLetter?: ((letter: DeadLetter) => Promise<void> | void) | undefined;
  logger: PollerLogger;
}

/** Counters delivery adds to. */
export interface DeliveryCounters {
  invocations: number;
  retries: number;
  bisections: number;
  deadLettered: number;
}

/** The poller, as delivery sees it. */
export interface DeliveryHost {
  readonly settings: DeliverySettings;
  readonly streamArn: string;
  readonly counters: DeliveryCounters;
  /** Whether the poller is stopping (delivery then gives up what is not settled yet). */
  stopping(): boolean;
  /** Waits `ms`, or less when the poller stops. */
  backoff(ms: number): Promise<void>;
  /** The wait before retry `attempt`. */
  retryDelay(attempt: number): number;
  /** Records a settled prefix of a shard's records (`succeeded` of them succeeded) as done. */
  commit(shardId: string, records: readonly DynamoDBRecord[], succeeded: number): void;
  /** Every record delivered so far is settled: wake who waits for the stream to drain. */
  settled(): void;
  /** The last error of the handler or the dead-letter callback. */
  failed(description: string): void;
}

/** Delivers batches of one poller's records to its handler. */
export class BatchDelivery {
  private readonly host: DeliveryHost;

  public constructor(host: DeliveryHost) {
    this.host = host;
  }

  private context(): Context {
    const { functionName, region, invocationTimeoutMs } = this.host.settings;
    const deadline = Date.now() + invocationTimeoutMs;
    return {
      callbackWaitsForEmptyEventLoop: true,
      functionName,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${functionName}`,
      memoryLimitInMB: '1024',
      awsRequestId: randomUUID(),
      logGroupName: `/aws/lambda/${functionName}`,
      logStreamName: 'local-stream-poller',
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    };
  }

  /** One invocation: resolves with the handler's result, rejects on its error or on timeout. */
  private async invoke(records: DynamoDBRecord[]): Promise<unknown> {
    this.host.counters.invocations += 1;
    const timeoutMs = this.host.settings.invocationTimeoutMs;
    return withBudget(
      Promise.resolve(this.host.settings.handler({ Records: records }, this.context())),
      timeoutMs,
      () => new InvocationTimeoutError('The indexer handler', timeoutMs),
    );
  }

  /**
   * The positions of the records a handler reported as failed, or undefined when it reported none.
   * Like Lambda, an answer naming a record that is not in the batch fails the whole batch.
   */
  private reportedFailures(result: unknown, records: readonly DynamoDBRecord[]): number[] | undefined {
    if (typeof result !== 'object' || result === null || !('batchItemFailures' in result)) return undefined;
    const failures = (result as { batchItemFailures: unknown }).batchItemFailures;
    if (!Array.isArray(failures) || failures.length === 0) return undefined;
    const positions = new Set<number>();
    for (const failure of failures) {
      const identifier = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
      const index = records.findIndex((record) => sequenceOf(record) === identifier);
      if (index < 0) return records.map((_, position) => position);
      positions.add(index);
    }
    return [...positions].sort((a, b) => a - b);
  }

  /** Hands records that failed every attempt to the dead-letter callback, retrying it until it succeeds. */
  private async deadLetter(
    shardId: string,
    records: DynamoDBRecord[],
    reason: string,
    attempts: number,
  ): Promise<boolean> {
    const letter: DeadLetter = {
      at: new Date().toISOString(),
      streamArn: this.host.streamArn,
      shardId,
      reason,
      attempts,
      records,
    };
    for (let failures = 0; !this.host.stopping(); failures++) {
      try {
        if (this.host.settings.onDeadLetter === undefined) {
          this.host.settings.logger.error('Stream records failed every attempt', { ...letter });
        } else {
          await this.host.settings.onDeadLetter(letter);
        }
        this.host.counters.deadLettered += records.length;
        this.host.settings.logger.warn('Stream records were dead-lettered', {
          shardId,
          reason,
          attempts,
          sequenceNumbers: records.map(sequenceOf),
        });
        return true;
      } catch (error) {
        const description = describeError(error);
        this.host.failed(description);
        this.host.settings.logger.error('Writing a dead letter failed', { error: description });
        await this.host.backoff(this.host.retryDelay(failures + 1));
      }
    }
    return false;
  }

  /**
   * Why failing records are given up on after `attempts` deliveries, or undefined while they are retried: too
   * many retries (unless `maxRetries` is -1), or the oldest of them older than `maxRecordAgeMs`.
   */
  private givenUp(attempts: number, records: readonly DynamoDBRecord[]): string | undefined {
    const { maxRetries, maxRecordAgeMs } = this.host.settings;
    if (maxRetries >= 0 && attempts > maxRetries) return `${maxRetries} retries`;
    const created = records
      .map((record) => record.dynamodb?.ApproximateCreationDateTime)
      .filter((seconds): seconds is number => seconds !== undefined);
    if (created.length > 0 && Date.now() - Math.min(...created) * 1_000 > maxRecordAgeMs) {
      return `the record age limit of ${maxRecordAgeMs} ms`;
    }
    return undefined;
  }

  /**
   * Delivers records until each is settled: succeeded, or dead-lettered once given up on ({@link givenUp}).
   * Returns false when the poller stopped first (the unsettled records stay unchecked-pointed).
   */
  public async deliver(shardId: string, batch: DynamoDBRecord[]): Promise<boolean> {
    let records = batch;
    let attempts = 0;
    let failingSequence: string | undefined;
    while (!this.host.stopping()) {
      let result: unknown;
      try {
        result = await this.invoke(records);
      } catch (error) {
        const description = describeError(error);
        this.host.failed(description);
        if (this.host.settings.bisectOnError && records.length > 1) {
          this.host.counters.bisections += 1;
          const middle = Math.ceil(records.length / 2);
          return (
            (await this.deliver(shardId, records.slice(0, middle))) &&
            (await this.deliver(shardId, records.slice(middle)))
          );
        }
        attempts += 1;
        const limit = this.givenUp(attempts, records);
        if (limit !== undefined) {
          if (!(await this.deadLetter(shardId, records, `${description} (after ${limit})`, attempts))) return false;
          this.host.commit(shardId, records, 0);
          return true;
        }
        this.host.counters.retries += 1;
        await this.host.backoff(this.host.retryDelay(attempts));
        continue;
      }
      const failed = this.reportedFailures(result, records);
      const lowest = failed?.[0];
      if (failed === undefined || lowest === undefined) {
        this.host.commit(shardId, records, records.length);
        this.host.settled();
        return true;
      }
      this.host.commit(shardId, records.slice(0, lowest), lowest);
      const remaining = records.slice(lowest);
      const sequence = sequenceOf(remaining[0] as DynamoDBRecord);
      attempts = sequence === failingSequence ? attempts + 1 : 1;
      failingSequence = sequence;
      const failedRecords = failed.map((position) => records[position] as DynamoDBRecord);
      const limit = this.givenUp(attempts, failedRecords);
      if (limit !== undefined) {
        const reason = `the handler reported them as batch item failures (after ${limit})`;
        if (!(await this.deadLetter(shardId, failedRecords, reason, attempts))) return false;
        this.host.commit(shardId, remaining, remaining.length - failedRecords.length);
        this.host.settled();
        return true;
      }
      this.host.counters.retries += 1;
      await this.host.backoff(this.host.retryDelay(attempts));
      records = remaining;
    }
    return false;
  }
}

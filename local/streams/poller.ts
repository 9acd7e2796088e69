/**
 * A local stand-in for Lambda's DynamoDB Streams event source mapping, for DynamoDB Local: it reads the
 * table's stream shard by shard and invokes a handler with batches shaped exactly like Lambda's
 * `DynamoDBStreamEvent`, with Lambda's semantics:
 *
 * - batches of up to `batchSize` records, gathered for at most `batchWindowMs`;
 * - a shard's records in order, one batch at a time; a child shard only after its parent is done;
 * - `batchItemFailures`: everything before the lowest failed sequence number is checkpointed and the
 *   batch is retried from there;
 * - a thrown error (or a timeout): the batch is split in two and each half retried (`bisectOnError`);
 * - failing records are retried until they are `maxRecordAgeMs` old (24 hours, as deployed; `maxRetries`, -1
 *   by default, can also bound the count), then go to the dead-letter callback and the shard moves on. A
 *   record the indexer can never index it dead-letters itself and reports done, as in AWS.
 *
 * A record is checkpointed only once settled (succeeded or dead-lettered), so a crash replays rather
 * than loses. Checkpoints can be persisted to a file so a restart resumes where it stopped. Every wait
 * backs off; nothing spins.
 *
 * Trimmed records: DynamoDB Local numbers the stream records of all its tables in one sequence and
 * places a `TRIM_HORIZON` iterator of an empty shard at the shard's nominal start, so once another table
 * is written first, that iterator answers `TrimmedDataAccessException` although nothing was trimmed.
 * The poller therefore takes a new `TRIM_HORIZON` iterator for each read until the shard's first record
 * arrives. A trim that can still happen is one of records nobody read within the retention period: that
 * is reported as an error naming the repair, because the changes those records carried never reach the
 * index. A trim the poller can prove harmless (it had read the shard to its end less than a retention
 * period ago, so every record after its position is younger than that) only renews the iterator.
 *
 * This module reads shards (discovery, batching, drain), with the iterators `shard-iterators.ts` takes;
 * `stream-delivery.ts` delivers batches to the handler (invocation, bisection, retries, dead letters),
 * `stream-checkpoints.ts` keeps what is settled, `stream-trims.ts` tells harmless trims from lost records, and
 * `stream-records.ts` shapes the records as Lambda does.
 */
import { DynamoDBStreamsClient, GetRecordsCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { describeError } from '../../functions/errors';
import { Sleepers } from './sleepers';
import {
  consoleLogger,
  DEFAULTS,
  isIdle,
  listShards,
  pauseFor,
  PollerStoppedError,
  type Settings,
  type StreamPoller,
  type StreamPollerOptions,
  type StreamPollerStats,
  streamArnOf,
  trimmedMessage,
} from './poller-options';
import { shardIterator } from './shard-iterators';
import { handleTrim } from './trims';
import { CheckpointStore } from './checkpoints';
import { BatchDelivery, type DeliveryHost } from './delivery';
import { compareSequence, sequenceOf, toLambdaRecord } from './records';

export type { DeadLetter, PollerLogger, StreamHandler } from './delivery';
export { toLambdaRecord } from './records';
export {
  PollerStoppedError,
  StreamNotEnabledError,
  type StreamPoller,
  type StreamPollerOptions,
  type StreamPollerStats,
} from './poller-options';

interface ShardState {
  shardId: string;
  parentShardId: string | undefined;
  /** Logical time of the start of the last read that found the shard empty with nothing pending. */
  caughtUpAt: number;
  finished: boolean;
  task: Promise<void> | undefined;
}

interface DrainWaiter {
  since: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

class Poller implements StreamPoller, DeliveryHost {
  public readonly streamArn: string;
  public readonly settings: Settings;
  private readonly client: DynamoDBStreamsClient;
  private readonly ownsClient: boolean;
  private readonly checkpoints: CheckpointStore;
  private readonly shards = new Map<string, ShardState>();
  private readonly waiters = new Set<DrainWaiter>();
  private readonly sleepers = new Sleepers();
  public readonly counters = { invocations: 0, recordsSucceeded: 0, retries: 0, bisections: 0, deadLettered: 0 };
  private lastError: string | undefined;
  private clock = 0;
  private refreshedAt = -1;
  private isStopping = false;
  private activeAt = Date.now();
  private readonly delivery = new BatchDelivery(this);
  private mainLoop: Promise<void> | undefined;

  public constructor(settings: Settings, streamArn: string) {
    this.settings = settings;
    this.streamArn = streamArn;
    this.ownsClient = settings.streams === undefined;
    this.client =
      settings.streams ??
      new DynamoDBStreamsClient({
        endpoint: settings.endpoint,
        region: settings.region,
        credentials: settings.credentials,
        maxAttempts: 2,
      });
    this.checkpoints = new CheckpointStore(settings.checkpointPath, streamArn);
  }

  public start(): void {
    this.mainLoop = this.discoverShards();
  }

  public stats(): StreamPollerStats {
    const states = [...this.shards.values()];
    return {
      shards: states.length,
      finishedShards: states.filter((shard) => shard.finished).length,
      ...this.counters,
      lastError: this.lastError,
    };
  }

  public drained(): Promise<void> {
    if (this.isStopping) return Promise.reject(new PollerStoppedError());
    return new Promise((resolve, reject) => {
      this.waiters.add({ since: this.tick(), resolve, reject });
      this.activeAt = Date.now();
      this.wakeAll();
    });
  }

  public nudge(): void {
    if (isIdle(this.settings, Date.now() - this.activeAt)) this.wakeAll(); // the sleepers resume after this call
    this.activeAt = Date.now();
  }

  public async stop(): Promise<void> {
    if (!this.isStopping) {
      this.isStopping = true;
      this.wakeAll();
      for (const waiter of this.waiters) waiter.reject(new PollerStoppedError());
      this.waiters.clear();
    }
    await this.mainLoop;
    await Promise.allSettled([...this.shards.values()].map((shard) => shard.task));
    if (this.ownsClient) this.client.destroy();
  }

  public stopping(): boolean {
    return this.isStopping;
  }

  public settled(): void {
    this.settleWaiters();
  }

  public failed(description: string): void {
    this.lastError = description;
  }

  // -- time, sleeping and drain bookkeeping ---------------------------------------------------------

  /** A logical clock: every read and every drain request gets a later tick than the one before. */
  private tick(): number {
    this.clock += 1;
    return this.clock;
  }

  /** Sleeps, unless the poller stops or a drain request wakes it. */
  private sleep(ms: number): Promise<void> {
    return this.isStopping ? Promise.resolve() : this.sleepers.sleep(ms);
  }

  /** Sleeps for the full time; only stopping cuts it short (used for retry backoff). */
  public backoff(ms: number): Promise<void> {
    return this.isStopping ? Promise.resolve() : this.sleepers.backoff(ms, () => this.isStopping);
  }

  private wakeAll(): void {
    this.sleepers.wakeAll();
  }

  public retryDelay(attempt: number): number {
    return Math.min(this.settings.maxRetryDelayMs, this.settings.retryDelayMs * 2 ** Math.max(0, attempt - 1));
  }

  private settleWaiters(): void {
    for (const waiter of this.waiters) {
      if (this.refreshedAt <= waiter.since) continue;
      const behind = [...this.shards.values()].some((shard) => !shard.finished && shard.caughtUpAt <= waiter.since);
      if (behind) continue;
      this.waiters.delete(waiter);
      waiter.resolve();
    }
  }

  // -- shards ---------------------------------------------------------------------------------------

  /** Refreshes the shard list now and then, starting a reader for every new shard. */
  private async discoverShards(): Promise<void> {
    let failures = 0;
    while (!this.isStopping) {
      const startedAt = this.tick();
      try {
        const listed = await listShards(this.client, this.streamArn);
        failures = 0;
        const ids = new Set(listed.map((shard) => shard.shardId));
        // Register every new shard before starting any reader, so a child listed ahead of its parent
        // still finds the parent and waits for it.
        const added: ShardState[] = [];
        for (const { shardId, parentShardId } of listed) {
          if (this.shards.has(shardId)) continue;
          const finished = this.checkpoints.get(shardId).finished === true;
          const state: ShardState = { shardId, parentShardId, caughtUpAt: 0, finished, task: undefined };
          this.shards.set(shardId, state);
          added.push(state);
        }
        for (const state of added) if (!state.finished) state.task = this.readShard(state, ids);
        for (const shardId of this.checkpoints.retain(ids)) {
          this.settings.logger.error(
            trimmedMessage(this.settings.repairCommand, `Stream shard ${shardId} was trimmed with records`),
            { shardId },
          );
        }
        this.refreshedAt = startedAt;
        this.settleWaiters();
        await this.sleep(pauseFor(this.settings, 'shardRefreshMs', Date.now() - this.activeAt));
      } catch (error) {
        failures += 1;
        this.lastError = describeError(error);
        this.settings.logger.warn('Listing the stream shards failed', { error: this.lastError });
        await this.backoff(this.retryDelay(failures));
      }
    }
  }

  /** Waits until a shard's parent (if the stream still lists it) has been read to its end. */
  private async waitForParent(state: ShardState, listed: ReadonlySet<string>): Promise<void> {
    const parentId = state.parentShardId;
    if (parentId === undefined || !listed.has(parentId)) return;
    while (!this.isStopping) {
      if (this.shards.get(parentId)?.finished === true) return;
      await this.sleep(this.settings.pollIntervalMs);
    }
  }

  /** Reads one shard to its end: fetch, gather a batch, deliver it, checkpoint, repeat. */
  private async readShard(state: ShardState, listed: ReadonlySet<string>): Promise<void> {
    await this.waitForParent(state, listed);
    const buffer: DynamoDBRecord[] = [];
    let lastFetched = this.checkpoints.get(state.shardId).sequenceNumber;
    let iterator: string | undefined;
    let needIterator = true;
    // After a trim the shard is read again from TRIM_HORIZON; records up to `lastFetched` are skipped.
    let fromHorizon = false;
    // When a read last found nothing after `lastFetched` (wall clock); undefined while behind.
    let caughtUpSince: number | undefined;
    let bufferedSince = 0;
    let failures = 0;
    while (!this.isStopping) {
      const startedAt = this.tick();
      const readAt = Date.now();
      let fetched = 0;
      let closed = false;
      let readOk = false;
      // Whether this read uses a TRIM_HORIZON iterator taken just now, in this same round.
      let horizonJustTaken = false;
      try {
        if (needIterator) {
          iterator = await shardIterator(
            this.client,
            this.streamArn,
            this.settings.startingPosition,
            state.shardId,
            lastFetched,
            fromHorizon,
          );
          needIterator = false;
          horizonJustTaken =
            fromHorizon || (lastFetched === undefined && this.settings.startingPosition === 'TRIM_HORIZON');
        }
        if (iterator === undefined) closed = true;
        else {
          const output = await this.client.send(
            new GetRecordsCommand({ ShardIterator: iterator, Limit: Math.min(1_000, this.settings.batchSize) }),
          );
          const after = lastFetched;
          const records = (output.Records ?? [])
            .map((record) => toLambdaRecord(record, this.streamArn, this.settings.region))
            .filter((record) => after === undefined || compareSequence(sequenceOf(record), after) > 0);
          fetched = records.length;
          if (fetched > 0) {
            this.activeAt = Date.now();
            if (buffer.length === 0) bufferedSince = Date.now();
            buffer.push(...records);
            lastFetched = sequenceOf(records[records.length - 1] as DynamoDBRecord);
            caughtUpSince = undefined;
          } else if ((output.Records ?? []).length === 0) {
            caughtUpSince = readAt;
          }
          if ((output.Records ?? []).length > 0) fromHorizon = false;
          iterator = output.NextShardIterator;
          closed = iterator === undefined;
          // An empty shard's iterator goes stale in DynamoDB Local once another table is written (see the
          // header): until the shard yields its first record, each read starts from a new iterator.
          const fresh = lastFetched === undefined && this.settings.startingPosition === 'TRIM_HORIZON';
          if (!closed && (output.Records ?? []).length === 0 && (fresh || fromHorizon)) needIterator = true;
        }
        readOk = true;
        failures = 0;
      } catch (error) {
        const name = error instanceof Error ? error.name : '';
        if (name === 'ExpiredIteratorException') needIterator = true;
        else if (name === 'TrimmedDataAccessException') {
          const read = { shardId: state.shardId, lastFetched, horizonJustTaken, caughtUpSince, readAt };
          if (handleTrim(this.settings, this.checkpoints, read)) caughtUpSince = undefined;
          fromHorizon = true;
          needIterator = true;
        } else if (name === 'ResourceNotFoundException') {
          this.settings.logger.warn('The stream or shard no longer exists', { shardId: state.shardId });
          closed = true;
        } else {
          failures += 1;
          this.lastError = describeError(error);
          this.settings.logger.warn('Reading the stream failed', { shardId: state.shardId, error: this.lastError });
          await this.backoff(this.retryDelay(failures));
          continue;
        }
      }

      // Deliver full batches at once; a partial batch once the window has passed or nothing more came.
      while (!this.isStopping && buffer.length > 0) {
        const full = buffer.length >= this.settings.batchSize;
        const windowPassed = Date.now() - bufferedSince >= this.settings.batchWindowMs;
        if (!full && !windowPassed && !closed && fetched > 0) break;
        if (!full && !windowPassed && !closed) {
          await this.sleep(Math.max(1, this.settings.batchWindowMs - (Date.now() - bufferedSince)));
          if (this.isStopping) break;
        }
        const batch = buffer.splice(0, this.settings.batchSize);
        const settled = await this.delivery.deliver(state.shardId, batch);
        if (!settled) break;
        bufferedSince = Date.now();
      }
      if (this.isStopping) break;

      if (buffer.length === 0 && closed) {
        state.finished = true;
        this.checkpoints.set(state.shardId, { ...this.checkpoints.get(state.shardId), finished: true });
        this.settleWaiters();
        return;
      }
      if (buffer.length === 0 && fetched === 0) {
        if (readOk) {
          state.caughtUpAt = startedAt;
          this.settleWaiters();
        }
        await this.sleep(pauseFor(this.settings, 'pollIntervalMs', Date.now() - this.activeAt));
      }
    }
  }

  // -- delivery -------------------------------------------------------------------------------------

  /** Records a settled prefix of a shard's records as done. */
  public commit(shardId: string, records: readonly DynamoDBRecord[], succeeded: number): void {
    const last = records[records.length - 1];
    if (last === undefined) return;
    const previous = this.checkpoints.get(shardId).sequenceNumber;
    const sequence = sequenceOf(last);
    if (previous === undefined || compareSequence(sequence, previous) > 0) {
      const { finished } = this.checkpoints.get(shardId);
      this.checkpoints.set(shardId, { ...(finished === undefined ? {} : { finished }), sequenceNumber: sequence });
    }
    this.counters.recordsSucceeded += succeeded;
  }
}

/**
 * Starts polling a table's stream and invoking `handler` the way Lambda's event source mapping would.
 *
 * @throws {StreamNotEnabledError} when the table has no stream.
 */
export const startStreamPoller = async (options: StreamPollerOptions): Promise<StreamPoller> => {
  const settings: Settings = {
    ...DEFAULTS,
    ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)),
    logger: options.logger ?? consoleLogger,
  } as Settings;
  settings.batchSize = Math.max(1, Math.min(1_000, Math.floor(settings.batchSize)));
  const poller = new Poller(settings, await streamArnOf(settings));
  poller.start();
  return poller;
};

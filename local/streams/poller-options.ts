/**
 * The stream poller's outside: its options and their defaults, what it reports, its errors and its error
 * line for trimmed records, and the DynamoDB calls that find the stream and its shards. The poller itself is
 * in stream-poller.ts.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  type DescribeStreamCommandOutput,
  type DynamoDBStreamsClient,
} from '@aws-sdk/client-dynamodb-streams';
import type { DeadLetter, PollerLogger, StreamHandler } from './delivery';

export interface StreamPollerOptions {
  /** DynamoDB Local's endpoint. */
  endpoint: string;
  region: string;
  tableName: string;
  handler: StreamHandler;
  /** Most records per invocation (1–1000). */
  batchSize?: number;
  /** How long to gather records before invoking with a batch that is not full, in milliseconds. */
  batchWindowMs?: number;
  /**
   * Retries of a failing batch (or record) before it is dead-lettered; -1 (the default, as the deployed event
   * source): no count, a failing record is retried until it is `maxRecordAgeMs` old.
   */
  maxRetries?: number;
  /** The age past which a failing record is dead-lettered, in milliseconds (default 24 hours, as deployed). */
  maxRecordAgeMs?: number;
  /** Split a batch in two when the handler throws. */
  bisectOnError?: boolean;
  /**
   * Pause between polls of a shard that had nothing new, in milliseconds: 250 by default, Lambda's own base rate
   * for a DynamoDB stream (four reads a shard a second). A drain request (`drained()`) cuts the pause short.
   */
  pollIntervalMs?: number;
  /** First retry delay; doubles per retry up to `maxRetryDelayMs`. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** How often the shard list is refreshed (new shards, closed shards), in milliseconds. */
  shardRefreshMs?: number;
  /**
   * Slower polling while nothing happens; none by default (Lambda's event source mapping polls at its steady
   * rate). Once no record came and nothing nudged the poller (`nudge()`, `drained()`) for `afterMs`, a shard
   * that had nothing new is read again after `pollIntervalMs` and the shard list refreshed after
   * `shardRefreshMs`; the first record read, a nudge or a drain request brings the steady rate back at once.
   */
  idle?: IdlePolling;
  /** An invocation running longer than this is a failed invocation (Lambda's function timeout). */
  invocationTimeoutMs?: number;
  /** Where to start a shard without checkpoint. */
  startingPosition?: 'TRIM_HORIZON' | 'LATEST';
  /** A JSON file keeping each shard's checkpoint across restarts; none when undefined. */
  checkpointPath?: string;
  /** The Lambda function name the handler is told it runs as. */
  functionName?: string;
  /** Receives records that failed every attempt; the shard waits (and retries) until it succeeds. */
  onDeadLetter?: (letter: DeadLetter) => void | Promise<void>;
  logger?: PollerLogger;
  /** Credentials for DynamoDB Local (any value works). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** A DynamoDB Streams client to read with (default: one for `endpoint`); the caller keeps ownership. */
  streams?: DynamoDBStreamsClient;
  /** How long the stream keeps a record, in milliseconds (DynamoDB Streams: 24 hours). */
  retentionMs?: number;
  /** The command that rebuilds the index from the table, named when records were trimmed unread. */
  repairCommand?: string;
}

/** The slower rate of a poller with nothing to read ({@link StreamPollerOptions.idle}). */
export interface IdlePolling {
  afterMs: number;
  pollIntervalMs: number;
  shardRefreshMs: number;
}

/**
 * The pause after a read that found nothing (`pollIntervalMs`) or between listings of the shards
 * (`shardRefreshMs`): the steady one, or the idle one once nothing happened for `idle.afterMs`.
 */
export const pauseFor = (
  settings: Pick<Settings, 'pollIntervalMs' | 'shardRefreshMs' | 'idle'>,
  kind: 'pollIntervalMs' | 'shardRefreshMs',
  quietForMs: number,
): number =>
  settings.idle !== undefined && isIdle(settings, quietForMs)
    ? Math.max(settings[kind], settings.idle[kind])
    : settings[kind];

/** Whether a poller asked to slow down while idle is idle, nothing having happened for `quietForMs`. */
export const isIdle = (settings: Pick<Settings, 'idle'>, quietForMs: number): boolean =>
  settings.idle !== undefined && quietForMs >= settings.idle.afterMs;

/** Counters of what the poller did so far. */
export interface StreamPollerStats {
  shards: number;
  finishedShards: number;
  invocations: number;
  /** Records settled successfully (each counted once, when checkpointed). */
  recordsSucceeded: number;
  retries: number;
  bisections: number;
  deadLettered: number;
  /** The last error of the stream API or the handler, if any. */
  lastError: string | undefined;
}

export interface StreamPoller {
  /** The stream being read. */
  readonly streamArn: string;
  /** Stops polling: lets a running invocation finish, keeps unsettled records for the next start. */
  stop(): Promise<void>;
  /**
   * Resolves once every record written to the table before the call has been handed to the handler and
   * settled (succeeded or dead-lettered). Rejects with {@link PollerStoppedError} if the poller stops first.
   */
  drained(): Promise<void>;
  /**
   * Says the table was probably just written: an idle poller reads every shard now and keeps the steady pace
   * again; a poller at the steady pace goes on at it (the change is read within a poll interval).
   */
  nudge(): void;
  stats(): StreamPollerStats;
}

/** The poller was stopped while something still waited on it. */
export class PollerStoppedError extends Error {
  public constructor() {
    super('The stream poller was stopped');
    this.name = 'PollerStoppedError';
  }
}

/** The table has no stream to poll. */
export class StreamNotEnabledError extends Error {
  public constructor(tableName: string) {
    super(`Table ${tableName} has no stream enabled`);
    this.name = 'StreamNotEnabledError';
  }
}

export const DEFAULTS = {
  batchSize: 100,
  batchWindowMs: 50,
  maxRetries: -1,
  maxRecordAgeMs: 24 * 60 * 60 * 1_000,
  bisectOnError: true,
  pollIntervalMs: 250,
  retryDelayMs: 100,
  maxRetryDelayMs: 5_000,
  shardRefreshMs: 1_000,
  invocationTimeoutMs: 60_000,
  startingPosition: 'TRIM_HORIZON' as const,
  functionName: 'indexer',
  retentionMs: 24 * 60 * 60 * 1_000,
  repairCommand: 'npm run cli -- reindex',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
};

export const consoleLogger: PollerLogger = {
  info: () => undefined,
  warn: (message, details) => console.error(JSON.stringify({ level: 'WARN', message, ...details })),
  error: (message, details) => console.error(JSON.stringify({ level: 'ERROR', message, ...details })),
};

/** The options with every default applied. */
export type Settings = Required<
  Omit<StreamPollerOptions, 'checkpointPath' | 'onDeadLetter' | 'logger' | 'streams' | 'idle'>
> &
  Pick<StreamPollerOptions, 'checkpointPath' | 'onDeadLetter' | 'streams' | 'idle'> & { logger: PollerLogger };

/** Reads the stream ARN of a table. */
export const streamArnOf = async (settings: Settings): Promise<string> => {
  const client = new DynamoDBClient({
    endpoint: settings.endpoint,
    region: settings.region,
    credentials: settings.credentials,
  });
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: settings.tableName }));
    if (Table?.LatestStreamArn === undefined || Table.StreamSpecification?.StreamEnabled !== true) {
      throw new StreamNotEnabledError(settings.tableName);
    }
    return Table.LatestStreamArn;
  } finally {
    client.destroy();
  }
};

/** Every shard of a stream with its parent, page by page. */
export const listShards = async (
  client: DynamoDBStreamsClient,
  streamArn: string,
): Promise<Array<{ shardId: string; parentShardId: string | undefined }>> => {
  const shards: Array<{ shardId: string; parentShardId: string | undefined }> = [];
  let exclusiveStartShardId: string | undefined;
  do {
    const output: DescribeStreamCommandOutput = await client.send(
      new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: exclusiveStartShardId }),
    );
    for (const shard of output.StreamDescription?.Shards ?? []) {
      if (shard.ShardId !== undefined) shards.push({ shardId: shard.ShardId, parentShardId: shard.ParentShardId });
    }
    exclusiveStartShardId = output.StreamDescription?.LastEvaluatedShardId;
  } while (exclusiveStartShardId !== undefined);
  return shards;
};

/** The error line of records trimmed before they were read. */
export const trimmedMessage = (repairCommand: string, what: string): string =>
  `${what} before the indexer read them: the search index is missing the changes they carried. ` +
  `Rebuild it with \`${repairCommand}\`; \`${repairCommand.replace(/reindex$/, 'verify-index')}\` lists the jobs affected.`;

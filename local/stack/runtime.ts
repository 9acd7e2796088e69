/**
 * The Docker-free local stack, composed: DynamoDB Local (on 127.0.0.1, supervised: restarted when it
 * dies, or reported lost), the tables, the stream poller feeding the indexer Lambda's handler into the
 * embedded search engine, the demo data and the HTTP server in front of the endpoint handlers. `npm start` (bin/local.ts) and the end-to-end tests start it through
 * {@link startLocalStack}.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { documentClient, resetDocumentClient } from '../../functions/aws/dynamodb';
import { useAuditSink } from '../../functions/auth/audit-sink';
import { resetConfig } from '../../functions/config';
import { handler as indexerHandler } from '../../functions/handlers/indexer';
import type { JobsEvent } from '../../functions/events/cloud-event';
import { startLocalEvents } from './events';
import { Teardown } from './teardown';
import { logServerErrors, pollerLogger } from './logging';
import { useDeadLetterSink } from '../../functions/indexing/dead-letters';
import { JobRepository } from '../../functions/jobs/store/repository';
import { resetSearchIndex, searchIndex } from '../../functions/search/engine';
import { AUTH_TABLE, JOBS_TABLE } from '../../functions/tables';
import type { DemoTokens } from '../demo/auth';
import { isEmpty, prepareDemo } from '../demo/seeding';
import { localStackAuditSink, memoryAudit } from '../logs/audit-file';
import type { AuditSink } from '../../functions/auth/audit';
import { docsRoute } from '../gateway/docs';
import { startDynamoDbLocal } from '../dynamodb/dynamodb-local';
import { type DynamoDbLocalLostError, type SupervisedDynamoDb, superviseDynamoDbLocal } from '../dynamodb/supervisor';
import { reindex } from '../operations/reindex';
import { localCursorKey } from './cursor-key';
import { type LocalImages, startLocalImages } from './images';
import {
  type DataPaths,
  DEFAULT_DATA_DIR,
  DEFAULT_DYNAMODB_PORT,
  DEFAULT_PORT,
  DEFAULT_S3_PORT,
  DEFAULT_TABLE_PREFIX,
  dataPaths,
  LOCAL_REGION,
  type LocalTables,
  assertSupportedNode,
  localImagesBucket,
  localTableNames,
} from '../paths';
import { createLocalServer, type LocalServer, type RequestLogEntry } from '../gateway/server';
import { type DeadLetter, startStreamPoller } from '../streams/poller';
import type { IdlePolling } from '../streams/poller-options';
import { LOCAL_IDLE_POLLING, pollerNudges } from './nudges';
import { ensureTable } from '../dynamodb/tables';

export { demoCommandsFor } from '../demo/seeding';
export { LOCAL_REGION } from '../paths';
export { LOCAL_IDLE_POLLING } from './nudges';

export interface LocalStackOptions {
  /** How the stream pollers slow down while nothing happens (default {@link LOCAL_IDLE_POLLING}). */
  idlePolling?: IdlePolling;
  /** Port of the HTTP API (default 3000; 0 picks a free one). */
  port?: number;
  /** Interface the HTTP API listens on (default 127.0.0.1). */
  host?: string;
  /** Port of the S3 stand-in holding the pictures (default 4569; 0 picks a free one), on 127.0.0.1. */
  s3Port?: number;
  /** Port of DynamoDB Local (default 8000; 0 picks a free one). Unused with `dynamodbEndpoint`. */
  dynamodbPort?: number;
  /** Data directory (default `.data`); `:memory:` keeps nothing. */
  dataDir?: string;
  /** Seed demo clients, sessions and jobs when the store is empty (default true). */
  seedDemo?: boolean;
  /** Use this DynamoDB instead of starting DynamoDB Local (tests share one per run). */
  dynamodbEndpoint?: string;
  /** Prefix of the table names (default `jobs-api-local`). */
  tablePrefix?: string;
  /** The HTTP server's request timeout, in milliseconds (default 10 s). */
  requestTimeoutMs?: number;
  /** How long DynamoDB Local may take to start, in milliseconds (default 2 minutes: Java is slow on a busy machine). */
  dynamodbStartTimeoutMs?: number;
  /**
   * How many times DynamoDB Local (when started here, on a data directory) is restarted after dying,
   * within `dynamodbRestartWindowMs` (defaults 3 and 10 minutes). Past that it is lost: see `onFatal`.
   */
  dynamodbRestarts?: number;
  dynamodbRestartWindowMs?: number;
  /**
   * Called once when the stack cannot go on: DynamoDB Local died and was not (or could not be)
   * restarted. The stack keeps answering (503) until stopped; `npm start` stops and exits 1.
   * Default: the message goes to `log`.
   */
  onFatal?: (error: DynamoDbLocalLostError) => void;
  /** Progress and status messages (default: standard error). */
  log?: (message: string) => void;
  /** One entry per answered HTTP request (default: the server's own failures go to `log`). */
  onRequest?: (entry: RequestLogEntry) => void;
}

/** A running local stack. */
export interface LocalStack {
  /** `http://127.0.0.1:<port>` (or the host it listens on). */
  baseUrl: string;
  port: number;
  dynamodbEndpoint: string;
  /** The process id of DynamoDB Local, when the stack started it (a restart changes it). */
  readonly dynamodbPid: number | undefined;
  tables: LocalTables;
  paths: DataPaths;
  /** Demo credentials, when demo data was seeded now or in an earlier start of the same data directory. */
  demo: DemoTokens | undefined;
  /** Whether this start seeded the demo data. */
  seeded: boolean;
  /** The S3 stand-in's endpoint (path-style) and the pictures' bucket. */
  s3Endpoint: string;
  imagesBucket: string;
  /** Resolves once every object uploaded so far has been handled by the images function (retries included). */
  imagesSettled(): Promise<void>;
  /** Resolves once every change written so far has reached the search index and made its events. */
  drained(): Promise<void>;
  /** Resolves once every webhook delivery so far has been attempted, its retries included (docs/contract.md §6c). */
  webhooksSettled(): Promise<void>;
  /**
   * The events published so far (docs/contract.md §6c), oldest first: the lines of `$DATA_DIR/events.ndjson`, or
   * with `DATA_DIR=:memory:` the stack's memory.
   */
  events(): Promise<JobsEvent[]>;
  /** Stops the HTTP server, the stream poller and DynamoDB Local (when started here). Safe to call twice. */
  stop(): Promise<void>;
}

/** A port the stack needs is taken by another process. */
export class PortInUseError extends Error {
  public readonly port: number;

  public constructor(port: number, what: string) {
    super(`Port ${port} (${what}) is already in use; stop what uses it or choose another port`);
    this.name = 'PortInUseError';
    this.port = port;
  }
}

/** Checks that nothing listens on a port (DynamoDB Local would otherwise seem to start on a stranger's port). */
export const assertPortFree = (port: number, what: string): Promise<void> =>
  new Promise((resolve, reject) => {
    if (port === 0) {
      resolve();
      return;
    }
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, what) : error),
    );
    probe.listen(port, () => probe.close(() => resolve()));
  });

/**
 * Rebuilds the search index from the jobs table when the index holds no job but the table does: the
 * index file was deleted, or it was of a layout this version of the engine does not read and was
 * recreated empty. Without this every search would answer nothing until `reindex` ran. Resolves with
 * the number of jobs indexed, or `undefined` when nothing needed rebuilding.
 */
export const rebuildEmptyIndex = async (
  client: DynamoDBClient,
  tables: LocalTables,
  log: (message: string) => void,
): Promise<number | undefined> => {
  if (await isEmpty(client, tables.jobsTable)) return undefined;
  const index = await searchIndex();
  for await (const _indexed of index.versions()) return undefined;
  log('The search index is empty but the jobs table is not (a new index file or an older layout): rebuilding it.');
  const result = await reindex({ repository: new JobRepository(documentClient(), tables.jobsTable), index });
  log(`Search index rebuilt: ${result.indexed} of ${result.scanned} jobs indexed.`);
  for (const failure of result.failed) log(`Not indexed: job ${failure.jobId}: ${failure.reason}`);
  return result.indexed;
};

/**
 * Points the handlers' configuration at the local stack, and forgets clients and engines made for
 * another one. The handlers read their configuration from the process environment, so one process
 * runs one local stack at a time. Their audit records go to `$DATA_DIR/audit.ndjson`, or with
 * `DATA_DIR=:memory:` to the stack's memory (never its console); the stack's audit sink is answered.
 */
const configureHandlers = async (endpoint: string, tables: LocalTables, paths: DataPaths): Promise<AuditSink> => {
  Object.assign(process.env, {
    JOBS_TABLE: tables.jobsTable,
    AUTH_TABLE: tables.authTable,
    DYNAMODB_ENDPOINT: endpoint,
    SEARCH_ENGINE: 'embedded',
    SEARCH_DB_PATH: paths.searchDb,
    CURSOR_SIGNING_KEY: await localCursorKey(paths),
  });
  // Events go to the data directory's file; with nothing on disk, the runtime keeps them (see startLocalStack).
  if (paths.events === undefined) delete process.env.EVENTS_FILE;
  else process.env.EVENTS_FILE = paths.events;
  delete process.env.EVENT_BUS_NAME;
  process.env.AWS_REGION ??= LOCAL_REGION;
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  resetConfig();
  resetDocumentClient();
  await resetSearchIndex();
  const audit = localStackAuditSink(paths.auditLog, memoryAudit());
  useAuditSink(audit);
  return audit;
};

/**
 * The CLI command that rebuilds this stack's search index, as a user would type it in another terminal
 * (the environment variables the CLI needs to find the stack when they differ from the defaults).
 */
export const repairCommandFor = (options: LocalStackOptions): string => {
  const environment: string[] = [];
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR;
  if (dataDir !== DEFAULT_DATA_DIR) environment.push(`DATA_DIR=${dataDir}`);
  const dynamodbPort = options.dynamodbPort ?? DEFAULT_DYNAMODB_PORT;
  if (options.dynamodbEndpoint !== undefined) environment.push(`DYNAMODB_ENDPOINT=${options.dynamodbEndpoint}`);
  else if (dynamodbPort !== DEFAULT_DYNAMODB_PORT) environment.push(`DYNAMODB_PORT=${dynamodbPort}`);
  return [...environment, 'npm run cli -- reindex'].join(' ');
};

/** Starts the local stack; resolves once the HTTP server listens (and the demo data is searchable). */
export const startLocalStack = async (options: LocalStackOptions = {}): Promise<LocalStack> => {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const paths = dataPaths(options.dataDir ?? DEFAULT_DATA_DIR);
  const tables = localTableNames(options.tablePrefix ?? DEFAULT_TABLE_PREFIX);
  const port = options.port ?? DEFAULT_PORT;
  const teardown = new Teardown();
  assertSupportedNode();
  try {
    await assertPortFree(port, 'the API');
    await assertPortFree(options.s3Port ?? DEFAULT_S3_PORT, 'the local S3');
    if (paths.root !== undefined) await mkdir(paths.root, { recursive: true });

    let dynamo: SupervisedDynamoDb | undefined;
    let endpoint = options.dynamodbEndpoint;
    if (endpoint === undefined) {
      const dynamodbPort = options.dynamodbPort ?? DEFAULT_DYNAMODB_PORT;
      await assertPortFree(dynamodbPort, 'DynamoDB Local');
      const dataDir = paths.dynamodbDir;
      if (dataDir !== undefined) await mkdir(dataDir, { recursive: true });
      log(`Starting DynamoDB Local (${dataDir ?? 'in memory'})…`);
      const supervised = await superviseDynamoDbLocal({
        port: dynamodbPort,
        dataDir,
        start: (port) =>
          startDynamoDbLocal({
            port,
            startTimeoutMs: options.dynamodbStartTimeoutMs ?? 120_000,
            ...(dataDir === undefined ? {} : { dataDir }),
          }),
        ...(options.dynamodbRestarts === undefined ? {} : { maxRestarts: options.dynamodbRestarts }),
        ...(options.dynamodbRestartWindowMs === undefined ? {} : { windowMs: options.dynamodbRestartWindowMs }),
        log,
        onLost: options.onFatal ?? ((error) => log(error.message)),
      });
      dynamo = supervised;
      teardown.add(() => supervised.stop());
      endpoint = supervised.endpoint;
      log(`DynamoDB Local listens on ${endpoint} (pid ${supervised.pid}), reachable from this machine only.`);
    }

    const client = new DynamoDBClient({
      endpoint,
      region: LOCAL_REGION,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    teardown.add(() => client.destroy());
    await ensureTable(client, JOBS_TABLE, tables.jobsTable);
    await ensureTable(client, AUTH_TABLE, tables.authTable);

    const audit = await configureHandlers(endpoint, tables, paths);
    teardown.add(async () => {
      resetDocumentClient();
      await resetSearchIndex();
    });

    const nudges = pollerNudges();
    const images: LocalImages = await startLocalImages({
      afterInvoke: nudges.written,
      paths,
      bucket: localImagesBucket(options.tablePrefix ?? DEFAULT_TABLE_PREFIX),
      region: LOCAL_REGION,
      port: options.s3Port ?? DEFAULT_S3_PORT,
      functionName: `${options.tablePrefix ?? DEFAULT_TABLE_PREFIX}-images`,
      log,
    });
    teardown.add(() => images.stop());

    const deadLetters = paths.deadLetters;
    /**
     * Keeps a dead letter — the poller's (records that failed until their age limit) or the indexer's own (a job
     * the index refuses for good) — as one line of the data directory's dead-letter file, the local stand-in for
     * the stack's SQS queue; with nothing on disk, as a line of the log.
     */
    const keepDeadLetter = async (
      letter: object,
      records: number,
      reason: string,
      work = 'Indexing',
    ): Promise<void> => {
      const line = `${JSON.stringify(letter)}\n`;
      if (deadLetters === undefined) log(`${work} gave up on ${records} stream record(s): ${line}`);
      else {
        await appendFile(deadLetters, line);
        log(`${work} gave up on ${records} stream record(s) (${reason}); see ${deadLetters}`);
      }
    };
    useDeadLetterSink((letter) => keepDeadLetter(letter, letter.records.length, letter.reason));
    teardown.add(() => useDeadLetterSink(undefined));
    // The demo is seeded before the indexer's poller starts: the poller then reads the seeded stream in full
    // batches, where polling beside the seeding read it a few records at a time.
    const { demo, seeded } = await prepareDemo(client, endpoint, tables, paths, {
      seedDemo: options.seedDemo ?? true,
      audit,
      log,
      pictures: { store: images.store, bucket: images.bucket },
    });
    const poller = await startStreamPoller({
      endpoint,
      region: LOCAL_REGION,
      tableName: tables.jobsTable,
      handler: indexerHandler,
      functionName: `${options.tablePrefix ?? DEFAULT_TABLE_PREFIX}-indexer`,
      ...(paths.streamCheckpoints === undefined ? {} : { checkpointPath: paths.streamCheckpoints }),
      logger: pollerLogger(log, dynamo),
      repairCommand: repairCommandFor(options),
      onDeadLetter: (letter: DeadLetter) => keepDeadLetter(letter, letter.records.length, letter.reason),
      idle: options.idlePolling ?? LOCAL_IDLE_POLLING,
    });
    teardown.add(() => poller.stop());
    nudges.add(poller);

    if (seeded) {
      await poller.drained();
      log('Demo jobs indexed.');
    } else {
      await rebuildEmptyIndex(client, tables, log);
    }

    const server: LocalServer = createLocalServer({
      ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
      functionNamePrefix: options.tablePrefix ?? DEFAULT_TABLE_PREFIX,
      extraRoutes: [docsRoute],
      onRequest: nudges.afterRequest(options.onRequest ?? logServerErrors(log)),
    });
    const host = options.host ?? '127.0.0.1';
    let listeningPort: number;
    try {
      listeningPort = await server.listen(port, host);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUseError(port, 'the API');
      throw error;
    }
    teardown.add(() => server.close());
    const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${listeningPort}`;

    const localEvents = await startLocalEvents(
      paths,
      baseUrl,
      {
        endpoint,
        region: LOCAL_REGION,
        tableName: tables.jobsTable,
        functionName: `${options.tablePrefix ?? DEFAULT_TABLE_PREFIX}-events`,
        logger: pollerLogger(log, dynamo),
        repairCommand: repairCommandFor(options),
        onDeadLetter: (letter: DeadLetter) =>
          keepDeadLetter({ function: 'events', ...letter }, letter.records.length, letter.reason, 'Publishing events'),
        idle: options.idlePolling ?? LOCAL_IDLE_POLLING,
      },
      log,
    );
    teardown.add(() => localEvents.stop());
    nudges.add(localEvents);

    let stopping: Promise<void> | undefined;
    return {
      baseUrl,
      port: listeningPort,
      dynamodbEndpoint: endpoint,
      get dynamodbPid() {
        return dynamo?.pid;
      },
      tables,
      paths,
      demo,
      seeded,
      s3Endpoint: images.endpoint,
      imagesBucket: images.bucket,
      imagesSettled: () => images.settled(),
      drained: async () => {
        await Promise.all([poller.drained(), localEvents.drained()]);
      },
      events: () => localEvents.events(),
      webhooksSettled: () => localEvents.webhooks.settled(),
      stop: () => (stopping ??= teardown.run()),
    };
  } catch (error) {
    await teardown.run().catch(() => undefined);
    throw error;
  }
};

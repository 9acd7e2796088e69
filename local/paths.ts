/**
 * Where the local stack keeps things: table names, the DynamoDB Local endpoint and the files under
 * `DATA_DIR`. `npm start`, the CLI and `npm run invoke` all read these, so they always agree.
 */
import { join, resolve } from 'node:path';
import { AUTH_TABLE, JOBS_TABLE } from '../functions/tables';

/** The region the local stack's SDK clients use (DynamoDB Local ignores it, but the SDK needs one). */
export const LOCAL_REGION = 'us-east-1';

/** The `DATA_DIR` value that keeps nothing on disk. */
export const IN_MEMORY = ':memory:';

/** Default `DATA_DIR`, relative to the working directory. */
export const DEFAULT_DATA_DIR = '.data';

/** Default port of the HTTP API. */
export const DEFAULT_PORT = 3000;

/** Default port of DynamoDB Local. */
export const DEFAULT_DYNAMODB_PORT = 8000;

/** Default port of the local S3 stand-in (the pictures' bucket). */
export const DEFAULT_S3_PORT = 4569;

/** Prefix of the local table names. */
export const DEFAULT_TABLE_PREFIX = 'jobs-api-local';

/** The names of the local tables. */
export interface LocalTables {
  jobsTable: string;
  authTable: string;
}

/** The local pictures' bucket for a prefix: `jobs-api-local-images`. */
export const localImagesBucket = (prefix: string = DEFAULT_TABLE_PREFIX): string => `${prefix}-images`;

/** Table names for a prefix: `jobs-api-local-Jobs`, `jobs-api-local-Auth`. */
export const localTableNames = (prefix: string = DEFAULT_TABLE_PREFIX): LocalTables => ({
  jobsTable: `${prefix}-${JOBS_TABLE.logicalName}`,
  authTable: `${prefix}-${AUTH_TABLE.logicalName}`,
});

/** The files of a data directory; every path is undefined when the data directory is in memory. */
export interface DataPaths {
  /** Whether nothing is kept on disk. */
  inMemory: boolean;
  /** The absolute data directory, when on disk. */
  root: string | undefined;
  /** DynamoDB Local's database directory. */
  dynamodbDir: string | undefined;
  /** The embedded search engine's SQLite file, or `:memory:`. */
  searchDb: string;
  /** Stream records the indexer gave up on, one JSON object per line. */
  deadLetters: string | undefined;
  /** The demo tokens printed at start-up (only hashes are in the auth table). */
  demoTokens: string | undefined;
  /** The stream poller's per-shard checkpoints, so a restart resumes where it stopped. */
  streamCheckpoints: string | undefined;
  /** The audit records of credentials (`npm start`'s sessions endpoints and the CLI), one JSON object per line. */
  auditLog: string | undefined;
  /** The key that signs file-page cursors (the deployed stack's Secrets Manager secret). */
  cursorKey: string | undefined;
  /** The local S3 stand-in's objects (the pictures' bucket), one file per object. */
  s3Dir: string | undefined;
  /** The events of every change (docs/contract.md §6c), one JSON CloudEvent per line: the stage's bus. */
  events: string | undefined;
  /** The events function's stream checkpoints: it reads the stream on its own, as its own event source would. */
  eventCheckpoints: string | undefined;
}

/** Resolves the files of a data directory (`:memory:` keeps nothing). */
export const dataPaths = (dataDir: string = DEFAULT_DATA_DIR): DataPaths => {
  if (dataDir.trim() === IN_MEMORY) {
    return {
      inMemory: true,
      root: undefined,
      dynamodbDir: undefined,
      searchDb: IN_MEMORY,
      deadLetters: undefined,
      demoTokens: undefined,
      streamCheckpoints: undefined,
      auditLog: undefined,
      cursorKey: undefined,
      s3Dir: undefined,
      events: undefined,
      eventCheckpoints: undefined,
    };
  }
  const root = resolve(dataDir);
  return {
    inMemory: false,
    root,
    dynamodbDir: join(root, 'dynamodb'),
    searchDb: join(root, 'search.sqlite'),
    deadLetters: join(root, 'dead-letters.ndjson'),
    demoTokens: join(root, 'demo-tokens.json'),
    streamCheckpoints: join(root, 'stream-checkpoints.json'),
    auditLog: join(root, 'audit.ndjson'),
    cursorKey: join(root, 'cursor-key'),
    s3Dir: join(root, 's3'),
    events: join(root, 'events.ndjson'),
    eventCheckpoints: join(root, 'event-stream-checkpoints.json'),
  };
};

/** The DynamoDB Local endpoint for a port. */
export const localDynamoDbEndpoint = (port: number = DEFAULT_DYNAMODB_PORT): string => `http://localhost:${port}`;

/**
 * The environment under which the functions' code acts on the local stack (the CLI's local target and
 * `npm run invoke`): its tables, DynamoDB Local, the embedded engine's file under `DATA_DIR`, the pictures' bucket
 * on the local S3, and the region and
 * placeholder credentials the SDK wants (DynamoDB Local accepts any). A non-blank value already in `env` wins.
 */
export const localStackEnvironment = (env: NodeJS.ProcessEnv): Record<string, string> => {
  const paths = dataPaths(env.DATA_DIR?.trim() || DEFAULT_DATA_DIR);
  const tables = localTableNames();
  const defaults: Record<string, string> = {
    JOBS_TABLE: tables.jobsTable,
    AUTH_TABLE: tables.authTable,
    DYNAMODB_ENDPOINT: localDynamoDbEndpoint(portFrom(env, 'DYNAMODB_PORT', DEFAULT_DYNAMODB_PORT)),
    SEARCH_ENGINE: 'embedded',
    SEARCH_DB_PATH: paths.searchDb,
    IMAGES_BUCKET: localImagesBucket(),
    S3_ENDPOINT: `http://127.0.0.1:${portFrom(env, 'S3_PORT', DEFAULT_S3_PORT)}`,
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    POWERTOOLS_SERVICE_NAME: 'jobs-api',
  };
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(defaults)) merged[name] = env[name]?.trim() || value;
  return merged;
};

/** Thrown when an environment variable of the local stack holds an unusable value. */
export class LocalSettingError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'LocalSettingError';
  }
}

/** Reads a TCP port from an environment variable; `fallback` when unset. */
export const portFrom = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new LocalSettingError(`${name} must be a port number (0–65535), got "${raw}"`);
  }
  return port;
};

/** The oldest Node.js major version the local tools run on (the Lambda runtime's; `node:sqlite` needs it). */
export const MIN_NODE_MAJOR = 24;

/** Node.js is older than the local tools need. */
export class UnsupportedNodeError extends Error {
  public constructor(version: string) {
    super(
      `Node.js ${MIN_NODE_MAJOR} or newer is needed, this is ${version}. Run through npm (\`npm start\`, ` +
        '`npm run cli -- …`) or npx, which put the project’s own Node.js first on PATH.',
    );
    this.name = 'UnsupportedNodeError';
  }
}

/** Throws {@link UnsupportedNodeError} when the running Node.js is too old. */
export const assertSupportedNode = (version: string = process.versions.node): void => {
  if (Number(version.split('.')[0]) < MIN_NODE_MAJOR) throw new UnsupportedNodeError(`v${version}`);
};

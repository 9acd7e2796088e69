/**
 * Runtime configuration, read from environment variables and validated once per container.
 */

export type SearchEngineKind = 'embedded' | 'opensearch';

export interface Config {
  /** Name of the jobs table. */
  jobsTable: string;
  /** Name of the auth table (clients and sessions). */
  authTable: string;
  /** AWS region for SDK clients. */
  region: string;
  /** Endpoint override for DynamoDB (DynamoDB Local); unset in AWS. */
  dynamodbEndpoint: string | undefined;
  /** Which search engine backs the SearchIndex. */
  searchEngine: SearchEngineKind;
  /** Embedded engine: SQLite database path, or `:memory:`. */
  searchDbPath: string;
  /** OpenSearch: the domain endpoint (`https://…`). */
  opensearchUrl: string | undefined;
  /** OpenSearch: the index name (an alias in production). */
  opensearchIndex: string;
  /** How long authentication lookups may be cached in the container, in milliseconds (≤ 60 000). */
  authCacheTtlMs: number;
  /** Time limit of one attempt of a DynamoDB or OpenSearch request, in milliseconds (then retried once or answered 503). */
  dependencyTimeoutMs: number;
  /**
   * Time limit of one `_bulk` request to OpenSearch, in milliseconds: the indexer's and `reindex`'s writes, which
   * no API caller waits for, get longer than {@link dependencyTimeoutMs} (a bulk of several MiB on a small domain
   * takes seconds). The deployed indexer's function timeout leaves room for one such request after another.
   */
  indexWriteTimeoutMs: number;
  /**
   * The SQS queue the indexer sends the stream records of a job the index refuses for good to (the stack's
   * dead-letter queue); unset locally, where the runtime keeps them in its dead-letter file.
   */
  deadLetterQueueUrl: string | undefined;
  /** The CloudWatch Logs group audit records go to (AWS); unset locally, where the runtime chooses the sink. */
  auditLogGroup: string | undefined;
  /**
   * Where the key that signs `GET /jobs/{id}/files` cursors comes from: its text itself (the local stack,
   * from its data directory), or the ARN of the Secrets Manager secret the stack created. Only the read
   * function needs it; it is checked when first used.
   */
  cursorKey: { text: string } | { secretArn: string } | undefined;
  /**
   * The pictures' bucket (docs/contract.md §6b): its name (`IMAGES_BUCKET`), and locally the endpoint of the
   * S3 stand-in (`S3_ENDPOINT`, path-style). Unset where a function has no business with pictures; the functions
   * that sign or read them check it when first used.
   */
  images: { bucket: string; endpoint: string | undefined } | undefined;
  /**
   * Where the events of docs/contract.md §6c go: the stage's EventBridge bus (`EVENT_BUS_NAME`, AWS) or a file of
   * one JSON event per line (`EVENTS_FILE`, the local stack); unset where a function publishes none. `source` is
   * every event's `source` (`EVENT_SOURCE`, the stage's API; `urn:jobs-api` by default).
   */
  events: { sink: { busName: string } | { file: string } | undefined; source: string };
  /**
   * Webhook delivery (docs/contract.md §6c): whether `http://localhost` receivers are allowed (the local stack's
   * `ALLOW_LOCAL_WEBHOOKS=1`; never in AWS), the delays between attempts (`WEBHOOK_RETRY_DELAYS_MS`, a comma list;
   * default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), the window after the first attempt in which an event is
   * retried (`WEBHOOK_RETRY_WINDOW_MS`, 24 h) and how long an endpoint may fail without a success before it is
   * disabled (`WEBHOOK_DISABLE_AFTER_MS`, 5 days), and the time an endpoint has to answer (`WEBHOOK_TIMEOUT_MS`,
   * 10 s, never more). Tests compress the times. In AWS the sender's queue (`WEBHOOK_QUEUE_URL`, set by the stack
   * on the sender function) holds the deliveries; unset locally.
   */
  webhooks: {
    queueUrl: string | undefined;
    allowLocal: boolean;
    retryDelaysMs: number[];
    retryWindowMs: number;
    disableAfterMs: number;
    timeoutMs: number;
  };
}

/** Thrown at start-up when the environment is unusable: a deployment error, not a client error. */
export class ConfigError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const required = (env: NodeJS.ProcessEnv, name: string): string => {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(`Environment variable ${name} is required`);
  return value;
};

const integer = (env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number => {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`Environment variable ${name} must be an integer in [${min}, ${max}], got "${raw}"`);
  }
  return value;
};

/**
 * The longest `DEPENDENCY_TIMEOUT_MS` allowed: 9 s against AWS, so two attempts still answer inside API Gateway's
 * limit; 120 s against a DynamoDB endpoint of its own (DynamoDB Local), where a test of megabyte-sized transactions
 * on a busy machine must not fail for the machine's speed.
 */
export const dependencyTimeoutCeiling = (env: NodeJS.ProcessEnv): number =>
  env.DYNAMODB_ENDPOINT?.trim() ? 120_000 : 9_000;

/** The smallest cursor signing key accepted, in characters (the stack generates 64). */
export const MIN_CURSOR_KEY_LENGTH = 32;

const cursorKeySource = (env: NodeJS.ProcessEnv): Config['cursorKey'] => {
  const text = env.CURSOR_SIGNING_KEY?.trim();
  if (text) {
    if (text.length < MIN_CURSOR_KEY_LENGTH) {
      throw new ConfigError(`CURSOR_SIGNING_KEY must be at least ${MIN_CURSOR_KEY_LENGTH} characters long`);
    }
    return { text };
  }
  const secretArn = env.CURSOR_KEY_SECRET_ARN?.trim();
  return secretArn ? { secretArn } : undefined;
};

const imagesSource = (env: NodeJS.ProcessEnv): Config['images'] => {
  const bucket = env.IMAGES_BUCKET?.trim();
  const endpoint = env.S3_ENDPOINT?.trim() || undefined;
  if (!bucket) {
    if (endpoint !== undefined) throw new ConfigError('S3_ENDPOINT is set but IMAGES_BUCKET is not');
    return undefined;
  }
  return { bucket, endpoint };
};

const eventsSource = (env: NodeJS.ProcessEnv): Config['events'] => {
  const busName = env.EVENT_BUS_NAME?.trim();
  const file = env.EVENTS_FILE?.trim();
  if (busName && file) throw new ConfigError('EVENT_BUS_NAME and EVENTS_FILE are both set: events go to one place');
  return {
    sink: busName ? { busName } : file ? { file } : undefined,
    source: env.EVENT_SOURCE?.trim() || 'urn:jobs-api',
  };
};

const HOUR_MS = 3_600_000;

/** The delays between a webhook's attempts of one event, in milliseconds. */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS = [
  5_000,
  300_000,
  30 * 60_000,
  2 * HOUR_MS,
  5 * HOUR_MS,
  10 * HOUR_MS,
  10 * HOUR_MS,
];

const webhooksSource = (env: NodeJS.ProcessEnv): Config['webhooks'] => {
  const delays = env.WEBHOOK_RETRY_DELAYS_MS?.trim();
  const retryDelaysMs =
    delays === undefined || delays === '' ? DEFAULT_WEBHOOK_RETRY_DELAYS_MS : delays.split(',').map(Number);
  if (retryDelaysMs.some((delay) => !Number.isInteger(delay) || delay < 0 || delay > 12 * HOUR_MS)) {
    throw new ConfigError(
      `WEBHOOK_RETRY_DELAYS_MS must be a comma list of integers in [0, ${12 * HOUR_MS}], got "${delays}"`,
    );
  }
  return {
    queueUrl: env.WEBHOOK_QUEUE_URL?.trim() || undefined,
    allowLocal: env.ALLOW_LOCAL_WEBHOOKS?.trim() === '1',
    retryDelaysMs,
    retryWindowMs: integer(env, 'WEBHOOK_RETRY_WINDOW_MS', 24 * HOUR_MS, 0, 24 * HOUR_MS),
    disableAfterMs: integer(env, 'WEBHOOK_DISABLE_AFTER_MS', 5 * 24 * HOUR_MS, 0, 5 * 24 * HOUR_MS),
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 10_000),
  };
};

/** Reads and validates the configuration from an environment (default `process.env`). */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const searchEngine = (env.SEARCH_ENGINE?.trim() || 'opensearch') as SearchEngineKind;
  if (searchEngine !== 'embedded' && searchEngine !== 'opensearch') {
    throw new ConfigError(`SEARCH_ENGINE must be "embedded" or "opensearch", got "${searchEngine}"`);
  }
  const opensearchUrl = env.OPENSEARCH_URL?.trim() || undefined;
  if (searchEngine === 'opensearch' && opensearchUrl === undefined) {
    throw new ConfigError('OPENSEARCH_URL is required when SEARCH_ENGINE is "opensearch"');
  }
  return {
    jobsTable: required(env, 'JOBS_TABLE'),
    authTable: required(env, 'AUTH_TABLE'),
    region: env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1',
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT?.trim() || undefined,
    searchEngine,
    searchDbPath: env.SEARCH_DB_PATH?.trim() || ':memory:',
    opensearchUrl,
    opensearchIndex: env.OPENSEARCH_INDEX?.trim() || 'jobs',
    authCacheTtlMs: integer(env, 'AUTH_CACHE_TTL_MS', 60_000, 0, 60_000),
    dependencyTimeoutMs: integer(env, 'DEPENDENCY_TIMEOUT_MS', 3_000, 100, dependencyTimeoutCeiling(env)),
    indexWriteTimeoutMs: integer(env, 'INDEX_WRITE_TIMEOUT_MS', 15_000, 100, 300_000),
    deadLetterQueueUrl: env.DEAD_LETTER_QUEUE_URL?.trim() || undefined,
    auditLogGroup: env.AUDIT_LOG_GROUP?.trim() || undefined,
    cursorKey: cursorKeySource(env),
    images: imagesSource(env),
    events: eventsSource(env),
    webhooks: webhooksSource(env),
  };
};

let cached: Config | undefined;

/** The container's configuration, read on first use. */
export const config = (): Config => (cached ??= readConfig());

/** Forgets the cached configuration (tests and the local runtime change the environment). */
export const resetConfig = (): void => {
  cached = undefined;
};

/**
 * The deployment's configuration: typed, validated, with defaults sized for a small production
 * deployment. Values come from CDK context (`cdk.json` or `cdk deploy -c key=value`); everything that
 * is not set keeps its default.
 */

/** How the stack is configured. */
export interface JobsApiConfig {
  /** Deployment stage (`prod`, `staging`, …): names the stack (`JobsApi-<stage>`) and the API stage. */
  stage: string;
  /** OpenSearch data node instance type. */
  searchInstanceType: string;
  /** Number of OpenSearch data nodes. */
  searchInstanceCount: number;
  /** Availability zones the data nodes are spread over: 1 (no zone awareness), 2 or 3. */
  searchZoneCount: 1 | 2 | 3;
  /** EBS volume size per data node, in GiB. */
  searchVolumeSizeGiB: number;
  /** Retention of log groups (functions, API access logs, domain logs) and of dead letters, in days. */
  retentionDays: number;
  /**
   * Retention of the audit log group (clients, secrets and sessions issued, ended and refused), in days. The
   * group is kept when the stack is deleted, whatever this says.
   */
  auditRetentionDays: number;
  /** Whether the tables have deletion protection and are retained when the stack is deleted. */
  deletionProtection: boolean;
  /**
   * Whether the search domain survives `cdk destroy`. It holds derived data only (`reindex` rebuilds it
   * from the jobs table), so by default it goes with the stack.
   */
  retainSearchDomain: boolean;
  /** API Gateway steady-state request rate limit (requests per second). */
  throttleRateLimit: number;
  /** API Gateway burst limit (requests). */
  throttleBurstLimit: number;
  /** Memory of the API functions, in MB. */
  apiMemoryMiB: number;
  /**
   * An existing SNS topic every alarm notifies, in place of the topic the stack creates for its alarms.
   */
  alarmTopicArn: string | undefined;
  /** An email address the stack's own alarm topic sends to (the address confirms the subscription once). */
  alarmEmail: string | undefined;
  /**
   * Whether the API functions load the Powertools tracer for a handler subsegment inside Lambda's own
   * trace (about 40 ms more per cold start); Lambda's active tracing is on either way.
   */
  detailedTracing: boolean;
  /**
   * Per-source-address limit, in requests a minute, enforced by an AWS WAF rate-based rule in front of
   * the API stage; `undefined` (the default) deploys no such rule.
   */
  ipRateLimit: number | undefined;
  /**
   * Per-client limit, in requests a minute per `X-Client-Token` value, enforced by an AWS WAF rate-based
   * rule; `undefined` (the default) deploys no such rule. With either limit set the stack has a web ACL.
   */
  clientRateLimit: number | undefined;
  /** `POST /sessions` requests a minute per client token, enforced whenever the stack has a web ACL. */
  sessionRateLimit: number;
  /**
   * Executions of the images function at once, reserved from the account's Lambda concurrency (so a burst of
   * uploads can neither take the API's concurrency nor grow past it); `undefined` (the default) reserves none.
   */
  imagesConcurrency: number | undefined;
  /**
   * Origins whose web pages may use the pictures' presigned URLs (the bucket's CORS rule), or `*` for any; none
   * by default (servers and native apps need no CORS).
   */
  imagesCorsOrigins: string[];
}

/** Defaults for a small production deployment. */
export const DEFAULT_CONFIG: JobsApiConfig = {
  stage: 'prod',
  searchInstanceType: 'm6g.large.search',
  searchInstanceCount: 3,
  searchZoneCount: 3,
  searchVolumeSizeGiB: 20,
  retentionDays: 90,
  auditRetentionDays: 400,
  deletionProtection: true,
  retainSearchDomain: false,
  throttleRateLimit: 100,
  throttleBurstLimit: 200,
  apiMemoryMiB: 1024,
  alarmTopicArn: undefined,
  alarmEmail: undefined,
  detailedTracing: false,
  ipRateLimit: undefined,
  clientRateLimit: undefined,
  sessionRateLimit: 300,
  imagesConcurrency: undefined,
  imagesCorsOrigins: [],
};

/** The context keys, one per configuration field. */
export const CONTEXT_KEYS = {
  stage: 'stage',
  searchInstanceType: 'searchInstanceType',
  searchInstanceCount: 'searchInstanceCount',
  searchZoneCount: 'searchZoneCount',
  searchVolumeSizeGiB: 'searchVolumeSizeGiB',
  retentionDays: 'retentionDays',
  auditRetentionDays: 'auditRetentionDays',
  deletionProtection: 'deletionProtection',
  retainSearchDomain: 'retainSearchDomain',
  throttleRateLimit: 'throttleRateLimit',
  throttleBurstLimit: 'throttleBurstLimit',
  apiMemoryMiB: 'apiMemoryMiB',
  alarmTopicArn: 'alarmTopicArn',
  alarmEmail: 'alarmEmail',
  detailedTracing: 'detailedTracing',
  ipRateLimit: 'ipRateLimit',
  clientRateLimit: 'clientRateLimit',
  sessionRateLimit: 'sessionRateLimit',
  imagesConcurrency: 'imagesConcurrency',
  imagesCorsOrigins: 'imagesCorsOrigins',
} as const satisfies Record<keyof JobsApiConfig, string>;

/** A context value cannot be used; synthesis stops with this message. */
export class StackConfigError extends Error {
  /**
   * @param message replaces the sentence made of the key, what it must be and what it is (for a rule
   *   between several keys).
   */
  public constructor(key: string, expected: string, got: unknown, message?: string) {
    super(message ?? `Context "${key}" must be ${expected}, got ${JSON.stringify(got)}`);
    this.name = 'StackConfigError';
  }
}

/** What synthesis says when a protected stage's alarms would reach nobody. */
export const UNWATCHED_PROTECTED_STAGE =
  'A protected stage (deletionProtection=true, the default) must have its alarms reach someone: set ' +
  "-c alarmEmail=<address> (the stack's alarm topic emails it) or -c alarmTopicArn=<SNS topic ARN> (an existing " +
  'topic that reaches your team), or deploy a throw-away stage with -c deletionProtection=false';

/** CloudWatch Logs accepts only these retention periods (days). */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

/** Reads one context value; `undefined` when it is not set. */
export type ContextReader = (key: string) => unknown;

const text = (read: ContextReader, key: string, pattern: RegExp, fallback: string): string => {
  const value = read(key);
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !pattern.test(value))
    throw new StackConfigError(key, `a string matching ${pattern}`, value);
  return value;
};

const integer = (read: ContextReader, key: string, min: number, max: number, fallback: number): number => {
  const value = read(key);
  if (value === undefined) return fallback;
  // Values given with `-c key=value` arrive as strings.
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
    throw new StackConfigError(key, `an integer in [${min}, ${max}]`, value);
  }
  return number;
};

/** AWS WAF's bounds on a rate-based rule's limit. */
export const WAF_RATE_LIMIT_BOUNDS = { min: 10, max: 2_000_000_000 } as const;

/** A limit that is off unless set: unset or empty is `undefined`, anything else must be in bounds. */
const optionalLimit = (read: ContextReader, key: string): number | undefined => {
  const value = read(key);
  if (value === undefined || value === '') return undefined;
  return integer(read, key, WAF_RATE_LIMIT_BOUNDS.min, WAF_RATE_LIMIT_BOUNDS.max, 0);
};

const flag = (read: ContextReader, key: string, fallback: boolean): boolean => {
  const value = read(key);
  if (value === undefined) return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new StackConfigError(key, 'true or false', value);
};

const optionalArn = (read: ContextReader, key: string): string | undefined => {
  const value = read(key);
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]+$/.test(value)) {
    throw new StackConfigError(key, 'an SNS topic ARN', value);
  }
  return value;
};

const optionalEmail = (read: ContextReader, key: string): string | undefined => {
  const value = read(key);
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) {
    throw new StackConfigError(key, 'an email address', value);
  }
  return value;
};

/** A web origin as browsers send it in `Origin`: scheme, host and optional port, nothing after. */
const ORIGIN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/;

/** A list of origins (comma-separated, or a JSON list in cdk.json), or `*`; unset or empty is none. */
const origins = (read: ContextReader, key: string): string[] => {
  const value = read(key);
  if (value === undefined || value === '') return [];
  const list = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value.split(',').map((o) => o.trim())
      : [value];
  if (list.length === 1 && list[0] === '*') return ['*'];
  for (const origin of list) {
    if (typeof origin !== 'string' || !ORIGIN.test(origin))
      throw new StackConfigError(key, '"*" or a list of origins such as https://app.example.com', value);
  }
  return list as string[];
};

/** Unset or empty is `undefined`; anything else an integer in bounds. */
const optionalInteger = (read: ContextReader, key: string, min: number, max: number): number | undefined => {
  const value = read(key);
  if (value === undefined || value === '') return undefined;
  return integer(read, key, min, max, 0);
};

/**
 * Builds the configuration from context, validating every value, and checks that the values agree
 * with each other (the node count must be a multiple of the zone count, a protected stage's alarms must
 * reach someone).
 */
export const readStackConfig = (read: ContextReader): JobsApiConfig => {
  const zoneCount = integer(read, CONTEXT_KEYS.searchZoneCount, 1, 3, DEFAULT_CONFIG.searchZoneCount) as 1 | 2 | 3;
  const instanceCount = integer(read, CONTEXT_KEYS.searchInstanceCount, 1, 80, DEFAULT_CONFIG.searchInstanceCount);
  if (instanceCount % zoneCount !== 0) {
    throw new StackConfigError(
      CONTEXT_KEYS.searchInstanceCount,
      `a multiple of searchZoneCount (${zoneCount})`,
      instanceCount,
    );
  }
  const retentionDays = integer(read, CONTEXT_KEYS.retentionDays, 1, 3653, DEFAULT_CONFIG.retentionDays);
  if (!(LOG_RETENTION_DAYS as readonly number[]).includes(retentionDays)) {
    throw new StackConfigError(CONTEXT_KEYS.retentionDays, `one of ${LOG_RETENTION_DAYS.join(', ')}`, retentionDays);
  }
  const auditRetentionDays = integer(read, CONTEXT_KEYS.auditRetentionDays, 1, 3653, DEFAULT_CONFIG.auditRetentionDays);
  if (!(LOG_RETENTION_DAYS as readonly number[]).includes(auditRetentionDays)) {
    throw new StackConfigError(
      CONTEXT_KEYS.auditRetentionDays,
      `one of ${LOG_RETENTION_DAYS.join(', ')}`,
      auditRetentionDays,
    );
  }
  const throttleRateLimit = integer(read, CONTEXT_KEYS.throttleRateLimit, 1, 10_000, DEFAULT_CONFIG.throttleRateLimit);
  const throttleBurstLimit = integer(
    read,
    CONTEXT_KEYS.throttleBurstLimit,
    1,
    5_000,
    DEFAULT_CONFIG.throttleBurstLimit,
  );
  const alarmTopicArn = optionalArn(read, CONTEXT_KEYS.alarmTopicArn);
  const alarmEmail = optionalEmail(read, CONTEXT_KEYS.alarmEmail);
  if (alarmTopicArn !== undefined && alarmEmail !== undefined) {
    // The address would subscribe to the stack's own topic, which alarmTopicArn replaces.
    throw new StackConfigError(
      CONTEXT_KEYS.alarmEmail,
      `unset when alarmTopicArn is set (subscribe the address to ${alarmTopicArn} instead)`,
      alarmEmail,
    );
  }
  const config: JobsApiConfig = {
    stage: text(read, CONTEXT_KEYS.stage, /^[a-z][a-z0-9-]{0,19}$/, DEFAULT_CONFIG.stage),
    searchInstanceType: text(
      read,
      CONTEXT_KEYS.searchInstanceType,
      /^[a-z][a-z0-9]*\.[a-z0-9]+\.search$/,
      DEFAULT_CONFIG.searchInstanceType,
    ),
    searchInstanceCount: instanceCount,
    searchZoneCount: zoneCount,
    searchVolumeSizeGiB: integer(read, CONTEXT_KEYS.searchVolumeSizeGiB, 10, 3_072, DEFAULT_CONFIG.searchVolumeSizeGiB),
    retentionDays,
    auditRetentionDays,
    deletionProtection: flag(read, CONTEXT_KEYS.deletionProtection, DEFAULT_CONFIG.deletionProtection),
    retainSearchDomain: flag(read, CONTEXT_KEYS.retainSearchDomain, DEFAULT_CONFIG.retainSearchDomain),
    throttleRateLimit,
    throttleBurstLimit,
    apiMemoryMiB: integer(read, CONTEXT_KEYS.apiMemoryMiB, 128, 10_240, DEFAULT_CONFIG.apiMemoryMiB),
    alarmTopicArn,
    alarmEmail,
    detailedTracing: flag(read, CONTEXT_KEYS.detailedTracing, DEFAULT_CONFIG.detailedTracing),
    ipRateLimit: optionalLimit(read, CONTEXT_KEYS.ipRateLimit),
    clientRateLimit: optionalLimit(read, CONTEXT_KEYS.clientRateLimit),
    sessionRateLimit: integer(
      read,
      CONTEXT_KEYS.sessionRateLimit,
      WAF_RATE_LIMIT_BOUNDS.min,
      WAF_RATE_LIMIT_BOUNDS.max,
      DEFAULT_CONFIG.sessionRateLimit,
    ),
    imagesConcurrency: optionalInteger(read, CONTEXT_KEYS.imagesConcurrency, 1, 1_000),
    imagesCorsOrigins: origins(read, CONTEXT_KEYS.imagesCorsOrigins),
  };
  if (config.deletionProtection && alarmTopicArn === undefined && alarmEmail === undefined) {
    // A stage worth protecting is one somebody must hear about; a topic without a subscriber tells nobody.
    throw new StackConfigError(CONTEXT_KEYS.alarmEmail, 'set', undefined, UNWATCHED_PROTECTED_STAGE);
  }
  return config;
};

/** The stack name of a stage: `JobsApi-prod`. */
export const stackNameFor = (stage: string): string => `JobsApi-${stage}`;

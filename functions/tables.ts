/**
 * The DynamoDB table definitions, in one place. The CDK stack (`lib/`) and the local runtime
 * (`local/`) both build their tables from these descriptions, and the code in `functions/` reads the
 * key and index names from here, so the three can never disagree.
 *
 * This module is plain data: it imports neither the CDK nor the AWS SDK.
 */

export type AttributeType = 'S' | 'N';

export interface KeyDefinition {
  name: string;
  type: AttributeType;
}

export interface IndexDefinition {
  indexName: string;
  partitionKey: KeyDefinition;
  sortKey?: KeyDefinition;
  /** Attributes projected besides the keys; `KEYS_ONLY` when empty. */
  projection: 'KEYS_ONLY' | 'ALL';
}

export interface TableDefinition {
  /** Logical name: the CDK construct id and the local table-name suffix. */
  logicalName: string;
  partitionKey: KeyDefinition;
  sortKey?: KeyDefinition;
  globalSecondaryIndexes: IndexDefinition[];
  /** Stream view type, when the table has a stream. */
  stream?: 'NEW_AND_OLD_IMAGES';
  /** Attribute holding an epoch-seconds expiry, when the table expires items by TTL. */
  timeToLiveAttribute?: string;
}

/**
 * Jobs table: a job item (`pk = JOB#<id>`, `sk = JOB`) and one item per file under the job's partition
 * (`sk = FILE#<fileId>`, the id zero-padded to 16 digits so the keys sort by id: a page of files is one Query
 * of a key range). Items written before the padding (`FILE#42`) are moved to the padded key by the CLI's
 * `migrate`; a job item whose files all have padded keys says so (`fileKeys = padded`, {@link FILE_KEYS}).
 * File items carry `fileId`, which makes them (and only them) part of the sparse `byFileId` index. Each file item also carries `reviewKey` (`<jobId>#<review state>`): the `byReview`
 * index lists a job's files of one review state in id order, reading nothing else. The job item's
 * `version` is incremented in the same transaction as every write to the job or its files; the stream
 * feeds the search indexer.
 *
 * Two more kinds of item live beside the jobs, each in a partition of its own that no job key can take:
 * the id allocator's counter (`pk = IDS`, `sk = COUNTER`) and the idempotency records of `POST /jobs`
 * (`pk = IDEMPOTENCY#<account id>#<client id>#<sha256(key)>`, `sk = IDEMPOTENCY`), which expire by TTL on `ttl` (epoch
 * seconds). Neither has a `fileId`, a `reviewKey` nor the job sort key, so the indexes, the indexer and
 * scans of jobs pass them by.
 */
export const JOBS_TABLE = {
  logicalName: 'Jobs',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: 'byFileId',
      partitionKey: { name: 'fileId', type: 'N' },
      projection: 'KEYS_ONLY',
    },
    {
      indexName: 'byReview',
      partitionKey: { name: 'reviewKey', type: 'S' },
      sortKey: { name: 'fileId', type: 'N' },
      projection: 'KEYS_ONLY',
    },
  ],
  stream: 'NEW_AND_OLD_IMAGES',
  timeToLiveAttribute: 'ttl',
} as const satisfies TableDefinition;

/**
 * Auth table: clients (`pk = CLIENT#<sha256(token)>`), client secrets (`pk = SECRET#<sha256(secret)>`) and
 * sessions (`pk = SESSION#<sha256(token)>`). Sessions, and secrets given an end by a rotation, carry
 * `expiresAt` (ISO) and expire by TTL on `ttl` (epoch seconds); expiry is also checked on every read, since
 * TTL deletion is lazy.
 *
 * Every item also carries `clientId` and `clientEntry`, which make it part of the sparse `byClient` index:
 * an operator finds a client (`clientEntry = CLIENT`), its secrets (`SECRET#<secretId>`) and its sessions
 * (`SESSION#<userId>#<sessionId>`, so one user's sessions are a key prefix) by the client's id, without a
 * Scan. The index projects every attribute, so a listing needs no second read.
 */
export const AUTH_TABLE = {
  logicalName: 'Auth',
  partitionKey: { name: 'pk', type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: 'byClient',
      partitionKey: { name: 'clientId', type: 'S' },
      sortKey: { name: 'clientEntry', type: 'S' },
      projection: 'ALL',
    },
  ],
  timeToLiveAttribute: 'ttl',
} as const satisfies TableDefinition;

export const TABLES = [JOBS_TABLE, AUTH_TABLE] as const;

/** The digits of the largest id (2^53 − 1): every file sort key pads its id to this width. */
const FILE_ID_DIGITS = 16;

/** The sort key of a file as written before the padding (`FILE#42`); read until the migration moved it. */
const legacyFileSk = (fileId: number): string => `FILE#${fileId}`;

/** The sort key of a file: `FILE#` and the id zero-padded to 16 digits, so keys sort as ids do. */
const fileSk = (fileId: number): string => `FILE#${String(fileId).padStart(FILE_ID_DIGITS, '0')}`;

/**
 * The job item attribute that says every file of the job has its padded sort key: written with every job
 * item from now on, and by the migration once it moved a job's files. A job item without it may still
 * have files at their former keys, which readers then look up in both forms.
 */
export const FILE_KEYS = { attribute: 'fileKeys', padded: 'padded' } as const;

/** Whether a job item says every file of its job has its padded sort key. */
export const hasPaddedFileKeys = (jobItem: Readonly<Record<string, unknown>> | undefined): boolean =>
  jobItem?.[FILE_KEYS.attribute] === FILE_KEYS.padded;

/** Key helpers of the jobs table. */
export const jobKeys = {
  pk: (jobId: number): string => `JOB#${jobId}`,
  /** The leading key prefix of every item of a job's partition (IAM `dynamodb:LeadingKeys` conditions). */
  jobPrefix: 'JOB#',
  jobSk: 'JOB',
  fileSk,
  /** The sort key a file had before the padding. */
  legacyFileSk,
  /** Every sort key a file may have until the migration ran: the padded one first, no key twice. */
  fileSks: (fileId: number): string[] => [...new Set([fileSk(fileId), legacyFileSk(fileId)])],
  filePrefix: 'FILE#',
  /** The file id a padded file sort key names, or `undefined` for any other key. */
  fileIdOfSk: (sk: unknown): number | undefined => {
    if (typeof sk !== 'string' || !/^FILE#\d{16}$/.test(sk)) return undefined;
    const fileId = Number(sk.slice('FILE#'.length));
    return Number.isSafeInteger(fileId) ? fileId : undefined;
  },
  /**
   * The sort key range of a job's files after a file id (every file without one), in id order, for a Query
   * `sk BETWEEN from AND to`; `undefined` when no id can follow.
   */
  filesAfter: (afterFileId: number | undefined): { from: string; to: string } | undefined =>
    afterFileId !== undefined && afterFileId >= Number.MAX_SAFE_INTEGER
      ? undefined
      : { from: fileSk((afterFileId ?? 0) + 1), to: fileSk(Number.MAX_SAFE_INTEGER) },
  /** The id allocator's counter item. */
  counter: { pk: 'IDS', sk: 'COUNTER' },
  /**
   * The idempotency record of a key (already hashed) sent by a client for an account (the account first: it is
   * a number, so no client id can make two scopes' keys meet).
   */
  idempotency: (clientId: string, accountId: number, keyHash: string): { pk: string; sk: string } => ({
    pk: `IDEMPOTENCY#${accountId}#${clientId}#${keyHash}`,
    sk: 'IDEMPOTENCY',
  }),
  /** The leading key prefix of idempotency records (IAM `dynamodb:LeadingKeys` conditions). */
  idempotencyPrefix: 'IDEMPOTENCY#',
} as const;

/** Key helpers of the auth table. */
export const authKeys = {
  client: (tokenHash: string): string => `CLIENT#${tokenHash}`,
  secret: (secretHash: string): string => `SECRET#${secretHash}`,
  session: (tokenHash: string): string => `SESSION#${tokenHash}`,
  /** The leading key prefixes of the three kinds of item (IAM `dynamodb:LeadingKeys` conditions). */
  clientPrefix: 'CLIENT#',
  secretPrefix: 'SECRET#',
  sessionPrefix: 'SESSION#',
} as const;

/**
 * Key helpers of the auth table's webhook items, every one under the `WEBHOOK#` prefix (so IAM
 * `dynamodb:LeadingKeys` can confine a function to them): a webhook (`WEBHOOK#<id>`, which also carries
 * `clientId` and `clientEntry = WEBHOOK#<id>` for the `byClient` index), the client's list of its webhooks
 * (`WEBHOOK#CLIENT#<clientId>`, exact where the index lags, and what caps their number), the one registry of
 * every webhook's client and event types that delivery reads (`WEBHOOK#REGISTRY`), and a webhook's recent
 * delivery attempts in a ring of slots (`WEBHOOK#<id>#ATTEMPT#<slot>`, expiring by TTL). Webhook ids start with
 * `wh_`, so no id can take the key of the registry or of a client's list.
 */
export const webhookKeys = {
  webhook: (webhookId: string): string => `WEBHOOK#${webhookId}`,
  clientList: (clientId: string): string => `WEBHOOK#CLIENT#${clientId}`,
  registry: 'WEBHOOK#REGISTRY',
  attempt: (webhookId: string, slot: number): string => `WEBHOOK#${webhookId}#ATTEMPT#${slot}`,
  /** The leading key prefix of every webhook item (IAM `dynamodb:LeadingKeys` conditions). */
  prefix: 'WEBHOOK#',
} as const;

/** Sort keys of the auth table's `byClient` index (partitioned by `clientId`). */
export const byClientEntries = {
  client: 'CLIENT',
  secret: (secretId: string): string => `SECRET#${secretId}`,
  secretPrefix: 'SECRET#',
  session: (userId: string, sessionId: string): string => `SESSION#${userId}#${sessionId}`,
  webhook: (webhookId: string): string => `WEBHOOK#${webhookId}`,
  /** Every session of a client, or of one user of it. */
  sessionPrefix: (userId?: string): string => (userId === undefined ? 'SESSION#' : `SESSION#${userId}#`),
} as const;

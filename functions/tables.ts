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
 * (`sk = FILE#<fileId>`). File items carry `fileId`, which makes them (and only them) part of the sparse
 * `byFileId` index. The job item's `version` is incremented in the same transaction as every write to
 * the job or its files; the stream feeds the search indexer.
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
  ],
  stream: 'NEW_AND_OLD_IMAGES',
} as const satisfies TableDefinition;

/**
 * Auth table: clients (`pk = CLIENT#<sha256(token)>`) and sessions (`pk = SESSION#<sha256(token)>`).
 * Sessions carry `expiresAt` (ISO) and expire by TTL on `ttl` (epoch seconds); expiry is also checked on every read, since
 * TTL deletion is lazy.
 */
export const AUTH_TABLE = {
  logicalName: 'Auth',
  partitionKey: { name: 'pk', type: 'S' },
  globalSecondaryIndexes: [],
  timeToLiveAttribute: 'ttl',
} as const satisfies TableDefinition;

export const TABLES = [JOBS_TABLE, AUTH_TABLE] as const;

/** Key helpers of the jobs table. */
export const jobKeys = {
  pk: (jobId: number): string => `JOB#${jobId}`,
  jobSk: 'JOB',
  fileSk: (fileId: number): string => `FILE#${fileId}`,
  filePrefix: 'FILE#',
} as const;

/** Key helpers of the auth table. */
export const authKeys = {
  client: (tokenHash: string): string => `CLIENT#${tokenHash}`,
  session: (tokenHash: string): string => `SESSION#${tokenHash}`,
} as const;

/**
 * The DynamoDB document client of batch work outside the API: `npm start`'s demo seeding and the operator's
 * CLI commands (seed-demo, import, reindex, the credentials commands).
 *
 * The functions' client (functions/aws/dynamodb.ts) keeps every request inside the API's answer budget: at
 * most two attempts of `DEPENDENCY_TIMEOUT_MS` (3 s by default) each. A batch has no caller waiting on a
 * 10-second answer, and giving up early costs it dearly: a loaded table (DynamoDB Local on a busy machine,
 * a deployed table throttling a burst) that answers one transaction late fails that request, and an import's
 * writer treats a DynamoDB that stays unavailable as unavailable for the rest of the batch — every job not
 * yet written fails with it. So batch work waits longer for each answer and retries more, with the SDK's
 * backoff between attempts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** How long one request may take, and how many attempts the SDK makes (with its backoff between them). */
export const BATCH_REQUEST_TIMEOUT_MS = 30_000;
export const BATCH_MAX_ATTEMPTS = 5;

/** Where the client sends its requests. */
export interface BatchClientTarget {
  region: string;
  /** DynamoDB Local's URL; undefined for AWS's regional endpoint. */
  endpoint?: string | undefined;
  /** Fixed credentials (DynamoDB Local's); by default the SDK's provider chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** A patient document client for batch work. */
export const batchDocumentClient = (target: BatchClientTarget): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: target.region,
      ...(target.endpoint === undefined ? {} : { endpoint: target.endpoint }),
      ...(target.credentials === undefined ? {} : { credentials: target.credentials }),
      maxAttempts: BATCH_MAX_ATTEMPTS,
      requestHandler: {
        requestTimeout: BATCH_REQUEST_TIMEOUT_MS,
        throwOnRequestTimeout: true,
        connectionTimeout: 10_000,
      },
    }),
    { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } },
  );

/**
 * DynamoDB Local for a benchmark process: its own instance (in memory, on a free port), the two tables
 * of `functions/tables.ts`, bulk loading of generated jobs with BatchWriteItem, and credentials issued
 * through the real {@link AuthStore}.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
  DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { Grant, Role } from '../../functions/auth/principal';
import { AuthStore } from '../../functions/auth/store';
import { toFileItems, toJobItem } from '../../functions/jobs/store/items';
import type { Job } from '../../functions/jobs/model/model';
import { AUTH_TABLE, JOBS_TABLE } from '../../functions/tables';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local';
import { ensureTable } from '../../local/dynamodb/tables';

export const BENCH_REGION = 'us-east-1';
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** A running DynamoDB Local with the benchmark's tables. */
export interface BenchDynamo {
  local: DynamoDbLocal;
  client: DynamoDBClient;
  documents: DynamoDBDocumentClient;
  jobsTable: string;
  authTable: string;
  /** The environment the handlers need to use it (merge into `process.env` before importing them). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts DynamoDB Local in memory and creates the jobs and auth tables. The JVM runs its own default JIT (both
 * tiers), not the quick tier alone that the local stack and the tests use: a benchmark is minutes of steady
 * load, which the optimising compiles repay (a BatchGetItem of 50 items answers in about half the time once
 * compiled), so its figures are DynamoDB Local's steady state, not its warm-up.
 */
export const startBenchDynamo = async (): Promise<BenchDynamo> => {
  const local = await startDynamoDbLocal({ port: 0, jit: 'optimising' });
  // DynamoDB Local is a child Java process: stop it when this benchmark is interrupted.
  const interrupted = (signal: NodeJS.Signals): void => {
    void local.stop().finally(() => process.kill(process.pid, signal));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const client = new DynamoDBClient({ endpoint: local.endpoint, region: BENCH_REGION, credentials: CREDENTIALS });
  const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  const jobsTable = 'bench-Jobs';
  const authTable = 'bench-Auth';
  await ensureTable(client, JOBS_TABLE, jobsTable);
  await ensureTable(client, AUTH_TABLE, authTable);
  return {
    local,
    client,
    documents,
    jobsTable,
    authTable,
    env: {
      JOBS_TABLE: jobsTable,
      AUTH_TABLE: authTable,
      DYNAMODB_ENDPOINT: local.endpoint,
      AWS_REGION: BENCH_REGION,
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    },
    stop: async () => {
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
      client.destroy();
      await local.stop();
    },
  };
};

/** The items of a job as the repository stores them (job item at `version`, one item per file). */
export const itemsOf = (job: Job, version = 1): object[] => [toJobItem(job, version), ...toFileItems(job)];

const BATCH_WRITE_ITEMS = 25;
const MAX_ROUNDS = 20;

/** Writes items with BatchWriteItem, 25 per request, `concurrency` requests at a time, retrying unprocessed items. */
export const batchWrite = async (
  documents: DynamoDBDocumentClient,
  tableName: string,
  items: readonly object[],
  concurrency = 8,
): Promise<void> => {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const chunk = items.slice(next, next + BATCH_WRITE_ITEMS);
      next += BATCH_WRITE_ITEMS;
      let request: BatchWriteCommandInput['RequestItems'] = {
        [tableName]: chunk.map((Item) => ({ PutRequest: { Item: Item as Record<string, unknown> } })),
      };
      for (let round = 0; request !== undefined && Object.keys(request).length > 0; round++) {
        if (round >= MAX_ROUNDS) throw new Error(`BatchWriteItem left items unprocessed after ${MAX_ROUNDS} rounds`);
        if (round > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** Math.min(round, 6)));
        const answer: BatchWriteCommandOutput = await documents.send(new BatchWriteCommand({ RequestItems: request }));
        request = answer.UnprocessedItems;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
};

/** A client token and a session token, as a caller sends them. */
export interface BenchTokens {
  clientToken: string;
  sessionToken: string;
}

/** Issues a client with the grants (default `search` and `reject`) and a session for an account and role. */
export const issueTokens = async (
  dynamo: Pick<BenchDynamo, 'documents' | 'authTable'>,
  accountId: number,
  role: Role,
  grants: Grant[] = ['search', 'reject'],
): Promise<BenchTokens> => {
  const store = new AuthStore(dynamo.documents, dynamo.authTable);
  const client = await store.createClient({
    name: `bench ${role} ${accountId}`,
    grants,
    sessionRoles: [role],
  });
  // 12 hours: the longest an operator session may last, and longer than any benchmark runs.
  const session = await store.createSession({ clientToken: client.token, accountId, role, ttlSeconds: 43_200 });
  return { clientToken: client.token, sessionToken: session.token };
};

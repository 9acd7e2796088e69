/**
 * Test helpers for DynamoDB Local: a client on the run's shared instance and uniquely named tables.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, inject } from 'vitest';
import { AUTH_TABLE, JOBS_TABLE } from '../../functions/tables';
import { ensureTable } from '../../local/dynamodb/tables';

/**
 * The endpoint of this worker's DynamoDB Local: the run starts one per worker (test/support/global-setup.ts), and
 * each worker (vitest's `VITEST_POOL_ID`, 1 to the number of workers) keeps to its own.
 */
export const sharedDynamodbEndpoint = (): string => workersOwn(inject('dynamodbEndpoints'));

/** The directory of the database file of this worker's DynamoDB Local. */
export const sharedDynamodbDatabase = (): string => workersOwn(inject('dynamodbDatabases'));

/** This worker's entry of a list with one per worker. */
const workersOwn = <T>(perWorker: T[]): T => {
  const worker = Math.max(1, Number(process.env.VITEST_POOL_ID) || 1);
  return perWorker[(worker - 1) % perWorker.length]!;
};

/** A DynamoDB client for this worker's DynamoDB Local. */
export const localClient = (): DynamoDBClient =>
  new DynamoDBClient({
    endpoint: sharedDynamodbEndpoint(),
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

export interface TestTables {
  endpoint: string;
  jobsTable: string;
  authTable: string;
}

/** Creates a fresh jobs table and auth table with unique names, for one test file (on the run's DynamoDB Local unless told another). */
export const createTestTables = async (
  client: DynamoDBClient = localClient(),
  endpoint: string = sharedDynamodbEndpoint(),
): Promise<TestTables> => {
  const suffix = randomUUID().slice(0, 8);
  const tables = { endpoint, jobsTable: `jobs-${suffix}`, authTable: `auth-${suffix}` };
  await ensureTable(client, JOBS_TABLE, tables.jobsTable);
  await ensureTable(client, AUTH_TABLE, tables.authTable);
  return tables;
};

/** The environment a handler needs to run against the test tables (merge into process.env). */
export const handlerEnv = (tables: TestTables): Record<string, string> => ({
  JOBS_TABLE: tables.jobsTable,
  AUTH_TABLE: tables.authTable,
  DYNAMODB_ENDPOINT: tables.endpoint,
  SEARCH_ENGINE: 'embedded',
  SEARCH_DB_PATH: ':memory:',
});

/**
 * A document client on the run's DynamoDB Local and a fresh jobs table for one test file: the table is created
 * before the file's tests (read `name` inside them) and the client closed after them.
 */
export const fileJobsTable = (): { documents: DynamoDBDocumentClient; readonly name: string } => {
  const raw = localClient();
  let name: string | undefined;
  beforeAll(async () => {
    name = (await createTestTables(raw)).jobsTable;
  });
  afterAll(() => {
    raw.destroy();
  });
  return {
    documents: DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } }),
    get name(): string {
      if (name === undefined) throw new Error('The jobs table is created before the tests run');
      return name;
    },
  };
};

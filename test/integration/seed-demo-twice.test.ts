/**
 * `seed-demo --stack <name> --force` over a stack that already holds the demo writes every demo job again, on
 * DynamoDB Local (which answers contended transactions with "took too long waiting for a lock"): the demo
 * seeded twice over the same tables, through the operators' patient client, and every job read back whole.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthStore } from '../../functions/auth/store';
import { OPERATOR_RETRY_POLICY } from '../../functions/jobs/store/jobs-table';
import { JobRepository } from '../../functions/jobs/store/repository';
import { demoJobs } from '../../local/demo/data';
import { seedDemoData } from '../../local/demo/seeding';
import { batchDocumentClient } from '../../local/dynamodb/batch-client';
import { createTestTables, localClient, type TestTables } from '../support/dynamo';

let client: DynamoDBClient;
let documents: DynamoDBDocumentClient;
let tables: TestTables;

beforeAll(async () => {
  client = localClient();
  tables = await createTestTables(client);
  documents = batchDocumentClient({
    endpoint: tables.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}, 60_000);

afterAll(() => {
  documents?.destroy();
  client?.destroy();
});

const seed = () =>
  seedDemoData(
    new AuthStore(documents, tables.authTable, { audit: () => Promise.resolve() }),
    new JobRepository(documents, tables.jobsTable, { retry: OPERATOR_RETRY_POLICY }),
  );

describe('seed-demo over a stack that already holds the demo', () => {
  it('writes every demo job the second time too, each whole', async () => {
    await seed();
    await seed();
    const repository = new JobRepository(documents, tables.jobsTable);
    const missing: string[] = [];
    for (const job of demoJobs()) {
      const stored = (await repository.getJob(job.id, { consistent: true }))?.job;
      const files = stored?.files.length ?? 0;
      if (stored === undefined || stored.status !== job.status || files !== job.files.length) {
        missing.push(`${job.id}: ${stored === undefined ? 'missing' : `${stored.status}, ${files} files`}`);
      }
    }
    expect(missing).toEqual([]);
  }, 300_000);
});

/**
 * `npm start` on a data directory written before clients had secrets: its demo tokens file has no client
 * secrets, so the stack issues new demo clients and sessions (keeping the jobs) instead of refusing to start,
 * and the new demo app can open sessions with its secret.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthStore } from '../../functions/auth/store';
import { hashToken } from '../../functions/auth/tokens';
import { JobRepository } from '../../functions/jobs/store/repository';
import { createDemoAuth } from '../../local/demo/auth';
import { demoAccounts, prepareDemo } from '../../local/demo/seeding';
import { dataPaths } from '../../local/paths';
import { createTestTables, localClient, type TestTables } from '../support/dynamo';
import { makeJob } from '../support/jobs';

let tables: TestTables;
let directory: string;
const client = localClient();

beforeAll(async () => {
  tables = await createTestTables(client);
  directory = await mkdtemp(join(tmpdir(), 'demo-upgrade-'));
});

afterAll(async () => {
  client.destroy();
  await rm(directory, { recursive: true, force: true });
});

describe('a data directory from before client secrets', { timeout: 120_000 }, () => {
  it('gets new demo clients and sessions with secrets, and keeps its jobs', async () => {
    const paths = dataPaths(directory);
    const documents = DynamoDBDocumentClient.from(client);
    // What the earlier version left: a store with jobs, and demo tokens whose clients have no secret.
    const kept = makeJob({ accountId: 7 });
    await new JobRepository(documents, tables.jobsTable).putJob(kept);
    const earlier = await createDemoAuth(new AuthStore(documents, tables.authTable), demoAccounts());
    for (const demoClient of Object.values(earlier.clients) as unknown as Record<string, unknown>[]) {
      delete demoClient.clientSecret;
    }
    await writeFile(paths.demoTokens as string, JSON.stringify(earlier));

    const lines: string[] = [];
    const upgraded = await prepareDemo(
      client,
      tables.endpoint,
      { jobsTable: tables.jobsTable, authTable: tables.authTable },
      paths,
      { seedDemo: true, audit: () => Promise.resolve(), log: (line) => lines.push(line) },
    );
    expect(lines.join('\n')).toContain('predate client secrets');
    const demoApp = upgraded.demo?.clients.demoApp;
    expect(demoApp?.clientSecret).toMatch(/^jsk_/);
    expect(demoApp?.clientToken).not.toBe(earlier.clients.demoApp.clientToken);
    expect(JSON.parse(await readFile(paths.demoTokens as string, 'utf8')).clients.demoApp.clientSecret).toBe(
      demoApp?.clientSecret,
    );
    const secret = await new AuthStore(documents, tables.authTable).getSecret(hashToken(demoApp!.clientSecret));
    expect(secret?.clientId).toBe(demoApp?.clientId);

    const ids: number[] = [];
    for await (const id of new JobRepository(documents, tables.jobsTable).scanJobIds()) ids.push(id);
    expect(ids).toEqual([kept.id]);
  });
});

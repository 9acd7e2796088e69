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
import { JobRepository } from '../../functions/jobs/repository';
import { demoJobs } from '../../local/demo/data';
import { prepareDemo } from '../../local/demo/seeding';
import { dataPaths } from '../../local/paths';
import { createTestTables, localClient, type TestTables } from '../support/dynamo';

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
    const prepare = (log: (line: string) => void) =>
      prepareDemo(
        client,
        tables.endpoint,
        { jobsTable: tables.jobsTable, authTable: tables.authTable },
        paths,
        true,
        log,
      );
    const first = await prepare(() => undefined);
    expect(first.seeded).toBe(true);

    // The file as the earlier version wrote it: the same clients, without secrets.
    const saved = JSON.parse(await readFile(paths.demoTokens as string, 'utf8'));
    for (const demoClient of Object.values(saved.clients) as Record<string, unknown>[]) delete demoClient.clientSecret;
    await writeFile(paths.demoTokens as string, JSON.stringify(saved));

    const lines: string[] = [];
    const upgraded = await prepare((line) => lines.push(line));
    expect(lines.join('\n')).toContain('predate client secrets');
    expect(upgraded.seeded).toBe(true);
    const demoApp = upgraded.demo?.clients.demoApp;
    expect(demoApp?.clientSecret).toMatch(/^jsk_/);
    expect(demoApp?.clientToken).not.toBe(saved.clients.demoApp.clientToken);
    expect(JSON.parse(await readFile(paths.demoTokens as string, 'utf8')).clients.demoApp.clientSecret).toBe(
      demoApp?.clientSecret,
    );

    const documents = DynamoDBDocumentClient.from(client);
    const secret = await new AuthStore(documents, tables.authTable).getSecret(hashToken(demoApp!.clientSecret));
    expect(secret?.clientId).toBe(demoApp?.clientId);

    let jobs = 0;
    for await (const _id of new JobRepository(documents, tables.jobsTable).scanJobIds()) jobs += 1;
    expect(jobs).toBe(demoJobs().length);
  });
});

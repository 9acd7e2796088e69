/**
 * The local stack supervises the DynamoDB Local it started: killed, it is restarted on the same port
 * and data directory, and the API, the stream poller and the data carry on; once the restart budget
 * is spent, the stack says DynamoDB Local is gone (naming it) instead of running on blind.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AuthStore } from '../../functions/auth/store';
import { documentClient } from '../../functions/aws/dynamodb';
import { JobRepository } from '../../functions/jobs/store/repository';
import { importJobs } from '../../local/operations/import';
import { type LocalStack, startLocalStack } from '../../local/stack/runtime';
import { makeJob } from '../support/jobs';
import { isRunning } from '../support/local-stack';

let stack: LocalStack | undefined;
const directories: string[] = [];
const killed: number[] = [];

afterAll(async () => {
  await stack?.stop();
  for (const pid of killed) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
}, 60_000);

describe('DynamoDB Local supervision', { timeout: 480_000 }, () => {
  it('restarts a killed DynamoDB Local on the same data, then reports it lost once the restart budget is spent', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'jobs-api-supervision-'));
    directories.push(dataDir);
    const logged: string[] = [];
    const fatal: Error[] = [];
    const local = await startLocalStack({
      port: 0,
      dynamodbPort: 0,
      s3Port: 0,
      dataDir,
      seedDemo: false,
      dynamodbRestarts: 1,
      log: (message) => logged.push(message),
      onFatal: (error) => fatal.push(error),
    });
    stack = local;
    const store = new AuthStore(documentClient(), local.tables.authTable);
    const client = await store.createClient({ name: 'supervision test', grants: ['search'] });
    const session = await store.createSession({
      clientToken: client.token,
      accountId: 1,
      role: 'user',
      ttlSeconds: 600,
    });
    const repository = new JobRepository(documentClient(), local.tables.jobsTable);
    const search = async (query: string, sessionToken = session.token): Promise<{ status: number; ids: number[] }> => {
      const response = await fetch(`${local.baseUrl}/search`, {
        method: 'POST',
        headers: {
          Accept: 'application/json',
          'Content-Type': 'application/json',
          'X-Client-Token': client.token,
          'X-Session-Token': sessionToken,
        },
        body: JSON.stringify({ field: 'JobName', query }),
      });
      const body = (await response.json()) as { jobs?: { id: number }[] };
      return { status: response.status, ids: (body.jobs ?? []).map((job) => job.id) };
    };

    const before = makeJob({ accountId: 1, name: 'Supervised lighthouse' });
    await importJobs([before], { repository });
    await local.drained();
    expect(await search('lighthouse')).toEqual({ status: 200, ids: [before.id] });

    // Killed outright: the stack names it, restarts it on the same endpoint, and everything carries on.
    const first = local.dynamodbPid as number;
    killed.push(first);
    process.kill(first, 'SIGKILL');
    await expect
      .poll(() => local.dynamodbPid !== first && logged.some((line) => line.includes('is back')), {
        timeout: 180_000,
        interval: 200,
      })
      .toBe(true);
    const second = local.dynamodbPid as number;
    killed.push(second);
    expect(isRunning(first)).toBe(false);
    expect(isRunning(second)).toBe(true);
    expect(logged).toContainEqual(
      expect.stringMatching(
        new RegExp(`^DynamoDB Local \\(pid ${first}, .+\\) was killed by SIGKILL\\. Restarting it on `),
      ),
    );
    expect(logged).toContainEqual(`DynamoDB Local is back on ${local.dynamodbEndpoint} (pid ${second}).`);
    expect(fatal).toEqual([]);
    // The same data (clients, sessions, jobs) and a stream poller that reads on.
    await expect.poll(async () => (await search('lighthouse')).status, { timeout: 60_000 }).toBe(200);
    expect(await search('lighthouse')).toEqual({ status: 200, ids: [before.id] });
    const after = makeJob({ accountId: 1, name: 'Supervised harbour' });
    await importJobs([after], { repository });
    await local.drained();
    expect(await search('harbour')).toEqual({ status: 200, ids: [after.id] });

    // A session the API has not seen yet, so not in its token cache: its lookup needs DynamoDB.
    const unseen = await store.createSession({
      clientToken: client.token,
      accountId: 1,
      role: 'user',
      ttlSeconds: 600,
    });

    // The budget (one restart here) is spent: no silent loop, one message naming DynamoDB Local.
    process.kill(second, 'SIGKILL');
    await expect.poll(() => fatal.length, { timeout: 60_000, interval: 200 }).toBe(1);
    expect(fatal[0]?.name).toBe('DynamoDbLocalLostError');
    expect(fatal[0]?.message).toMatch(
      new RegExp(`^DynamoDB Local \\(pid ${second}, .+\\) was killed by SIGKILL\\. It was restarted 1 time within`),
    );
    expect(local.dynamodbPid).toBe(second);
    expect(isRunning(second)).toBe(false);
    expect(logged.filter((line) => line.includes('Restarting it'))).toHaveLength(1);
    // Still answering, with the contract's 503 where DynamoDB is needed, until it is stopped.
    expect((await search('harbour', unseen.token)).status).toBe(503);
  });
});

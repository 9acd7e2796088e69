/**
 * `npm run invoke` end to end: the real executable runs each handler module on the sample events of events/
 * against a local stack (DynamoDB Local, tables of its own), with the embedded search index in a file the
 * invocations share. The invocations run the test run's bundle of bin/invoke.ts (test/support/script-bundles.ts),
 * except one, launched as a user types it (`npm run invoke -- …`, through npm and tsx), so the launch itself stays
 * tested.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoJobs } from '../../local/demo/data';
import { type IssuedTokens, ROOT, runProcess, startTestStack, type TestStack } from '../support/local-stack';

/** The jobs the sample events are about: the indexer/search event's job and the reject event's job. */
const SAMPLE_JOB_IDS = [10001, 10037];

let stack: TestStack;
let tokens: IssuedTokens;
let dataDir: string;
let env: Record<string, string>;

const invoke = (args: string[], extraEnv: Record<string, string> = {}) =>
  runProcess('bin/invoke.ts', args, { ...env, ...extraEnv });

/** `npm run --silent invoke -- …args`, through npm and tsx as a user types it, to completion. */
const invokeAsTyped = (
  args: string[],
  extraEnv: Record<string, string>,
): Promise<{ code: number | string; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'invoke', '--', ...args],
      { cwd: ROOT, env: { ...process.env, ...env, ...extraEnv } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : (error.code ?? 'unknown'), stdout, stderr }),
    );
  });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the printed result is arbitrary JSON
const parsed = (stdout: string): any => JSON.parse(stdout);

beforeAll(async () => {
  stack = await startTestStack();
  tokens = await stack.issue({ accountId: 1001, grants: ['search', 'reject', 'sessions'] });
  await stack.importJobs(demoJobs().filter((job) => SAMPLE_JOB_IDS.includes(job.id)));
  dataDir = await mkdtemp(join(tmpdir(), 'invoke-e2e-'));
  env = {
    DATA_DIR: dataDir,
    JOBS_TABLE: stack.tables.jobsTable,
    AUTH_TABLE: stack.tables.authTable,
    DYNAMODB_ENDPOINT: stack.stack.dynamodbEndpoint,
    SEARCH_DB_PATH: join(dataDir, 'search.sqlite'),
    CLIENT_TOKEN: '',
    SESSION_TOKEN: '',
    CLIENT_SECRET: '',
  };
});

afterAll(async () => {
  await stack?.stop();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

describe('npm run invoke on the sample events', () => {
  it('indexes the job of the stream event, then finds it with the search event', async () => {
    const indexed = await invoke(['indexer', 'events/indexer.json']);
    expect(indexed.code, indexed.stderr).toBe(0);
    expect(parsed(indexed.stdout)).toEqual({ batchItemFailures: [] });

    const searched = await invoke([
      'search',
      'events/search.json',
      '--client-token',
      tokens.clientToken,
      '--session-token',
      tokens.sessionToken,
    ]);
    expect(searched.code, searched.stderr).toBe(0);
    const result = parsed(searched.stdout);
    expect(result.statusCode).toBe(200);
    expect(result.headers['Content-Type']).toBe('application/json; charset=utf-8');
    const body = JSON.parse(result.body);
    expect(body).toMatchObject({ _type: 'SearchResponseBody', totalJobs: 1 });
    expect(body.jobs.map((job: { id: number }) => job.id)).toEqual([10001]);
  });

  it('lists the search fields with tokens taken from CLIENT_TOKEN and SESSION_TOKEN, launched as a user types it (npm run invoke, through tsx)', async () => {
    const listed = await invokeAsTyped(['search-fields', 'events/search-fields.json'], {
      CLIENT_TOKEN: tokens.clientToken,
      SESSION_TOKEN: tokens.sessionToken,
    });
    expect(listed.code, listed.stderr).toBe(0);
    const result = parsed(listed.stdout);
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ _type: 'SearchFieldsResponseBody' });
  });

  it('rejects the file of the reject event, and a retry changes nothing', async () => {
    const args = [
      'reject',
      'events/reject.json',
      `--client-token=${tokens.clientToken}`,
      `--session-token=${tokens.sessionToken}`,
    ];
    const first = await invoke(args);
    expect(first.code, first.stderr).toBe(0);
    const result = parsed(first.stdout);
    expect(result.statusCode).toBe(200);
    const body = JSON.parse(result.body);
    expect(body.files).toEqual([expect.objectContaining({ fileId: 300650, jobId: 10037, isRejected: true })]);
    expect(body.jobs).toEqual([{ id: 10037, status: 'CJ_REJECT_READY' }]);

    const retry = await invoke(args);
    expect(parsed(retry.stdout).statusCode).toBe(200);
    expect(JSON.parse(parsed(retry.stdout).body).files).toEqual(body.files);
  });

  it('opens a session with the sessions-open event and CLIENT_SECRET, and ends it with sessions-end', async () => {
    const opened = await invoke(['sessions', 'events/sessions-open.json'], {
      CLIENT_TOKEN: tokens.clientToken,
      CLIENT_SECRET: tokens.clientSecret,
    });
    expect(opened.code, opened.stderr).toBe(0);
    const result = parsed(opened.stdout);
    expect(result.statusCode).toBe(201);
    const session = JSON.parse(result.body);
    expect(session).toMatchObject({ _type: 'SessionResponseBody', sessionId: expect.any(String) });
    expect(opened.stderr).not.toContain(tokens.clientSecret);

    const end = () =>
      invoke(['sessions', 'events/sessions-end.json'], {
        CLIENT_TOKEN: tokens.clientToken,
        SESSION_TOKEN: session.token,
      });
    const ended = parsed((await end()).stdout);
    expect(ended.statusCode).toBe(200);
    expect(JSON.parse(ended.body)).toEqual({ _type: 'SessionEndedResponseBody', sessionId: session.sessionId });
    expect(JSON.parse(parsed((await end()).stdout).body).code).toBe('invalid_session');
  });

  it('prints the API’s own refusal when the event keeps its placeholder tokens', async () => {
    const refused = await invoke(['search', 'events/search.json']);
    expect(refused.code).toBe(0);
    const result = parsed(refused.stdout);
    expect(result.statusCode).toBe(401);
    expect(JSON.parse(result.body)).toMatchObject({ code: 'invalid_client' });
    expect(refused.stderr).toContain('No token given');
  });

  it('exits 2 with the usage on an unknown function', async () => {
    const failed = await invoke(['searches', 'events/search.json']);
    expect(failed.code).toBe(2);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toContain('Usage: npm run invoke');
  });
});

/**
 * `npm run cli` against a running local stack: credentials it issues work over HTTP, imported jobs
 * become searchable, the index can be verified and rebuilt, and mistakes answer with exit code 2.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../functions/auth/tokens';
import { type LocalStack, startLocalStack } from '../../local/stack/runtime';
import { makeJob } from '../support/jobs';
import { ROOT, runProcess } from '../support/local-stack';
import { fetchMatchingOpenApi } from '../support/openapi';
import { sharedDynamodbEndpoint } from '../support/dynamo';

let stack: LocalStack;
let dataDir: string;
let cliEnv: Record<string, string>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'jobs-api-cli-'));
  stack = await startLocalStack({
    port: 0,
    s3Port: 0,
    dataDir,
    dynamodbEndpoint: sharedDynamodbEndpoint(),
    tablePrefix: `cli-${randomUUID().slice(0, 8)}`,
    seedDemo: false,
    log: () => {},
  });
  cliEnv = {
    DYNAMODB_ENDPOINT: stack.dynamodbEndpoint,
    JOBS_TABLE: stack.tables.jobsTable,
    AUTH_TABLE: stack.tables.authTable,
    DATA_DIR: dataDir,
    CI: 'true',
  };
});

afterAll(async () => {
  await stack?.stop();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runProcess('bin/cli.ts', args, cliEnv);

/** The packages only a deployed stack's commands or the pictures need; see test/support/loaded-packages.mjs. */
const STACK_ONLY_PACKAGES = [
  '@aws-sdk/client-s3',
  'sharp',
  '@opensearch-project/opensearch',
  '@aws-sdk/client-opensearch',
  '@aws-sdk/client-cloudformation',
  '@aws-sdk/client-cloudwatch-logs',
  '@aws-sdk/client-sts',
  '@aws-lambda-powertools/metrics',
];

/** Runs the CLI as `cli` does, and reads back the npm packages the process loaded. */
const cliLoading = async (...args: string[]) => {
  const file = join(dataDir, `loaded-${randomUUID()}.json`);
  const hook = pathToFileURL(join(ROOT, 'test', 'support', 'loaded-packages.mjs')).href;
  const result = await runProcess('bin/cli.ts', args, {
    ...cliEnv,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${hook}`.trim(),
    LOADED_PACKAGES_FILE: file,
  });
  return { ...result, loaded: JSON.parse(await readFile(file, 'utf8')) as string[] };
};

const get = (path: string, clientToken: string, sessionToken: string) =>
  fetchMatchingOpenApi(`${stack.baseUrl}${path}`, {
    headers: { Accept: 'application/json', 'X-Client-Token': clientToken, 'X-Session-Token': sessionToken },
  });

describe('npm run cli', { timeout: 120_000 }, () => {
  it('issues a client and a session that the API accepts', async () => {
    const client = await cli(
      'create-client',
      '--name',
      'Integration app',
      '--grants',
      'search,reject',
      '--all-accounts',
      '--session-roles',
      'user,operator',
    );
    expect(client.code).toBe(0);
    const created = JSON.parse(client.stdout);
    expect(Object.keys(created).sort()).toEqual(['clientId', 'secret', 'token']);
    expect(created.secret).toMatch(/^jsk_[A-Za-z0-9_-]{43}$/);

    const session = await cli(
      'create-session',
      '--client-token',
      created.token,
      '--account',
      '4242',
      '--role',
      'operator',
      '--ttl',
      '600',
      '--user',
      'alice',
    );
    expect(session.code).toBe(0);
    const opened = JSON.parse(session.stdout);
    expect(Object.keys(opened).sort()).toEqual(['expiresAt', 'sessionId', 'token']);
    expect(Date.parse(opened.expiresAt) - Date.now()).toBeGreaterThan(500_000);
    expect(Date.parse(opened.expiresAt) - Date.now()).toBeLessThanOrEqual(600_000);

    const response = await get('/search/fields', created.token, opened.token);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { fields: { id: string }[] };
    expect(body.fields.map((field) => field.id)).toContain('AccountNumber');
  });

  it('imports NDJSON, reports bad lines by number, and the imported jobs become searchable', async () => {
    const jobs = [makeJob({ name: 'Imported harbour shoot' }), makeJob({ name: 'Imported harbour night' })];
    const file = join(dataDir, 'jobs.ndjson');
    await writeFile(file, `${JSON.stringify(jobs[0])}\n{"id": "not a job"}\n${JSON.stringify(jobs[1])}\n`);
    const result = await cli('import', file);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ imported: 2, unchanged: 0, failed: [{ line: 2, message: expect.any(String) }] });
    expect(result.stderr).toContain('line 2:');

    await stack.drained();
    const client = JSON.parse(
      (await cli('create-client', '--name', 'Searcher', '--grants', 'search', '--all-accounts')).stdout,
    );
    const session = JSON.parse(
      (await cli('create-session', '--client-token', client.token, '--account', String(jobs[0]?.accountId))).stdout,
    );
    const response = await fetchMatchingOpenApi(`${stack.baseUrl}/search`, {
      method: 'POST',
      headers: {
        Accept: 'application/json',
        'Content-Type': 'application/json',
        'X-Client-Token': client.token,
        'X-Session-Token': session.token,
      },
      body: JSON.stringify({ field: 'JobName', query: 'imported harb' }),
    });
    expect(((await response.json()) as { totalJobs: number }).totalJobs).toBe(2);
  });

  it('verifies the index against the table and rebuilds it', async () => {
    await stack.drained();
    const verified = await cli('verify-index');
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, missing: [], stale: [], extra: [] });

    const rebuilt = await cli('reindex');
    expect(rebuilt.code).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({ failed: [] });
    expect((await cli('verify-index')).code).toBe(0);
  });

  // The program's exit code as a shell sees it; test/unit/local/cli-usage.test.ts runs every other mistaken
  // command line through the same runCli in-process.
  it.each([[[]], [['no-such-command']]])('exits 2 with the usage on %j', async (args) => {
    const result = await cli(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: npm run cli');
    expect(result.stdout).toBe('');
  });

  it('status names the local tables, DynamoDB endpoint and search index it acts on, and the index’s health', async () => {
    const result = await cli('status');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      target: `local stack at ${stack.dynamodbEndpoint}`,
      jobsTable: stack.tables.jobsTable,
      authTable: stack.tables.authTable,
      dynamodbEndpoint: stack.dynamodbEndpoint,
      searchEngine: 'embedded',
      searchIndex: join(dataDir, 'search.sqlite'),
      index: {
        name: 'jobs',
        indices: ['jobs'],
        documents: expect.any(Number),
        tableJobs: expect.any(Number),
        tableCounts: { items: expect.any(Number), fileItems: expect.any(Number), refreshed: 'about every six hours' },
        healthy: true,
      },
    });
    // DynamoDB's own counts (DescribeTable): the table's items less its file items are its jobs.
    const { index } = JSON.parse(result.stdout) as {
      index: { tableJobs: number; tableCounts: { items: number; fileItems: number } };
    };
    expect(index.tableJobs).toBe(index.tableCounts.items - index.tableCounts.fileItems);
  });

  it('exits 1 when a session is asked for an unknown client', async () => {
    const result = await cli('create-session', '--client-token', 'nobody', '--account', '7');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/client/i);
  });

  it('reads a client token that begins with a dash as the token, not as an option', async () => {
    const result = await cli('create-session', '--client-token', '-nobody', '--account', '7');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/client/i);
  });

  it('lets an operator run a client by its id: sessions, secrets, disable and enable, never printing a hash', async () => {
    const outputs: string[] = [];
    const run = async (args: string[], env: Record<string, string> = {}) => {
      const result = await runProcess('bin/cli.ts', args, { ...cliEnv, ...env });
      outputs.push(result.stdout, result.stderr);
      return result;
    };
    const json = async (args: string[], env: Record<string, string> = {}) => {
      const result = await run(args, env);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout);
    };
    const created = await json([
      'create-client',
      '--name',
      'Portal',
      '--grants',
      'search,sessions',
      '--accounts',
      '7,4242',
      '--session-roles',
      'user',
      '--max-session-ttl',
      '3600',
    ]);
    const { clientId } = created;
    const open = (secret: string) =>
      fetchMatchingOpenApi(`${stack.baseUrl}/sessions`, {
        method: 'POST',
        headers: {
          Accept: 'application/json',
          'Content-Type': 'application/json',
          'X-Client-Token': created.token,
          'X-Client-Secret': secret,
        },
        body: JSON.stringify({ userId: 'bob', accountId: 7 }),
      });
    expect((await open(created.secret)).status).toBe(201);

    const byId = await json(['create-session', '--client-id', clientId, '--account', '7', '--user', 'bob']);
    expect(Date.parse(byId.expiresAt) - Date.now()).toBeLessThanOrEqual(3_600_000);
    const fromEnv = await json(['create-session', '--account', '7', '--user', 'carol'], {
      JOBS_API_CLIENT_TOKEN: created.token,
    });
    expect((await get('/search/fields', created.token, fromEnv.token)).status).toBe(200);
    const refused = await run(['create-session', '--client-id', clientId, '--account', '7', '--role', 'operator']);
    expect(refused.code).toBe(1);
    const elsewhere = await run(['create-session', '--client-id', clientId, '--account', '8', '--user', 'mallory']);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('account 8');

    const clients = (await json(['list-clients'])) as Record<string, unknown>[];
    expect(clients.find((client) => client.clientId === clientId)).toEqual({
      clientId,
      name: 'Portal',
      enabled: true,
      grants: ['search', 'sessions'],
      sessionRoles: ['user'],
      accounts: [7, 4242],
      maxSessionTtlSeconds: 3600,
      createdAt: expect.any(String),
      secrets: [{ secretId: expect.any(String), createdAt: expect.any(String), expiresAt: null }],
    });

    const listed = await json(['list-sessions', '--client-id', clientId]);
    expect(listed.map((session: { userId: string }) => session.userId).sort()).toEqual(['bob', 'bob', 'carol']);
    expect(Object.keys(listed[0]).sort()).toEqual([
      'accountId',
      'createdAt',
      'expiresAt',
      'role',
      'sessionId',
      'userId',
    ]);
    expect(await json(['list-sessions', '--client-id', clientId, '--user', 'carol'])).toHaveLength(1);
    expect(await json(['revoke-session', '--client-id', clientId, '--session-id', fromEnv.sessionId])).toEqual({
      revoked: 1,
    });
    expect(await json(['revoke-session', '--client-id', clientId, '--user', 'bob'])).toEqual({ revoked: 2 });
    expect(await json(['list-sessions', '--client-id', clientId])).toEqual([]);

    const rotated = await json(['rotate-secret', '--client-id', clientId, '--overlap', '0']);
    expect(Object.keys(rotated).sort()).toEqual(['secret', 'secretId']);
    expect((await open(created.secret)).status).toBe(401);
    expect((await open(rotated.secret)).status).toBe(201);
    expect((await run(['revoke-secret', '--client-id', clientId, '--secret-id', rotated.secretId])).code).toBe(0);
    expect((await open(rotated.secret)).status).toBe(401);
    // Revoked already: it still ends whatever that secret opened (nothing here), and says so.
    expect((await run(['revoke-secret', '--client-id', clientId, '--secret-id', rotated.secretId])).code).toBe(0);

    expect((await run(['disable-client', '--client-id', clientId])).code).toBe(0);
    expect((await run(['create-session', '--client-id', clientId, '--account', '7'])).code).toBe(1);
    expect((await run(['enable-client', '--client-id', clientId])).code).toBe(0);
    expect((await run(['create-session', '--client-id', clientId, '--account', '7'])).code).toBe(0);
    expect((await run(['disable-client', '--client-id', 'no-such-client'])).code).toBe(1);
    const last = await json(['create-session', '--client-id', clientId, '--account', '4242']);
    expect(await json(['revoke-session', '--client-id', clientId, '--all'])).toEqual({ revoked: 2 });
    expect((await get('/search/fields', created.token, last.token)).status).toBe(401);

    const printed = outputs.join('');
    const audit = await readFile(join(dataDir, 'audit.ndjson'), 'utf8');
    for (const credential of [created.token, created.secret, rotated.secret, byId.token, fromEnv.token, last.token]) {
      expect(printed.includes(hashToken(credential))).toBe(false);
      expect(audit.includes(credential)).toBe(false);
      expect(audit.includes(hashToken(credential))).toBe(false);
    }
    // The secret and tokens appear only in the one output that issues each.
    expect(printed.split(created.token).length - 1).toBe(1);
    expect(printed.split(rotated.secret).length - 1).toBe(1);
    const records = audit
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((record) => record.clientId === clientId);
    expect(records.map((record) => record.action)).toEqual(
      expect.arrayContaining([
        'client.created',
        'secret.issued',
        'session.opened',
        'session.revoked',
        'secret.revoked',
        'client.disabled',
        'client.enabled',
      ]),
    );
    // Who acted: the OS user for the CLI, the caller's address for POST /sessions.
    expect(
      records.filter((record) => record.via === 'cli').every((record) => String(record.who).startsWith('os-user:')),
    ).toBe(true);
    expect(records).toContainEqual(expect.objectContaining({ action: 'session.opened', via: 'api', who: '127.0.0.1' }));
    expect(records).toContainEqual(
      expect.objectContaining({ action: 'client.created', grants: ['search', 'sessions'], accounts: [7, 4242] }),
    );
  }, 240_000);

  it('revoke-secret ends the sessions of a secret a later rotation dropped, and refuses an id the client never had', async () => {
    const issued = await cli('create-client', '--name', 'Leaky', '--grants', 'search,sessions', '--accounts', '7');
    expect(issued.code, issued.stderr).toBe(0);
    const created = JSON.parse(issued.stdout) as { clientId: string; token: string; secret: string };
    const listed = JSON.parse((await cli('list-clients')).stdout) as {
      clientId: string;
      secrets: { secretId: string }[];
    }[];
    const [first] = listed.find((client) => client.clientId === created.clientId)?.secrets ?? [];
    const opened = await fetchMatchingOpenApi(`${stack.baseUrl}/sessions`, {
      method: 'POST',
      headers: {
        Accept: 'application/json',
        'Content-Type': 'application/json',
        'X-Client-Token': created.token,
        'X-Client-Secret': created.secret,
      },
      body: JSON.stringify({ userId: 'dana', accountId: 7 }),
    });
    expect(opened.status).toBe(201);
    const session = (await opened.json()) as { sessionId: string; token: string };
    // The first secret ends now, and the next rotation drops it from the client.
    expect((await cli('rotate-secret', '--client-id', created.clientId, '--overlap', '0')).code).toBe(0);
    expect((await cli('rotate-secret', '--client-id', created.clientId)).code).toBe(0);
    // Still live (asked of the table, not over HTTP: an answer there would be cached for up to a minute).
    const live = JSON.parse((await cli('list-sessions', '--client-id', created.clientId)).stdout) as {
      sessionId: string;
    }[];
    expect(live.map((listed) => listed.sessionId)).toEqual([session.sessionId]);

    const revoked = await cli('revoke-secret', '--client-id', created.clientId, '--secret-id', first?.secretId ?? '');
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain('1 session it opened');
    expect((await get('/search/fields', created.token, session.token)).status).toBe(401);

    const never = await cli('revoke-secret', '--client-id', created.clientId, '--secret-id', 'no-such-secret');
    expect(never.code).toBe(1);
    expect(never.stderr).toContain('The client has never had a secret with the id no-such-secret');
  }, 240_000);

  it('loads no package of S3, sharp, OpenSearch, CloudFormation, CloudWatch Logs, STS or metrics for --help, an unknown command or a local command', async () => {
    const [help, unknown, created, status] = await Promise.all([
      cliLoading('--help'),
      cliLoading('no-such-command'),
      cliLoading('create-client', '--name', 'Loading check', '--grants', 'search', '--all-accounts'),
      cliLoading('status'),
    ]);
    expect([help.code, unknown.code, created.code, status.code]).toEqual([0, 2, 0, 0]);
    // The record is complete: the commands that read the tables loaded DynamoDB's SDK.
    expect(created.loaded).toContain('@aws-sdk/client-dynamodb');
    expect(status.loaded).toContain('@aws-sdk/client-dynamodb');
    for (const { loaded } of [help, unknown, created, status]) {
      expect(loaded.filter((name) => STACK_ONLY_PACKAGES.includes(name))).toEqual([]);
    }
  });

  it('prints the usage on --help, launched as a user types it (npm run cli, through tsx)', async () => {
    // The other tests run the CLI from the run's bundle of it (test/support/script-bundles.ts); this one goes
    // through the package script, so the launch itself stays tested.
    const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'cli', '--', '--help'], {
      cwd: ROOT,
      env: { ...process.env, ...cliEnv },
    });
    expect(stdout).toContain('Usage: npm run cli');
    expect(stdout).toContain('create-session');
  });
});

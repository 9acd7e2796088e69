/**
 * `npm start` as a user runs it: a child process on free ports that seeds the demo data, prints curl
 * commands that work as printed, says `Listening on http://localhost:<port>`, keeps its data (the demo's
 * pictures included) in DATA_DIR across restarts, and stops cleanly on SIGTERM without leaving DynamoDB Local behind.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/dynamodb/dynamodb-local';
import { makeJob } from '../support/jobs';
import { isRunning, type RunningProcess, runProcess, type StartedStack, startNpmStart } from '../support/local-stack';
import { fetchMatchingOpenApi } from '../support/openapi';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read as arbitrary JSON
type Json = any;

const LISTENING = /Listening on http:\/\/localhost:(\d+)/;

const started: StartedStack[] = [];
const directories: string[] = [];

afterAll(async () => {
  // A failed test may leave a stack running: stop it as a user would, and make sure Java goes too.
  for (const { running, dynamodbPid } of started) {
    if (running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGTERM');
      const timer = setTimeout(() => running.child.kill('SIGKILL'), 15_000);
      await running.exited;
      clearTimeout(timer);
    }
    if (dynamodbPid !== undefined && isRunning(dynamodbPid)) process.kill(dynamodbPid, 'SIGKILL');
  }
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
}, 60_000);

const startStack = (env: Record<string, string>) => startNpmStart(env, started);

const stopStack = async ({ running, dynamodbPid }: { running: RunningProcess; dynamodbPid: number }) => {
  running.child.kill('SIGTERM');
  expect(await running.exited).toBe(0);
  expect(isRunning(dynamodbPid)).toBe(false);
};

/** Splits a printed curl command into its words (the commands quote with single quotes only). */
const shellWords = (command: string): string[] =>
  [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map(([, quoted, bare]) =>
    quoted === undefined ? (bare ?? '') : quoted.replaceAll(`'\\''`, `'`),
  );

/** Sends the request a printed curl command describes. */
const runCurl = async (command: string) => {
  const words = shellWords(command);
  expect(words[0]).toBe('curl');
  let method = 'GET';
  let url = '';
  const headers = new Headers();
  let body: string | undefined;
  for (let index = 1; index < words.length; index++) {
    const word = words[index] as string;
    if (word === '-X') method = words[++index] as string;
    else if (word === '-H') {
      const header = words[++index] as string;
      headers.set(header.slice(0, header.indexOf(':')), header.slice(header.indexOf(':') + 1).trim());
    } else if (word === '--data-raw') body = words[++index];
    else if (word.startsWith('http')) url = word;
    else expect(word).toBe('-sS');
  }
  const response = await fetchMatchingOpenApi(url, { method, headers, ...(body === undefined ? {} : { body }) });
  return { url, status: response.status, json: (await response.json()) as Json };
};

/** What the stack printed up to `Listening on` that complains (standard error up to then, and standard output). */
const complaintsBeforeListening = (stack: { running: RunningProcess }): string[] => {
  const stdout = stack.running.stdout();
  const beforeListening = stdout.slice(0, stdout.search(LISTENING));
  return [...stack.running.stderr().split('\n'), ...beforeListening.split('\n')].filter((line) =>
    /warn|error/i.test(line),
  );
};

/** The value of an `export NAME=value` line the stack printed. */
const exportedValue = (stack: { running: RunningProcess }, name: string): string =>
  new RegExp(`^export ${name}=(\\S+)$`, 'm').exec(stack.running.stdout())?.[1] ?? '';

/**
 * A demo picture as the stack serves it: the thumbnail of the first file of job `jobId`, fetched with the URL
 * `GET /jobs/{id}/files` signs for it, with what S3 says of it.
 */
const demoThumbnail = async (stack: { running: RunningProcess; port: number }, jobId: number) => {
  await stack.running.waitFor(/^export REVIEW_FILE_ID=\d+$/m); // the last line printed, after `Listening on`
  const files = await fetchMatchingOpenApi(`http://localhost:${stack.port}/jobs/${jobId}/files`, {
    headers: {
      Accept: 'application/json',
      'X-Client-Token': exportedValue(stack, 'CLIENT_TOKEN'),
      'X-Session-Token': exportedValue(stack, 'SESSION_TOKEN'),
    },
  });
  expect(files.status).toBe(200);
  const [file] = ((await files.json()) as Json).files;
  expect(file.original.status).toBe('ready');
  const answer = await fetch(file.original.thumbnailUrl as string);
  const body = Buffer.from(await answer.arrayBuffer());
  return {
    status: answer.status,
    contentType: answer.headers.get('content-type'),
    etag: answer.headers.get('etag'),
    lastModified: answer.headers.get('last-modified'),
    md5: `"${createHash('md5').update(body).digest('hex')}"`,
    body,
  };
};

// One stack serves the tests of a first start, in order: starting takes most of a test's time.
describe('npm start on a fresh data directory', { timeout: 480_000 }, () => {
  let dataDir: string;
  let fresh: Awaited<ReturnType<typeof startStack>>;
  /** A demo job's id and its first thumbnail as the first start served it. */
  let pictured: { jobId: number; thumbnail: Awaited<ReturnType<typeof demoThumbnail>> } | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'jobs-api-start-'));
    directories.push(dataDir);
    fresh = await startStack({ DATA_DIR: dataDir });
  }, 240_000);

  it('starts quietly: no warning or error before it listens', () => {
    expect(complaintsBeforeListening(fresh)).toEqual([]);
  });

  it('seeds the demo data and prints curl commands that work', async () => {
    const commands = fresh.running
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('curl '));
    expect(commands.length).toBeGreaterThanOrEqual(5);
    expect(commands.some((command) => command.includes('/reject'))).toBe(true);
    expect(commands.some((command) => command.includes('application/x-www-form-urlencoded'))).toBe(true);

    for (const command of commands) {
      const answer = await runCurl(command);
      expect(answer.url.startsWith(`http://localhost:${fresh.port}/`)).toBe(true);
      expect({ command, status: answer.status }).toEqual({ command, status: 200 });
    }
    const search = await runCurl(commands.find((command) => command.includes('"field":"Global"')) as string);
    expect(search.json.totalJobs).toBeGreaterThan(0);
  });

  it("serves the demo's pictures from its data directory, as S3 describes them", async () => {
    const search = await runCurl(
      fresh.running
        .stdout()
        .split('\n')
        .find((line) => line.startsWith('curl ') && line.includes('"field":"Global"')) as string,
    );
    const jobId = search.json.jobs[0].id as number;
    const thumbnail = await demoThumbnail(fresh, jobId);
    expect(thumbnail).toMatchObject({ status: 200, contentType: 'image/webp', etag: thumbnail.md5 });
    expect(thumbnail.body.subarray(8, 12).toString('latin1')).toBe('WEBP');
    expect(thumbnail.lastModified).not.toBeNull();
    pictured = { jobId, thumbnail };
  });

  it("ends its output with the README's export lines, one paste for a shell, and prints no audit record", async () => {
    await fresh.running.waitFor(/^export REVIEW_FILE_ID=\d+$/m);
    const lines = fresh.running.stdout().trimEnd().split('\n');
    const exports = lines.slice(lines.findLastIndex((line) => !line.startsWith('export ')) + 1);
    expect(exports.map((line) => line.slice(0, line.indexOf('=')))).toEqual([
      'export API',
      'export CLIENT_TOKEN',
      'export SESSION_TOKEN',
      'export OPERATOR_SESSION_TOKEN',
      'export CLIENT_SECRET',
      'export REVIEW_FILE_ID',
    ]);
    expect(exports[0]).toBe(`export API=http://localhost:${fresh.port}`);
    const printed = [...fresh.running.stdout().split('\n'), ...fresh.running.stderr().split('\n')];
    expect(printed.filter((line) => /^\s*\{.*"action":/.test(line))).toEqual([]);
  });

  it('makes a second stack on its port exit 1 with a clear message', async () => {
    const clash = await runProcess('bin/local.ts', [], {
      PORT: String(fresh.port),
      DYNAMODB_PORT: String(await freePort()),
      S3_PORT: String(await freePort()),
      DATA_DIR: ':memory:',
    });
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain(`Port ${fresh.port}`);
  });

  it('stops cleanly on SIGTERM, then starts quietly again on the same data directory without seeding, serving the same pictures', async () => {
    await stopStack(fresh);

    const again = await startStack({ DATA_DIR: dataDir });
    expect(again.running.stderr()).not.toContain('Seeding');
    expect(complaintsBeforeListening(again)).toEqual([]);
    // The pictures stay in the data directory: the same bytes, type, ETag and date.
    expect(pictured).toBeDefined();
    expect(await demoThumbnail(again, pictured!.jobId)).toEqual(pictured!.thumbnail);
    await stopStack(again);
  });
});

describe('npm start', { timeout: 480_000 }, () => {
  it('with SEED_DEMO=0 seeds nothing, keeps clients, sessions and jobs in DATA_DIR across a restart, and rebuilds a deleted search index', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'jobs-api-start-'));
    directories.push(dataDir);
    const first = await startStack({ DATA_DIR: dataDir, SEED_DEMO: '0' });
    expect(first.running.stdout()).not.toContain('curl ');

    const cliEnv = { DYNAMODB_PORT: String(first.dynamodbPort), DATA_DIR: dataDir };
    const client = await runProcess(
      'bin/cli.ts',
      [
        'create-client',
        '--name',
        'Persisted app',
        '--grants',
        'search',
        '--all-accounts',
        '--session-roles',
        'operator',
      ],
      cliEnv,
    );
    expect(client.code).toBe(0);
    const { token: clientToken } = JSON.parse(client.stdout);
    const session = await runProcess(
      'bin/cli.ts',
      ['create-session', '--client-token', clientToken, '--account', '7', '--role', 'operator'],
      cliEnv,
    );
    expect(session.code).toBe(0);
    const { token: sessionToken } = JSON.parse(session.stdout);
    const job = makeJob({ name: 'Persisted harbour shoot' });
    const jobsFile = join(dataDir, 'jobs.ndjson');
    await writeFile(jobsFile, `${JSON.stringify(job)}\n`);
    expect((await runProcess('bin/cli.ts', ['import', jobsFile], cliEnv)).code).toBe(0);
    const headers = { Accept: 'application/json', 'X-Client-Token': clientToken, 'X-Session-Token': sessionToken };
    const searchHarbour = async (port: number): Promise<Json> => {
      const answer = await fetchMatchingOpenApi(`http://localhost:${port}/search`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ field: 'JobName', query: 'persisted harb' }),
      });
      expect(answer.status).toBe(200);
      return (await answer.json()) as Json;
    };
    // Indexed (and its stream records checkpointed) before the stop, so only a rebuild can bring it back.
    await expect.poll(async () => (await searchHarbour(first.port)).totalJobs, { timeout: 30_000 }).toBe(1);
    await stopStack(first);
    // The index file goes (as when an older layout is replaced); the jobs stay in DynamoDB Local.
    for (const suffix of ['', '-wal', '-shm']) await rm(join(dataDir, `search.sqlite${suffix}`), { force: true });

    const second = await startStack({ DATA_DIR: dataDir, SEED_DEMO: '0' });
    const fields = await fetchMatchingOpenApi(`http://localhost:${second.port}/search/fields`, { headers });
    expect(fields.status).toBe(200);
    expect(((await fields.json()) as Json).fields.map((field: { id: string }) => field.id)).toContain('AccountNumber');
    const found = await searchHarbour(second.port);
    expect(found.totalJobs).toBe(1);
    expect(found.jobs[0].id).toBe(job.id);
    expect(second.running.stderr()).toContain('Search index rebuilt: 1 of 1 jobs indexed.');
    await stopStack(second);
  });
});

/**
 * Load run: `npm start`'s server (its own process, DynamoDB Local, stream poller, embedded engine) under
 * a mixed search/reject workload at a fixed request rate, driven by autocannon over loopback.
 *
 * - Data: 2,000 jobs over 20 accounts; the load account owns 300 of them, 100 in review with 5 files.
 * - Workload: 80 % POST /search (Global, job name or file name; words of the data, some with a status
 *   filter or a later page), 20 % POST /reject, each a new review of the next file in turn (so every
 *   reject writes, bumps its job's version and goes through the stream to the index).
 * - Measured: achieved throughput, latency percentiles (corrected for coordinated omission), errors,
 *   timeouts and non-2xx answers (all must be 0), and the server process's resident memory at the start
 *   and the end of the measured window, after an unmeasured warm-up.
 *
 * `tsx bench/load/run.ts [--quick] [--rate=N] [--duration=S]`: full runs 60 s at 40 req/s, quick 15 s.
 * Writes bench/results/load[-quick].json through the shared suite runner.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';
import type { Role } from '../../functions/auth/principal';
import { AuthStore } from '../../functions/auth/store';
import { createDocumentClient } from '../../functions/aws/dynamodb';
import { type Job, type JobFile, type JobStatus, unreviewedFile } from '../../functions/jobs/model/model';
import { JobRepository } from '../../functions/jobs/store/repository';
import { freePort } from '../../local/dynamodb/dynamodb-local';
import { importJobs } from '../../local/operations/import';
import { localTableNames } from '../../local/paths';
import type { Figure } from '../lib/report';
import { ROOT } from '../lib/report';
import { argValue, runSuite } from '../lib/suite';

const LOAD_ACCOUNT = 4242;
const ACCOUNTS = 20;
const JOBS = 2_000;
const LOAD_ACCOUNT_JOBS = 300;
const REVIEW_JOBS = 100;
const FILES_PER_REVIEW_JOB = 5;
const CONNECTIONS = 8;
const WARMUP_SECONDS = 5;
const REJECT_SHARE = 0.2;

const VOCABULARY = [
  'spring',
  'summer',
  'catalogue',
  'shoes',
  'lookbook',
  'portrait',
  'studio',
  'café',
  'winter',
  'sale',
];
const STATUSES: JobStatus[] = ['CJ_NEW', 'CJ_WORK_PROGRESS', 'CJ_FINISHED', 'CJ_ARCHIVED', 'CJ_ACCEPT'];

/** A deterministic PRNG (mulberry32): the same data and the same request mix on every run. */
const prng = (seed: number) => {
  let state = seed >>> 0;
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

/** The jobs of the run: the load account's first REVIEW_JOBS jobs are in review, the rest anything. */
const makeJobs = (random: () => number): Job[] => {
  let fileId = 50_000_000;
  return Array.from({ length: JOBS }, (_, position) => {
    const id = 9_000_000 + position;
    const own = position < LOAD_ACCOUNT_JOBS;
    const inReview = own && position < REVIEW_JOBS;
    const name = `${pick(random, VOCABULARY)} ${pick(random, VOCABULARY)} ${position}`;
    const files: JobFile[] = Array.from({ length: inReview ? FILES_PER_REVIEW_JOB : 2 }, () => {
      fileId += 1;
      return unreviewedFile({
        id: fileId,
        fileName: `${pick(random, VOCABULARY)}_${fileId}.jpg`,
        remarkToProcessor: 'Remove the background',
      });
    });
    return {
      id,
      accountId: own ? LOAD_ACCOUNT : 5_000 + (position % ACCOUNTS),
      accountName: `Account ${position % ACCOUNTS}`,
      status: inReview ? 'CJ_REVIEWING' : pick(random, STATUSES),
      guid: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
      name,
      description: `Instructions for ${name}`,
      invoiceReference: `INV-${position}`,
      tags: [pick(random, VOCABULARY)],
      realCost: Math.round(random() * 10_000) / 100,
      createdDate: new Date(Date.UTC(2024, 0, 1) + position * 3_600_000).toISOString(),
      acceptedDate: null,
      orderedDate: null,
      deliveredDate: null,
      reviewedDate: null,
      files,
    };
  });
};

/** `npm start` in its own Node process, on free ports, in memory, without demo data. */
const startServer = async (): Promise<{ child: ChildProcess; baseUrl: string; dynamodbEndpoint: string }> => {
  const [port, dynamodbPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bin', 'local.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      DYNAMODB_PORT: String(dynamodbPort),
      DATA_DIR: ':memory:',
      SEED_DEMO: '0',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listening = await new Promise<string>((resolve, reject) => {
    const check = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(/Listening on (http:\/\/localhost:\d+)/);
      if (match?.[1] !== undefined) resolve(match[1]);
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', (code) => reject(new Error(`The server exited (${code}) before listening:\n${output}`)));
  });
  return { child, baseUrl: listening, dynamodbEndpoint: `http://127.0.0.1:${dynamodbPort}` };
};

/** Stops the server by its pid and waits for it (it stops DynamoDB Local itself). */
const stopServer = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** The resident memory of a process in MiB (Linux), or NaN where /proc is not there. */
const residentMiB = (pid: number): number => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = Number(status.match(/VmRSS:\s+(\d+) kB/)?.[1]);
    return kib / 1024;
  } catch {
    return Number.NaN;
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Tokens {
  clientToken: string;
  sessionToken: string;
}

const headersOf = (tokens: Tokens): Record<string, string> => ({
  Accept: 'application/json',
  'Content-Type': 'application/json',
  'X-Client-Token': tokens.clientToken,
  'X-Session-Token': tokens.sessionToken,
});

/** Waits until an operator's search counts every job (the stream has indexed the import). */
const waitIndexed = async (baseUrl: string, operator: Tokens, log: (message: string) => void): Promise<void> => {
  for (let attempt = 0; attempt < 600; attempt++) {
    const answer = await fetch(`${baseUrl}/search`, { method: 'POST', headers: headersOf(operator), body: '{}' });
    const body = (await answer.json()) as { totalJobs?: number };
    if (body.totalJobs === JOBS) return;
    if (attempt % 10 === 0) log(`indexed ${body.totalJobs ?? 0} of ${JOBS} jobs…`);
    await sleep(500);
  }
  throw new Error('The import was not indexed within 5 minutes');
};

/** The request mix: each call of setupRequest draws the next request. */
const workload = (user: Tokens, rejectableFileIds: readonly number[]): AutocannonRequest => {
  const random = prng(8);
  let nextFile = 0;
  let review = 0;
  return {
    method: 'POST',
    headers: headersOf(user),
    setupRequest: (request) => {
      if (random() < REJECT_SHARE) {
        const fileId = rejectableFileIds[nextFile % rejectableFileIds.length] as number;
        nextFile += 1;
        review += 1;
        return {
          ...request,
          path: '/reject',
          body: JSON.stringify({
            files: [
              {
                fileId,
                rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 0.5 }] }],
                customRejection: `Load review ${review}`,
              },
            ],
          }),
        };
      }
      const field = pick(random, ['Global', 'JobName', 'FileName']);
      const criteria: Record<string, unknown> = {
        field,
        query: pick(random, VOCABULARY).slice(0, 3 + Math.floor(random() * 3)),
      };
      if (random() < 0.3) criteria.statuses = ['CJ_REVIEWING', 'CJ_REJECT_READY'];
      if (random() < 0.2) criteria.page = 1;
      return { ...request, path: '/search', body: JSON.stringify(criteria) };
    },
  };
};

const run = (url: string, request: AutocannonRequest, seconds: number, rate: number): Promise<AutocannonResult> =>
  Promise.resolve(
    autocannon({
      url,
      connections: CONNECTIONS,
      duration: seconds,
      overallRate: rate,
      timeout: 10,
      requests: [request],
    }),
  );

// DynamoDB Local takes any credentials; the load run never talks to AWS.
process.env.AWS_ACCESS_KEY_ID ??= 'local';
process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
process.env.AWS_REGION ??= 'us-east-1';

await runSuite('load', 'Load: mixed search and reject at a fixed rate against npm start', async ({ mode, log }) => {
  const seconds = Number(argValue('duration') ?? (mode === 'full' ? 60 : 15));
  const rate = Number(argValue('rate') ?? 40);
  log(`starting the server (npm start, in memory)…`);
  const server = await startServer();
  const pid = server.child.pid as number;
  try {
    const documents = createDocumentClient({
      region: 'us-east-1',
      dynamodbEndpoint: server.dynamodbEndpoint,
      dependencyTimeoutMs: 5_000,
    });
    const tables = localTableNames();
    const store = new AuthStore(documents, tables.authTable);
    const issue = async (role: Role): Promise<Tokens> => {
      const client = await store.createClient({
        name: `load ${role}`,
        grants: ['search', 'reject'],
        sessionRoles: [role],
      });
      const session = await store.createSession({
        clientToken: client.token,
        accountId: LOAD_ACCOUNT,
        role,
        ttlSeconds: 3_600,
      });
      return { clientToken: client.token, sessionToken: session.token };
    };
    const [user, operator] = [await issue('user'), await issue('operator')];
    const jobs = makeJobs(prng(7));
    log(`importing ${jobs.length} jobs…`);
    await importJobs(jobs, { repository: new JobRepository(documents, tables.jobsTable) });
    await waitIndexed(server.baseUrl, operator, log);
    const rejectable = jobs
      .filter((job) => job.accountId === LOAD_ACCOUNT && job.status === 'CJ_REVIEWING')
      .flatMap((job) => job.files.map((file) => file.id));

    log(`warming up for ${WARMUP_SECONDS} s…`);
    await run(server.baseUrl, workload(user, rejectable), WARMUP_SECONDS, rate);
    await sleep(1_000);
    const rssStart = residentMiB(pid);
    let rssPeak = rssStart;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, residentMiB(pid));
    }, 1_000);
    log(`measuring ${seconds} s at ${rate} requests/s over ${CONNECTIONS} connections…`);
    const result = await run(server.baseUrl, workload(user, rejectable), seconds, rate);
    clearInterval(sampler);
    const rssEnd = residentMiB(pid);
    const errors = result.errors + result.timeouts + result.non2xx;
    log(
      `done: ${result.requests.total} requests, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ` +
        `errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}, RSS ${rssStart.toFixed(0)} → ${rssEnd.toFixed(0)} MiB`,
    );
    const mib = (value: number) => Math.round(value * 10) / 10;
    const figures: Figure[] = [
      { id: 'load.requests', label: 'Requests answered in the window', value: result.requests.total, unit: 'requests' },
      {
        id: 'load.throughput',
        label: 'Throughput',
        value: Math.round((result.requests.total / result.duration) * 10) / 10,
        unit: 'req/s',
        target: {
          text: `≥ 95 % of the offered ${rate} req/s`,
          met: result.requests.total / result.duration >= rate * 0.95,
        },
      },
      { id: 'load.latency.p50', label: 'Latency p50', value: result.latency.p50, unit: 'ms' },
      { id: 'load.latency.p90', label: 'Latency p90', value: result.latency.p90, unit: 'ms' },
      { id: 'load.latency.p99', label: 'Latency p99', value: result.latency.p99, unit: 'ms' },
      { id: 'load.latency.max', label: 'Latency max', value: result.latency.max, unit: 'ms' },
      {
        id: 'load.errors',
        label: 'Errors, timeouts and non-2xx answers',
        value: errors,
        unit: 'answers',
        target: { text: '= 0', met: errors === 0 },
      },
      { id: 'load.rss.start', label: 'Server resident memory at the start', value: mib(rssStart), unit: 'MiB' },
      { id: 'load.rss.end', label: 'Server resident memory at the end', value: mib(rssEnd), unit: 'MiB' },
      { id: 'load.rss.peak', label: 'Server resident memory, peak', value: mib(rssPeak), unit: 'MiB' },
      {
        id: 'load.rss.growth',
        label: 'Server memory growth over the window',
        value: mib(rssEnd - rssStart),
        unit: 'MiB',
      },
    ];
    return {
      parameters: {
        seconds,
        rate,
        connections: CONNECTIONS,
        warmupSeconds: WARMUP_SECONDS,
        rejectShare: REJECT_SHARE,
        jobs: JOBS,
        rejectableFiles: rejectable.length,
      },
      figures,
      notes: [
        `Status codes: ${Object.entries(result.statusCodeStats)
          .map(([code, { count }]) => `${code} × ${count}`)
          .join(', ')}.`,
        'Latencies are corrected for coordinated omission (autocannon, fixed overall rate); the load generator shares the 2 cores with the server and DynamoDB Local.',
      ],
    };
  } finally {
    await stopServer(server.child);
  }
});

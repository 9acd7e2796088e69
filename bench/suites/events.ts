/**
 * Events (docs/contract.md §6c): how long a change takes to reach its webhook, and how many events per second the
 * events function makes.
 *
 * - **Change to webhook.** The local stack in this process (DynamoDB Local, the stream pollers at their defaults,
 *   the events function's handler, the local webhook delivery, `ALLOW_LOCAL_WEBHOOKS=1`), a client of one account
 *   with a webhook for `job.updated` whose receiver is an HTTP server in this process checking every signature with
 *   the `standardwebhooks` library. One job is renamed through `PATCH /jobs/{id}`, one change at a time; each
 *   change's delay runs from the API's `200` to the arrival of the webhook carrying that job and version. The next
 *   change starts once the webhook arrived, after a random pause of up to one poll interval.
 * - **Its baseline, the indexer's delay, in the same run.** The same changes through the indexer's path (the
 *   stream poller at its defaults, the indexer's handler, the embedded engine): from the same `200` to the first
 *   search by the job's number, made every few milliseconds in this process, that answers the job's new name. A
 *   change's webhook waits for the events poller as the index waits for the indexer's poller, so the ratio is
 *   what the events path adds to the wait both share; the next change waits for both.
 * - **Events per second.** The events function's own work without DynamoDB or a bus: synthetic stream records of
 *   job and file changes, in batches of 100 (the deployed batch size), parsed from JSON and published by the
 *   deployed publisher (`functions/events/publisher.ts` over `stream-events.ts`) into a sink in memory, beside the
 *   same batches only parsed and their images unmarshalled, in interleaved rounds of the same run.
 *
 *   npx tsx bench/suites/events.ts [--quick]
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import type { JobsEvent } from '../../functions/events/cloud-event';
import type { EventSink } from '../../functions/events/event-sink';
import { createEventPublisher } from '../../functions/events/publisher';
import type { JobContext } from '../../functions/events/stream-events';
import { toFileItem, toJobItem } from '../../functions/jobs/store/items';
import { makeFile, makeJob } from '../../test/support/jobs';
import { rejectedFileItem, streamRecord } from '../../test/support/stream-records';
import { DEFAULTS as POLLER_DEFAULTS } from '../../local/streams/poller-options';
import { startBenchStack } from '../lib/local-stack';
import { type Figure, formatNumber, histogramOf, proportion } from '../lib/report';
import { type CheckCost, searchChecks } from '../lib/searchable';
import { median, round, summarize } from '../lib/stats';
import { runSuite, sleep } from '../lib/suite';
import '../../local/search/use-embedded-engine';

/** The account of the benchmark's client, its job and its webhook. */
const ACCOUNT_ID = 4_242;
/** Records per publisher invocation: the deployed stream batch. */
const BATCH_SIZE = 100;
/** How long one change may take to reach its webhook (or the search index) before the run fails. */
const ARRIVAL_TIMEOUT_MS = 30_000;
/**
 * How often the search index is asked whether a change is searchable: a change is seen up to this late, against
 * delays of hundreds of milliseconds; each check is a search of a one-job index (its cost is in the notes).
 */
const SEARCH_CHECK_MS = 5;

/** What the baseline of the change-to-webhook figures measures. */
const SEARCHABLE_LABEL = 'the same changes searchable (indexer path)';

interface DelayResult {
  /** Per change, milliseconds from the API's 200 to its webhook. */
  delays: number[];
  /** Per change, milliseconds from the API's 200 to the first search answering the job's new name. */
  searchable: number[];
  /** What the searches for `searchable` cost. */
  checks: CheckCost;
  /** Per change, the `PATCH`'s own time. */
  patches: number[];
  /** Webhook requests whose signature held. */
  verified: number;
  pollIntervalMs: number;
  batchWindowMs: number;
}

/** An HTTP receiver of webhooks, checking each signature; resolves a change's waiter when its event arrives. */
const startReceiver = async () => {
  let hook: Webhook | undefined;
  const arrivals = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  let verified = 0;
  let refused = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const arrived = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(', ') : (value ?? ''),
        ]),
      );
      try {
        if (hook === undefined) throw new Error('no secret yet');
        const event = hook.verify(body, headers) as JobsEvent;
        verified++;
        const key = `${event.data.jobId}/${event.data.version}`;
        if (!arrivals.has(key)) arrivals.set(key, arrived);
        waiters.get(key)?.();
        response.writeHead(204).end();
      } catch {
        refused++;
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    useSecret: (secret: string) => {
      hook = new Webhook(secret);
    },
    /** When the event of a job's version arrived (performance.now()), waiting for it if it has not yet. */
    arrival: (jobId: number, version: number): Promise<number> => {
      const key = `${jobId}/${version}`;
      const known = arrivals.get(key);
      if (known !== undefined) return Promise.resolve(known);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(key);
          reject(
            new Error(`the webhook of job ${jobId} version ${version} did not arrive in ${ARRIVAL_TIMEOUT_MS} ms`),
          );
        }, ARRIVAL_TIMEOUT_MS);
        waiters.set(key, () => {
          clearTimeout(timer);
          waiters.delete(key);
          resolve(arrivals.get(key) as number);
        });
      });
    },
    counts: () => ({ verified, refused }),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** Renames one job `changes` times through the API (after `warmup` untimed renames) and times each webhook. */
const measureDelays = async (changes: number, warmup: number, log: (message: string) => void): Promise<DelayResult> => {
  process.env.ALLOW_LOCAL_WEBHOOKS = '1';
  const { resetConfig } = await import('../../functions/config');
  resetConfig();
  const receiver = await startReceiver();
  const { stack, stop } = await startBenchStack('bench-events');
  try {
    const { documentClient } = await import('../../functions/aws/dynamodb');
    const { AuthStore } = await import('../../functions/auth/store');
    const { searchIndex } = await import('../../functions/search/engine');
    const checks = searchChecks(await searchIndex(), SEARCH_CHECK_MS, ARRIVAL_TIMEOUT_MS);
    const store = new AuthStore(documentClient(), stack.tables.authTable);
    const client = await store.createClient({
      name: 'bench events',
      grants: ['jobs', 'webhooks'],
      sessionRoles: ['user'],
      accounts: [ACCOUNT_ID],
    });
    const session = await store.createSession({
      clientToken: client.token,
      accountId: ACCOUNT_ID,
      role: 'user',
      ttlSeconds: 3_600,
    });
    const call = async (method: string, path: string, headers: Record<string, string>, body: unknown) => {
      const started = performance.now();
      const response = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { Accept: 'application/json', 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, text, ended: performance.now(), started };
    };
    const asUser = { 'X-Client-Token': client.token, 'X-Session-Token': session.token };

    const registered = await call(
      'POST',
      '/webhooks',
      { 'X-Client-Token': client.token, 'X-Client-Secret': client.secret },
      { url: receiver.url, events: ['job.updated'] },
    );
    if (registered.status !== 201) throw new Error(`POST /webhooks answered ${registered.status}: ${registered.text}`);
    receiver.useSecret((JSON.parse(registered.text) as { secret: string }).secret);

    const created = await call('POST', '/jobs', asUser, { name: 'Events bench', files: [{ fileName: 'a.jpg' }] });
    if (created.status !== 201) throw new Error(`POST /jobs answered ${created.status}: ${created.text}`);
    const jobId = (JSON.parse(created.text) as { job: { id: number } }).job.id;
    let etag = created.headers.get('etag') as string;

    const delays: number[] = [];
    const searchable: number[] = [];
    const patches: number[] = [];
    log(`${warmup} untimed and ${changes} timed renames of job ${jobId}, one at a time`);
    for (let index = 0; index < warmup + changes; index++) {
      // A change made right as the previous webhook arrives would always meet the poller at the same point of its
      // pause; a random wait of up to one poll interval lets the changes fall at every point of it.
      await sleep(Math.random() * POLLER_DEFAULTS.pollIntervalMs);
      const name = `Events ${index}`;
      const answer = await call('PATCH', `/jobs/${jobId}`, { ...asUser, 'If-Match': etag }, { name });
      if (answer.status !== 200) throw new Error(`PATCH answered ${answer.status}: ${answer.text}`);
      etag = answer.headers.get('etag') as string;
      // Every rename's name is its own, so the first search answering it sees this very change.
      const [arrived, found] = await Promise.all([
        receiver.arrival(jobId, Number(JSON.parse(etag))),
        checks.until(jobId, (job) => job.name === name),
      ]);
      if (index >= warmup) {
        delays.push(arrived - answer.ended);
        searchable.push(found - answer.ended);
        patches.push(answer.ended - answer.started);
      }
    }
    const { verified, refused } = receiver.counts();
    if (refused > 0) throw new Error(`${refused} webhook request(s) failed their signature check`);
    return {
      delays,
      searchable,
      checks: checks.cost(),
      patches,
      verified,
      pollIntervalMs: POLLER_DEFAULTS.pollIntervalMs,
      batchWindowMs: POLLER_DEFAULTS.batchWindowMs,
    };
  } finally {
    await stop();
    await receiver.stop();
  }
};

interface Workload {
  /** Each batch as the event source hands it over: JSON text. */
  batches: string[];
  records: number;
  /** The events the records make. */
  events: number;
  jobs: Map<number, JobContext>;
}

/**
 * Synthetic stream records of `jobs` jobs, four records each, in a job's order: created (with two files),
 * renamed, asked for an offer, one file rejected in review. Each record makes one event.
 */
const workloadOf = (jobs: number): Workload => {
  const records: DynamoDBRecord[] = [];
  const contexts = new Map<number, JobContext>();
  for (let index = 0; index < jobs; index++) {
    const file = makeFile();
    const job = makeJob({ accountId: 1_000 + (index % 50), files: [file, makeFile()] });
    const renamed = { ...job, name: `${job.name}, final` };
    const asked = { ...renamed, status: 'CJ_REQUEST_OFFER' as const };
    const pending = toFileItem(job.id, file, true);
    const rejectedAt = '2026-02-03T09:00:00.000Z';
    const rejected = rejectedFileItem(pending, rejectedAt);
    records.push(
      streamRecord(undefined, toJobItem(job, 1)),
      streamRecord(toJobItem(job, 1), toJobItem(renamed, 2)),
      streamRecord(toJobItem(renamed, 2), toJobItem(asked, 3)),
      streamRecord(pending, rejected),
    );
    contexts.set(job.id, { accountId: job.accountId, version: 4, status: 'CJ_REJECT_READY' });
  }
  const batches: string[] = [];
  for (let start = 0; start < records.length; start += BATCH_SIZE) {
    batches.push(JSON.stringify({ Records: records.slice(start, start + BATCH_SIZE) }));
  }
  return { batches, records: records.length, events: records.length, jobs: contexts };
};

/** The deployed publisher over every batch into a sink that counts; answers the events taken. */
const publishAll = async (workload: Workload): Promise<number> => {
  let taken = 0;
  const sink: EventSink = {
    put: async (events) => {
      taken += events.length;
      return events.map(() => ({ ok: true }));
    },
  };
  const publish = createEventPublisher({
    sink: () => sink,
    source: () => 'http://127.0.0.1:3000',
    readJob: async (jobId) => workload.jobs.get(jobId),
  });
  for (const text of workload.batches) {
    const answer = await publish(JSON.parse(text) as DynamoDBStreamEvent);
    if (answer.batchItemFailures.length > 0) throw new Error('the publisher failed records');
  }
  return taken;
};

/** The baseline: every batch parsed and each record's images unmarshalled, nothing more. */
const parseAll = (workload: Workload): number => {
  let images = 0;
  for (const text of workload.batches) {
    for (const record of (JSON.parse(text) as DynamoDBStreamEvent).Records) {
      for (const image of [record.dynamodb?.NewImage, record.dynamodb?.OldImage]) {
        if (image !== undefined && Object.keys(unmarshall(image as Record<string, AttributeValue>)).length > 0) {
          images++;
        }
      }
    }
  }
  return images;
};

const timed = async (work: () => unknown): Promise<number> => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

await runSuite('events', 'Events: change to webhook, and events per second', async ({ mode, log }) => {
  const changes = mode === 'quick' ? 100 : 300;
  const warmup = 10;
  const jobs = mode === 'quick' ? 2_500 : 10_000;
  const rounds = mode === 'quick' ? 3 : 5;

  log(`events per second: ${jobs * 4} records in batches of ${BATCH_SIZE}, ${rounds} interleaved rounds`);
  const workload = workloadOf(jobs);
  const taken = await publishAll(workload); // warm-up, and the check that every record made its event
  if (taken !== workload.events) throw new Error(`the publisher made ${taken} events of ${workload.events} expected`);
  parseAll(workload);
  const publishMs: number[] = [];
  const parseMs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const ways = [
      async () => publishMs.push(await timed(() => publishAll(workload))),
      async () => parseMs.push(await timed(() => parseAll(workload))),
    ];
    for (const way of round % 2 === 0 ? ways : ways.reverse()) await way();
  }
  const publishTime = median(publishMs);
  const parseTime = median(parseMs);
  const eventsPerSecond = workload.events / (publishTime / 1000);
  const parsedPerSecond = workload.records / (parseTime / 1000);

  log('change to webhook: starting the local stack');
  const delay = await measureDelays(changes, warmup, log);
  const delays = summarize(delay.delays);
  const indexed = summarize(delay.searchable);
  const patchTimes = summarize(delay.patches);
  // The two pollers read the stream each on its own clock, so a change's webhook can come before its index entry.
  const gaps = delay.delays.map((ms, change) => ms - (delay.searchable[change] as number));
  const webhookFirst = gaps.filter((gap) => gap < 0).length;

  const figures: Figure[] = [
    {
      id: 'events.webhook.p50',
      label: 'Change to its webhook (PATCH 200 to arrival, local stack): p50',
      value: round(delays.p50),
      unit: 'ms',
      baseline: { label: `${SEARCHABLE_LABEL}, p50`, value: round(indexed.p50), unit: 'ms' },
      ratio: proportion(delays.p50, indexed.p50, "the indexer's delay"),
    },
    {
      id: 'events.webhook.p99',
      label: 'Change to its webhook (PATCH 200 to arrival, local stack): p99',
      value: round(delays.p99),
      unit: 'ms',
      baseline: { label: `${SEARCHABLE_LABEL}, p99`, value: round(indexed.p99), unit: 'ms' },
      ratio: proportion(delays.p99, indexed.p99, "the indexer's delay"),
    },
    {
      id: 'events.webhook.max',
      label: 'Change to its webhook (PATCH 200 to arrival, local stack): max',
      value: round(delays.max),
      unit: 'ms',
      baseline: { label: `${SEARCHABLE_LABEL}, max`, value: round(indexed.max), unit: 'ms' },
    },
    {
      id: 'events.publish.events-per-s',
      label: `Events made and published per second (events function, ${BATCH_SIZE} records a batch, sink in memory)`,
      value: round(eventsPerSecond),
      unit: 'events/s',
      baseline: { label: 'records only parsed and unmarshalled', value: round(parsedPerSecond), unit: 'records/s' },
      ratio: proportion(publishTime, parseTime, 'the time of parsing and unmarshalling alone'),
    },
  ];
  return {
    parameters: {
      changes,
      warmup,
      pollIntervalMs: delay.pollIntervalMs,
      batchWindowMs: delay.batchWindowMs,
      searchCheckMs: SEARCH_CHECK_MS,
      records: workload.records,
      batchSize: BATCH_SIZE,
      rounds,
    },
    figures,
    notes: [
      `Each of the ${changes} timed renames waited for its webhook and for a search to answer its new name, then a random 0–${delay.pollIntervalMs} ms, before the next; ${delay.verified} webhook requests arrived, every signature verified with the standardwebhooks library. The PATCH itself took ${formatNumber(patchTimes.p50)} ms at p50 and ${formatNumber(patchTimes.p99)} ms at p99.`,
      `The baseline is the indexer's delay for the same changes in the same run: the indexer's stream poller (the same defaults), the indexer's handler and the embedded engine, from the same 200 to the first search by the job's number that answers the new name. The searches ran in the benchmark's process (the engine the local API searches, synchronous SQLite) with a ${SEARCH_CHECK_MS} ms pause between two, so a change is seen up to ${SEARCH_CHECK_MS} ms and one search late; the ${formatNumber(delay.checks.checks)} searches took ${formatNumber(delay.checks.ms / delay.checks.checks)} ms each on average (${formatNumber(delay.checks.ms)} ms in all). Per change, the webhook came ${formatNumber(median(gaps))} ms after the search answered at the median; the two pollers read the stream each on its own clock, so in ${webhookFirst} of ${changes} changes the webhook came first.`,
      `The local events poller reads the stream every ${delay.pollIntervalMs} ms when idle and gathers a batch for up to ${delay.batchWindowMs} ms (its defaults, Lambda's own polling rate for a DynamoDB stream): most of the delay is that wait. In AWS the path is the stream, the events Lambda, PutEvents to the stage bus, its rule, the webhooks' SQS queue and the sender Lambda; that path is not measured here.`,
      `Events per second: ${workload.records} records (${jobs} jobs: created, renamed, status moved, one file rejected; one event each), median of ${rounds} rounds; publishing took ${round(publishTime)} ms, parsing and unmarshalling alone ${round(parseTime)} ms.`,
    ],
    histograms: {
      webhookDelay: histogramOf(delay.delays, 25, 'ms'),
      searchableDelay: histogramOf(delay.searchable, 25, 'ms'),
    },
  };
});

/**
 * Search latency at scale, per query class, three ways in the same rounds: the raw engine
 * (`SearchIndex.search`), the real `functions/handlers/search.ts` handler invoked with API Gateway events
 * (authentication against DynamoDB Local, the whole middy chain), and the local HTTP server in front of
 * that handler. Then the process's peak memory, and the speed-up over the Scan baseline of this run.
 *
 *   npx tsx bench/suites/search.ts [--quick]     (run bench/suites/index-build.ts first)
 */
import { existsSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type BenchTokens, issueTokens, startBenchDynamo } from '../lib/dynamo';
import { totalJobs } from '../lib/generator';
import { cachedIndexPath } from '../lib/index-cache';
import { engineQuery, type QueryClass, queryClasses } from '../lib/queries';
import { type Figure, formatNumber, proportion, readResult, speedup } from '../lib/report';
import { type LatencySummary, round, summarize } from '../lib/stats';
import { runSuite } from '../lib/suite';
import '../../local/search/use-embedded-engine';

const TARGET_P50_MS = 5;
const TARGET_P99_MS = 50;
const TARGET_HTTP_OVERHEAD_MS = 1;
const TARGET_SPEEDUP = 20;

const mib = (bytes: number): number => round(bytes / 2 ** 20);

/** Sends one request over a keep-alive connection and reads the whole answer. */
const post = (agent: Agent, port: number, path: string, headers: Record<string, string>, body: string) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        answer.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });

await runSuite('search', 'Search latency at scale (embedded engine)', async ({ mode, scale, log }) => {
  const population = scale.searchPopulation;
  const dynamo = await startBenchDynamo();
  const indexPath = cachedIndexPath(population);
  if (!existsSync(`${indexPath}.json`)) {
    throw new Error(`No index at ${indexPath}: run bench/suites/index-build.ts first (npm run bench does)`);
  }
  Object.assign(process.env, dynamo.env, { SEARCH_ENGINE: 'embedded', SEARCH_DB_PATH: indexPath });

  const { handler } = await import('../../functions/handlers/search');
  const { searchIndex } = await import('../../functions/search/engine');
  const { toProxyEvent, lambdaContext } = await import('../../local/gateway/api-event');
  const { createLocalServer } = await import('../../local/gateway/server');
  const index = await searchIndex();
  const idleRss = process.memoryUsage().rss;

  const tokens: Record<string, BenchTokens> = {};
  const classes = queryClasses(population);
  const tokensOf = async (queryClass: QueryClass): Promise<BenchTokens> => {
    const key = `${queryClass.role}:${queryClass.accountId}`;
    tokens[key] ??= await issueTokens(dynamo, queryClass.accountId, queryClass.role);
    return tokens[key];
  };
  const headersOf = (credentials: BenchTokens): Record<string, string> => ({
    Accept: 'application/json',
    'Content-Type': 'application/json',
    'X-Client-Token': credentials.clientToken,
    'X-Session-Token': credentials.sessionToken,
  });
  const eventOf = (headers: Record<string, string>, body: string): APIGatewayProxyEvent =>
    toProxyEvent(
      {
        method: 'POST',
        url: '/search',
        httpVersion: '1.1',
        rawHeaders: [...Object.entries(headers).flat(), 'Content-Length', String(Buffer.byteLength(body))],
        socket: { remoteAddress: '127.0.0.1' },
      },
      Buffer.from(body),
      { resource: '/search' },
    );

  const server = createLocalServer();
  const port = await server.listen(0, '127.0.0.1');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  const samples = new Map<string, { engine: number[]; handler: number[]; http: number[]; total: number }>();
  try {
    const prepared = await Promise.all(
      classes.map(async (queryClass) => ({
        queryClass,
        query: engineQuery(queryClass),
        headers: headersOf(await tokensOf(queryClass)),
        body: JSON.stringify(queryClass.body),
      })),
    );
    for (const { queryClass } of prepared) samples.set(queryClass.id, { engine: [], handler: [], http: [], total: 0 });

    const rounds = scale.warmup + scale.searchRuns;
    log(
      `${rounds} rounds × ${classes.length} classes × (engine, handler, HTTP) over ${totalJobs(population).toLocaleString('en-US')} jobs`,
    );
    for (let round = 0; round < rounds; round++) {
      const timed = round >= scale.warmup;
      for (const { queryClass, query, headers, body } of prepared) {
        const record = samples.get(queryClass.id)!;

        let started = performance.now();
        const result = await index.search(query);
        const engineMs = performance.now() - started;

        const event = eventOf(headers, body);
        const context = lambdaContext({ functionName: 'bench-search' });
        started = performance.now();
        const answer = await handler(event, context);
        const handlerMs = performance.now() - started;
        if (answer.statusCode !== 200)
          throw new Error(`${queryClass.id}: the handler answered ${answer.statusCode} ${answer.body}`);

        started = performance.now();
        const overHttp = await post(agent, port, '/search', headers, body);
        const httpMs = performance.now() - started;
        if (overHttp.status !== 200)
          throw new Error(`${queryClass.id}: HTTP answered ${overHttp.status} ${overHttp.text}`);

        if (timed) {
          record.engine.push(engineMs);
          record.handler.push(handlerMs);
          record.http.push(httpMs);
          record.total = result.total;
        }
      }
      if ((round + 1) % 50 === 0) log(`round ${round + 1}/${rounds}`);
    }
  } finally {
    agent.destroy();
    await server.close();
  }
  const peakRssBytes = process.resourceUsage().maxRSS * 1024;

  // The Scan baseline does not depend on the index, and the full one takes about 20 minutes, so a run
  // that leaves the scan suite out (--only) compares with the latest Scan result and says so.
  const scan = readResult('scan', mode);
  const runStarted = process.env.BENCH_RUN_STARTED;
  const scanOfThisRun = scan !== undefined && (runStarted === undefined || scan.startedAt >= runStarted);
  const scanFigure = (id: string) => scan?.figures.find((figure) => figure.id === `scan.${id}.p50`);

  const figures: Figure[] = [];
  const summaries: Record<
    string,
    { engine: LatencySummary; handler: LatencySummary; http: LatencySummary; total: number }
  > = {};
  for (const queryClass of classes) {
    const record = samples.get(queryClass.id)!;
    const engine = summarize(record.engine);
    const handlerSummary = summarize(record.handler);
    const http = summarize(record.http);
    summaries[queryClass.id] = { engine, handler: handlerSummary, http, total: record.total };
    const name = `${queryClass.label} [${formatNumber(record.total)} matches]`;
    const id = `search.${queryClass.id}`;
    figures.push(
      {
        id: `${id}.handler.p50`,
        label: `handler p50 — ${name}`,
        value: round(handlerSummary.p50),
        unit: 'ms',
        baseline: { label: 'raw engine p50', value: round(engine.p50), unit: 'ms' },
        ratio: proportion(handlerSummary.p50, engine.p50, 'the engine'),
        target: { text: `p50 ≤ ${TARGET_P50_MS} ms`, met: handlerSummary.p50 <= TARGET_P50_MS },
      },
      {
        id: `${id}.handler.p95`,
        label: `handler p95 — ${queryClass.label}`,
        value: round(handlerSummary.p95),
        unit: 'ms',
        baseline: { label: 'raw engine p95', value: round(engine.p95), unit: 'ms' },
        ratio: proportion(handlerSummary.p95, engine.p95, 'the engine'),
      },
      {
        id: `${id}.handler.p99`,
        label: `handler p99 — ${queryClass.label}`,
        value: round(handlerSummary.p99),
        unit: 'ms',
        baseline: { label: 'raw engine p99', value: round(engine.p99), unit: 'ms' },
        ratio: proportion(handlerSummary.p99, engine.p99, 'the engine'),
        target: { text: `p99 ≤ ${TARGET_P99_MS} ms`, met: handlerSummary.p99 <= TARGET_P99_MS },
      },
      {
        id: `${id}.http.p50`,
        label: `HTTP p50 (local server) — ${queryClass.label}`,
        value: round(http.p50),
        unit: 'ms',
        baseline: { label: 'handler p50', value: round(handlerSummary.p50), unit: 'ms' },
        ratio: {
          value: round(http.p50 - handlerSummary.p50),
          text: `+${formatNumber(http.p50 - handlerSummary.p50)} ms`,
        },
        target: {
          text: `HTTP adds ≤ ${TARGET_HTTP_OVERHEAD_MS} ms p50`,
          met: http.p50 - handlerSummary.p50 <= TARGET_HTTP_OVERHEAD_MS,
        },
      },
      {
        id: `${id}.http.p99`,
        label: `HTTP p99 (local server) — ${queryClass.label}`,
        value: round(http.p99),
        unit: 'ms',
        baseline: { label: 'handler p99', value: round(handlerSummary.p99), unit: 'ms' },
        ratio: {
          value: round(http.p99 - handlerSummary.p99),
          text: `+${formatNumber(http.p99 - handlerSummary.p99)} ms`,
        },
      },
    );
    const baseline = scanFigure(queryClass.id);
    if (baseline !== undefined) {
      const ratio = speedup(handlerSummary.p50, baseline.value);
      figures.push({
        id: `${id}.vs-scan`,
        label: `handler p50 vs Scan + filter at 100,000 jobs — ${queryClass.label}`,
        value: round(handlerSummary.p50),
        unit: 'ms',
        baseline: { label: 'Scan + filter', value: baseline.value, unit: 'ms' },
        ratio,
        target: { text: `≥ ${TARGET_SPEEDUP}× faster`, met: (ratio?.value ?? 0) >= TARGET_SPEEDUP },
      });
    }
  }
  figures.push({
    id: 'search.memory.peak-rss',
    label: `peak RSS of the search handler process at ${formatNumber(totalJobs(population))} jobs (handler + local server, every class)`,
    value: mib(peakRssBytes),
    unit: 'MiB',
    baseline: { label: 'RSS with the handler loaded, before the first search', value: mib(idleRss), unit: 'MiB' },
    ratio: proportion(peakRssBytes, idleRss, 'idle'),
  });
  await dynamo.stop();
  return {
    parameters: {
      jobs: totalJobs(population),
      population,
      runsPerClass: scale.searchRuns,
      warmupRounds: scale.warmup,
      indexPath,
      queries: Object.fromEntries(
        classes.map((queryClass) => [queryClass.id, { role: queryClass.role, body: queryClass.body }]),
      ),
    },
    figures,
    notes: [
      'Authentication lookups are cached for 60 s in the container ([docs/contract.md §2](docs/contract.md)), so after the first request of a round the handler does not call DynamoDB Local; the handler time is the middy chain, criteria parsing, the engine and the response.',
      ...(scan === undefined
        ? ['No Scan baseline was found; run bench/suites/scan.ts first (npm run bench does).']
        : scanOfThisRun
          ? []
          : [
              `The Scan baseline is the one measured on ${scan.startedAt.slice(0, 10)} (source ${scan.source}), not in this run: the Scan does not depend on the index.`,
            ]),
    ],
  };
});

/**
 * Scale check of the embedded engine alone: builds (once) an index of the benchmark's realistic
 * population (bench/lib/generator.ts) in a SQLite file under the OS temp directory, then prints per
 * query class the exact total, p50/p99 latency of `SearchIndex.search`, and SQLite's plans. Not a test;
 * numbers depend on the machine, so compare runs made one after the other.
 *
 *   npx tsx bench/engine/scale.ts [jobs=1000000] [largeAccountJobs=100000] [--plans] [--runs=200] [--only=id,id]
 *     [--path=file]   (an index of the same population built elsewhere, e.g. by bench/lib/index-cache.ts)
 *     [--uncached]    (another connection commits before every timed search, so no total comes from the
 *                      engine's cache of exact totals: the cost of a search right after a write)
 *
 * The file name carries the population and a hash of the engine's schema: a schema change builds a new
 * file, an unchanged one is reused. Building reports the bulk write rate (the indexer's target is
 * ≥ 5,000 jobs/s).
 */
import { createHash } from 'node:crypto';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import { toSearchDocument } from '../../functions/search/search-document';
import { EmbeddedSearchIndex } from '../../local/search/embedded/embedded-search-index';
import { SCHEMA } from '../../local/search/embedded/schema';
import { searchStatements } from '../../local/search/embedded/search-sql';
import { TermsVocabulary } from '../../local/search/embedded/vocabulary';
import type { IndexOperation, SearchQuery } from '../../functions/search/search-index';
import { generateJob, LARGE_ACCOUNT_ID, type Population, totalJobs } from '../lib/generator';
import { engineQuery, type QueryClass, queryClasses } from '../lib/queries';

const positional = process.argv.slice(2).filter((argument) => !argument.startsWith('--'));
const option = (name: string): string | undefined =>
  process.argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3);

const POPULATION: Population = {
  jobs: Number(positional[0] ?? 1_000_000),
  accounts: 1_000,
  largeAccountJobs: Number(positional[1] ?? 100_000),
};
const RUNS = Number(option('runs') ?? 200);
const WARMUP = 10;
const BATCH = 1_000;
const SHOW_PLANS = process.argv.includes('--plans');
const ONLY = option('only')?.split(',');
const UNCACHED = process.argv.includes('--uncached');

const schemaHash = createHash('sha256').update(SCHEMA).digest('hex').slice(0, 12);
const PATH =
  option('path') ??
  join(tmpdir(), `jobs-api-engine-scale-${POPULATION.jobs}-${POPULATION.largeAccountJobs}-${schemaHash}.sqlite`);

const removeDatabase = (path: string): void => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
};

/** Builds the index into a fresh file and reports the bulk write rate of `apply`. */
const build = async (path: string): Promise<void> => {
  removeDatabase(path);
  const index = new EmbeddedSearchIndex({ path });
  const total = totalJobs(POPULATION);
  let applyMs = 0;
  let windowMs = 0;
  for (let first = 1; first <= total; first += BATCH) {
    const last = Math.min(total, first + BATCH - 1);
    const operations: IndexOperation[] = [];
    for (let id = first; id <= last; id++) {
      operations.push({ type: 'upsert', document: toSearchDocument(generateJob(POPULATION, id), 1) });
    }
    const started = performance.now();
    const outcomes = await index.apply(operations);
    const spent = performance.now() - started;
    applyMs += spent;
    windowMs += spent;
    if (outcomes.some((outcome) => outcome.status !== 'indexed')) throw new Error('a bulk write failed');
    if (last % 100_000 < BATCH || last === total) {
      console.log(`indexed ${last} (last 100k at ${Math.round(100_000 / (windowMs / 1000))} jobs/s)`);
      windowMs = 0;
    }
  }
  await index.close();
  console.log(`apply: ${Math.round(total / (applyMs / 1000))} jobs/s over ${total} jobs`);
};

/** Extra classes beyond the benchmark's: combined filters, the worst-case word, operator queries. */
const extraClasses = (): QueryClass[] => {
  const user = { role: 'user' as const, accountId: LARGE_ACCOUNT_ID };
  const operator = { role: 'operator' as const, accountId: 1 };
  return [
    {
      id: 'statuses-dates',
      label: 'empty query + 2 statuses + quarter',
      ...user,
      body: { statuses: ['CJ_ARCHIVED', 'CJ_FINISHED'], dateFrom: '2020-01-01', dateTo: '2020-04-01' },
    },
    { id: 'worst-jpg', label: 'worst case: Global "jpg"', ...user, body: { query: 'jpg' } },
    {
      id: 'worst-jpg-deep',
      label: 'worst case: "jpg" page 99 × 100',
      ...user,
      body: { query: 'jpg', page: 99, pageSize: 100 },
    },
    { id: 'rare-word', label: 'rare word (Global "freckles sofas")', ...user, body: { query: 'freckles sofas' } },
    {
      id: 'word-statuses',
      label: 'one word + rare status',
      ...user,
      body: { query: 'catalogue', statuses: ['ERROR'] },
    },
    {
      id: 'word-dates',
      label: 'one word + quarter',
      ...user,
      body: { query: 'catalogue', dateFrom: '2020-01-01', dateTo: '2020-04-01' },
    },
    { id: 'operator-empty', label: 'operator empty query', ...operator, body: {} },
    { id: 'operator-word', label: 'operator Global "jpg"', ...operator, body: { query: 'jpg' } },
    { id: 'operator-deep', label: 'operator deep page 499 × 20', ...operator, body: { page: 499 } },
    {
      id: 'small-account',
      label: 'user of a small account, Global "spring"',
      role: 'user',
      accountId: 7,
      body: { query: 'spring' },
    },
  ];
};

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

const plans = (db: DatabaseSync, query: SearchQuery): string[] => {
  const statements = searchStatements(query, new TermsVocabulary(db));
  if (statements.kind === 'nothing') return ['(matches nothing)'];
  const steps = [
    { label: 'page', ...statements.page },
    ...statements.counts.map((count, index) => ({ label: `count ${index + 1}`, ...count })),
  ];
  return steps.flatMap((step) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${step.sql}`).all(...step.params) as { detail: string }[]).map(
      (row) => `${step.label}: ${row.detail}`,
    ),
  );
};

const main = async (): Promise<void> => {
  if (!existsSync(PATH)) {
    console.log(`building ${totalJobs(POPULATION)} jobs at ${PATH}`);
    await build(`${PATH}.building`);
    renameSync(`${PATH}.building`, PATH);
    removeDatabase(`${PATH}.building`);
  } else {
    console.log(`reusing ${PATH}`);
  }
  const index = new EmbeddedSearchIndex({ path: PATH });
  const inspector = SHOW_PLANS ? new DatabaseSync(PATH, { readOnly: true }) : undefined;
  const writer = UNCACHED ? new DatabaseSync(PATH) : undefined;
  const version = (writer?.prepare('PRAGMA user_version').get() as { user_version: number } | undefined)?.user_version;
  const classes = [...queryClasses(POPULATION), ...extraClasses()].filter(
    (queryClass) => ONLY === undefined || ONLY.includes(queryClass.id),
  );
  for (const queryClass of classes) {
    const query = engineQuery(queryClass);
    const times: number[] = [];
    let total = 0;
    for (let run = 0; run < WARMUP + RUNS; run++) {
      writer?.exec(`PRAGMA user_version = ${version}`);
      const started = performance.now();
      total = (await index.search(query)).total;
      if (run >= WARMUP) times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    console.log(
      `${queryClass.label.padEnd(42)} total=${String(total).padStart(8)}  p50=${percentile(times, 50).toFixed(2).padStart(7)} ms  p99=${percentile(times, 99).toFixed(2).padStart(7)} ms`,
    );
    if (inspector !== undefined) for (const line of plans(inspector, query)) console.log(`    ${line}`);
  }
  inspector?.close();
  writer?.close();
  await index.close();
};

await main();

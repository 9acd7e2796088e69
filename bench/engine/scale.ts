/**
 * Scale sanity check of the embedded engine: fills an index with synthetic jobs and prints, per query
 * class, the p50/p99 latency and SQLite's query plan. Not a test; numbers depend on the machine.
 *
 *   npx tsx bench/engine/scale.ts [jobs=200000] [path=:memory:]
 */
import { performance } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import { JOB_STATUSES } from '../../functions/jobs/model';
import { EmbeddedSearchIndex } from '../../functions/search/embedded/embedded-search-index';
import { searchStatements } from '../../functions/search/embedded/search-sql';
import { TEXT_FIELD_IDS } from '../../functions/search/query-text';
import type { SearchDocument, SearchQuery } from '../../functions/search/search-index';

const JOBS = Number(process.argv[2] ?? 200_000);
const PATH = process.argv[3] ?? ':memory:';
const BATCH = 1_000;
const RUNS = 200;

const VOCABULARY = (
  'spring summer autumn winter catalogue campaign shoe boot sandal dress shirt jacket coat bag wallet watch ring ' +
  'necklace lookbook studio outdoor beach city portrait product packshot ghost mannequin flatlay retouch crop ' +
  'shadow reflection background white grey colour correction model beauty skin hair jewellery leather denim'
).split(' ');

/** A deterministic pseudo-random generator, so every run indexes the same jobs. */
const random = (() => {
  let state = 0x2545f491;
  return (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
})();
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
const phrase = (count: number): string => Array.from({ length: count }, () => pick(VOCABULARY)).join(' ');

const START = Date.UTC(2015, 0, 1);
const SPAN = 10 * 365 * 86_400_000;

const documentOf = (id: number): SearchDocument => {
  const created = START + Math.floor(random() * SPAN);
  const delivered = random() < 0.6 ? created + Math.floor(random() * 20 * 86_400_000) : null;
  const files = 1 + Math.floor(random() * 4);
  return {
    version: 1,
    summary: {
      id,
      accountId: 1 + Math.floor(random() * 2_000),
      status: pick(JOB_STATUSES),
      guid: crypto.randomUUID(),
      name: phrase(3),
      description: phrase(8),
      acceptedDate: null,
      createdDate: new Date(created).toISOString(),
      deliveredDate: delivered === null ? null : new Date(delivered).toISOString(),
      orderedDate: null,
      reviewedDate: null,
      realCost: Math.round(random() * 50_000) / 100,
      fileCount: files,
    },
    accountName: `Account ${phrase(1)} ${Math.floor(random() * 2_000)}`,
    invoiceReference: `INV-${Math.floor(random() * 1_000_000)}`,
    jobTags: [pick(VOCABULARY), pick(VOCABULARY)],
    fileNames: Array.from({ length: files }, (_, file) => `${pick(VOCABULARY)}_${id}_${file}.jpg`),
    fileTags: [pick(VOCABULARY)],
    fileInstructions: [phrase(5)],
  };
};

const fill = async (index: EmbeddedSearchIndex): Promise<void> => {
  const started = performance.now();
  for (let first = 1; first <= JOBS; first += BATCH) {
    const last = Math.min(JOBS, first + BATCH - 1);
    const operations = [];
    for (let id = first; id <= last; id++) operations.push({ type: 'upsert' as const, document: documentOf(id) });
    await index.apply(operations);
  }
  console.log(`indexed ${JOBS} jobs in ${((performance.now() - started) / 1000).toFixed(1)} s`);
};

const base: SearchQuery = {
  field: 'Global',
  text: '',
  globalFields: [...TEXT_FIELD_IDS],
  globalMatchesAccountNumber: true,
  offset: 0,
  limit: 20,
};

const CLASSES: Record<string, SearchQuery> = {
  'empty query': base,
  'empty query + statuses': { ...base, statuses: ['CJ_NEW', 'CJ_ACCEPT'] },
  'empty query + created range': {
    ...base,
    created: { from: START + SPAN / 2, to: START + SPAN / 2 + 30 * 86_400_000 },
  },
  'empty query + account': { ...base, accountId: 42 },
  'one word (JobName)': { ...base, field: 'JobName', text: 'catalogue' },
  'three prefix words (JobName)': { ...base, field: 'JobName', text: 'spr cat sho' },
  'file name': { ...base, field: 'FileName', text: `boot_${Math.floor(JOBS / 2)}` },
  'job number': { ...base, field: 'JobNumber', text: String(Math.floor(JOBS / 3)) },
  GUID: { ...base, field: 'Guid', text: '00000000-0000-4000-8000-000000000000' },
  'deep page 499 x 20': { ...base, offset: 499 * 20 },
  'Global one word': { ...base, text: 'lookbook' },
  'Global two words + account': { ...base, text: 'spring shoe', accountId: 42 },
};

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

const plan = (db: DatabaseSync, query: SearchQuery): string[] => {
  const statements = searchStatements(query);
  if (statements.kind === 'nothing') return ['(matches nothing)'];
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${statements.page.sql}`).all(...statements.page.params) as {
    detail: string;
  }[];
  return rows.map((row) => row.detail);
};

const main = async (): Promise<void> => {
  const index = new EmbeddedSearchIndex({ path: PATH });
  await fill(index);
  const inspector = PATH === ':memory:' ? undefined : new DatabaseSync(PATH, { readOnly: true });
  for (const [name, query] of Object.entries(CLASSES)) {
    const times: number[] = [];
    let total = 0;
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      total = (await index.search(query)).total;
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    console.log(
      `${name.padEnd(32)} total=${String(total).padStart(7)}  p50=${percentile(times, 50).toFixed(2)} ms  p99=${percentile(times, 99).toFixed(2)} ms`,
    );
    if (inspector !== undefined) for (const line of plan(inspector, query)) console.log(`    ${line}`);
  }
  inspector?.close();
  await index.close();
};

await main();

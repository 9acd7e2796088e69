/**
 * Thousands of jobs sharing one createdDate (date-only legacy imports, test fixtures) on a real engine
 * file: applied 100 per call, as the indexer does, in ascending, descending and random id order, they
 * stay in result order (createdDate desc, id desc) on every page, totals stay exact, and the engine
 * moves only a few of the jobs it already holds to make room — observed through a second, read-only
 * connection, by the keys of jobs that changed between calls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { toSearchDocument } from '../../functions/search/search-document';
import { EmbeddedSearchIndex } from '../../local/search/embedded/embedded-search-index';
import type { SearchDocument, SearchQuery } from '../../functions/search/search-index';
import { makeJob } from '../support/jobs';
import { seededShuffle } from '../support/shuffle';

const directory = mkdtempSync(join(tmpdir(), 'embedded-same-millisecond-'));
let files = 0;

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

const SAME_MOMENT = '2024-01-15T10:00:00.000Z';
const JOBS = 5_000;
const PER_APPLY = 100;
const PAGE = 100;

/** `JOBS` documents of jobs created at `SAME_MOMENT`, in ascending id order. */
const documents: SearchDocument[] = Array.from({ length: JOBS }, () =>
  toSearchDocument(makeJob({ createdDate: SAME_MOMENT }), 1),
);

/** The documents in a fixed pseudo-random order. */
const shuffled = (): SearchDocument[] => seededShuffle(documents, 7);

/** Every job's order key, read through a separate read-only connection. */
const keysOf = (path: string): Map<number, bigint> => {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const statement = db.prepare('SELECT id, ord FROM jobs');
    statement.setReadBigInts(true);
    const rows = statement.all() as { id: bigint; ord: bigint }[];
    return new Map(rows.map((row) => [Number(row.id), row.ord]));
  } finally {
    db.close();
  }
};

/**
 * Applies the documents `PER_APPLY` per call; returns how many times a job already indexed changed
 * key (was moved to make room for later ones).
 */
const applyAll = async (index: EmbeddedSearchIndex, path: string, list: SearchDocument[]): Promise<number> => {
  let moved = 0;
  let before = new Map<number, bigint>();
  for (let first = 0; first < list.length; first += PER_APPLY) {
    const batch = list.slice(first, first + PER_APPLY);
    const outcomes = await index.apply(batch.map((document) => ({ type: 'upsert', document })));
    expect(outcomes.every((outcome) => outcome.status === 'indexed')).toBe(true);
    const after = keysOf(path);
    for (const [id, key] of before) if (after.get(id) !== key) moved += 1;
    before = after;
  }
  return moved;
};

/** Walks every page of a query; checks the order of each page and that the total never changes. */
const walk = async (index: EmbeddedSearchIndex, query: Omit<SearchQuery, 'offset' | 'limit'>): Promise<number[]> => {
  const ids: number[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const { total, jobs } = await index.search({ ...query, offset, limit: PAGE });
    expect(total).toBe(JOBS);
    if (jobs.length === 0) return ids;
    for (const job of jobs) expect(job.createdDate).toBe(SAME_MOMENT);
    const pageIds = jobs.map((job) => job.id);
    expect(pageIds).toEqual([...pageIds].sort((a, b) => b - a));
    ids.push(...pageIds);
  }
};

const everything: Omit<SearchQuery, 'offset' | 'limit'> = {
  field: 'Global',
  text: '',
  globalFields: ['JobName'],
  globalMatchesAccountNumber: false,
};
const byName: Omit<SearchQuery, 'offset' | 'limit'> = {
  field: 'JobName',
  text: 'test job',
  globalFields: [],
  globalMatchesAccountNumber: false,
};

describe('embedded engine: thousands of jobs created in one millisecond', () => {
  const descendingIds = documents.map((document) => document.summary.id).sort((a, b) => b - a);

  it.each([
    // Every whole renumbering leaves room for twice as many jobs again at the end that ran out, so each
    // job moves about 1.5 times at most (1 + 1/3 + 1/9 + …); renumbering the whole millisecond whenever
    // an end ran out moved each job hundreds of times.
    ['ascending', () => [...documents], 2 * JOBS],
    ['descending', () => [...documents].reverse(), 2 * JOBS],
    // jobs between others take the keys their ids reserve: only the first few may move
    ['random', shuffled, JOBS / 100],
  ])(
    'indexes them in %s id order, pages them in id order and moves few indexed jobs',
    async (_order, arrange, maxMoved) => {
      const path = join(directory, `index-${++files}.sqlite`);
      const index = new EmbeddedSearchIndex({ path });
      try {
        expect(await applyAll(index, path, arrange())).toBeLessThanOrEqual(maxMoved);
        // every page in order, every job exactly once, through the jobs table and through FTS5
        expect(await walk(index, everything)).toEqual(descendingIds);
        expect(await walk(index, byName)).toEqual(descendingIds);
      } finally {
        await index.close();
      }
    },
    120_000,
  );
});

/**
 * The embedded engine refreshes SQLite's planner statistics after a write once the number of indexed
 * jobs has doubled or halved (see `statistics.ts`): observed on a real database file through a second,
 * read-only connection reading `sqlite_stat1`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toSearchDocument } from '../../functions/search/search-document';
import { EmbeddedSearchIndex } from '../../local/search/embedded/embedded-search-index';
import { STATISTICS_MIN_JOBS } from '../../local/search/embedded/statistics';
import type { IndexOperation, SearchQuery } from '../../functions/search/search-index';
import { makeFile, makeJob } from '../support/jobs';

const directory = mkdtempSync(join(tmpdir(), 'embedded-statistics-'));
let files = 0;

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

let created = Date.UTC(2024, 0, 15);

/** Upserts of `count` new jobs named `Spring catalogue <n>`, each created a minute after the last. */
const newJobs = (count: number): IndexOperation[] =>
  Array.from({ length: count }, (_, index) => {
    created += 60_000;
    const job = makeJob({
      name: `Spring catalogue ${index}`,
      createdDate: new Date(created).toISOString(),
      files: [makeFile({ fileName: 'plain.png' })],
    });
    return { type: 'upsert', document: toSearchDocument(job, 1) };
  });

const everything: SearchQuery = {
  field: 'JobName',
  text: 'spring cata',
  globalFields: [],
  globalMatchesAccountNumber: false,
  offset: 0,
  limit: 5,
};

describe('embedded engine: planner statistics', () => {
  let path: string;
  let index: EmbeddedSearchIndex;

  beforeEach(() => {
    path = join(directory, `index-${++files}.sqlite`);
    index = new EmbeddedSearchIndex({ path });
  });

  afterEach(async () => {
    await index.close();
  });

  /** How many rows the statistics of the `jobs` table claim (0 when it has none). */
  const analysedJobs = (): number => {
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      if (db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1'").get() === undefined) return 0;
      const row = db.prepare("SELECT stat FROM sqlite_stat1 WHERE tbl = 'jobs' AND idx = 'jobs_by_guid'").get() as
        { stat: string } | undefined;
      return row === undefined ? 0 : Number(row.stat.split(' ')[0]);
    } finally {
      db.close();
    }
  };

  it('takes no statistics of a small index, and takes them once it reaches the minimum job count', async () => {
    await index.apply(newJobs(STATISTICS_MIN_JOBS - 1));
    expect(analysedJobs()).toBe(0);
    await index.apply(newJobs(1));
    expect(analysedJobs()).toBe(STATISTICS_MIN_JOBS);
    expect((await index.search(everything)).total).toBe(STATISTICS_MIN_JOBS);
  });

  it('re-takes the statistics each time the job count doubles, not before', async () => {
    await index.apply(newJobs(STATISTICS_MIN_JOBS));
    expect(analysedJobs()).toBe(STATISTICS_MIN_JOBS);
    await index.apply(newJobs(STATISTICS_MIN_JOBS - 1));
    expect(analysedJobs()).toBe(STATISTICS_MIN_JOBS);
    await index.apply(newJobs(1));
    expect(analysedJobs()).toBe(2 * STATISTICS_MIN_JOBS);
    await index.apply(newJobs(2 * STATISTICS_MIN_JOBS));
    expect(analysedJobs()).toBe(4 * STATISTICS_MIN_JOBS);
    expect((await index.search(everything)).total).toBe(4 * STATISTICS_MIN_JOBS);
  });

  it('takes the statistics when it opens a large index that has none, as older versions left it', async () => {
    await index.apply(newJobs(2 * STATISTICS_MIN_JOBS));
    await index.close();
    const db = new DatabaseSync(path);
    try {
      db.exec('DELETE FROM sqlite_stat1');
    } finally {
      db.close();
    }
    expect(analysedJobs()).toBe(0);
    index = new EmbeddedSearchIndex({ path });
    expect(analysedJobs()).toBe(2 * STATISTICS_MIN_JOBS);
  });

  it('drops the statistics of a large index once every job is cleared', async () => {
    await index.apply(newJobs(STATISTICS_MIN_JOBS));
    expect(analysedJobs()).toBe(STATISTICS_MIN_JOBS);
    await index.clear();
    expect(analysedJobs()).toBe(0);
    expect((await index.search(everything)).total).toBe(0);
  });
});

/**
 * The benchmarks' check of when a change is searchable (bench/lib/searchable.ts): a search by job number on the
 * embedded engine, and a wait that keeps checking until the answer holds, counting what its searches cost.
 */
import { performance } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findByJobNumber, searchChecks } from '../../../bench/lib/searchable';
import { toSearchDocument } from '../../../functions/search/search-document';
import { EmbeddedSearchIndex } from '../../../local/search/embedded/embedded-search-index';
import { makeJob } from '../../support/jobs';

let index: EmbeddedSearchIndex;

beforeEach(() => {
  index = new EmbeddedSearchIndex({ path: ':memory:' });
});

afterEach(async () => {
  await index.close();
});

const write = async (id: number, name: string, version: number): Promise<void> => {
  const outcomes = await index.apply([{ type: 'upsert', document: toSearchDocument(makeJob({ id, name }), version) }]);
  expect(outcomes).toEqual([{ status: 'indexed' }]);
};

describe('findByJobNumber', () => {
  it('answers the job the index holds under that number, and nothing for a job it does not hold', async () => {
    await write(7_001, 'First name', 1);
    expect(await findByJobNumber(index, 7_001)).toMatchObject({ id: 7_001, name: 'First name' });
    expect(await findByJobNumber(index, 7_002)).toBeUndefined();
  });
});

describe('searchChecks', () => {
  it('resolves at the first check whose answer holds, after the change is written, and counts every search', async () => {
    await write(7_010, 'Events 0', 1);
    const checks = searchChecks(index, 2, 5_000);
    const before = performance.now();
    const seen = checks.until(7_010, (job) => job.name === 'Events 1');
    await new Promise((resolve) => setTimeout(resolve, 30));
    const written = performance.now();
    await write(7_010, 'Events 1', 2);
    const at = await seen;
    expect(at).toBeGreaterThanOrEqual(written);
    const cost = checks.cost();
    // Several searches answered the old name before one answered the new one.
    expect(cost.checks).toBeGreaterThan(2);
    expect(cost.ms).toBeGreaterThan(0);
    expect(cost.ms).toBeLessThan(performance.now() - before);
  });

  it('resolves at once when the answer already holds', async () => {
    await write(7_020, 'Ready', 1);
    const checks = searchChecks(index, 1_000, 5_000);
    const started = performance.now();
    const at = await checks.until(7_020, (job) => job.name === 'Ready');
    expect(at - started).toBeLessThan(500);
    expect(checks.cost().checks).toBe(1);
  });

  it('rejects, naming the job, when the answer does not hold within the timeout', async () => {
    await write(7_030, 'Never renamed', 1);
    const checks = searchChecks(index, 5, 40);
    await expect(checks.until(7_030, (job) => job.name === 'Renamed')).rejects.toThrow(/job 7030 .*40 ms/);
  });
});

/**
 * The embedded engine's order keys: results stay in (createdDate desc, id desc) order however jobs
 * share a millisecond, move in time, or lie far outside the keyed years; totals stay exact when another
 * connection writes; a database of an older layout is replaced.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedSearchIndex } from '../../../functions/search/embedded/embedded-search-index';
import {
  groupOf,
  groupStart,
  instantBound,
  keyAmong,
  MAX_GROUP,
  spreadKeys,
  TIE_SPAN,
} from '../../../functions/search/embedded/order-key';
import type { SearchDocument, SearchQuery } from '../../../functions/search/search-index';

const directory = mkdtempSync(join(tmpdir(), 'embedded-order-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const documentOf = (id: number, created: string, version = 1, status = 'CJ_NEW'): SearchDocument => ({
  summary: {
    id,
    accountId: 1,
    status: status as SearchDocument['summary']['status'],
    guid: `guid-${id}`,
    name: `Spring catalogue ${id}`,
    description: '',
    acceptedDate: null,
    createdDate: created,
    deliveredDate: null,
    orderedDate: null,
    reviewedDate: null,
    realCost: 1,
    fileCount: 0,
  },
  version,
  accountName: 'Acme',
  invoiceReference: '',
  jobTags: [],
  fileNames: [],
  fileTags: [],
  fileInstructions: [],
});

const query = (overrides: Partial<SearchQuery> = {}): SearchQuery => ({
  field: 'Global',
  text: '',
  globalFields: ['JobName'],
  globalMatchesAccountNumber: false,
  offset: 0,
  limit: 100,
  ...overrides,
});

const idsOf = async (index: EmbeddedSearchIndex, overrides: Partial<SearchQuery> = {}): Promise<number[]> =>
  (await index.search(query(overrides))).jobs.map((job) => job.id);

const SAME_MOMENT = '2024-03-01T10:00:00.000Z';

describe('order keys', () => {
  it('orders a group by (created, id) whatever the neighbours', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 1_000 }), { minLength: 1, maxLength: 60 }), (ids) => {
        let members: { key: bigint; created: number; id: number }[] = [];
        for (const id of ids) {
          const job = { created: 5, id };
          const key = keyAmong(5, members, job);
          if (key === undefined) {
            const ordered = [...members, { ...job, key: 0n }].sort((a, b) => a.id - b.id);
            const keys = spreadKeys(5, ordered.length);
            members = ordered.map((member, index) => ({ ...member, key: keys[index] as bigint }));
          } else {
            members = [...members, { ...job, key }].sort((a, b) => (a.key < b.key ? -1 : 1));
          }
        }
        const byKey = members.map((member) => member.id);
        expect(byKey).toEqual([...byKey].sort((a, b) => a - b));
        for (const member of members) {
          expect(member.key >= groupStart(5) && member.key < groupStart(5) + TIE_SPAN).toBe(true);
        }
      }),
    );
  });

  it('clamps instants beyond ±2^42 ms into the outermost groups and keys no range bound there', () => {
    expect(groupOf(Date.UTC(9999, 0, 1))).toBe(MAX_GROUP);
    expect(groupOf(Date.UTC(1000, 0, 1))).toBe(-MAX_GROUP);
    expect(instantBound(Date.UTC(9999, 0, 1))).toBeUndefined();
    expect(instantBound(0)).toBe(0n);
    expect(groupStart(MAX_GROUP) + TIE_SPAN - 1n).toBeLessThanOrEqual(2n ** 63n - 1n);
  });
});

describe('the embedded engine keeps result order', () => {
  it('lists jobs of one millisecond by id descending after renumbering their group', async () => {
    const index = new EmbeddedSearchIndex({ path: ':memory:' });
    // 1000 first, then 1, 2, 3, …: each new job falls between the last one and 1000, halving the gap
    // until the group has to be renumbered (several times over 60 jobs).
    await index.apply([{ type: 'upsert', document: documentOf(1_000, SAME_MOMENT) }]);
    for (let id = 1; id <= 60; id++) await index.apply([{ type: 'upsert', document: documentOf(id, SAME_MOMENT) }]);
    const expected = [1_000, ...Array.from({ length: 60 }, (_, position) => 60 - position)];
    expect(await idsOf(index)).toEqual(expected);
    expect(await idsOf(index, { text: 'catalogue' })).toEqual(expected);
    expect((await index.search(query({ text: 'spr cat', offset: 10, limit: 5 }))).total).toBe(61);
    expect(await idsOf(index, { text: 'spr cat', offset: 10, limit: 5 })).toEqual(expected.slice(10, 15));
    await index.close();
  });

  it('moves a job when its createdDate changes, and keeps its other matches', async () => {
    const index = new EmbeddedSearchIndex({ path: ':memory:' });
    await index.apply([
      { type: 'upsert', document: documentOf(1, '2024-01-01T00:00:00Z') },
      { type: 'upsert', document: documentOf(2, '2024-02-01T00:00:00Z') },
      { type: 'upsert', document: documentOf(3, '2024-03-01T00:00:00Z') },
    ]);
    await index.apply([{ type: 'upsert', document: documentOf(1, '2024-04-01T00:00:00Z', 2, 'ERROR') }]);
    expect(await idsOf(index)).toEqual([1, 3, 2]);
    expect(await idsOf(index, { text: 'catalogue', statuses: ['ERROR'] })).toEqual([1]);
    expect(await idsOf(index, { created: { from: Date.UTC(2024, 2, 15) } })).toEqual([1]);
    await index.apply([{ type: 'delete', jobId: 1, version: 3 }]);
    expect(await idsOf(index, { text: 'catalogue' })).toEqual([3, 2]);
    await index.close();
  });

  it('orders and filters jobs created centuries away from now', async () => {
    const index = new EmbeddedSearchIndex({ path: ':memory:' });
    await index.apply([
      { type: 'upsert', document: documentOf(1, '9999-12-31T00:00:00Z') },
      { type: 'upsert', document: documentOf(2, '5000-01-01T00:00:00Z') },
      { type: 'upsert', document: documentOf(3, '1700-01-01T00:00:00Z') },
      { type: 'upsert', document: documentOf(4, '1600-01-01T00:00:00Z') },
      { type: 'upsert', document: documentOf(5, '2024-01-01T00:00:00Z') },
    ]);
    expect(await idsOf(index)).toEqual([1, 2, 5, 3, 4]);
    expect(await idsOf(index, { text: 'spring' })).toEqual([1, 2, 5, 3, 4]);
    const from6000 = { created: { from: Date.UTC(6000, 0, 1) } };
    expect(await idsOf(index, from6000)).toEqual([1]);
    expect(await idsOf(index, { ...from6000, text: 'spring' })).toEqual([1]);
    expect((await index.search(query({ ...from6000, text: 'spring' }))).total).toBe(1);
    expect(await idsOf(index, { created: { to: Date.UTC(1650, 0, 1) }, text: 'cat' })).toEqual([4]);
    await index.close();
  });
});

describe('the embedded engine on a shared file', () => {
  it('counts exactly after another connection writes', async () => {
    const path = join(directory, 'shared.sqlite');
    const reader = new EmbeddedSearchIndex({ path });
    const writer = new EmbeddedSearchIndex({ path });
    await writer.apply([{ type: 'upsert', document: documentOf(1, SAME_MOMENT) }]);
    expect((await reader.search(query({ text: 'spring' }))).total).toBe(1);
    await writer.apply([{ type: 'upsert', document: documentOf(2, SAME_MOMENT) }]);
    expect((await reader.search(query({ text: 'spring' }))).total).toBe(2);
    expect((await reader.search(query())).total).toBe(2);
    await reader.close();
    await writer.close();
  });

  it('replaces the tables of an older layout with empty ones', async () => {
    const path = join(directory, 'old-layout.sqlite');
    const old = new DatabaseSync(path);
    old.exec('CREATE TABLE jobs (id INTEGER PRIMARY KEY, version INTEGER NOT NULL); INSERT INTO jobs VALUES (1, 1);');
    old.close();
    const index = new EmbeddedSearchIndex({ path });
    expect((await index.search(query())).total).toBe(0);
    await index.apply([{ type: 'upsert', document: documentOf(1, SAME_MOMENT) }]);
    expect(await idsOf(index)).toEqual([1]);
    await index.close();
    const reopened = new EmbeddedSearchIndex({ path });
    expect(await idsOf(reopened)).toEqual([1]);
    await reopened.close();
  });
});

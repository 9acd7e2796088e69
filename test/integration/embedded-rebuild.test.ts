/**
 * A rebuild of the embedded engine never shows a missing or half-built index: readers on other
 * connections (the local server while `npm run cli -- reindex` runs) keep answering from the last
 * committed index until the new one is complete, and a rebuild that fails leaves the old one in place.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toSearchDocument } from '../../functions/search/search-document';
import { EmbeddedSearchIndex } from '../../local/search/embedded/embedded-search-index';
import type { SearchQuery } from '../../functions/search/search-index';
import { makeJob } from '../support/jobs';

const everything: SearchQuery = {
  field: 'Global',
  text: '',
  globalFields: [],
  globalMatchesAccountNumber: false,
  offset: 0,
  limit: 100,
};

let directory: string;
let writer: EmbeddedSearchIndex;
let reader: EmbeddedSearchIndex;

beforeEach(async () => {
  directory = mkdtempSync(join(tmpdir(), 'embedded-rebuild-'));
  const path = join(directory, 'search.sqlite');
  writer = new EmbeddedSearchIndex({ path });
  reader = new EmbeddedSearchIndex({ path });
  await writer.apply([1, 2, 3].map(() => ({ type: 'upsert', document: toSearchDocument(makeJob(), 1) })));
});

afterEach(async () => {
  await writer.close();
  await reader.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('rebuilding the embedded index', () => {
  it('keeps answering from the old index until the new one is complete, then switches at once', async () => {
    const seenDuringFill: number[] = [];
    const rebuilt = makeJob({ name: 'Rebuilt' });
    await writer.rebuild(async (target) => {
      seenDuringFill.push((await reader.search(everything)).total);
      await target.apply([{ type: 'upsert', document: toSearchDocument(rebuilt, 5) }]);
      seenDuringFill.push((await reader.search(everything)).total);
    });
    expect(seenDuringFill).toEqual([3, 3]);
    const after = await reader.search(everything);
    expect(after.total).toBe(1);
    expect(after.jobs.map((job) => job.id)).toEqual([rebuilt.id]);
  });

  it('leaves the old index in place when the fill fails', async () => {
    await expect(
      writer.rebuild(async (target) => {
        await target.apply([{ type: 'upsert', document: toSearchDocument(makeJob(), 1) }]);
        throw new Error('the table could not be read');
      }),
    ).rejects.toThrow('the table could not be read');
    expect((await reader.search(everything)).total).toBe(3);
    expect((await writer.search(everything)).total).toBe(3);
  });
});

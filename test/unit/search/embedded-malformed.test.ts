/**
 * The embedded engine refuses a malformed document (a field missing or of the wrong type) as `rejected`,
 * alone: the other operations of the same `apply` are indexed. The index's writers already check what
 * they build (`checkedSearchDocument`); this is the engine's own guard behind them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toSearchDocument } from '../../../functions/search/search-document';
import { createSearchIndex } from '../../../functions/search/engine';
import type { SearchDocument, SearchIndex } from '../../../functions/search/search-index';
import { makeJob } from '../../support/jobs';

type Mutable = Record<string, unknown> & { summary: Record<string, unknown> };

/** Ways a job item edited outside the API (or by an older writer) can reach an engine. */
const MALFORMED: Record<string, (document: Mutable) => void> = {
  'no guid': (document) => delete document.summary.guid,
  'a numeric guid': (document) => (document.summary.guid = 42),
  'a numeric name': (document) => (document.summary.name = 7),
  'an unknown status': (document) => (document.summary.status = 'CJ_LOST'),
  'a textual account id': (document) => (document.summary.accountId = '1001'),
  'an undated delivery': (document) => (document.summary.deliveredDate = 'soon'),
  'a textual cost': (document) => (document.summary.realCost = 'cheap'),
  'job tags as one string': (document) => (document.jobTags = 'red, blue'),
  'a missing file name': (document) => (document.fileNames = [null]),
  'a numeric file tag': (document) => (document.fileTags = [7]),
  'no account name': (document) => (document.accountName = null),
  'no summary': (document) => delete (document as Partial<Mutable>).summary,
};

const document = (id: number): SearchDocument =>
  toSearchDocument(makeJob({ id, createdDate: new Date(Date.UTC(2024, 0, id)).toISOString() }), 1);

describe('embedded engine, malformed documents', () => {
  let index: SearchIndex;

  beforeEach(async () => {
    index = await createSearchIndex({ engine: 'embedded', path: ':memory:' });
  });

  afterEach(async () => {
    await index.close();
  });

  it.each(Object.keys(MALFORMED))('rejects a document with %s alone, indexing the rest', async (name) => {
    const broken = JSON.parse(JSON.stringify(document(2))) as Mutable;
    MALFORMED[name]?.(broken);
    const outcomes = await index.apply([
      { type: 'upsert', document: document(1) },
      { type: 'upsert', document: broken as unknown as SearchDocument },
      { type: 'upsert', document: document(3) },
    ]);
    expect(outcomes).toEqual([
      { status: 'indexed' },
      { status: 'rejected', reason: expect.any(String) },
      { status: 'indexed' },
    ]);
    expect([...(await Promise.all([1, 2, 3].map((id) => index.get(id))))].map((found) => found !== undefined)).toEqual([
      true,
      false,
      true,
    ]);
  });
});

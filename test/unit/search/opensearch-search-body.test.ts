import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { searchBody } from '../../../functions/search/opensearch/search-body';
import { MAX_QUERY_WORDS, TEXT_FIELD_IDS } from '../../../functions/search/query-text';
import type { SearchQuery } from '../../../functions/search/search-index';
import { words } from '../../../functions/search/text';

const query = (overrides: Partial<SearchQuery> = {}): SearchQuery => ({
  field: 'Global',
  text: '',
  globalFields: ['JobName', 'FileName'],
  globalMatchesAccountNumber: false,
  offset: 0,
  limit: 20,
  ...overrides,
});

const filters = (overrides: Partial<SearchQuery>) =>
  (searchBody(query(overrides)).query as { bool: { filter: unknown[] } }).bool.filter;

/** The leaf queries of a body: every clause that is not a `bool`, counting a multi-field match once per field. */
const leafClauses = (clause: unknown): number => {
  if (Array.isArray(clause)) return clause.reduce((sum: number, item) => sum + leafClauses(item), 0);
  if (typeof clause !== 'object' || clause === null) return 0;
  const record = clause as Record<string, unknown>;
  if ('bool' in record) {
    const bool = record.bool as Record<string, unknown>;
    return ['must', 'filter', 'should', 'must_not'].reduce((sum, key) => sum + leafClauses(bool[key] ?? []), 0);
  }
  if ('multi_match' in record) return (record.multi_match as { fields: string[] }).fields.length;
  return 1;
};

describe('OpenSearch search body', () => {
  it('stays far below the 1,024-clause limit for the costliest accepted query', () => {
    const longest = Array.from({ length: MAX_QUERY_WORDS }, (_, i) => `w${i}q`).join(' ');
    const worst = searchBody(
      query({
        text: longest,
        globalFields: [...TEXT_FIELD_IDS],
        globalMatchesAccountNumber: true,
        statuses: ['CJ_NEW', 'CJ_ACCEPT'],
        created: { from: 0, to: 1 },
        delivered: { from: 0, to: 1 },
      }),
    );
    const clauses = leafClauses(worst.query);
    expect(clauses).toBeGreaterThanOrEqual(MAX_QUERY_WORDS * TEXT_FIELD_IDS.length);
    expect(clauses).toBeLessThan(1024);
  });

  it('sorts newest first then by job id, pages with from/size and counts every hit', () => {
    expect(searchBody(query({ offset: 40, limit: 20 }))).toEqual({
      query: { bool: { filter: [] } },
      sort: [{ created: { order: 'desc' } }, { jobId: { order: 'desc' } }],
      from: 40,
      size: 20,
      track_total_hits: true,
      _source: ['document.summary'],
    });
  });

  it('matches each word of a text field as a prefix with match_bool_prefix', () => {
    expect(filters({ field: 'FileName', text: 'CEM_test15 Café' })).toEqual([
      {
        bool: {
          filter: [
            { match_bool_prefix: { 'text.FileName': { query: 'cem' } } },
            { match_bool_prefix: { 'text.FileName': { query: 'test15' } } },
            { match_bool_prefix: { 'text.FileName': { query: 'cafe' } } },
          ],
        },
      },
    ]);
  });

  it('lets each Global word match any of the given fields, or the whole query equal the job number or GUID', () => {
    expect(filters({ text: 'spr 15' })).toEqual([
      {
        bool: {
          should: [
            {
              bool: {
                filter: [
                  { multi_match: { query: 'spr', type: 'bool_prefix', fields: ['text.JobName', 'text.FileName'] } },
                  { multi_match: { query: '15', type: 'bool_prefix', fields: ['text.JobName', 'text.FileName'] } },
                ],
              },
            },
            { term: { guid: 'spr 15' } },
          ],
          minimum_should_match: 1,
        },
      },
    ]);
    expect(filters({ text: '15', globalMatchesAccountNumber: true })).toEqual([
      {
        bool: {
          should: [
            {
              bool: {
                filter: [
                  { multi_match: { query: '15', type: 'bool_prefix', fields: ['text.JobName', 'text.FileName'] } },
                ],
              },
            },
            { term: { jobId: 15 } },
            { term: { guid: '15' } },
            { term: { accountId: 15 } },
          ],
          minimum_should_match: 1,
        },
      },
    ]);
  });

  it('looks up exact fields with term queries', () => {
    expect(filters({ field: 'JobNumber', text: ' 42 ' })).toEqual([{ term: { jobId: 42 } }]);
    expect(filters({ field: 'AccountNumber', text: '7' })).toEqual([{ term: { accountId: 7 } }]);
    expect(filters({ field: 'Guid', text: 'ABC-0001' })).toEqual([{ term: { guid: 'abc-0001' } }]);
  });

  it('matches nothing when an exact number is not an integer', () => {
    expect(filters({ field: 'JobNumber', text: '4.2' })).toEqual([{ match_none: {} }]);
    expect(filters({ field: 'AccountNumber', text: 'seven' })).toEqual([{ match_none: {} }]);
  });

  it('filters the account whenever one is given, statuses, and half-open date ranges', () => {
    expect(
      filters({
        accountId: 9,
        statuses: ['CJ_NEW', 'ERROR'],
        created: { from: 1000, to: 2000 },
        delivered: { from: 3000 },
      }),
    ).toEqual([
      { term: { accountId: 9 } },
      { terms: { status: ['CJ_NEW', 'ERROR'] } },
      { range: { created: { gte: 1000, lt: 2000, format: 'epoch_millis' } } },
      { exists: { field: 'delivered' } },
      { range: { delivered: { gte: 3000, format: 'epoch_millis' } } },
    ]);
  });

  it('filters account 0 like any other account: 0 names an account, not every account', () => {
    expect(filters({ accountId: 0 })).toEqual([{ term: { accountId: 0 } }]);
    expect(filters({ accountId: 0, field: 'JobName', text: 'spring', statuses: ['CJ_NEW'] })).toEqual([
      { term: { accountId: 0 } },
      { terms: { status: ['CJ_NEW'] } },
      { bool: { filter: [{ match_bool_prefix: { 'text.JobName': { query: 'spring' } } }] } },
    ]);
  });

  it('filters exactly the given account, whichever it is, and no account only when none is given', () => {
    fc.assert(
      fc.property(
        fc.option(fc.oneof(fc.constant(0), fc.nat()), { nil: undefined }),
        fc.constantFrom('', 'spring'),
        (accountId, text) => {
          const accountFilters = filters({ text, ...(accountId === undefined ? {} : { accountId }) }).filter(
            (filter) => 'term' in (filter as Record<string, unknown>),
          );
          expect(accountFilters).toEqual(accountId === undefined ? [] : [{ term: { accountId } }]);
        },
      ),
    );
  });

  it('keeps a date bound at the epoch (0 ms) and adds no status filter for an empty status list', () => {
    expect(filters({ created: { from: 0, to: 0 }, statuses: [] })).toEqual([
      { range: { created: { gte: 0, lt: 0, format: 'epoch_millis' } } },
    ]);
  });

  it('requires a delivery date for any delivery range, even an open one', () => {
    expect(filters({ delivered: {} })).toEqual([
      { exists: { field: 'delivered' } },
      { range: { delivered: { format: 'epoch_millis' } } },
    ]);
  });

  it('never uses query-string syntax and passes user text only as words or whole exact values', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.constantFrom('Global', 'JobName', 'FileName', 'JobNumber', 'Guid', 'AccountNumber' as const),
        (text, field) => {
          const body = JSON.stringify(searchBody(query({ text, field, globalMatchesAccountNumber: true })));
          expect(body).not.toMatch(/query_string|simple_query_string|regexp|wildcard|fuzzy|script/);
          const matched = [...body.matchAll(/"query":"((?:[^"\\]|\\.)*)"/g)].map((found) =>
            JSON.parse(`"${found[1]}"`),
          );
          const allowed = new Set(words(text));
          for (const value of matched) expect(allowed.has(value)).toBe(true);
        },
      ),
    );
  });
});

/**
 * The embedded engine against a reference model: docs/contract.md §4 written as plain array code. For random
 * jobs and random queries (syntax characters included), the engine answers exactly what the model does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JOB_STATUSES, type JobStatus } from '../../../functions/jobs/model/model';
import { EmbeddedSearchIndex } from '../../../local/search/embedded/embedded-search-index';
import { matchExpression, quoteWord } from '../../../local/search/embedded/match';
import { foldedFieldText, isTextField, TEXT_FIELD_IDS } from '../../../functions/search/query-text';
import type { SearchDocument, SearchQuery, SearchResult } from '../../../functions/search/search-index';
import { words } from '../../../functions/search/text';

const VOCABULARY = [
  'Spring',
  'spr',
  'Café',
  'cafe',
  'crème',
  'test15',
  'cem_test15.jpg',
  'OR',
  'NOT',
  'near',
  'a',
  'é',
];
const SYNTAX = ['"', '*', '(', ')', '{', '}', ':', '^', '-', '+', 'AND', 'OR', 'NOT', 'NEAR', ' ', '_', '.'];

const text = fc
  .array(fc.oneof(fc.constantFrom(...VOCABULARY), fc.constantFrom(...SYNTAX)), { maxLength: 4 })
  .map((parts) => parts.join(' '));
const texts = fc.array(text, { maxLength: 2 });
const instant = fc.integer({ min: 0, max: 9 }).map((day) => Date.UTC(2024, 0, 1 + day));

const documentArbitrary = (id: number): fc.Arbitrary<SearchDocument> =>
  fc
    .record({
      accountId: fc.integer({ min: 1, max: 3 }),
      status: fc.constantFrom<JobStatus>('CJ_NEW', 'ERROR', 'CJ_ACCEPT'),
      name: text,
      description: text,
      created: instant,
      delivered: fc.option(instant, { nil: null }),
      accountName: text,
      invoiceReference: text,
      jobTags: texts,
      fileNames: texts,
      fileTags: texts,
      fileInstructions: texts,
    })
    .map((value) => ({
      summary: {
        id,
        accountId: value.accountId,
        status: value.status,
        guid: `AB-${id}`,
        name: value.name,
        description: value.description,
        acceptedDate: null,
        createdDate: new Date(value.created).toISOString(),
        deliveredDate: value.delivered === null ? null : new Date(value.delivered).toISOString(),
        orderedDate: null,
        reviewedDate: null,
        realCost: 1,
        fileCount: value.fileNames.length,
      },
      version: 1,
      accountName: value.accountName,
      invoiceReference: value.invoiceReference,
      jobTags: value.jobTags,
      fileNames: value.fileNames,
      fileTags: value.fileTags,
      fileInstructions: value.fileInstructions,
    }));

const documentsArbitrary = fc
  .uniqueArray(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 12 })
  .chain((ids) => fc.tuple(...ids.map(documentArbitrary)));

const queryArbitrary: fc.Arbitrary<SearchQuery> = fc.record({
  field: fc.constantFrom('Global', 'JobName', 'FileName', 'AccountName', 'JobNumber', 'AccountNumber', 'Guid' as const),
  text: fc.oneof(text, fc.integer({ min: 1, max: 40 }).map(String), fc.constantFrom('ab-3', ' AB-7 ', '')),
  globalFields: fc.subarray([...TEXT_FIELD_IDS], { minLength: 1 }),
  globalMatchesAccountNumber: fc.boolean(),
  accountId: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
  statuses: fc.option(fc.subarray([...JOB_STATUSES]), { nil: undefined }),
  created: fc.option(
    fc.record({ from: fc.option(instant, { nil: undefined }), to: fc.option(instant, { nil: undefined }) }),
    {
      nil: undefined,
    },
  ),
  delivered: fc.option(fc.record({ from: fc.option(instant, { nil: undefined }) }), { nil: undefined }),
  offset: fc.integer({ min: 0, max: 8 }),
  limit: fc.integer({ min: 1, max: 5 }),
});

/** docs/contract.md §4, the slow and obvious way. */
const model = (documents: SearchDocument[], query: SearchQuery): SearchResult => {
  const trimmed = query.text.trim();
  const queryWords = words(trimmed);
  const integer = /^[0-9]+$/.test(trimmed) && Number.isSafeInteger(Number(trimmed)) ? Number(trimmed) : undefined;
  const prefixes = (document: SearchDocument, fields: string[]) => (word: string) =>
    fields.some((field) =>
      isTextField(field as never)
        ? foldedFieldText(document, field as never)
            .split(' ')
            .some((candidate) => candidate.startsWith(word))
        : false,
    );
  const textMatches = (document: SearchDocument): boolean => {
    if (trimmed === '') return true;
    const { summary } = document;
    switch (query.field) {
      case 'JobNumber':
        return summary.id === integer;
      case 'AccountNumber':
        return summary.accountId === integer;
      case 'Guid':
        return summary.guid.toLowerCase() === trimmed.toLowerCase();
      case 'Global':
        if (queryWords.length === 0) return true;
        return (
          queryWords.every(prefixes(document, query.globalFields)) ||
          summary.id === integer ||
          summary.guid.toLowerCase() === trimmed.toLowerCase() ||
          (query.globalMatchesAccountNumber && summary.accountId === integer)
        );
      default:
        return queryWords.every(prefixes(document, [query.field]));
    }
  };
  const inRange = (value: number | null, range: { from?: number; to?: number } | undefined): boolean =>
    range === undefined ||
    (value !== null &&
      (range.from === undefined || value >= range.from) &&
      (range.to === undefined || value < range.to));
  const matches = documents
    .filter((document) => query.accountId === undefined || document.summary.accountId === query.accountId)
    .filter(
      (document) =>
        query.statuses === undefined || query.statuses.length === 0 || query.statuses.includes(document.summary.status),
    )
    .filter((document) => inRange(Date.parse(document.summary.createdDate), query.created))
    .filter((document) =>
      inRange(
        document.summary.deliveredDate === null ? null : Date.parse(document.summary.deliveredDate),
        query.delivered,
      ),
    )
    .filter(textMatches)
    .sort(
      (a, b) => Date.parse(b.summary.createdDate) - Date.parse(a.summary.createdDate) || b.summary.id - a.summary.id,
    );
  return {
    total: matches.length,
    jobs: matches.slice(query.offset, query.offset + query.limit).map((document) => document.summary),
  };
};

describe('embedded engine', () => {
  it('quotes every word as an FTS5 string', () => {
    expect(quoteWord('spr')).toBe('"spr"');
    expect(quoteWord('a"b')).toBe('"a""b"');
  });

  it('builds a prefix phrase per word under a column filter', () => {
    expect(matchExpression({ words: ['spr', 'cat'], fields: ['JobName', 'FileName'] })).toBe(
      '{job_name file_name} : "spr"* AND {job_name file_name} : "cat"*',
    );
  });

  it('answers every search exactly like the reference model of docs/contract.md §4', async () => {
    await fc.assert(
      fc.asyncProperty(
        documentsArbitrary,
        fc.array(queryArbitrary, { minLength: 1, maxLength: 8 }),
        async (documents, queries) => {
          const index = new EmbeddedSearchIndex({ path: ':memory:' });
          try {
            await index.apply(documents.map((document) => ({ type: 'upsert', document })));
            for (const query of queries) {
              expect(await index.search(query)).toEqual(model(documents, query));
            }
          } finally {
            await index.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

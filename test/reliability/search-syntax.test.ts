/**
 * Search text is text, never syntax: job texts and queries made of arbitrary unicode, FTS5 operators
 * and column filters, OpenSearch query-string syntax and regular-expression characters never make the
 * engine fail, and every search finds exactly the jobs docs/contract.md §4's rule names — every word of the
 * query (letters and digits, case and diacritics folded) is a prefix of some word of the field; Global
 * also matches the whole job number or GUID. The reference model below implements that rule on its
 * own; the engine must agree with it on every generated case.
 *
 * Runs against the embedded engine always, and against OpenSearch when OPENSEARCH_URL is set.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../functions/jobs/model/model';
import { toSearchDocument } from '../../functions/search/search-document';
import { createSearchIndex, type SearchIndexSettings } from '../../functions/search/engine';
import { globalTextFieldsFor } from '../../functions/search/fields';
import { foldedFieldText, isTextField, type TextFieldId } from '../../functions/search/query-text';
import type { SearchDocument, SearchIndex } from '../../functions/search/search-index';
import { words } from '../../functions/search/text';
import { makeFile, makeJob } from '../support/jobs';

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_304);

/** Pieces of FTS5 and OpenSearch query syntax, and characters regular expressions and shells care about. */
const SYNTAX = [
  'AND',
  'OR',
  'NOT',
  'NEAR(a b, 2)',
  '"',
  '""',
  '*',
  '^',
  ':',
  '{job_name}:',
  'job_name:x',
  '-',
  '+',
  '(',
  ')',
  'title:(quick OR brown)',
  '\\',
  '/re.*x/',
  '~2',
  '[1 TO 5]',
  '{a TO b}',
  '&&',
  '||',
  '!',
  '?',
  '<',
  '>=',
  '%',
  '_',
  "'",
  ';--',
  '\u0000',
  '\u202e',
  '🙂',
];

const WORDS = [
  'spring',
  'Spring',
  'café',
  'CAFE',
  'Crème',
  'brûlée',
  'test15',
  'cem_test15.jpg',
  'İstanbul',
  'straße',
  'ﬁle',
  '東京',
  'مرحبا',
  'x',
];

const piece = fc.oneof(
  fc.constantFrom(...SYNTAX),
  fc.constantFrom(...WORDS),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }),
);
const text = fc.array(piece, { maxLength: 6 }).map((pieces) => pieces.join(' '));

interface Case {
  names: string[];
  descriptions: string[];
  field: 'Global' | TextFieldId;
  /** How to build the query from the jobs' texts. */
  query:
    | { from: 'free'; text: string }
    | { from: 'name'; job: number; cut: number; extra: string }
    | { from: 'id'; job: number };
}

const cases: fc.Arbitrary<Case> = fc.record({
  names: fc.array(text, { minLength: 1, maxLength: 6 }),
  descriptions: fc.array(text, { minLength: 6, maxLength: 6 }),
  field: fc.constantFrom('Global' as const, 'JobName' as const, 'JobInstruction' as const),
  query: fc.oneof(
    fc.record({ from: fc.constant('free' as const), text }),
    fc.record({
      from: fc.constant('name' as const),
      job: fc.nat(5),
      cut: fc.integer({ min: 1, max: 4 }),
      extra: fc.constantFrom('', ...SYNTAX),
    }),
    fc.record({ from: fc.constant('id' as const), job: fc.nat(5) }),
  ),
});

/** The contract's rule, written independently of the engines. */
const expectedMatches = (documents: SearchDocument[], field: 'Global' | TextFieldId, query: string): number[] => {
  const trimmed = query.trim();
  if (trimmed.length === 0) return documents.map((document) => document.summary.id);
  const queryWords = words(trimmed);
  const fields = field === 'Global' ? globalTextFieldsFor('user').filter(isTextField) : [field];
  return documents
    .filter((document) => {
      if (field === 'Global') {
        if (trimmed === String(document.summary.id) || trimmed.toLowerCase() === document.summary.guid.toLowerCase()) {
          return true;
        }
        if (queryWords.length === 0) return true;
      } else if (queryWords.length === 0) {
        return true;
      }
      const texts = fields.flatMap((name) => foldedFieldText(document, name).split(' '));
      return queryWords.every((word) => texts.some((candidate) => candidate.startsWith(word)));
    })
    .map((document) => document.summary.id);
};

const engines: Array<{ name: string; settings: SearchIndexSettings | undefined }> = [
  { name: 'embedded', settings: { engine: 'embedded', path: ':memory:' } },
  {
    name: 'opensearch',
    settings:
      process.env.OPENSEARCH_URL === undefined
        ? undefined
        : {
            engine: 'opensearch',
            url: process.env.OPENSEARCH_URL,
            index: `reliability-syntax-${Date.now()}`,
            region: 'us-east-1',
            timeoutMs: 5_000,
            refreshOnWrite: true,
          },
  },
];

describe.each(engines)('search text on the $name engine', ({ name, settings }) => {
  let index: SearchIndex;

  beforeAll(async () => {
    if (settings !== undefined) index = await createSearchIndex(settings);
  });

  afterAll(async () => {
    if (settings === undefined) return;
    await index.clear();
    await index.close();
  });

  it.skipIf(settings === undefined)(
    `matches arbitrary unicode and query syntax as plain words, never failing${settings === undefined ? ` (skipped: OPENSEARCH_URL is unset, so there is no ${name} node)` : ''}`,
    async () => {
      await fc.assert(
        fc.asyncProperty(cases, async (generated) => {
          await index.clear();
          const jobs: Job[] = generated.names.map((jobName, position) =>
            makeJob({
              accountId: 5,
              name: jobName,
              description: generated.descriptions[position] ?? '',
              files: [makeFile({ fileName: 'plain.jpg' })],
            }),
          );
          const documents = jobs.map((job) => toSearchDocument(job, 1));
          const outcomes = await index.apply(documents.map((document) => ({ type: 'upsert' as const, document })));
          expect(outcomes.every((outcome) => outcome.status === 'indexed')).toBe(true);

          const query = generated.query;
          const target = jobs[query.from === 'free' ? 0 : query.job % jobs.length]!;
          const queryText =
            query.from === 'free'
              ? query.text
              : query.from === 'id'
                ? String(target.id)
                : `${words(target.name)
                    .map((word) => word.slice(0, query.cut))
                    .join(' ')} ${query.extra}`;

          const result = await index.search({
            field: generated.field,
            text: queryText,
            globalFields: globalTextFieldsFor('user'),
            globalMatchesAccountNumber: false,
            accountId: 5,
            offset: 0,
            limit: 100,
          });
          const found = result.jobs.map((job) => job.id).sort((a, b) => a - b);
          const expected = expectedMatches(documents, generated.field, queryText).sort((a, b) => a - b);
          expect(found, `query ${JSON.stringify(queryText)} on ${generated.field}`).toEqual(expected);
          expect(result.total).toBe(expected.length);
        }),
        { seed: SEED, numRuns: 250 },
      );
    },
    60_000,
  );
});

/**
 * What a search's text means, decided once for both engines (docs/contract.md §4): which words must
 * prefix-match which texts of a job, and which exact values may match instead. Engines translate a
 * {@link TextCondition} into their own query language and never interpret the raw text themselves.
 */
import { parseDecimal, parseId } from '../jobs/model/ids';
import { SEARCH_FIELDS, type SearchFieldId } from './fields';
import type { SearchDocument, SearchQuery } from './search-index';
import { words, wordText } from './text';

/** The ids of the text fields: fields whose words are prefix-matched. */
export type TextFieldId = Exclude<SearchFieldId, 'Global' | 'AccountNumber' | 'JobNumber' | 'Guid'>;

/** Every text field id, in `seqno` order. */
export const TEXT_FIELD_IDS: readonly TextFieldId[] = SEARCH_FIELDS.filter((field) => field.kind === 'text').map(
  (field) => field.id as TextFieldId,
);

/** Whether a field id names a text field. */
export const isTextField = (id: SearchFieldId): id is TextFieldId => (TEXT_FIELD_IDS as readonly string[]).includes(id);

/** The texts of a document a text field searches (docs/contract.md §3). */
const FIELD_TEXTS: Record<TextFieldId, (document: SearchDocument) => readonly string[]> = {
  AccountName: (document) => [document.accountName],
  JobName: (document) => [document.summary.name],
  FileName: (document) => document.fileNames,
  JobInstruction: (document) => [document.summary.description],
  JobTags: (document) => document.jobTags,
  FileTags: (document) => document.fileTags,
  FileInstruction: (document) => document.fileInstructions,
  InvoiceReference: (document) => [document.invoiceReference],
};

/**
 * The words of a document's text field, folded and joined by single spaces: the form both engines
 * index, so their tokenizers see exactly the words {@link words} produces (`cem_test15.JPG` →
 * `cem test15 jpg`).
 */
export const foldedFieldText = (document: SearchDocument, field: TextFieldId): string =>
  wordText(FIELD_TEXTS[field](document).join(' '));

/** An exact value the whole query may equal. */
export type ExactCondition =
  | { field: 'jobId'; value: number }
  | { field: 'accountId'; value: number }
  /** Lower-case: GUIDs compare case-insensitively. */
  | { field: 'guid'; value: string };

/** Every word must be a prefix of some word of at least one of `fields` (words may match different fields). */
export interface WordsCondition {
  words: string[];
  fields: TextFieldId[];
}

/**
 * The text condition of a search.
 * - `all`: no text condition (empty query, or a text query without any word).
 * - `some`: a job matches when `words` holds, or when any of `exact` holds. With neither, nothing matches.
 */
export type TextCondition = { kind: 'all' } | { kind: 'some'; words?: WordsCondition; exact: ExactCondition[] };

/** The most words a query may hold once repeated and prefix words are dropped (docs/contract.md §4). */
export const MAX_QUERY_WORDS = 32;

/**
 * The words that decide whether a job matches, in query order: a repeated word, and a word that is the
 * start of another word of the query, cannot change the result (any word of a job that the longer word
 * prefixes, the shorter one prefixes too), so they are dropped before an engine sees them. This bounds a
 * search's cost by its distinct, independent words.
 */
export const significantWords = (queryWords: readonly string[]): string[] => {
  const unique = [...new Set(queryWords)];
  return unique.filter((word) => !unique.some((other) => other !== word && other.startsWith(word)));
};

/**
 * The integer a query states, or `undefined` when it is not one (`42` → 42; `4.2`, `-4`, `x` and
 * anything past the id range of `jobs/ids.ts` → undefined).
 */
export const parseInteger = (text: string): number | undefined => parseDecimal(text);

/** A job number must be an id; an account number may be 0. */
const exactInteger = (field: 'jobId' | 'accountId', text: string): ExactCondition[] => {
  const value = field === 'jobId' ? parseId(text) : parseDecimal(text);
  return value === undefined ? [] : [{ field, value }];
};

const globalCondition = (query: SearchQuery, text: string): TextCondition => {
  const queryWords = significantWords(words(text));
  if (queryWords.length === 0) return { kind: 'all' };
  const fields = query.globalFields.filter(isTextField);
  const exact: ExactCondition[] = [
    ...exactInteger('jobId', text),
    { field: 'guid', value: text.toLowerCase() },
    ...(query.globalMatchesAccountNumber ? exactInteger('accountId', text) : []),
  ];
  return fields.length === 0 ? { kind: 'some', exact } : { kind: 'some', words: { words: queryWords, fields }, exact };
};

/** Interprets a search's field and text (docs/contract.md §4). */
export const textCondition = (query: SearchQuery): TextCondition => {
  const text = query.text.trim();
  if (text.length === 0) return { kind: 'all' };
  switch (query.field) {
    case 'Global':
      return globalCondition(query, text);
    case 'JobNumber':
      return { kind: 'some', exact: exactInteger('jobId', text) };
    case 'AccountNumber':
      return { kind: 'some', exact: exactInteger('accountId', text) };
    case 'Guid':
      return { kind: 'some', exact: [{ field: 'guid', value: text.toLowerCase() }] };
    default: {
      const queryWords = significantWords(words(text));
      if (queryWords.length === 0) return { kind: 'all' };
      return { kind: 'some', words: { words: queryWords, fields: [query.field] }, exact: [] };
    }
  }
};

/**
 * Builds FTS5 MATCH expressions. User input never reaches FTS5 as syntax: the expression is built only
 * from `text.words()` output and terms read from the index's own vocabulary, each quoted as an FTS5
 * string under a column filter, and from scope tokens the engine derives from validated integers and
 * status codes.
 */
import type { WordsCondition } from '../../../functions/search/query-text';
import { accountToken, SCOPE_COLUMN, statusToken, TEXT_COLUMN_FIELDS, TEXT_COLUMNS } from './schema';
import type { Vocabulary } from './vocabulary';

/** Quotes a word as an FTS5 string (a `"` inside is doubled, so it can never end the string). */
export const quoteWord = (word: string): string => `"${word.replaceAll('"', '""')}"`;

/**
 * Words of up to this many characters stay prefix terms: the FTS5 table's prefix indexes
 * (`prefix = '1 2 3'`) hold them as single doclists that FTS5 reads lazily, and such short words
 * prefix many terms.
 */
export const PREFIX_INDEX_MAX_LENGTH = 3;

/** A word that prefixes more indexed terms than this stays a prefix term. */
export const MAX_EXPANDED_TERMS = 64;

/**
 * The MATCH expression of a words condition: every word a prefix of some word in one of the fields.
 * Without a vocabulary each word is a prefix term, e.g. `{job_name file_name} : "spr"* AND
 * {job_name file_name} : "cat"*`. With one, a word longer than {@link PREFIX_INDEX_MAX_LENGTH} becomes
 * the OR of the indexed terms of those columns it prefixes, `{job_name file_name} : ("catalogue" OR
 * "catalogues")`, which matches the same jobs and lets FTS5 stop after a page; one that prefixes more
 * than {@link MAX_EXPANDED_TERMS} stays a prefix term. `undefined` when some word prefixes no indexed
 * term of those columns: no job matches.
 */
export const matchExpression = (condition: WordsCondition, vocabulary?: Vocabulary): string | undefined => {
  const names = condition.fields.map((field) => TEXT_COLUMNS[field]);
  const positions = condition.fields.map((field) => TEXT_COLUMN_FIELDS.indexOf(field));
  const columns = `{${names.join(' ')}}`;
  const parts: string[] = [];
  for (const word of condition.words) {
    const terms =
      vocabulary === undefined || [...word].length <= PREFIX_INDEX_MAX_LENGTH
        ? undefined
        : vocabulary.termsWithPrefix(word, positions, MAX_EXPANDED_TERMS);
    if (terms === undefined) parts.push(`${columns} : ${quoteWord(word)}*`);
    else if (terms.length === 0) return undefined;
    else if (terms.length === 1) parts.push(`${columns} : ${quoteWord(terms[0] as string)}`);
    else parts.push(`${columns} : (${terms.map(quoteWord).join(' OR ')})`);
  }
  return parts.join(' AND ');
};

/** The account and status filters of a search. */
export interface Scope {
  accountId?: number;
  statuses?: readonly string[];
}

/**
 * The MATCH expression of the account and status filters, e.g.
 * `scope : "a42" AND (scope : "s434a5f4e4557" OR scope : "s4552524f52")`, or `undefined` without any.
 */
export const scopeExpression = (scope: Scope): string | undefined => {
  const parts: string[] = [];
  if (scope.accountId !== undefined) parts.push(`${SCOPE_COLUMN} : ${quoteWord(accountToken(scope.accountId))}`);
  if (scope.statuses !== undefined && scope.statuses.length > 0) {
    const alternatives = scope.statuses.map((status) => `${SCOPE_COLUMN} : ${quoteWord(statusToken(status))}`);
    parts.push(alternatives.length === 1 ? (alternatives[0] as string) : `(${alternatives.join(' OR ')})`);
  }
  return parts.length === 0 ? undefined : parts.join(' AND ');
};

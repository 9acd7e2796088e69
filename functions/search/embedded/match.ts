/**
 * Builds FTS5 MATCH expressions. User input never reaches FTS5 as syntax: the expression is built only
 * from `text.words()` output, each word a quoted prefix phrase (`"w"*`) under a column filter, and from
 * scope tokens the engine derives from validated integers and status codes.
 */
import type { WordsCondition } from '../query-text';
import { accountToken, SCOPE_COLUMN, statusToken, TEXT_COLUMNS } from './schema';

/** Quotes a word as an FTS5 string (a `"` inside is doubled, so it can never end the string). */
export const quoteWord = (word: string): string => `"${word.replaceAll('"', '""')}"`;

/**
 * The MATCH expression of a words condition: every word a prefix of some word in one of the fields,
 * e.g. `{job_name file_name} : "spr"* AND {job_name file_name} : "cat"*`.
 */
export const matchExpression = (condition: WordsCondition): string => {
  const columns = `{${condition.fields.map((field) => TEXT_COLUMNS[field]).join(' ')}}`;
  return condition.words.map((word) => `${columns} : ${quoteWord(word)}*`).join(' AND ');
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

/**
 * Builds FTS5 MATCH expressions. User input never reaches FTS5 as syntax: the expression is built only
 * from `text.words()` output, each word a quoted prefix phrase (`"w"*`) under a column filter.
 */
import type { WordsCondition } from '../query-text';
import { TEXT_COLUMNS } from './schema';

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

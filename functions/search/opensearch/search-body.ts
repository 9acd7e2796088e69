/**
 * Translates a {@link SearchQuery} into an OpenSearch search body. User text reaches OpenSearch only
 * as the words of `text.words()`, each inside a match-family query (`match_bool_prefix`,
 * `multi_match` of type `bool_prefix`) or as a term value; never as query-string syntax.
 */
import { type ExactCondition, type TextCondition, textCondition, type WordsCondition } from '../query-text';
import type { InstantRange, SearchQuery } from '../search-index';
import type { QueryContainer, SearchRequestBody, SortCombinations } from './api-types';
import { FIELDS, textFieldPath } from './index-definition';

/** A query clause of the OpenSearch DSL. */
export type QueryClause = QueryContainer;

/** The body of a search request: the fields of OpenSearch's search body the engine always sets. */
export type SearchBody = Required<Pick<SearchRequestBody, 'query' | 'from' | 'size'>> & {
  sort: SortCombinations[];
  track_total_hits: true;
  _source: string[];
};

/** One word: a prefix of some word of one field (`match_bool_prefix`) or of any of several (`bool_prefix`). */
const wordClause = (word: string, paths: string[]): QueryClause => {
  const [only] = paths;
  return paths.length === 1 && only !== undefined
    ? { match_bool_prefix: { [only]: { query: word } } }
    : { multi_match: { query: word, type: 'bool_prefix', fields: paths } };
};

/** Every word must match (in any of the fields, independently of the other words). */
export const wordsClause = (condition: WordsCondition): QueryClause => {
  const paths = condition.fields.map(textFieldPath);
  return { bool: { filter: condition.words.map((word) => wordClause(word, paths)) } };
};

const EXACT_FIELD: Record<ExactCondition['field'], string> = {
  jobId: FIELDS.jobId,
  accountId: FIELDS.accountId,
  guid: FIELDS.guid,
};

const exactClause = (exact: ExactCondition): QueryClause => ({ term: { [EXACT_FIELD[exact.field]]: exact.value } });

/** The clause of a text condition, or undefined when there is no text condition. */
export const textClause = (condition: TextCondition): QueryClause | undefined => {
  if (condition.kind === 'all') return undefined;
  const alternatives = [
    ...(condition.words === undefined ? [] : [wordsClause(condition.words)]),
    ...condition.exact.map(exactClause),
  ];
  const [only] = alternatives;
  if (alternatives.length === 0) return { match_none: {} };
  if (alternatives.length === 1 && only !== undefined) return only;
  return { bool: { should: alternatives, minimum_should_match: 1 } };
};

const rangeClause = (field: string, range: InstantRange): QueryClause => ({
  range: {
    [field]: {
      ...(range.from === undefined ? {} : { gte: range.from }),
      ...(range.to === undefined ? {} : { lt: range.to }),
      format: 'epoch_millis',
    },
  },
});

/** Every filter of a search: account, statuses, date ranges and the text condition. */
export const filterClauses = (query: SearchQuery): QueryClause[] => {
  const filters: QueryClause[] = [];
  if (query.accountId !== undefined) filters.push({ term: { [FIELDS.accountId]: query.accountId } });
  if (query.statuses !== undefined && query.statuses.length > 0) {
    filters.push({ terms: { [FIELDS.status]: [...query.statuses] } });
  }
  if (query.created !== undefined) filters.push(rangeClause(FIELDS.created, query.created));
  if (query.delivered !== undefined) {
    filters.push({ exists: { field: FIELDS.delivered } }, rangeClause(FIELDS.delivered, query.delivered));
  }
  const text = textClause(textCondition(query));
  if (text !== undefined) filters.push(text);
  return filters;
};

/** The search body of a query: filters only (no scoring), newest first, exact total. */
export const searchBody = (query: SearchQuery): SearchBody => ({
  query: { bool: { filter: filterClauses(query) } },
  sort: [{ [FIELDS.created]: { order: 'desc' } }, { [FIELDS.jobId]: { order: 'desc' } }],
  from: query.offset,
  size: query.limit,
  track_total_hits: true,
  _source: [FIELDS.summary],
});

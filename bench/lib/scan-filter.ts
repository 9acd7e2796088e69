/**
 * The "no index" baseline's filter: what a service without a search index does after scanning the
 * table — evaluate each job against the search in application code (docs/contract.md §4 semantics, from the
 * shared `query-text` definitions), sort by `createdDate` desc, `id` desc, and cut out the page.
 */
import type { JobSummary } from '../../functions/jobs/model/model';
import { foldedFieldText, type TextCondition, textCondition } from '../../functions/search/query-text';
import type { SearchDocument, SearchQuery, SearchResult } from '../../functions/search/search-index';

const inRange = (value: number, range: { from?: number; to?: number }): boolean =>
  (range.from === undefined || value >= range.from) && (range.to === undefined || value < range.to);

const wordsMatch = (
  document: SearchDocument,
  condition: NonNullable<Extract<TextCondition, { kind: 'some' }>['words']>,
) => {
  const fieldWords = condition.fields.map((field) => foldedFieldText(document, field).split(' '));
  return condition.words.every((word) =>
    fieldWords.some((list) => list.some((candidate) => candidate.startsWith(word))),
  );
};

const textMatches = (document: SearchDocument, condition: TextCondition): boolean => {
  if (condition.kind === 'all') return true;
  const exact = condition.exact.some((value) =>
    value.field === 'jobId'
      ? document.summary.id === value.value
      : value.field === 'accountId'
        ? document.summary.accountId === value.value
        : document.summary.guid.toLowerCase() === value.value,
  );
  return exact || (condition.words !== undefined && wordsMatch(document, condition.words));
};

/** Whether a document matches a search. */
export const matches = (document: SearchDocument, query: SearchQuery, condition = textCondition(query)): boolean => {
  const summary = document.summary;
  if (query.accountId !== undefined && summary.accountId !== query.accountId) return false;
  if (query.statuses !== undefined && query.statuses.length > 0 && !query.statuses.includes(summary.status))
    return false;
  if (query.created !== undefined && !inRange(Date.parse(summary.createdDate), query.created)) return false;
  if (query.delivered !== undefined) {
    if (summary.deliveredDate === null || !inRange(Date.parse(summary.deliveredDate), query.delivered)) return false;
  }
  return textMatches(document, condition);
};

const newestFirst = (a: JobSummary, b: JobSummary): number =>
  Date.parse(b.createdDate) - Date.parse(a.createdDate) || b.id - a.id;

/** Runs a search over documents the way a scan-based service would: filter, sort, page. */
export const searchByFilter = (documents: Iterable<SearchDocument>, query: SearchQuery): SearchResult => {
  const condition = textCondition(query);
  const hits: JobSummary[] = [];
  for (const document of documents) if (matches(document, query, condition)) hits.push(document.summary);
  hits.sort(newestFirst);
  return { total: hits.length, jobs: hits.slice(query.offset, query.offset + query.limit) };
};

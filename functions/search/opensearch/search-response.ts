/**
 * Reads the answers of `_search`: the page of a search and the versions of a version scan. The contract
 * promises exact totals, so an answer whose total is missing or only a lower bound (`relation: gte`,
 * which OpenSearch gives when a request does not ask for exact tracking) is refused rather than passed
 * on as a number that might be wrong.
 */
import type { JobSummary } from '../../jobs/model/model';
import type { IndexedVersion } from '../search-index';
import type { HitsMetadata, SearchResult } from './api-types';

/** What a search reads of a hit's source: the stored summary only (`_source` filtering). */
export type SummarySource = { document?: { summary?: JobSummary } };

/** The part of a `_search` answer the engine reads. */
export type SearchAnswer<T> = Pick<SearchResult<T>, 'hits'>;

/** An answer OpenSearch should not have given to the engine's request. */
export class UnexpectedSearchAnswerError extends Error {
  public override readonly name = 'UnexpectedSearchAnswerError';
}

/** The exact number of matches: a plain number (`rest_total_hits_as_int`) or `{ value, relation: 'eq' }`. */
export const exactTotal = (total: HitsMetadata['total']): number => {
  if (typeof total === 'number') return total;
  if (total === undefined) throw new UnexpectedSearchAnswerError('The search answer has no total');
  if (total.relation !== 'eq') {
    throw new UnexpectedSearchAnswerError(`The search answer counts at least ${total.value} matches, not exactly`);
  }
  return total.value;
};

/** The total and the summaries of one page of a search. */
export const searchPage = (answer: SearchAnswer<SummarySource>): { total: number; jobs: JobSummary[] } => ({
  total: exactTotal(answer.hits.total),
  jobs: answer.hits.hits.map((hit) => {
    const summary = hit._source?.document?.summary;
    if (summary === undefined) throw new UnexpectedSearchAnswerError(`Hit ${hit._id ?? '?'} has no job summary`);
    return summary;
  }),
});

/** The job id and external version of each hit of a version scan (`_source: false`, `version: true`). */
export const hitVersions = (answer: SearchAnswer<never>): IndexedVersion[] =>
  answer.hits.hits.map((hit) => ({ jobId: Number(hit._id), version: hit._version ?? 0 }));

/**
 * When a change becomes searchable: the job a search by its number answers, and a wait that asks the index
 * every few milliseconds until that answer holds. The indexing suite's search delay and the events suite's
 * indexer baseline both measure with it, through the same search the API runs (the embedded engine is
 * synchronous SQLite in the benchmark's own process, so one check costs a fraction of a millisecond).
 */
import { performance } from 'node:perf_hooks';
import type { JobSummary } from '../../functions/jobs/model/model';
import type { SearchIndex } from '../../functions/search/search-index';
import { sleep } from './suite';

/** The job a search by its number answers, as the index holds it; undefined while the index holds none. */
export const findByJobNumber = async (index: SearchIndex, jobId: number): Promise<JobSummary | undefined> => {
  const result = await index.search({
    field: 'JobNumber',
    text: String(jobId),
    globalFields: [],
    globalMatchesAccountNumber: false,
    offset: 0,
    limit: 1,
  });
  return result.total === 1 ? result.jobs[0] : undefined;
};

/** What checking cost, summed over every wait of one {@link SearchChecks}. */
export interface CheckCost {
  /** Searches made. */
  checks: number;
  /** Their summed time, in milliseconds. */
  ms: number;
}

/** Waits on one index, each until a job answers a search as expected; counts the searches they make. */
export interface SearchChecks {
  /**
   * Resolves with the time (performance.now()) of the first check at which the job answers a search by its number
   * and `holds` of that answer; checks every `tickMs`, rejecting after `timeoutMs`. The time is the check's start,
   * so a change is seen at most one tick (plus one check) after it became searchable.
   */
  until(jobId: number, holds: (job: JobSummary) => boolean): Promise<number>;
  cost(): CheckCost;
}

export const searchChecks = (index: SearchIndex, tickMs: number, timeoutMs: number): SearchChecks => {
  const cost: CheckCost = { checks: 0, ms: 0 };
  return {
    until: async (jobId, holds) => {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const started = performance.now();
        const job = await findByJobNumber(index, jobId);
        cost.checks += 1;
        cost.ms += performance.now() - started;
        if (job !== undefined && holds(job)) return started;
        if (started > deadline) throw new Error(`job ${jobId} did not answer a search as expected in ${timeoutMs} ms`);
        await sleep(tickMs);
      }
    },
    cost: () => ({ ...cost }),
  };
};

/**
 * When the embedded engine refreshes SQLite's planner statistics.
 *
 * SQLite plans a statement with the statistics `ANALYZE` left in `sqlite_stat1`, and a connection plans
 * its statements once. Statistics taken when the index was empty or small stay in force while the
 * connection writes on: measured on the bulk write path, 1,000-job `apply` calls through one connection
 * slowed from 116 to 428 ms between 10,000 and 80,000 jobs, all of it inside the FTS5 inserts and their
 * commit, and stayed at 115–183 ms when the statistics were refreshed (or never taken). So the engine
 * re-takes them whenever the number of indexed jobs has doubled or halved since they were taken: when a
 * connection opens (comparing with the count the statistics themselves record, so writes by any earlier
 * connection count) and after each write. That is about 20 times over a million jobs, each an `ANALYZE`
 * bounded to about 1,000 sampled rows per index. `PRAGMA optimize` is not enough: it re-analyses a table
 * only once its size has changed about tenfold.
 */

/** The statement that re-takes the statistics, bounded to about 1,000 sampled rows per index. */
export const REFRESH_STATISTICS = 'PRAGMA analysis_limit = 1000; ANALYZE;';

/**
 * The statement that reads how many jobs the current statistics were taken at (no row when none were
 * taken, or when the table was empty then). `jobs_by_guid` covers every job; its stat starts with the
 * row count.
 */
export const ANALYSED_JOBS =
  "SELECT CAST(stat AS INTEGER) AS jobs FROM sqlite_stat1 WHERE tbl = 'jobs' AND idx = 'jobs_by_guid'";

/** Below this many jobs (then and now) statistics are not refreshed: plans of tiny tables do not matter. */
export const STATISTICS_MIN_JOBS = 1_000;

/** Counts indexed jobs and tells when the planner statistics are stale. */
export class StatisticsSchedule {
  #jobs: number;
  #refreshedAt: number;

  /**
   * @param jobs the number of indexed jobs now.
   * @param analysedJobs the number of jobs the current statistics were taken at (0 when there are none);
   *   by default `jobs`, that is, fresh statistics.
   */
  public constructor(jobs: number, analysedJobs: number = jobs) {
    this.#jobs = jobs;
    this.#refreshedAt = analysedJobs;
  }

  /** The number of indexed jobs as far as this schedule knows. */
  public get jobs(): number {
    return this.#jobs;
  }

  /** Records committed writes that added (positive) or removed (negative) jobs. */
  public changed(delta: number): void {
    this.#jobs = Math.max(0, this.#jobs + delta);
  }

  /** Records that every job is gone. */
  public cleared(): void {
    this.#jobs = 0;
  }

  /** Whether the job count has doubled or halved since the last refresh (ignoring tiny indexes). */
  public get due(): boolean {
    const jobs = this.#jobs;
    const at = this.#refreshedAt;
    if (Math.max(jobs, at) < STATISTICS_MIN_JOBS) return false;
    return jobs >= at * 2 || jobs * 2 <= at;
  }

  /** Records a refresh at the current job count. */
  public refreshed(): void {
    this.#refreshedAt = this.#jobs;
  }
}

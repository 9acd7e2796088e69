/**
 * How the jobs-table gateway tries again: the {@link RetryPolicy}'s full-jitter backoff, the loop that paces
 * a retried operation's attempts within the policy's bounds, and the two policies built on it — a
 * read-check-write under contention, and a request while DynamoDB is unavailable. `JobsTable`
 * (`jobs-table.ts`) extends it with the table's requests.
 */
import { sleep } from '../../async';
import { isWriteConflict } from '../../aws/failures';
import { DependencyUnavailableError } from '../../errors';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy';

/** How the gateway reaches the world; tests replace the policy, the clock, the randomness and the waiting. */
export interface JobsTableOptions {
  retry?: Partial<RetryPolicy>;
  /** The clock the time budget is measured with, in epoch milliseconds. */
  now?: () => number;
  /** A number in [0, 1), the jitter of every backoff. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** What one attempt of a retried operation came to: done, or to be tried again for a reason. */
export type Attempt<T> = { done: true; value: T } | { done: false; reason: unknown };

/** The retries of the jobs-table gateway, paced by one policy. */
export class TableRetries {
  public readonly retry: RetryPolicy;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  public constructor(options: JobsTableOptions = {}) {
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? sleep;
  }

  /** The wait before the attempt after `attempt` (1 for the first): random up to base × 2^(attempt−1), capped. */
  public backoff(attempt: number): number {
    return this.random() * Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
  }

  /** Waits the backoff after `attempt`. */
  public pause(attempt: number): Promise<void> {
    return this.sleep(this.backoff(attempt));
  }

  /**
   * Runs attempts until one is done, waiting the policy's backoff between them; throws what `exhausted`
   * makes of the attempts made and the last reason once the attempts or the time budget (counted from
   * `since`) are spent.
   */
  protected async retrying<T>(
    attempt: (number: number) => Promise<Attempt<T>>,
    exhausted: (attempts: number, reason: unknown) => Error,
    since = this.now(),
  ): Promise<T> {
    for (let number = 1; ; number += 1) {
      const outcome = await attempt(number);
      if (outcome.done) return outcome.value;
      if (number >= this.retry.maxAttempts) throw exhausted(number, outcome.reason);
      const delay = this.backoff(number);
      if (this.now() + delay - since > this.retry.budgetMs) throw exhausted(number, outcome.reason);
      await this.sleep(delay);
    }
  }

  /**
   * The contention policy: runs a read-check-write (`attempt` reads, decides and writes through this
   * gateway) and, while it loses a race to a concurrent writer (`isWriteConflict`: a failed condition, a
   * `TransactionConflict`, a transaction cancelled for conflicts or throttling), waits a jittered, growing
   * moment and runs it again from a fresh read. When the attempts or the time budget (counted from
   * `since`, default now) are spent, throws what `exhausted` makes of the attempts made and the last
   * conflict. Any other error is thrown as it is.
   */
  public underContention<T>(
    attempt: (number: number) => Promise<T>,
    exhausted: (attempts: number, lastConflict: unknown) => Error,
    since?: number,
  ): Promise<T> {
    return this.retrying(
      async (number) => {
        try {
          return { done: true, value: await attempt(number) };
        } catch (error) {
          if (!isWriteConflict(error)) throw error;
          return { done: false, reason: error };
        }
      },
      exhausted,
      since,
    );
  }

  /** Runs `attempt` (safe to repeat) again after a backoff while DynamoDB is unavailable, as the policy allows. */
  public untilAvailable<T>(attempt: (number: number) => Promise<T>, since?: number): Promise<T> {
    return this.retrying(
      async (number) => {
        try {
          return { done: true, value: await attempt(number) };
        } catch (error) {
          if (!(error instanceof DependencyUnavailableError)) throw error;
          return { done: false, reason: error };
        }
      },
      (_attempts, reason) => reason as Error,
      since,
    );
  }
}

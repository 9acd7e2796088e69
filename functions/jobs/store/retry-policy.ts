/**
 * The jobs table's retry policy, in two settings: one for the requests the API answers (its 10-second answer
 * budget), one for an operator's batch work (import, seed-demo), which has no answer budget. The gateway
 * (`jobs-table.ts`) paces every "try again" by the policy it was given.
 */

/** Retry timing: full-jitter exponential backoff, bounded in attempts and in total time. */
export interface RetryPolicy {
  /** Attempts of one operation (a read-check-write, a batch with unprocessed keys), the first included. */
  maxAttempts: number;
  /** Upper bound of the first backoff, in milliseconds; doubles per attempt. */
  baseDelayMs: number;
  /** Upper bound of any one backoff, in milliseconds. */
  maxDelayMs: number;
  /** No new attempt starts once this much time has passed since the operation began, in milliseconds. */
  budgetMs: number;
}

/** The policy of every request the API answers; an answer within the API's 10 s leaves room after the 7 s budget. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 10, baseDelayMs: 20, maxDelayMs: 400, budgetMs: 7_000 };

/** An operator's batch (import, seed-demo) has no answer budget: a busy or locked table is waited out for minutes. */
export const OPERATOR_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 12,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  budgetMs: 180_000,
};

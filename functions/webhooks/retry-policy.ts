/**
 * When a failed webhook delivery is tried again (docs/contract.md §6c): after the n-th attempt of an event fails,
 * the next waits the n-th delay of the schedule (by default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), as long as it
 * starts within the window after the first attempt (24 h); an attempt the schedule would put past the window's end
 * is made at its end instead, and after that — or after the schedule's last delay — the event is dropped. The
 * waiting is the queue's (a message made invisible until then), never a sleeping function.
 */

/** The retry schedule of one deployment (`config.ts`, `webhooks`). */
export interface RetryPolicy {
  /** The delay after the 1st, 2nd, … failed attempt, in milliseconds. */
  retryDelaysMs: readonly number[];
  /** How long after the first attempt an event is still tried, in milliseconds. */
  retryWindowMs: number;
}

/**
 * The wait before the next attempt, or `undefined` when the event is to be dropped.
 *
 * @param attempt the attempt that just failed (1 for the first).
 * @param firstAttemptAtMs when the event's first attempt started (epoch milliseconds).
 * @param nowMs now (epoch milliseconds).
 */
export const nextRetryDelay = (
  policy: RetryPolicy,
  attempt: number,
  firstAttemptAtMs: number,
  nowMs: number,
): number | undefined => {
  const delay = policy.retryDelaysMs[attempt - 1];
  if (delay === undefined) return undefined;
  const windowLeft = firstAttemptAtMs + policy.retryWindowMs - nowMs;
  if (windowLeft <= 0) return undefined;
  return Math.min(delay, windowLeft);
};

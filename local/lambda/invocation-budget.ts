/**
 * A handler invocation's time budget, as Lambda enforces it: the local server (per request) and the stream
 * poller (per batch) run a handler against its budget and report a timeout the same way.
 */

/** A handler did not answer within its invocation budget (what Lambda reports as a timeout). */
export class InvocationTimeoutError extends Error {
  /** @param handler the handler's name in the message ("The search handler"). */
  public constructor(handler: string, budgetMs: number) {
    super(`${handler} did not answer within ${budgetMs} ms`);
    this.name = 'InvocationTimeoutError';
  }
}

/** Settles as `work` does, or rejects with `timeout()` once `budgetMs` have passed; leaves no timer behind. */
export const withBudget = async <T>(work: Promise<T>, budgetMs: number, timeout: () => Error): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(timeout()), budgetMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Waits that can be cut short: the stream poller sleeps between reads until a drain request wakes it, and
 * backs off between retries until it stops. Every pending wait is kept so one call can end them all.
 */
export class Sleepers {
  readonly #waiting = new Set<() => void>();

  /** Resolves after `ms`, or as soon as {@link wakeAll} is called. */
  public sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.#waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#waiting.add(wake);
    });
  }

  /** Resolves after `ms`; {@link wakeAll} ends it early only when `cutShort()` says so. */
  public backoff(ms: number, cutShort: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(cancel);
        resolve();
      }, ms);
      const cancel = (): void => {
        if (!cutShort()) return;
        clearTimeout(timer);
        this.#waiting.delete(cancel);
        resolve();
      };
      this.#waiting.add(cancel);
    });
  }

  /** Wakes every pending wait (a backoff only if it may be cut short). */
  public wakeAll(): void {
    for (const wake of [...this.#waiting]) wake();
  }
}

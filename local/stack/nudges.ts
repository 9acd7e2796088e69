/**
 * The local stack's stream pollers (the indexer's, the events') at rest and woken: how they slow down while nothing
 * happens, and the writes through this process that wake them.
 */
import type { RequestLogEntry } from '../gateway/server';
import type { IdlePolling } from '../streams/poller-options';

/**
 * How the local stack's stream pollers (the indexer's, the events') slow down while nothing happens: after five
 * seconds with no record read and no write through this process, a shard is read once a second instead of four
 * times and the shard list refreshed every five seconds instead of every second. An idle `npm start` then costs
 * DynamoDB Local about a quarter of the requests. A write through the API (or an upload the images function
 * handles) nudges the pollers: idle ones read it at once; a change another process makes (a CLI command on the
 * same data) is read within a second, or within five should it land in a shard DynamoDB Local opened meanwhile.
 */
export const LOCAL_IDLE_POLLING: IdlePolling = { afterMs: 5_000, pollIntervalMs: 1_000, shardRefreshMs: 5_000 };

/** The HTTP methods that write nothing. */
const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Wakes the stack's pollers after every write through this process: an API request other than a read (whatever
 * its answer), and each invocation of the images function on an upload. An idle poller reads the change at once;
 * one at the steady pace reads it within its poll interval.
 */
export const pollerNudges = () => {
  const pollers: Array<{ nudge(): void }> = [];
  const written = (): void => {
    for (const poller of pollers) poller.nudge();
  };
  return {
    add: (poller: { nudge(): void }): void => {
      pollers.push(poller);
    },
    written,
    /** `onRequest` of the HTTP server: nudges after a write, then hands the entry on. */
    afterRequest:
      (next: (entry: RequestLogEntry) => void) =>
      (entry: RequestLogEntry): void => {
        if (!READ_METHODS.has(entry.method)) written();
        next(entry);
      },
  };
};

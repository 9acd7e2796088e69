/**
 * What the local stack prints of its parts: the stream poller's warnings and errors, and the requests the HTTP
 * server itself failed.
 */
import type { SupervisedDynamoDb } from '../dynamodb/supervisor';
import type { RequestLogEntry } from '../gateway/server';
import type { PollerLogger } from '../streams/poller';

/**
 * The poller's warnings and errors, as lines of the stack's log (its routine progress is left out).
 * While the DynamoDB Local the stack supervises is down (being restarted, or lost), the poller's
 * warnings are about that alone and the supervisor's own lines say so: they are left out too.
 */
export const pollerLogger = (log: (message: string) => void, dynamo: SupervisedDynamoDb | undefined): PollerLogger => {
  const line = (level: string, message: string, details?: Record<string, unknown>): void =>
    log(`[indexer ${level}] ${message}${details === undefined ? '' : ` ${JSON.stringify(details)}`}`);
  return {
    info: () => {},
    warn: (message, details) => {
      if (dynamo === undefined || dynamo.state === 'running') line('warn', message, details);
    },
    error: (message, details) => line('error', message, details),
  };
};

/** Logs the requests the server itself failed (a handler that threw, overran or could not be loaded). */
export const logServerErrors =
  (log: (message: string) => void) =>
  (entry: RequestLogEntry): void => {
    if (entry.error === undefined) return;
    const detail = entry.error instanceof Error ? (entry.error.stack ?? entry.error.message) : String(entry.error);
    log(`${entry.method} ${entry.path} answered ${entry.status} (request ${entry.requestId}): ${detail}`);
  };

/**
 * Recognises failures of a dependency (DynamoDB, the search engine, the network between) that a
 * client should retry later — answered `503 service_unavailable` — as opposed to bugs (`500`).
 */
import { isTransientFailure } from '../aws/failures';
import { SearchUnavailableError } from '../search/search-index';
import { DependencyUnavailableError } from './errors';

/** How many `cause` links are followed (causes can be long or even circular). */
const MAX_CAUSE_DEPTH = 5;

/**
 * Whether an error (or one of its causes) means a dependency is unavailable: our own
 * {@link DependencyUnavailableError} and {@link SearchUnavailableError}, AWS throttling and 5xx
 * answers, SDK timeouts and aborts, and network failures.
 */
export const isDependencyFailure = (error: unknown): boolean => {
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH; depth++) {
    if (typeof current !== 'object' || current === null) return false;
    if (current instanceof DependencyUnavailableError || current instanceof SearchUnavailableError) return true;
    if (isTransientFailure(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
};

/** The `Retry-After` (seconds) to answer for a dependency failure. */
export const retryAfterSeconds = (error: unknown, fallback = 1): number =>
  error instanceof DependencyUnavailableError ? Math.max(1, Math.ceil(error.retryAfterSeconds)) : fallback;

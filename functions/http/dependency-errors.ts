/**
 * Recognises failures of a dependency (DynamoDB, the search engine, the network between) that a
 * client should retry later — answered `503 service_unavailable` — as opposed to bugs (`500`).
 */
import { SearchUnavailableError } from '../search/search-index';
import { DependencyUnavailableError } from './errors';

/** Error names (AWS SDK, fetch, OpenSearch client) meaning throttled, timed out or unreachable. */
const TRANSIENT_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'TimeoutError',
  'AbortError',
  'RequestTimeout',
  'RequestTimeoutException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'InternalServerError',
  'ConnectionError',
  'NoLivingConnectionsError',
]);

/** Node.js network error codes. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  cause?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $retryable?: { throttling?: unknown };
}

const isTransient = (error: ErrorShape): boolean => {
  if (typeof error.name === 'string' && TRANSIENT_NAMES.has(error.name)) return true;
  if (typeof error.code === 'string' && NETWORK_CODES.has(error.code)) return true;
  if (error.$retryable?.throttling === true) return true;
  const status = error.$metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 500 && status <= 599;
};

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
    if (isTransient(current as ErrorShape)) return true;
    current = (current as ErrorShape).cause;
  }
  return false;
};

/** The `Retry-After` (seconds) to answer for a dependency failure. */
export const retryAfterSeconds = (error: unknown, fallback = 1): number =>
  error instanceof DependencyUnavailableError ? Math.max(1, Math.ceil(error.retryAfterSeconds)) : fallback;

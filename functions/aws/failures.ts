/**
 * The one classifier of AWS and network failures, used by the jobs-table gateway
 * (`functions/jobs/store/jobs-table.ts`), which sends every jobs-table request through {@link dynamoFailure},
 * and by the HTTP layer's error formatter:
 *
 * - {@link isWriteConflict}: an optimistic write lost a race — a condition on the version read failed, or
 *   another transaction held an item. The gateway's contention policy re-reads and retries.
 * - {@link isTransientFailure}: the dependency is unavailable right now — throttled past the SDK's retries,
 *   timed out, unreachable, a 5xx, or a transaction cancelled for throttling. Thrown on as
 *   `DependencyUnavailableError('dynamodb')` and answered `503` with `Retry-After`; a client should retry
 *   later.
 *
 * Anything else is a problem of the request or a bug.
 */
import { DependencyUnavailableError } from '../errors';

/** The dependency name every unavailable-DynamoDB failure is reported under. */
export const DYNAMODB = 'dynamodb';

/** Error names (AWS SDK, fetch, OpenSearch client) meaning throttled, timed out or unreachable. */
const TRANSIENT_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestLimitExceeded',
  'LimitExceededException',
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

/** Cancellation reasons of a transaction that mean throttling. */
const THROTTLED_REASONS = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded']);

/** Cancellation reasons a retried read-check-write can get past (`None`: the item was not the cause). */
const RACE_REASONS = new Set(['ConditionalCheckFailed', 'TransactionConflict', 'ThrottlingError', 'None']);

/** How many `cause` links are followed (causes can be long or even circular). */
const MAX_CAUSE_DEPTH = 5;

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  cause?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $retryable?: { throttling?: unknown };
  CancellationReasons?: Array<{ Code?: string }>;
}

/** The per-item reasons of a cancelled transaction, in the order of its items (`None`: not the cause). */
export const cancellationCodes = (error: unknown): string[] =>
  ((error as ErrorShape | null | undefined)?.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');

const isTransientItself = (error: ErrorShape): boolean => {
  if (typeof error.name === 'string' && TRANSIENT_NAMES.has(error.name)) return true;
  if (typeof error.code === 'string' && NETWORK_CODES.has(error.code)) return true;
  if (error.$retryable?.throttling === true) return true;
  if (error.name === 'TransactionCanceledException') {
    return cancellationCodes(error).some((code) => THROTTLED_REASONS.has(code));
  }
  const status = error.$metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 500 && status <= 599;
};

/** Whether an error (or one of its causes) means the dependency is unavailable right now. */
export const isTransientFailure = (error: unknown): boolean => {
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH; depth++) {
    if (typeof current !== 'object' || current === null) return false;
    if (isTransientItself(current as ErrorShape)) return true;
    current = (current as ErrorShape).cause;
  }
  return false;
};

/**
 * Whether a conditional write or transaction failed only because it lost a race: a
 * `ConditionalCheckFailedException`, a transaction conflict, or a cancelled transaction whose every
 * reason is one a fresh read and retry can get past (and at least one item named a reason).
 */
export const isWriteConflict = (error: unknown): boolean => {
  if (typeof error !== 'object' || error === null) return false;
  const { name } = error as ErrorShape;
  if (
    name === 'ConditionalCheckFailedException' ||
    name === 'TransactionConflictException' ||
    name === 'TransactionInProgressException'
  ) {
    return true;
  }
  if (name !== 'TransactionCanceledException') return false;
  const codes = cancellationCodes(error as ErrorShape);
  return codes.some((code) => code !== 'None') && codes.every((code) => RACE_REASONS.has(code));
};

/**
 * What a failed DynamoDB request is thrown on as — how a DynamoDB error becomes a `503`, in one place:
 *
 * 1. a lost race ({@link isWriteConflict}) as it came, for the contention policy to retry (a transaction
 *    cancelled for conflicts and throttling together is a race: a fresh attempt can get past it);
 * 2. an unavailable DynamoDB ({@link isTransientFailure}) as `DependencyUnavailableError('dynamodb')`,
 *    with the error as its cause;
 * 3. anything else (a problem of the request, a bug) as it came.
 */
export const dynamoFailure = (error: unknown): unknown => {
  if (error instanceof DependencyUnavailableError || isWriteConflict(error)) return error;
  if (isTransientFailure(error)) return new DependencyUnavailableError(DYNAMODB, error);
  return error;
};

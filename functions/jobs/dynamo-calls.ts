/**
 * How the jobs store tells DynamoDB failures apart: "unavailable right now" (throttled past the SDK's
 * retries, timed out, unreachable, 5xx) becomes a {@link DependencyUnavailableError}, a lost
 * optimistic-lock race is retried or reported by the caller, anything else is the request's own fault.
 * Shared by the per-job writes of the repository and the batched creates of the import.
 */
import { DependencyUnavailableError } from '../errors';

const TRANSIENT_ERROR_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'LimitExceededException',
  'TimeoutError',
  'AbortError',
  'RequestTimeout',
  'RequestTimeoutException',
]);
const TRANSIENT_NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND']);

/**
 * Whether a DynamoDB error means "unavailable right now" (throttled past the SDK's retries, timed out,
 * unreachable, 5xx) rather than a problem with the request itself.
 */
export const isTransientDynamoError = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  if (TRANSIENT_ERROR_NAMES.has(error.name)) return true;
  const { code, $metadata } = error as { code?: unknown; $metadata?: { httpStatusCode?: number } };
  if (typeof code === 'string' && TRANSIENT_NETWORK_CODES.has(code)) return true;
  if (($metadata?.httpStatusCode ?? 0) >= 500) return true;
  if (error.name === 'TransactionCanceledException') {
    const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
    return reasons.some(
      (reason) => reason.Code === 'ThrottlingError' || reason.Code === 'ProvisionedThroughputExceeded',
    );
  }
  return error.cause !== undefined && error.cause !== error && isTransientDynamoError(error.cause);
};

/** Whether a write failed only because the optimistic lock lost a race (re-read and retry). */
export const isWriteConflict = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ConditionalCheckFailedException' || error.name === 'TransactionConflictException') return true;
  if (error.name !== 'TransactionCanceledException') return false;
  const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
  return reasons.some((reason) => reason.Code === 'ConditionalCheckFailed' || reason.Code === 'TransactionConflict');
};

/** Runs a DynamoDB call, turning an unavailable-dependency failure into {@link DependencyUnavailableError}. */
export const dynamo = async <T>(call: () => Promise<T>): Promise<T> => {
  try {
    return await call();
  } catch (error) {
    if (error instanceof DependencyUnavailableError) throw error;
    if (isTransientDynamoError(error)) throw new DependencyUnavailableError('dynamodb', error);
    throw error;
  }
};

/** A random wait that grows with the attempt, at most a second. */
export const jitteredBackoff = (attempt: number): number => Math.random() * Math.min(1_000, 20 * 2 ** attempt);

/** The per-item reasons of a cancelled transaction, in the order of its items. */
export const cancellationCodes = (error: unknown): Array<string | undefined> =>
  ((error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map(
    (reason) => reason.Code,
  );

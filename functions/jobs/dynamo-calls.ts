/**
 * How the jobs store tells DynamoDB failures apart: "unavailable right now" (throttled past the SDK's
 * retries, timed out, unreachable, 5xx) becomes a {@link DependencyUnavailableError}, a lost
 * optimistic-lock race is retried or reported by the caller, anything else is the request's own fault.
 * Shared by the per-job writes of the repository and the batched creates of the import.
 */
import { isTransientFailure, isWriteConflict } from '../aws/failures';
import { DependencyUnavailableError } from '../errors';

/** Whether a DynamoDB error means "unavailable right now" rather than a problem with the request itself. */
export const isTransientDynamoError = isTransientFailure;

export { isWriteConflict };

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

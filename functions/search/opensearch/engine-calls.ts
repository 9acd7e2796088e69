/**
 * How the engine's requests fail, as the search index reports it: an unreachable, timed-out or
 * overloaded engine is {@link SearchUnavailableError}, a missing alias is "nothing indexed" for a read, and a
 * refused search is {@link SearchRejectedError}.
 */
import { SearchRejectedError, SearchUnavailableError } from '../search-index';
import { INDEX_MISSING } from './bulk';
import { isTransientClientError, responseErrorType, responseStatus, retryStaleSocket } from './client';

/**
 * Runs an idempotent request (once more after a stale socket); an unreachable, timed-out or overloaded
 * engine becomes {@link SearchUnavailableError}.
 */
export const callEngine = async <T>(request: () => Promise<T>): Promise<T> => {
  try {
    return await retryStaleSocket(request);
  } catch (error) {
    if (isTransientClientError(error)) {
      throw new SearchUnavailableError('The search engine is unavailable', { cause: error });
    }
    throw error;
  }
};

/** Runs a read for which a missing alias means "nothing indexed": `undefined`. */
export const readOrMissing = async <T>(request: () => Promise<T>): Promise<T | undefined> => {
  try {
    return await callEngine(request);
  } catch (error) {
    if (responseErrorType(error) === INDEX_MISSING) return undefined;
    throw error;
  }
};

/**
 * Runs a search. A missing alias (a domain that holds no index yet) is `undefined`: nothing to find;
 * a 400 is the query being refused.
 */
export const searchOrMissing = async <T>(request: () => Promise<T>): Promise<T | undefined> => {
  try {
    return await readOrMissing(request);
  } catch (error) {
    if (responseStatus(error) === 400) throw new SearchRejectedError('OpenSearch refused the search', { cause: error });
    throw error;
  }
};

/**
 * Assertion helpers for the HTTP unit tests.
 */
import { expect } from 'vitest';
import { ApiError, type ErrorCode, type ErrorContext } from '../../../functions/http/errors';

/** Runs `action` and returns the {@link ApiError} it throws (failing the test when it throws nothing else). */
export const apiErrorFrom = async (action: () => unknown): Promise<ApiError> => {
  try {
    await action();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('Expected an ApiError, but nothing was thrown');
};

/** Asserts that `action` throws an {@link ApiError} with this code (and context, when given). */
export const expectApiError = async (action: () => unknown, code: ErrorCode, context?: ErrorContext) => {
  const error = await apiErrorFrom(action);
  expect(error.code).toBe(code);
  if (context !== undefined) expect(error.context).toEqual(context);
  return error;
};

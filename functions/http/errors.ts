/**
 * The HTTP side of the API's error vocabulary (functions/errors.ts): the status of every error code, and
 * the JSON body `{"code", "message", "requestId", ...context}` the error formatter answers with.
 */
import { ApiError, ERROR_MESSAGES, type ErrorCode, type ErrorContext } from '../errors';

export { ApiError, DependencyUnavailableError, type ErrorCode, type ErrorContext, invalidParameter } from '../errors';

/** The HTTP status of every error code. */
export const ERROR_STATUS = {
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  request_timeout: 408,
  length_required: 411,
  payload_too_large: 413,
  unsupported_media_type: 415,
  missing_header: 400,
  invalid_json: 400,
  invalid_parameter: 400,
  invalid_client: 401,
  invalid_session: 401,
  forbidden: 403,
  file_not_found: 404,
  file_not_rejectable: 409,
  job_archived: 410,
  job_not_found: 404,
  job_not_editable: 409,
  invalid_transition: 409,
  file_not_deliverable: 409,
  idempotency_key_reused: 409,
  precondition_required: 428,
  precondition_failed: 412,
  file_not_acceptable: 409,
  files_not_ready: 409,
  webhook_not_found: 404,
  webhook_limit_reached: 409,
  internal_error: 500,
  service_unavailable: 503,
} as const satisfies Record<ErrorCode, number>;

/** Every error code with its status and message (the gateway's own answers and the tests read this). */
export const ERROR_CATALOGUE = Object.fromEntries(
  Object.entries(ERROR_MESSAGES).map(([code, message]) => [code, { status: ERROR_STATUS[code as ErrorCode], message }]),
) as { readonly [Code in ErrorCode]: { status: (typeof ERROR_STATUS)[Code]; message: (typeof ERROR_MESSAGES)[Code] } };

/** The JSON error body of docs/contract.md §1. */
export interface ErrorBody extends ErrorContext {
  code: ErrorCode;
  message: string;
  requestId: string;
}

/** Builds the error body for an {@link ApiError}. */
export const errorBody = (error: ApiError, requestId: string): ErrorBody => ({
  code: error.code,
  message: error.message,
  ...error.context,
  requestId,
});

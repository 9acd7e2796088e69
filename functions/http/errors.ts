/**
 * The API's error vocabulary: every non-2xx answer is one of these codes, with the contract's status and
 * message. Handlers and middlewares throw {@link ApiError}; the error formatter turns it into the body
 * `{"code", "message", "requestId", ...context}`.
 */

/** Every error code the API answers with, mapped to its HTTP status and human message. */
export const ERROR_CATALOGUE = {
  not_found: { status: 404, message: 'The requested resource does not exist.' },
  method_not_allowed: { status: 405, message: 'The method is not allowed for this resource.' },
  not_acceptable: { status: 406, message: 'The Accept header must explicitly accept application/json.' },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  length_required: { status: 411, message: 'The request must state its Content-Length or use chunked encoding.' },
  payload_too_large: { status: 413, message: 'The request body is larger than 1 MiB.' },
  unsupported_media_type: {
    status: 415,
    message: 'The Content-Type must be application/json or application/x-www-form-urlencoded.',
  },
  missing_header: { status: 400, message: 'A required header was not supplied.' },
  invalid_json: { status: 400, message: 'The request body could not be parsed.' },
  invalid_parameter: { status: 400, message: 'A request parameter is invalid.' },
  invalid_client: { status: 401, message: 'The client token is unknown or disabled.' },
  invalid_session: { status: 401, message: 'The session token is unknown, expired or not issued to this client.' },
  forbidden: { status: 403, message: 'The client has no permission for this operation.' },
  file_not_found: { status: 404, message: 'The file does not exist.' },
  file_not_rejectable: { status: 409, message: 'The file cannot be rejected in its current state.' },
  job_archived: { status: 410, message: 'The job of the file is archived.' },
  internal_error: { status: 500, message: 'An unexpected error occurred.' },
  service_unavailable: { status: 503, message: 'The service is temporarily unavailable. Retry later.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Context fields an error body may carry besides `code`, `message` and `requestId`. */
export interface ErrorContext {
  headerName?: string;
  parameter?: string;
  fileId?: number;
}

/** An error that answers the client with a contract error code. */
export class ApiError extends Error {
  public readonly code: ErrorCode;
  public readonly status: number;
  public readonly context: ErrorContext;
  /** Extra response headers (`Allow` for 405, `Retry-After` for 503). */
  public readonly headers: Record<string, string>;

  public constructor(
    code: ErrorCode,
    context: ErrorContext = {},
    options: { headers?: Record<string, string>; message?: string; cause?: unknown } = {},
  ) {
    super(options.message ?? ERROR_CATALOGUE[code].message, { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.context = context;
    this.headers = options.headers ?? {};
  }
}

/** `400 invalid_parameter` naming the offending field. */
export const invalidParameter = (parameter: string, message?: string): ApiError =>
  new ApiError('invalid_parameter', { parameter }, message === undefined ? {} : { message });

/**
 * A dependency (DynamoDB, the search engine) is unavailable, throttled past its retries or timed out.
 * Answered as `503 service_unavailable` with `Retry-After`; the cause is logged, never returned.
 */
export class DependencyUnavailableError extends Error {
  public readonly dependency: string;
  public readonly retryAfterSeconds: number;

  public constructor(dependency: string, cause?: unknown, retryAfterSeconds = 1) {
    super(`${dependency} is unavailable`, { cause });
    this.name = 'DependencyUnavailableError';
    this.dependency = dependency;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

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

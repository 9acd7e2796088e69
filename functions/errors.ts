/**
 * The contract's error vocabulary, as the domain speaks it: a refusal names its contract error code (and the
 * field, header or file it is about); a dependency failure names the dependency. Neither knows about HTTP —
 * functions/http/errors.ts gives each code its status, and functions/http/response.ts turns an error into the
 * answer, in one place.
 */

/** The human message of every error code the API answers with. */
export const ERROR_MESSAGES = {
  not_found: 'The requested resource does not exist.',
  method_not_allowed: 'The method is not allowed for this resource.',
  not_acceptable: 'The Accept header must explicitly accept application/json.',
  request_timeout: 'The request was not received in time.',
  length_required: 'The request must state its Content-Length or use chunked encoding.',
  payload_too_large: 'The request body is larger than 1 MiB.',
  unsupported_media_type: 'The Content-Type must be application/json or application/x-www-form-urlencoded.',
  missing_header: 'A required header was not supplied.',
  invalid_json: 'The request body could not be parsed.',
  invalid_parameter: 'A request parameter is invalid.',
  invalid_client: 'The client is unknown or disabled, or its credentials are not valid.',
  invalid_session: 'The session token is unknown, expired or not issued to this client.',
  forbidden: 'The client has no permission for this operation.',
  file_not_found: 'The file does not exist.',
  file_not_rejectable: 'The file cannot be rejected in its current state.',
  job_archived: 'The job of the file is archived.',
  job_not_found: 'The job does not exist.',
  job_not_editable: 'The job cannot be edited in its current status.',
  invalid_transition: 'The job cannot move to that status from its current one.',
  file_not_deliverable: 'The file was accepted by the customer and cannot be delivered again.',
  idempotency_key_reused: 'The Idempotency-Key was already used for a different request.',
  precondition_required: "The request must carry an If-Match header with the job's current ETag.",
  precondition_failed: 'The job was changed since the version in If-Match.',
  file_not_acceptable: 'The file cannot be accepted in its current state.',
  files_not_ready: 'Every file needs its original picture uploaded and ready first.',
  webhook_not_found: 'The webhook does not exist.',
  webhook_limit_reached: 'The client has as many webhooks as it may have.',
  internal_error: 'An unexpected error occurred.',
  service_unavailable: 'The service is temporarily unavailable. Retry later.',
} as const satisfies Record<string, string>;

export type ErrorCode = keyof typeof ERROR_MESSAGES;

/** Context fields an error body may carry besides `code`, `message` and `requestId`. */
export interface ErrorContext {
  headerName?: string;
  parameter?: string;
  fileId?: number;
  /** `precondition_failed`: the job's current version, which the answer's `ETag` quotes. */
  currentVersion?: number;
  /** `forbidden` by check 7: the grant the client lacks. */
  grant?: string;
}

/** A request refused under the contract: its error code, and what the refusal is about. */
export class ApiError extends Error {
  public readonly code: ErrorCode;
  public readonly context: ErrorContext;
  /** Extra response headers (`Allow` for 405, `Retry-After` for 503). */
  public readonly headers: Record<string, string>;

  public constructor(
    code: ErrorCode,
    context: ErrorContext = {},
    options: { headers?: Record<string, string>; message?: string; cause?: unknown } = {},
  ) {
    super(options.message ?? ERROR_MESSAGES[code], { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.context = context;
    this.headers = options.headers ?? {};
  }
}

/** `invalid_parameter` naming the offending field. */
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

/** One line naming an error for a log: `Name: message`, or the thrown value as text. */
export const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

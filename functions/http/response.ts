/**
 * Builds API Gateway proxy results with the common headers of docs/contract.md §1.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { type ApiError, ERROR_STATUS, errorBody } from './errors';
import { commonHeaders } from './headers';

/** A JSON answer with the common headers (and any extra ones). */
export const jsonResponse = (
  statusCode: number,
  body: object,
  requestId: string,
  headers: Record<string, string> = {},
): APIGatewayProxyResult => ({
  statusCode,
  headers: { ...headers, ...commonHeaders(requestId) },
  body: JSON.stringify(body),
});

/**
 * What an endpoint's handler returns when its answer is more than a `200` body: its own status and
 * response headers (`201` with `Location` and `ETag`; an `ETag` beside the body).
 */
export class EndpointAnswer<TBody extends object = object> {
  public readonly status: number;
  public readonly body: TBody;
  public readonly headers: Record<string, string>;

  public constructor(status: number, body: TBody, headers: Record<string, string> = {}) {
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/** The answer for an {@link ApiError}: its status, its headers and the contract error body. */
export const errorResponse = (error: ApiError, requestId: string): APIGatewayProxyResult =>
  jsonResponse(ERROR_STATUS[error.code], errorBody(error, requestId), requestId, error.headers);

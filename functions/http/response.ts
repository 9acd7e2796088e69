/**
 * Builds API Gateway proxy results with the common headers of docs/contract.md §1.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { type ApiError, ERROR_STATUS, errorBody } from './errors';
import { answerHeaders, commonHeaders } from './headers';

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
 * What an endpoint's handler returns when its answer is more than a `200` JSON body: its own status and
 * headers (`ETag`), and no body at all for a `304 Not Modified`.
 */
export class EndpointAnswer {
  public readonly status: number;
  public readonly body: object | undefined;
  public readonly headers: Record<string, string>;

  public constructor(status: number, body: object | undefined, headers: Record<string, string> = {}) {
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/**
 * The proxy result of an {@link EndpointAnswer}, with the common headers; an empty body when it has none, and
 * then no `Content-Type` either when its status has no content (`304`).
 */
export const answerResponse = (answer: EndpointAnswer, requestId: string): APIGatewayProxyResult =>
  answer.body === undefined
    ? {
        statusCode: answer.status,
        headers: { ...answer.headers, ...answerHeaders(requestId, answer.status) },
        body: '',
      }
    : jsonResponse(answer.status, answer.body, requestId, answer.headers);

/** The answer for an {@link ApiError}: its status, its headers and the contract error body. */
export const errorResponse = (error: ApiError, requestId: string): APIGatewayProxyResult =>
  jsonResponse(ERROR_STATUS[error.code], errorBody(error, requestId), requestId, error.headers);

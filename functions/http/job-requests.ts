/**
 * What the read endpoints of `/jobs` take besides the path (docs/contract.md §6a): the query of
 * `GET /jobs/{id}/files` (`review`, `limit`, `cursor`), judged as body fields are — the first bad one is
 * `400 invalid_parameter` naming it; unknown parameters are ignored — and the `If-None-Match` test of
 * `GET /jobs/{id}`.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { invalidParameter } from '../errors';
import { parseDecimal } from '../jobs/model/ids';
import { isReviewFilter, type ReviewFilter } from '../jobs/model/review';
import { headerValue } from './headers';

/** The page sizes a files page accepts, and its default. */
export const FILES_LIMIT = { min: 1, max: 100, default: 50 } as const;

/** The query of `GET /jobs/{id}/files`, validated. */
export interface FilesRequest {
  review: ReviewFilter | undefined;
  limit: number;
  /** The cursor as given; its signature and binding are checked against the request later. */
  cursor: string | undefined;
}

/** The last value of a query parameter, as API Gateway hands it over. */
const queryValue = (
  event: Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'>,
  name: string,
) => event.multiValueQueryStringParameters?.[name]?.at(-1) ?? event.queryStringParameters?.[name] ?? undefined;

/** Reads and validates the query of `GET /jobs/{id}/files`. */
export const parseFilesRequest = (
  event: Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'>,
): FilesRequest => {
  const review = queryValue(event, 'review');
  if (review !== undefined && !isReviewFilter(review)) {
    throw invalidParameter('review', 'review must be pending, rejected or accepted.');
  }
  const limitText = queryValue(event, 'limit');
  const limit = limitText === undefined ? FILES_LIMIT.default : parseDecimal(limitText);
  if (limit === undefined || limit < FILES_LIMIT.min || limit > FILES_LIMIT.max) {
    throw invalidParameter('limit', `limit must be an integer from ${FILES_LIMIT.min} to ${FILES_LIMIT.max}.`);
  }
  const cursor = queryValue(event, 'cursor');
  if (cursor !== undefined && cursor.length === 0) throw invalidParameter('cursor', 'The cursor is not valid.');
  return { review, limit, cursor };
};

/**
 * Whether `If-None-Match` names the current entity tag (weak comparison, as RFC 9110 asks of
 * `If-None-Match`: `W/"3"` matches `"3"`; `*` matches any current representation).
 */
export const ifNoneMatchHits = (
  event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>,
  etag: string,
): boolean => {
  const header = headerValue(event, 'if-none-match');
  if (header === undefined) return false;
  const opaque = (tag: string): string => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
};

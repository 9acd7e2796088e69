/**
 * Reading request headers of an API Gateway REST (v1) proxy event, and the headers every answer
 * carries.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';

/** The `Content-Type` of every answer. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The headers of docs/contract.md §1 that every answer carries. */
export const commonHeaders = (requestId: string): Record<string, string> => ({
  'Content-Type': JSON_CONTENT_TYPE,
  'Cache-Control': 'no-store',
  'X-Request-Id': requestId,
});

/** Whether an answer of this status has content: a `204` or a `304` never has (RFC 9110 §15.3.5, §15.4.5). */
export const hasContent = (status: number): boolean => status !== 204 && status !== 304;

/**
 * The common headers of an answer of `status`: all of {@link commonHeaders}, except `Content-Type` on an
 * answer that has no content (a `304 Not Modified` describes no body, so it names no media type).
 */
export const answerHeaders = (requestId: string, status: number): Record<string, string> => {
  const headers = commonHeaders(requestId);
  if (hasContent(status)) return headers;
  const { 'Content-Type': _none, ...rest } = headers;
  return rest;
};

type HeaderSource = Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>;

/**
 * Every value of a request header, in order. Header names are matched once, by
 * `@middy/http-header-normalizer`, which runs before every check of the chain and lower-cases every
 * name; here a name is looked up lower-cased. API Gateway keeps only the last line of a repeated header
 * in `headers` and all of them in `multiValueHeaders`, so the latter wins when present.
 */
export const headerValues = (event: HeaderSource, name: string): string[] => {
  const key = name.toLowerCase();
  const many = event.multiValueHeaders?.[key];
  if (Array.isArray(many) && many.length > 0) return many.filter((value): value is string => typeof value === 'string');
  const one = event.headers?.[key];
  return typeof one === 'string' ? [one] : [];
};

/** A request header as one value: repeated lines joined with `, ` (RFC 9110 field-line combination). */
export const headerValue = (event: HeaderSource, name: string): string | undefined => {
  const values = headerValues(event, name);
  return values.length === 0 ? undefined : values.join(', ');
};

/** The last value of a request header (for single-valued headers such as `Content-Type` or tokens). */
export const lastHeaderValue = (event: HeaderSource, name: string): string | undefined =>
  headerValues(event, name).at(-1);

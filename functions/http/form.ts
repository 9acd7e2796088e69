/**
 * `application/x-www-form-urlencoded` bodies, parsed by `@middy/http-urlencode-body-parser` (Node's
 * `querystring`) behind an adapter that adds what the contract asks of a form and the package does not
 * check: a malformed `%` escape or an escape that is not UTF-8 is an error (the package keeps such text
 * as it is), `key[]` is a list under `key`, and a form holds at most {@link MAX_FORM_FIELDS} fields (the
 * package silently drops the rest).
 */
import httpUrlencodeBodyParser from '@middy/http-urlencode-body-parser';

/** The body is not valid form encoding (a malformed `%` escape, bytes that are not UTF-8, too many fields). */
export class FormEncodingError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'FormEncodingError';
  }
}

/** The most fields a form body may hold: the package's (`querystring`'s) own limit, made an error. */
export const MAX_FORM_FIELDS = 1000;

const LIST_SUFFIX = '[]';

const packageParser = httpUrlencodeBodyParser({ disableContentTypeCheck: true });

const assertDecodable = (text: string): void => {
  try {
    decodeURIComponent(text);
  } catch {
    throw new FormEncodingError('The form body holds a malformed percent-encoding');
  }
};

/**
 * The body's non-empty pairs, once checked for what the package accepts silently: every escape well formed
 * and UTF-8, and the field count.
 */
const strictPairs = (body: string): string[] => {
  const pairs = body.split('&').filter((pair) => pair !== '');
  if (pairs.length > MAX_FORM_FIELDS) {
    throw new FormEncodingError(`The form body holds more than ${MAX_FORM_FIELDS} fields`);
  }
  // Only a `%` escape can be malformed (`+` is a space, whatever surrounds it).
  for (const pair of pairs) if (pair.includes('%')) assertDecodable(pair);
  return pairs;
};

const asList = (value: string | string[]): string[] => (Array.isArray(value) ? value : [value]);

/**
 * Parses a form body. Empty pairs (`a=1&&b=2`) are skipped; a pair without `=` has the empty string as
 * its value. One `key=v` gives a string; repeated keys, or any occurrence of `key[]`, give a list (the
 * values of whichever spelling came first, then the other's). The result has no prototype-derived keys:
 * `__proto__` is an ordinary field.
 *
 * @throws {@link FormEncodingError} on a malformed percent-encoding or too many fields.
 */
export const parseForm = (body: string): Record<string, string | string[]> => {
  // The package parses only the first 1000 pairs, empty ones included: handed the empty pairs, it would
  // silently drop fields of a body that holds fewer than 1000.
  const request = { event: { headers: {}, body: strictPairs(body).join('&'), isBase64Encoded: false } };
  packageParser.before?.(request as never);
  const parsed = request.event.body as unknown as Record<string, string | string[]>;

  const fields = new Map<string, string | string[]>();
  for (const rawKey of Object.keys(parsed)) {
    const isList = rawKey.endsWith(LIST_SUFFIX);
    const key = isList ? rawKey.slice(0, -LIST_SUFFIX.length) : rawKey;
    const value = parsed[rawKey] as string | string[];
    const existing = fields.get(key);
    if (existing === undefined) fields.set(key, isList ? asList(value) : value);
    else fields.set(key, [...asList(existing), ...asList(value)]);
  }
  return Object.fromEntries(fields);
};

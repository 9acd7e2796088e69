/**
 * The `application/x-www-form-urlencoded` body parser (WHATWG URL standard, section 5.1), strict about
 * percent-encoding: values are strings; a key that occurs more than once, or is written `key[]`, holds
 * a list of strings under `key`.
 */

/** The body is not valid form encoding (a malformed `%` escape, or bytes that are not UTF-8). */
export class FormEncodingError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'FormEncodingError';
  }
}

const decodeComponent = (text: string): string => {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw new FormEncodingError('The form body holds a malformed percent-encoding');
  }
};

/**
 * Parses a form body. Empty pairs (`a=1&&b=2`) are skipped; a pair without `=` has the empty string as
 * its value. One `key=v` gives a string; repeated keys, or any occurrence of `key[]`, give a list (in
 * body order). The result has no prototype-derived keys: `__proto__` is an ordinary field.
 *
 * @throws {@link FormEncodingError} on a malformed percent-encoding.
 */
export const parseForm = (body: string): Record<string, string | string[]> => {
  const values = new Map<string, string[]>();
  const lists = new Set<string>();
  for (const pair of body.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawKey = equals < 0 ? pair : pair.slice(0, equals);
    const rawValue = equals < 0 ? '' : pair.slice(equals + 1);
    let key = decodeComponent(rawKey);
    const value = decodeComponent(rawValue);
    if (key.endsWith('[]')) {
      key = key.slice(0, -2);
      lists.add(key);
    }
    const existing = values.get(key);
    if (existing === undefined) values.set(key, [value]);
    else {
      existing.push(value);
      lists.add(key);
    }
  }
  return Object.fromEntries(
    [...values].map(([key, list]) => [key, lists.has(key) ? list : (list[0] as string)] as const),
  );
};

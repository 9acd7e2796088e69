/**
 * Parsers for the `Accept` and `Content-Type` request headers (RFC 9110 sections 8.3 and 12.5.1),
 * tolerant of case, whitespace and quoted parameter values.
 */

/** A media type or media range with its parameters (names lower-cased, values unquoted). */
export interface MediaRange {
  /** `type/subtype`, lower-cased. */
  type: string;
  parameters: Record<string, string>;
}

/** Splits `text` on `separator` outside double-quoted strings (a backslash escapes inside quotes). */
const splitOutsideQuotes = (text: string, separator: string): string[] => {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (quoted && char === '\\' && index + 1 < text.length) {
      current += char + text[index + 1];
      index++;
      continue;
    }
    if (char === '"') quoted = !quoted;
    if (char === separator && !quoted) {
      parts.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  parts.push(current);
  return parts;
};

const unquote = (value: string): string =>
  value.length >= 2 && value.startsWith('"') && value.endsWith('"')
    ? value.slice(1, -1).replace(/\\(.)/g, '$1')
    : value;

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** The media type every answer has and `Accept` must name. */
export const JSON_MEDIA_TYPE = 'application/json';

/**
 * Parses one media type (`application/json; charset=utf-8`). Returns `undefined` when the text is not
 * `type/subtype` made of tokens.
 */
export const parseMediaType = (text: string): MediaRange | undefined => {
  const [head = '', ...rest] = splitOutsideQuotes(text, ';');
  const type = head.trim().toLowerCase();
  const [main, sub, extra] = type.split('/');
  if (main === undefined || sub === undefined || extra !== undefined) return undefined;
  if (!TOKEN.test(main) || !TOKEN.test(sub)) return undefined;
  const parameters: Record<string, string> = {};
  for (const part of rest) {
    const equals = part.indexOf('=');
    if (equals < 0) continue;
    const name = part.slice(0, equals).trim().toLowerCase();
    if (name === '' || Object.hasOwn(parameters, name)) continue;
    parameters[name] = unquote(part.slice(equals + 1).trim());
  }
  return { type, parameters };
};

/**
 * Parses an `Accept` header into its media ranges; unparsable elements are left out, empty ones (RFC 9110
 * §5.6.1) among them.
 */
export const parseAccept = (header: string): MediaRange[] =>
  splitOutsideQuotes(header, ',')
    .map(parseMediaType)
    .filter((range): range is MediaRange => range !== undefined);

const QVALUE = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/;

/**
 * The quality of a media range: its `q` parameter, 1 when absent, `undefined` when malformed (a range
 * with a malformed weight is ignored).
 */
export const quality = (range: MediaRange): number | undefined => {
  const q = range.parameters.q;
  if (q === undefined) return 1;
  return QVALUE.test(q) ? Number(q) : undefined;
};

/**
 * Whether an `Accept` header explicitly accepts `type` (docs/contract.md §1): a media range naming exactly
 * that type, with any parameters and a weight above 0, appears, and no range for that type refuses it
 * with `q=0`. Wildcards (`* /*`, `application/*`) do not count; a missing or empty header accepts
 * nothing.
 */
export const acceptsMediaType = (header: string | undefined, type: string): boolean => {
  if (header === undefined) return false;
  const wanted = type.toLowerCase();
  let accepted = false;
  for (const range of parseAccept(header)) {
    if (range.type !== wanted) continue;
    const q = quality(range);
    if (q === undefined) continue;
    if (q === 0) return false;
    accepted = true;
  }
  return accepted;
};

/** The lower-cased `type/subtype` of a `Content-Type` header, or `undefined` when absent or malformed. */
export const contentTypeOf = (header: string | undefined): string | undefined =>
  header === undefined ? undefined : parseMediaType(header)?.type;

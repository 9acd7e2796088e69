/**
 * The container's Powertools singletons: one structured JSON logger and one EMF metrics emitter, both
 * named after `POWERTOOLS_SERVICE_NAME` (default `jobs-api`). The tracer is loaded only where detailed
 * tracing is switched on (functions/http/middlewares/detailed-tracing.ts).
 *
 * The logger never prints a credential: every key whose name says it holds a token, a secret or a hash (the
 * `X-Client-Token`, `X-Session-Token` and `X-Client-Secret` headers in any case, `token`, `clientToken`,
 * `secret`, `tokenHash`, …) is replaced with `[REDACTED]` wherever it appears in a log item, including a
 * logged event; and whatever a key is named, a value that looks like one — a `jsk_` secret, a 43-character
 * base64url token, an auth-table key (`CLIENT#`, `SECRET#`, `SESSION#` and a hash) or a bare SHA-256 hash —
 * is replaced inside the string that holds it.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/** The service name every log line, metric and trace segment carries. */
export const SERVICE_NAME = process.env.POWERTOOLS_SERVICE_NAME?.trim() || 'jobs-api';

/** What a redacted value is replaced with. */
export const REDACTED = '[REDACTED]';

const SECRET_NAMES = new Set(['authorization', 'cookie']);

/** Endings of a key that names a credential or what it is stored as. */
const SECRET_ENDINGS = ['token', 'secret', 'hash'];

/**
 * Whether a log key names a credential whose value must never be printed: any key ending in `token`,
 * `secret` or `hash` once case, `-` and `_` are ignored (`X-Client-Token`, `x-session-token`,
 * `X-Client-Secret`, `clientToken`, `secret`, `tokenHash`), and `Authorization` / `Cookie`. Ids
 * (`secretId`, `sessionId`) stay printable.
 */
export const isSecretKey = (key: string): boolean => {
  const folded = key.toLowerCase().replace(/[-_]/g, '');
  return SECRET_ENDINGS.some((ending) => folded.endsWith(ending)) || SECRET_NAMES.has(folded);
};

/**
 * What a credential looks like wherever it stands in a string: a client secret (`jsk_` and 43 base64url
 * characters), a token (43 base64url characters, not part of a longer run), an auth-table key or a SHA-256
 * hash (64 hex digits, not part of a longer run).
 */
const CREDENTIAL_VALUE =
  /jsk_[A-Za-z0-9_-]+|(?:CLIENT|SECRET|SESSION)#[0-9a-fA-F]+|(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])|(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])/g;

/** A string with every credential-looking value in it replaced with `[REDACTED]`. */
export const redactValue = (text: string): string => text.replace(CREDENTIAL_VALUE, REDACTED);

/** JSON replacer that hides credentials, by key and by value; headers objects keep their other entries. */
export const redactSecrets = (key: string, value: unknown): unknown => {
  if (value === undefined || value === null) return value;
  if (key !== '' && isSecretKey(key)) return REDACTED;
  return typeof value === 'string' ? redactValue(value) : value;
};

/** The container's logger. */
export const logger = new Logger({ serviceName: SERVICE_NAME, jsonReplacerFn: redactSecrets });

/** The container's metrics (namespace from `POWERTOOLS_METRICS_NAMESPACE`, default `JobsApi`). */
export const metrics = new Metrics({
  serviceName: SERVICE_NAME,
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE?.trim() || 'JobsApi',
});

/**
 * The container's Powertools singletons: one structured JSON logger and one EMF metrics emitter, both
 * named after `POWERTOOLS_SERVICE_NAME` (default `jobs-api`). The tracer is loaded only where detailed
 * tracing is switched on (functions/http/middlewares/detailed-tracing.ts).
 *
 * The logger never prints a credential: every key whose name says it holds a token, a secret or a hash (the
 * `X-Client-Token`, `X-Session-Token` and `X-Client-Secret` headers in any case, `token`, `clientToken`,
 * `secret`, `tokenHash`, …) is replaced with `[REDACTED]` wherever it appears in a log item, including a
 * logged event.
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

/** JSON replacer that hides credentials; headers objects keep their other entries. */
export const redactSecrets = (key: string, value: unknown): unknown =>
  key !== '' && isSecretKey(key) && value !== undefined && value !== null ? REDACTED : value;

/** The container's logger. */
export const logger = new Logger({ serviceName: SERVICE_NAME, jsonReplacerFn: redactSecrets });

/** The container's metrics (namespace from `POWERTOOLS_METRICS_NAMESPACE`, default `JobsApi`). */
export const metrics = new Metrics({
  serviceName: SERVICE_NAME,
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE?.trim() || 'JobsApi',
});

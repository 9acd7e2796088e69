/**
 * The container's Powertools singletons: one structured JSON logger and one EMF metrics emitter, both
 * named after `POWERTOOLS_SERVICE_NAME` (default `jobs-api`). The tracer is loaded only where detailed
 * tracing is switched on (functions/http/middlewares/detailed-tracing.ts).
 *
 * The logger never prints a credential (`functions/redaction.ts`): a value under a key that names a token, a
 * secret or a hash, a `jsk_` secret, an auth-table key, or a token or hash this process handled, wherever it
 * stands; ids of any shape stay readable.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { redactSecrets } from './redaction';

export { isSecretKey, REDACTED, redactSecrets, redactValue } from './redaction';

/** The service name every log line, metric and trace segment carries. */
export const SERVICE_NAME = process.env.POWERTOOLS_SERVICE_NAME?.trim() || 'jobs-api';

/** The container's logger. */
export const logger = new Logger({ serviceName: SERVICE_NAME, jsonReplacerFn: redactSecrets });

/** The container's metrics (namespace from `POWERTOOLS_METRICS_NAMESPACE`, default `JobsApi`). */
export const metrics = new Metrics({
  serviceName: SERVICE_NAME,
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE?.trim() || 'JobsApi',
});

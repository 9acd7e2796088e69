/**
 * The container's audit sink: the stack's audit log group when `AUDIT_LOG_GROUP` is set (AWS), otherwise one
 * `audit` line of the function's structured log — unless the local runtime handed it one of its own
 * (`$DATA_DIR/audit.ndjson`) with {@link useAuditSink}.
 *
 * A record the audit group refuses is kept in the function's own log (which is deleted with the stack) and
 * counted: one `AuditWriteFailed` (EMF, the service's metrics namespace), which the stack alarms on.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { config } from '../config';
import { logger, metrics } from '../observability';
import { AUDIT_WRITE_FAILED_METRIC, type AuditRecord, type AuditSink } from './audit';
import { cloudWatchAuditSink, createLogsClient } from './cloudwatch-audit';

let sink: AuditSink | undefined;

/** The function's log as a sink: one structured `audit` line per record. */
export const loggerAuditSink: AuditSink = (record) => {
  logger.info('audit', { audit: record });
  return Promise.resolve();
};

/**
 * What becomes of a record the audit group refused: the function's own log keeps it, with why, and the
 * `AuditWriteFailed` metric counts it at once, so the alarm fires long before the stack and that log go.
 */
export const auditNotDelivered = (record: AuditRecord, error: unknown): void => {
  logger.error('Audit record not delivered', { audit: record, error });
  metrics.addMetric(AUDIT_WRITE_FAILED_METRIC, MetricUnit.Count, 1);
  metrics.publishStoredMetrics();
};

/** The sink the container's functions write audit records to, chosen on first use. */
export const containerAuditSink = (): AuditSink => {
  if (sink === undefined) {
    const settings = config();
    sink =
      settings.auditLogGroup === undefined
        ? loggerAuditSink
        : cloudWatchAuditSink({
            logGroupName: settings.auditLogGroup,
            streamPrefix: 'sessions',
            client: createLogsClient(settings),
            fallback: auditNotDelivered,
          });
  }
  return sink;
};

/** Sets the container's sink (the local runtime), or forgets it (`undefined`: chosen again on next use). */
export const useAuditSink = (next: AuditSink | undefined): void => {
  sink = next;
};

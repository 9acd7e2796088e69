/**
 * The container's audit sink: the stack's audit log group when `AUDIT_LOG_GROUP` is set (AWS), otherwise one
 * `audit` line of the function's structured log — unless the local runtime handed it one of its own
 * (`$DATA_DIR/audit.ndjson`) with {@link useAuditSink}.
 */
import { config } from '../config';
import { logger } from '../observability';
import type { AuditSink } from './audit';
import { cloudWatchAuditSink, createLogsClient } from './cloudwatch-audit';

let sink: AuditSink | undefined;

/** The function's log as a sink: one structured `audit` line per record. */
export const loggerAuditSink: AuditSink = (record) => {
  logger.info('audit', { audit: record });
  return Promise.resolve();
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
            // Never lost: the function's own log keeps a record the audit group refused, with why.
            fallback: (record, error) => logger.error('Audit record not delivered', { audit: record, error }),
          });
  }
  return sink;
};

/** Sets the container's sink (the local runtime), or forgets it (`undefined`: chosen again on next use). */
export const useAuditSink = (next: AuditSink | undefined): void => {
  sink = next;
};

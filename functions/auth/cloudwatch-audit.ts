/**
 * Audit records in a CloudWatch Logs group of their own (docs/contract.md §2a): the group outlives the stack
 * (retained, kept when the stack is deleted) and is written by the sessions function and by the CLI under
 * `--stack`, each into log streams of its own. One record is one log event, its message the record as JSON
 * (redacted by value once more, though a record has no field that could hold a credential).
 */
import { randomUUID } from 'node:crypto';
import { CloudWatchLogsClient, CreateLogStreamCommand, PutLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { type AuditRecord, type AuditSink, auditLine } from './audit';

export interface CloudWatchAuditOptions {
  logGroupName: string;
  /** The first part of the names of the streams this writer creates (`sessions`, `cli`). */
  streamPrefix: string;
  client: CloudWatchLogsClient;
  /** Where a record goes when the log group refuses it, so it is never silently lost. */
  fallback: (record: AuditRecord, error: unknown) => void;
}

/** A CloudWatch Logs client with the same bounded timeouts as the other dependencies. */
export const createLogsClient = (settings: { region: string; dependencyTimeoutMs: number }): CloudWatchLogsClient =>
  new CloudWatchLogsClient({
    region: settings.region,
    maxAttempts: 2,
    requestHandler: {
      requestTimeout: settings.dependencyTimeoutMs,
      throwOnRequestTimeout: true,
      connectionTimeout: 1_000,
    },
  });

/**
 * A sink writing each record as one event of a log stream this writer creates on first use
 * (`<prefix>/<yyyy/mm/dd>/<uuid>`). A record the group refuses goes to the fallback.
 */
export const cloudWatchAuditSink = (options: CloudWatchAuditOptions): AuditSink => {
  let stream: Promise<string> | undefined;
  const createStream = async (): Promise<string> => {
    const day = new Date().toISOString().slice(0, 10).replace(/-/g, '/');
    const logStreamName = `${options.streamPrefix}/${day}/${randomUUID()}`;
    await options.client.send(new CreateLogStreamCommand({ logGroupName: options.logGroupName, logStreamName }));
    return logStreamName;
  };
  return async (record) => {
    try {
      stream ??= createStream().catch((error: unknown) => {
        stream = undefined;
        throw error;
      });
      const logStreamName = await stream;
      await options.client.send(
        new PutLogEventsCommand({
          logGroupName: options.logGroupName,
          logStreamName,
          logEvents: [{ timestamp: Date.parse(record.at), message: auditLine(record) }],
        }),
      );
    } catch (error) {
      options.fallback(record, error);
    }
  };
};

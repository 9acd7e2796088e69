/**
 * The container's audit sink (functions/auth/audit-sink.ts) without an audit log group: each record is one
 * `audit` line of the function's structured log, carrying the whole record; with one, a record the group refuses
 * stays in the function's log and is counted (`AuditWriteFailed`), which the stack alarms on.
 */
import { CloudWatchLogsClient, CreateLogStreamCommand, PutLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AUDIT_WRITE_FAILED_METRIC, auditRecord } from '../../../functions/auth/audit';
import { containerAuditSink, loggerAuditSink, useAuditSink } from '../../../functions/auth/audit-sink';
import { resetConfig } from '../../../functions/config';
import { SERVICE_NAME } from '../../../functions/observability';
import { captureJsonLogLines } from '../../support/json-log-lines';

/** The JSON lines logged during the current test. */
let logged: Record<string, unknown>[] = [];

beforeEach(() => {
  vi.stubEnv('AUTH_TABLE', 'auth-unit');
  vi.stubEnv('JOBS_TABLE', 'jobs-unit');
  vi.stubEnv('SEARCH_ENGINE', 'embedded');
  vi.stubEnv('SEARCH_DB_PATH', ':memory:');
  vi.stubEnv('AUDIT_LOG_GROUP', '');
  resetConfig();
  useAuditSink(undefined);
  logged = captureJsonLogLines();
});

afterEach(() => {
  useAuditSink(undefined);
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  resetConfig();
});

const record = auditRecord(
  { action: 'session.opened', clientId: 'c1', sessionId: 's1', accountId: 7, role: 'user' },
  { via: 'api', requestId: 'r1', who: '203.0.113.9' },
  new Date('2025-03-01T12:00:00.000Z'),
);

describe('the logger audit sink', () => {
  it('writes one audit line carrying the whole record, and resolves', async () => {
    await expect(loggerAuditSink(record)).resolves.toBeUndefined();
    const lines = logged.filter((line) => line.message === 'audit');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'INFO', audit: record });
  });

  it('is the container sink when no audit log group is configured', async () => {
    const sink = containerAuditSink();
    expect(containerAuditSink()).toBe(sink);
    await sink(record);
    expect(logged.filter((line) => line.message === 'audit')).toEqual([expect.objectContaining({ audit: record })]);
  });
});

describe('the container sink with an audit log group', () => {
  const logs = mockClient(CloudWatchLogsClient);

  beforeEach(() => {
    vi.stubEnv('AUDIT_LOG_GROUP', 'jobs-api-audit');
    vi.stubEnv('AWS_REGION', 'us-east-1');
    resetConfig();
    useAuditSink(undefined);
    logs.reset();
  });

  afterEach(() => {
    logs.reset();
  });

  /** The EMF lines logged: each metric name with its value. */
  const emitted = (): { name: string; value: unknown; namespace: unknown; dimensions: unknown }[] =>
    logged.flatMap((line) => {
      const emf = line._aws as
        { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] } | undefined;
      if (emf === undefined) return [];
      return emf.CloudWatchMetrics.flatMap((directive) =>
        directive.Metrics.map(({ Name }) => ({
          name: Name,
          value: line[Name],
          namespace: directive.Namespace,
          dimensions: Object.fromEntries(directive.Dimensions.flat().map((key) => [key, line[key]])),
        })),
      );
    });

  it('counts a record the group refused as one AuditWriteFailed, and keeps it in the function’s log', async () => {
    logs.on(CreateLogStreamCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    await containerAuditSink()(record);
    expect(logged.filter((line) => line.message === 'Audit record not delivered')).toEqual([
      expect.objectContaining({ level: 'ERROR', audit: record }),
    ]);
    expect(emitted()).toEqual([
      {
        name: AUDIT_WRITE_FAILED_METRIC,
        value: 1,
        namespace: 'JobsApi',
        dimensions: { service: SERVICE_NAME },
      },
    ]);
  });

  it('counts nothing when the group takes the record', async () => {
    logs.on(CreateLogStreamCommand).resolves({});
    logs.on(PutLogEventsCommand).resolves({});
    await containerAuditSink()(record);
    expect(logs.commandCalls(PutLogEventsCommand)).toHaveLength(1);
    expect(emitted()).toEqual([]);
  });
});

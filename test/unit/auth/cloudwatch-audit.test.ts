/**
 * The audit log group's writer (functions/auth/cloudwatch-audit.ts) on a mocked CloudWatch Logs: one stream of
 * its own per writer, created on first use and reused; one event per record; a record the group refuses goes to
 * the fallback, and the next record tries the group again.
 */
import { CloudWatchLogsClient, CreateLogStreamCommand, PutLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { type AuditRecord, auditLine } from '../../../functions/auth/audit';
import { cloudWatchAuditSink, createLogsClient } from '../../../functions/auth/cloudwatch-audit';

const logs = mockClient(CloudWatchLogsClient);
const record = (sessionId: string): AuditRecord => ({
  at: '2025-03-01T12:00:00.000Z',
  action: 'session.opened',
  clientId: 'c1',
  sessionId,
  via: 'api',
  requestId: 'r-1',
  who: '203.0.113.9',
});

let fallen: { record: AuditRecord; error: unknown }[];
const sink = () =>
  cloudWatchAuditSink({
    logGroupName: 'jobs-api-audit',
    streamPrefix: 'sessions',
    client: createLogsClient({ region: 'us-east-1', dependencyTimeoutMs: 1_000 }),
    fallback: (lost, error) => fallen.push({ record: lost, error }),
  });

beforeEach(() => {
  logs.reset();
  fallen = [];
});

describe('cloudWatchAuditSink', () => {
  it('creates one stream of its own on first use and writes each record as one event of it', async () => {
    logs.on(CreateLogStreamCommand).resolves({});
    logs.on(PutLogEventsCommand).resolves({});
    const write = sink();
    await write(record('s1'));
    await write(record('s2'));

    const streams = logs.commandCalls(CreateLogStreamCommand).map((call) => call.args[0].input);
    expect(streams).toHaveLength(1);
    const day = new Date().toISOString().slice(0, 10).replace(/-/g, '/');
    expect(streams[0]?.logGroupName).toBe('jobs-api-audit');
    expect(streams[0]?.logStreamName).toMatch(
      new RegExp(`^sessions/${day}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`),
    );
    const events = logs.commandCalls(PutLogEventsCommand).map((call) => call.args[0].input);
    expect(events).toEqual(
      ['s1', 's2'].map((sessionId) => ({
        logGroupName: 'jobs-api-audit',
        logStreamName: streams[0]?.logStreamName,
        logEvents: [{ timestamp: Date.parse('2025-03-01T12:00:00.000Z'), message: auditLine(record(sessionId)) }],
      })),
    );
    expect(JSON.parse(events[0]?.logEvents?.[0]?.message ?? '')).toEqual(record('s1'));
    expect(fallen).toEqual([]);
  });

  it('gives a record the group refused to the fallback, and the next record a new stream once creating one failed', async () => {
    const refused = Object.assign(new Error('denied'), { name: 'AccessDeniedException' });
    logs.on(CreateLogStreamCommand).rejectsOnce(refused).resolves({});
    logs.on(PutLogEventsCommand).resolves({});
    const write = sink();
    await write(record('s1'));
    expect(fallen).toEqual([{ record: record('s1'), error: refused }]);
    expect(logs.commandCalls(PutLogEventsCommand)).toHaveLength(0);

    await write(record('s2'));
    expect(logs.commandCalls(CreateLogStreamCommand)).toHaveLength(2);
    expect(logs.commandCalls(PutLogEventsCommand)).toHaveLength(1);
    expect(fallen).toHaveLength(1);
  });

  it('gives a record whose event was refused to the fallback, keeping the stream for the next', async () => {
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    logs.on(CreateLogStreamCommand).resolves({});
    logs.on(PutLogEventsCommand).rejectsOnce(throttled).resolves({});
    const write = sink();
    await write(record('s1'));
    await write(record('s2'));
    expect(fallen).toEqual([{ record: record('s1'), error: throttled }]);
    expect(logs.commandCalls(CreateLogStreamCommand)).toHaveLength(1);
    expect(logs.commandCalls(PutLogEventsCommand)).toHaveLength(2);
  });
});

/**
 * The container's audit sink (functions/auth/audit-sink.ts) without an audit log group: each record is one
 * `audit` line of the function's structured log, carrying the whole record.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { auditRecord } from '../../../functions/auth/audit';
import { containerAuditSink, loggerAuditSink, useAuditSink } from '../../../functions/auth/audit-sink';
import { resetConfig } from '../../../functions/config';
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

/**
 * The local stack's audit: `$DATA_DIR/audit.ndjson` on disk; with `DATA_DIR=:memory:` the stack's memory, so
 * that `npm start`'s console holds its messages and no audit record between them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditRecord } from '../../../functions/auth/audit';
import { localStackAuditSink, memoryAudit } from '../../../local/logs/audit-file';

const record = (sessionId: string): AuditRecord =>
  ({
    action: 'session.opened',
    clientId: 'c1',
    sessionId,
    at: '2026-01-01T00:00:00.000Z',
    via: 'cli',
    who: 'os-user:test',
  }) as unknown as AuditRecord;

const directories: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("the local stack's audit", () => {
  it('keeps the records of an in-memory stack in memory and writes nothing to the console', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const memory = memoryAudit();
    await localStackAuditSink(undefined, memory)(record('s1'));
    expect(stderr).not.toHaveBeenCalled();
    expect(stdout).not.toHaveBeenCalled();
    expect(memory.lines().map((line) => JSON.parse(line).sessionId)).toEqual(['s1']);
  });

  it('keeps only the most recent records in memory', async () => {
    const memory = memoryAudit(2);
    for (const id of ['s1', 's2', 's3']) await memory.sink(record(id));
    expect(memory.lines().map((line) => JSON.parse(line).sessionId)).toEqual(['s2', 's3']);
  });

  it('appends the records of a stack on disk to its audit file, one line each, and keeps none in memory', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'audit-'));
    directories.push(directory);
    const path = join(directory, 'data', 'audit.ndjson');
    const memory = memoryAudit();
    const sink = localStackAuditSink(path, memory);
    await sink(record('s1'));
    await sink(record('s2'));
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).sessionId)).toEqual(['s1', 's2']);
    expect(memory.lines()).toEqual([]);
  });
});

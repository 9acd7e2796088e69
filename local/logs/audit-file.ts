/**
 * The local stand-in of the audit log group: `$DATA_DIR/audit.ndjson`, one record a line, appended by the
 * local API's sessions endpoints and by the CLI alike (each append is one `write` of one whole line, so the
 * two never interleave within a record). With `DATA_DIR=:memory:` nothing is kept on disk: the CLI writes
 * its records to its log (standard error unless told otherwise), one line each, and the local stack keeps
 * them in its own memory, like its data, so that its console shows its messages and nothing else.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type AuditRecord, type AuditSink, auditLine } from '../../functions/auth/audit';

/** A sink appending each record to a file (created with its directory), or to the log without one. */
export const fileAuditSink = (
  path: string | undefined,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): AuditSink => {
  let prepared = false;
  return (record) => {
    if (path === undefined) {
      log(auditLine(record));
      return Promise.resolve();
    }
    const line = `${auditLine(record)}\n`;
    if (!prepared) {
      mkdirSync(dirname(path), { recursive: true });
      prepared = true;
    }
    // Synchronous: the record is on disk before the change it reports is answered.
    appendFileSync(path, line, { mode: 0o600 });
    return Promise.resolve();
  };
};

/** How many records an in-memory audit keeps (the most recent; a local stack's records, not a log's). */
export const MEMORY_AUDIT_LIMIT = 10_000;

/** An audit kept in the process's memory: the most recent `limit` records, as `auditLine` writes them. */
export interface MemoryAudit {
  sink: AuditSink;
  /** The records kept, oldest first. */
  lines(): readonly string[];
}

/** An audit that keeps its most recent records in memory and writes nothing anywhere. */
export const memoryAudit = (limit: number = MEMORY_AUDIT_LIMIT): MemoryAudit => {
  const kept: string[] = [];
  return {
    sink: (record: AuditRecord) => {
      kept.push(auditLine(record));
      if (kept.length > limit) kept.splice(0, kept.length - limit);
      return Promise.resolve();
    },
    lines: () => kept,
  };
};

/**
 * The local stack's audit: `$DATA_DIR/audit.ndjson` on disk, or, with `DATA_DIR=:memory:` (no path), the
 * process's memory — never its console, whose lines are the stack's own messages.
 */
export const localStackAuditSink = (path: string | undefined, memory: MemoryAudit): AuditSink =>
  path === undefined ? memory.sink : fileAuditSink(path);

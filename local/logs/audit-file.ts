/**
 * The local stand-in of the audit log group: `$DATA_DIR/audit.ndjson`, one record a line, appended by the
 * local API's sessions endpoints and by the CLI alike (each append is one `write` of one whole line, so the
 * two never interleave within a record). With `DATA_DIR=:memory:` nothing is kept on disk, so records go to
 * the process's log instead (standard error unless told otherwise), one line each.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AuditSink } from '../../functions/auth/audit';
import { auditLine } from '../../functions/auth/cloudwatch-audit';

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

/**
 * The embedded engine's SQLite schema: a `jobs` table whose b-tree indexes serve the sort and the
 * filters, an FTS5 table over pre-folded text with one column per text field, tombstones of deleted
 * jobs, and per-account/status counts kept by triggers so unfiltered totals cost nothing.
 */
import type { TextFieldId } from '../query-text';

/** The FTS5 column of each text field. Column names are fixed identifiers, never user input. */
export const TEXT_COLUMNS: Record<TextFieldId, string> = {
  AccountName: 'account_name',
  JobName: 'job_name',
  FileName: 'file_name',
  JobInstruction: 'job_instruction',
  JobTags: 'job_tags',
  FileTags: 'file_tags',
  FileInstruction: 'file_instruction',
  InvoiceReference: 'invoice_reference',
};

/** The text fields in FTS5 column order. */
export const TEXT_COLUMN_FIELDS = Object.keys(TEXT_COLUMNS) as TextFieldId[];

/**
 * The schema, idempotent (`IF NOT EXISTS`), so a second process opening the same file is harmless.
 *
 * - `jobs`: one row per indexed job; `id` is the rowid (and the FTS5 rowid). `created`/`delivered`
 *   are epoch milliseconds, `guid` is lower-case, `document` is the whole SearchDocument as JSON.
 *   Every index ends in `(created, id)` so a filtered, ordered page is an index walk, not a sort.
 * - `jobs_text`: contentless FTS5 (the text lives in `document`), `contentless_delete` so rows can be
 *   replaced. Text is stored folded by `text.words()` and joined by spaces, and the `ascii` tokenizer
 *   splits only on ASCII separators, so every indexed token is exactly one of our words.
 *   `detail=column` keeps which columns hold a token (column filters) without positions (we never
 *   query phrases); `prefix='1 2 3'` adds prefix indexes that make short prefix queries cheap.
 * - `tombstones`: the version at which a job was deleted, so an older upsert cannot resurrect it.
 * - `counts`: jobs per (account, status), maintained by triggers on `jobs`.
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY,
  version INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  status TEXT NOT NULL,
  guid TEXT NOT NULL,
  created INTEGER NOT NULL,
  delivered INTEGER,
  document TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS jobs_by_created ON jobs (created, id);
CREATE INDEX IF NOT EXISTS jobs_by_account ON jobs (account_id, created, id);
CREATE INDEX IF NOT EXISTS jobs_by_status ON jobs (status, created, id);
CREATE INDEX IF NOT EXISTS jobs_by_account_status ON jobs (account_id, status, created, id);
CREATE INDEX IF NOT EXISTS jobs_by_guid ON jobs (guid);
CREATE INDEX IF NOT EXISTS jobs_by_delivered ON jobs (delivered, created, id) WHERE delivered IS NOT NULL;

CREATE VIRTUAL TABLE IF NOT EXISTS jobs_text USING fts5(
  ${TEXT_COLUMN_FIELDS.map((field) => TEXT_COLUMNS[field]).join(', ')},
  content = '',
  contentless_delete = 1,
  detail = column,
  tokenize = 'ascii',
  prefix = '1 2 3'
);

CREATE TABLE IF NOT EXISTS tombstones (
  id INTEGER PRIMARY KEY,
  version INTEGER NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS counts (
  account_id INTEGER NOT NULL,
  status TEXT NOT NULL,
  jobs INTEGER NOT NULL,
  PRIMARY KEY (account_id, status)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER IF NOT EXISTS jobs_counted_on_insert AFTER INSERT ON jobs BEGIN
  INSERT INTO counts (account_id, status, jobs) VALUES (new.account_id, new.status, 1)
    ON CONFLICT (account_id, status) DO UPDATE SET jobs = jobs + 1;
END;
CREATE TRIGGER IF NOT EXISTS jobs_counted_on_delete AFTER DELETE ON jobs BEGIN
  UPDATE counts SET jobs = jobs - 1 WHERE account_id = old.account_id AND status = old.status;
END;
CREATE TRIGGER IF NOT EXISTS jobs_counted_on_update AFTER UPDATE OF account_id, status ON jobs
  WHEN old.account_id IS NOT new.account_id OR old.status IS NOT new.status BEGIN
  UPDATE counts SET jobs = jobs - 1 WHERE account_id = old.account_id AND status = old.status;
  INSERT INTO counts (account_id, status, jobs) VALUES (new.account_id, new.status, 1)
    ON CONFLICT (account_id, status) DO UPDATE SET jobs = jobs + 1;
END;
`;

/** Connection settings: WAL so readers never block the writer, and a busy timeout for other processes. */
export const connectionPragmas = (inMemory: boolean, busyTimeoutMs: number): string =>
  [
    inMemory ? 'PRAGMA journal_mode = MEMORY' : 'PRAGMA journal_mode = WAL',
    'PRAGMA synchronous = NORMAL',
    `PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`,
    'PRAGMA temp_store = MEMORY',
  ]
    .map((pragma) => `${pragma};`)
    .join('\n');

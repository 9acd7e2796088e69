/**
 * The embedded engine's SQLite schema: a `jobs` table whose b-tree indexes serve the sort and the
 * filters, an FTS5 table over pre-folded text with one column per text field, tombstones of deleted
 * jobs, and per-account/status counts so totals without text or date conditions cost nothing.
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
 * - `jobs`: one narrow row per indexed job, only what filters and sorts read; `id` is the rowid (and
 *   the FTS5 rowid). `created`/`delivered` are epoch milliseconds, `guid` is lower-case. Every index
 *   ends in `(created, id)` so a filtered, ordered page is an index walk, not a sort; the rows stay
 *   small so looking up every text match stays in the page cache.
 * - `documents`: the whole SearchDocument as JSON, read only for the jobs of the page and by `get()`.
 * - `jobs_text`: contentless FTS5 (the text lives in `documents`), `contentless_delete` so rows can be
 *   replaced. Text is stored folded by `text.words()` and joined by spaces, and the `ascii` tokenizer
 *   splits only on ASCII separators, so every indexed token is exactly one of our words.
 *   `detail=column` keeps which columns hold a token (column filters) without positions (we never
 *   query phrases); `prefix='1 2 3'` adds prefix indexes that make short prefix queries cheap.
 * - `tombstones`: the version at which a job was deleted, so an older upsert cannot resurrect it.
 * - `counts`: jobs per (account, status), maintained by the writer in the same transaction. Not by
 *   triggers: a statement with triggers opens a savepoint, and FTS5 flushes its pending terms at every
 *   savepoint, which turns each row into its own index segment (10× slower writes, fragmented index).
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY,
  version INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  status TEXT NOT NULL,
  guid TEXT NOT NULL,
  created INTEGER NOT NULL,
  delivered INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS jobs_by_created ON jobs (created, id);
CREATE INDEX IF NOT EXISTS jobs_by_account ON jobs (account_id, created, id);
CREATE INDEX IF NOT EXISTS jobs_by_status ON jobs (status, created, id);
CREATE INDEX IF NOT EXISTS jobs_by_account_status ON jobs (account_id, status, created, id);
CREATE INDEX IF NOT EXISTS jobs_by_guid ON jobs (guid);
CREATE INDEX IF NOT EXISTS jobs_by_delivered ON jobs (delivered, created, id) WHERE delivered IS NOT NULL;

CREATE TABLE IF NOT EXISTS documents (
  id INTEGER PRIMARY KEY,
  document TEXT NOT NULL
) STRICT;

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
`;

/**
 * Connection settings: WAL so readers never block the writer, a busy timeout for other processes, a
 * 64 MiB page cache and memory-mapped reads of a file database.
 */
export const connectionPragmas = (inMemory: boolean, busyTimeoutMs: number): string =>
  [
    inMemory ? 'PRAGMA journal_mode = MEMORY' : 'PRAGMA journal_mode = WAL',
    'PRAGMA synchronous = NORMAL',
    `PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`,
    'PRAGMA temp_store = MEMORY',
    'PRAGMA cache_size = -65536',
    inMemory ? 'PRAGMA mmap_size = 0' : 'PRAGMA mmap_size = 1073741824',
  ]
    .map((pragma) => `${pragma};`)
    .join('\n');

/**
 * The embedded engine's SQLite schema: a `jobs` table whose b-tree indexes serve the sort and the
 * filters, an FTS5 table over pre-folded text with one column per text field, tombstones of deleted
 * jobs, and per-account/status counts so totals without text or date conditions cost nothing.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { TextFieldId } from '../../../functions/search/query-text';

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

/** The hidden FTS5 column holding a job's scope tokens (account and status), never searched by words. */
export const SCOPE_COLUMN = 'scope';

/**
 * Bumped whenever the layout below changes: a database of another version is rebuilt empty, except
 * one of {@link UPGRADABLE_VERSION}, which {@link UPGRADE} brings up to date in place.
 */
export const SCHEMA_VERSION = 3;

/** The previous layout, which lacked only the `terms` table. */
export const UPGRADABLE_VERSION = 2;

/**
 * The schema, idempotent (`IF NOT EXISTS`), so a second process opening the same file is harmless.
 *
 * - `jobs`: one narrow row per indexed job, only what filters and sorts read. Its rowid `ord` is the
 *   job's order key (see `order-key.ts`): ascending `ord` is ascending (created, id), so the table and
 *   every index on it (SQLite appends the rowid to each) are already in result order, and a created
 *   range is a rowid range. `created`/`delivered` are epoch milliseconds, `guid` is lower-case.
 * - `documents`: the whole SearchDocument as JSON, read only for the jobs of the page and by `get()`.
 * - `jobs_text`: contentless FTS5 (the text lives in `documents`) whose rowid is the same order key, so
 *   `ORDER BY rowid DESC LIMIT n` streams matches in result order and stops early. `contentless_delete`
 *   so rows can be replaced. Text is stored folded by `text.words()` and joined by spaces, and the
 *   `ascii` tokenizer splits only on ASCII separators, so every indexed token is exactly one of our
 *   words. The last column, `scope`, holds an account token and a status token, so account and status
 *   filters join the text match inside FTS5 instead of being checked row by row.
 *   `detail=column` keeps which columns hold a token (column filters) without positions (we never
 *   query phrases); `prefix='1 2 3'` adds prefix indexes that make short prefix queries cheap.
 * - `terms`: the vocabulary of `jobs_text`, every (column position, term) pair ever indexed outside
 *   `scope`, written with the FTS5 rows; searches expand words into the terms they prefix through it
 *   (see `vocabulary.ts`). `WITHOUT ROWID` keyed by column first, so the terms of one column with a
 *   prefix are one short range.
 * - `tombstones`: the version at which a job was deleted, so an older upsert cannot resurrect it.
 * - `counts`: jobs per (account, status), maintained by the writer in the same transaction. Not by
 *   triggers: a statement with triggers opens a savepoint, and FTS5 flushes its pending terms at every
 *   savepoint, which turns each row into its own index segment (10× slower writes, fragmented index).
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  ord INTEGER PRIMARY KEY,
  id INTEGER NOT NULL UNIQUE,
  version INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  status TEXT NOT NULL,
  guid TEXT NOT NULL,
  created INTEGER NOT NULL,
  delivered INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS jobs_by_account ON jobs (account_id);
CREATE INDEX IF NOT EXISTS jobs_by_status ON jobs (status);
CREATE INDEX IF NOT EXISTS jobs_by_account_status ON jobs (account_id, status);
CREATE INDEX IF NOT EXISTS jobs_by_guid ON jobs (guid);
CREATE INDEX IF NOT EXISTS jobs_by_delivered ON jobs (delivered) WHERE delivered IS NOT NULL;

CREATE TABLE IF NOT EXISTS documents (
  id INTEGER PRIMARY KEY,
  document TEXT NOT NULL
) STRICT;

CREATE VIRTUAL TABLE IF NOT EXISTS jobs_text USING fts5(
  ${TEXT_COLUMN_FIELDS.map((field) => TEXT_COLUMNS[field]).join(', ')}, ${SCOPE_COLUMN},
  content = '',
  contentless_delete = 1,
  detail = column,
  tokenize = 'ascii',
  prefix = '1 2 3'
);

CREATE TABLE IF NOT EXISTS terms (
  col INTEGER NOT NULL,
  term TEXT NOT NULL,
  PRIMARY KEY (col, term)
) STRICT, WITHOUT ROWID;

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

/** The statements that remove every table of an older layout (the index is rebuilt by `reindex`). */
export const DROP_SCHEMA =
  'DROP TABLE IF EXISTS jobs; DROP TABLE IF EXISTS documents; DROP TABLE IF EXISTS jobs_text;' +
  ' DROP TABLE IF EXISTS terms; DROP TABLE IF EXISTS tombstones; DROP TABLE IF EXISTS counts;';

/**
 * Brings a database of {@link UPGRADABLE_VERSION} up to date after {@link SCHEMA} has created the
 * `terms` table: fills it once from FTS5's own vocabulary (4 s for 1.1M jobs), instead of rebuilding.
 */
export const UPGRADE = `
CREATE VIRTUAL TABLE temp.jobs_text_upgrade_vocabulary USING fts5vocab(main, jobs_text, 'col');
INSERT OR IGNORE INTO terms (col, term)
  SELECT CASE col ${TEXT_COLUMN_FIELDS.map((field, position) => `WHEN '${TEXT_COLUMNS[field]}' THEN ${position}`).join(' ')} END, term
  FROM temp.jobs_text_upgrade_vocabulary WHERE col <> '${SCOPE_COLUMN}';
DROP TABLE temp.jobs_text_upgrade_vocabulary;
`;

/** The scope token of an account (`a42`, `an7` for -7). */
export const accountToken = (accountId: number): string => `a${accountId < 0 ? 'n' : ''}${Math.abs(accountId)}`;

/** The scope token of a status: its bytes in hex, so distinct statuses never share a token. */
export const statusToken = (status: string): string => `s${Buffer.from(status, 'utf8').toString('hex')}`;

/** The `scope` column text of a job. */
export const scopeText = (accountId: number, status: string): string =>
  `${accountToken(accountId)} ${statusToken(status)}`;

/**
 * Connection settings: WAL so readers never block the writer, a busy timeout for other processes, a
 * 64 MiB page cache and memory-mapped reads of a file database. The WAL is checkpointed every 10,000
 * pages (about 40 MiB) instead of SQLite's 1,000: a 100-job write dirties a few hundred pages spread over
 * the secondary indexes, so the default checkpointed every few writes and rewrote the same pages again
 * and again (measured: 50,000 jobs applied 100 per call went from 4,213 to 5,194 jobs/s). The WAL file
 * is truncated back to 64 MiB after a checkpoint when it grew beyond that.
 */
export const connectionPragmas = (inMemory: boolean, busyTimeoutMs: number): string =>
  [
    inMemory ? 'PRAGMA journal_mode = MEMORY' : 'PRAGMA journal_mode = WAL',
    'PRAGMA synchronous = NORMAL',
    `PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`,
    'PRAGMA temp_store = MEMORY',
    'PRAGMA cache_size = -65536',
    'PRAGMA wal_autocheckpoint = 10000',
    'PRAGMA journal_size_limit = 67108864',
    inMemory ? 'PRAGMA mmap_size = 0' : 'PRAGMA mmap_size = 1073741824',
  ]
    .map((pragma) => `${pragma};`)
    .join('\n');

/** Empties every table of the index. */
export const CLEAR_ALL =
  "DELETE FROM jobs; DELETE FROM documents; DELETE FROM tombstones; DELETE FROM counts; DELETE FROM terms; INSERT INTO jobs_text (jobs_text) VALUES ('delete-all');";

/** Opens the schema, replacing the tables of an older layout (the index is rebuilt by `reindex`). */
export const openSchema = (db: DatabaseSync): void => {
  db.exec('BEGIN IMMEDIATE');
  try {
    const { user_version: version } = db.prepare('PRAGMA user_version').get() as { user_version: number };
    const upgrade = version === UPGRADABLE_VERSION;
    if (version !== SCHEMA_VERSION && !upgrade) db.exec(DROP_SCHEMA);
    db.exec(SCHEMA);
    if (upgrade) db.exec(UPGRADE);
    if (version !== SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION};`);
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
};

/**
 * Classifies `node:sqlite` errors: which ones mean the database is temporarily out of reach (another
 * process holds the lock past the busy timeout, the disk is full or failing) rather than a bug.
 */

/** SQLite primary result codes that mean "try again later". */
const TRANSIENT_CODES = new Set([
  5, // SQLITE_BUSY
  6, // SQLITE_LOCKED
  10, // SQLITE_IOERR
  13, // SQLITE_FULL
  14, // SQLITE_CANTOPEN
]);

interface SqliteError extends Error {
  code: 'ERR_SQLITE_ERROR';
  errcode: number;
  errstr?: string;
}

/** Whether an error was raised by SQLite itself (as opposed to a bug in our code). */
export const isSqliteError = (error: unknown): error is SqliteError =>
  error instanceof Error && (error as Partial<SqliteError>).code === 'ERR_SQLITE_ERROR';

/** Whether a SQLite error is transient: the same call may succeed later. */
export const isTransientSqliteError = (error: unknown): boolean =>
  isSqliteError(error) && TRANSIENT_CODES.has(error.errcode & 0xff);

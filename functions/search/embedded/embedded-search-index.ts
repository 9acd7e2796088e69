/**
 * The embedded search engine: SQLite FTS5 through Node's built-in `node:sqlite`, in memory or in one
 * file. A real full-text engine for local runs and tests, with the semantics of SPEC section 4 and the
 * external-version rules of the OpenSearch engine.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type {
  IndexedVersion,
  IndexOperation,
  IndexOutcome,
  SearchDocument,
  SearchIndex,
  SearchQuery,
  SearchResult,
} from '../search-index';
import { SearchUnavailableError } from '../search-index';
import type { JobSummary } from '../../jobs/model';
import { InvalidDocumentError, type JobRow, toJobRow } from './job-row';
import { connectionPragmas, SCHEMA, TEXT_COLUMN_FIELDS, TEXT_COLUMNS } from './schema';
import { type Statement, searchStatements } from './search-sql';
import { isTransientSqliteError } from './sqlite-errors';

/** How the embedded engine opens its database. */
export interface EmbeddedSearchIndexOptions {
  /** A file path, or `:memory:` for a private in-memory database. */
  path: string;
  /** How long a write waits for another process's lock before giving up, in milliseconds (default 5000). */
  busyTimeoutMs?: number;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
const VERSIONS_PAGE_SIZE = 1_000;
const STATEMENT_CACHE_SIZE = 256;

const textColumns = TEXT_COLUMN_FIELDS.map((field) => TEXT_COLUMNS[field]);

/** The statements every write uses, prepared once per connection. */
class WriteStatements {
  public readonly current: StatementSync;
  public readonly tombstoneVersion: StatementSync;
  public readonly upsertJob: StatementSync;
  public readonly upsertDocument: StatementSync;
  public readonly deleteJob: StatementSync;
  public readonly deleteDocument: StatementSync;
  public readonly deleteText: StatementSync;
  public readonly insertText: StatementSync;
  public readonly upsertTombstone: StatementSync;
  public readonly deleteTombstone: StatementSync;
  public readonly addCount: StatementSync;

  public constructor(db: DatabaseSync) {
    this.current = db.prepare('SELECT version, account_id AS accountId, status FROM jobs WHERE id = ?');
    this.tombstoneVersion = db.prepare('SELECT version FROM tombstones WHERE id = ?');
    this.upsertJob = db.prepare(
      'INSERT INTO jobs (id, version, account_id, status, guid, created, delivered)' +
        ' VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version,' +
        ' account_id = excluded.account_id, status = excluded.status, guid = excluded.guid,' +
        ' created = excluded.created, delivered = excluded.delivered',
    );
    this.upsertDocument = db.prepare(
      'INSERT INTO documents (id, document) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET document = excluded.document',
    );
    this.deleteJob = db.prepare('DELETE FROM jobs WHERE id = ?');
    this.deleteDocument = db.prepare('DELETE FROM documents WHERE id = ?');
    this.deleteText = db.prepare('DELETE FROM jobs_text WHERE rowid = ?');
    this.insertText = db.prepare(
      `INSERT INTO jobs_text (rowid, ${textColumns.join(', ')}) VALUES (?, ${textColumns.map(() => '?').join(', ')})`,
    );
    this.upsertTombstone = db.prepare(
      'INSERT INTO tombstones (id, version) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version',
    );
    this.deleteTombstone = db.prepare('DELETE FROM tombstones WHERE id = ?');
    this.addCount = db.prepare(
      'INSERT INTO counts (account_id, status, jobs) VALUES (?, ?, ?)' +
        ' ON CONFLICT (account_id, status) DO UPDATE SET jobs = jobs + excluded.jobs',
    );
  }
}

/** What the index holds of a job before a write. */
interface CurrentJob {
  version: number;
  accountId: number;
  status: string;
}

/** A {@link SearchIndex} on SQLite FTS5. Calls are synchronous underneath; the interface stays async. */
export class EmbeddedSearchIndex implements SearchIndex {
  readonly #db: DatabaseSync;
  readonly #writes: WriteStatements;
  readonly #reads = new Map<string, StatementSync>();
  #closed = false;

  public constructor(options: EmbeddedSearchIndexOptions) {
    const inMemory = options.path === ':memory:';
    const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    this.#db = new DatabaseSync(options.path, { timeout: busyTimeoutMs });
    this.#db.exec(connectionPragmas(inMemory, busyTimeoutMs));
    this.#db.exec(SCHEMA);
    // Recommended for long-lived connections: refreshes planner statistics when they are missing or
    // stale, sampling at most ~1000 rows per index so opening a large database stays fast.
    this.#db.exec('PRAGMA analysis_limit = 1000; PRAGMA optimize = 0x10002;');
    this.#writes = new WriteStatements(this.#db);
  }

  public async apply(operations: IndexOperation[]): Promise<IndexOutcome[]> {
    try {
      return this.#transaction(() => operations.map((operation) => this.#applyOne(operation)));
    } catch (error) {
      if (!isTransientSqliteError(error)) throw error;
      const reason = `search database unavailable: ${(error as Error).message}`;
      return operations.map(() => ({ status: 'retryable', reason }));
    }
  }

  public async search(query: SearchQuery): Promise<SearchResult> {
    const statements = searchStatements(query);
    if (statements.kind === 'nothing') return { total: 0, jobs: [] };
    return this.#read(() => {
      const total = (this.#query(statements.count).get(...statements.count.params) as { total: number }).total;
      const rows = this.#query(statements.page).all(...statements.page.params) as { summary: string }[];
      return { total, jobs: rows.map((row) => JSON.parse(row.summary) as JobSummary) };
    });
  }

  public async *versions(): AsyncIterable<IndexedVersion> {
    let after = Number.MIN_SAFE_INTEGER;
    for (;;) {
      const page = this.#read(
        () =>
          this.#statement('SELECT id AS jobId, version FROM jobs WHERE id > ? ORDER BY id LIMIT ?').all(
            after,
            VERSIONS_PAGE_SIZE,
          ) as unknown as IndexedVersion[],
      );
      yield* page;
      const last = page.at(-1);
      if (last === undefined || page.length < VERSIONS_PAGE_SIZE) return;
      after = last.jobId;
    }
  }

  public async get(jobId: number): Promise<SearchDocument | undefined> {
    const row = this.#read(
      () =>
        this.#statement('SELECT document FROM documents WHERE id = ?').get(jobId) as { document: string } | undefined,
    );
    return row === undefined ? undefined : (JSON.parse(row.document) as SearchDocument);
  }

  public async clear(): Promise<void> {
    this.#transaction(() => {
      this.#db.exec(
        "DELETE FROM jobs; DELETE FROM documents; DELETE FROM tombstones; DELETE FROM counts; INSERT INTO jobs_text (jobs_text) VALUES ('delete-all');",
      );
    });
  }

  public async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#reads.clear();
    this.#db.close();
  }

  #applyOne(operation: IndexOperation): IndexOutcome {
    if (operation.type === 'delete') return this.#remove(operation.jobId, operation.version);
    let row: JobRow;
    try {
      row = toJobRow(operation.document);
    } catch (error) {
      if (error instanceof InvalidDocumentError) return { status: 'rejected', reason: error.message };
      throw error;
    }
    return this.#upsert(row);
  }

  #current(id: number): CurrentJob | undefined {
    return this.#writes.current.get(id) as CurrentJob | undefined;
  }

  /** The version the index last saw for a job: its live document's, or its tombstone's. */
  #storedVersion(current: CurrentJob | undefined, id: number): number | undefined {
    if (current !== undefined) return current.version;
    const tombstone = this.#writes.tombstoneVersion.get(id) as { version: number } | undefined;
    return tombstone?.version;
  }

  #upsert(row: JobRow): IndexOutcome {
    const current = this.#current(row.id);
    const stored = this.#storedVersion(current, row.id);
    if (stored !== undefined && row.version < stored) return { status: 'stale' };
    const w = this.#writes;
    w.upsertJob.run(row.id, row.version, row.accountId, row.status, row.guid, row.created, row.delivered);
    w.upsertDocument.run(row.id, row.document);
    if (current !== undefined) w.deleteText.run(row.id);
    w.insertText.run(row.id, ...row.texts);
    if (current === undefined) {
      w.deleteTombstone.run(row.id);
      w.addCount.run(row.accountId, row.status, 1);
    } else if (current.accountId !== row.accountId || current.status !== row.status) {
      w.addCount.run(current.accountId, current.status, -1);
      w.addCount.run(row.accountId, row.status, 1);
    }
    return { status: 'indexed' };
  }

  #remove(id: number, version: number): IndexOutcome {
    if (!Number.isSafeInteger(id) || !Number.isSafeInteger(version)) {
      return { status: 'rejected', reason: `invalid delete of job ${id} at version ${version}` };
    }
    const current = this.#current(id);
    const stored = this.#storedVersion(current, id);
    if (stored !== undefined && version < stored) return { status: 'stale' };
    const w = this.#writes;
    if (current !== undefined) {
      w.deleteJob.run(id);
      w.deleteDocument.run(id);
      w.deleteText.run(id);
      w.addCount.run(current.accountId, current.status, -1);
    }
    w.upsertTombstone.run(id, version);
    return { status: 'indexed' };
  }

  #transaction<T>(work: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  /** Runs a read, turning a transient database failure into {@link SearchUnavailableError}. */
  #read<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (isTransientSqliteError(error))
        throw new SearchUnavailableError('The search database is unavailable', { cause: error });
      throw error;
    }
  }

  #query(statement: Statement): StatementSync {
    return this.#statement(statement.sql);
  }

  #statement(sql: string): StatementSync {
    const cached = this.#reads.get(sql);
    if (cached !== undefined) return cached;
    if (this.#reads.size >= STATEMENT_CACHE_SIZE) this.#reads.clear();
    const prepared = this.#db.prepare(sql);
    this.#reads.set(sql, prepared);
    return prepared;
  }
}

/**
 * The embedded search engine: SQLite FTS5 through Node's built-in `node:sqlite`, in memory or in one
 * file. A real full-text engine for local runs and tests, with the semantics of docs/contract.md §4 and the
 * external-version rules of the OpenSearch engine.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type {
  IndexedVersion,
  IndexHealth,
  IndexOperation,
  IndexOutcome,
  IndexWriter,
  SearchDocument,
  SearchIndex,
  SearchQuery,
  SearchResult,
} from '../../../functions/search/search-index';
import { SearchUnavailableError } from '../../../functions/search/search-index';
import type { JobSummary } from '../../../functions/jobs/model/model';
import { conversionProblem, InvalidDocumentError } from '../../../functions/search/document-check';
import { type JobRow, toJobRow } from './job-row';
import { allocateKey, groupOf } from './order-key';
import { CLEAR_ALL, connectionPragmas, openSchema } from './schema';
import { type Statement, searchStatements } from './search-sql';
import { isTransientSqliteError } from './sqlite-errors';
import { ANALYSED_JOBS, REFRESH_STATISTICS, StatisticsSchedule } from './statistics';
import { TermsVocabulary } from './vocabulary';
import { type CurrentJob, type CurrentRow, PendingText, WriteStatements } from './write-statements';

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
const TOTALS_CACHE_SIZE = 1_024;

/** A cache key for a statement and its parameters (`bigint` included). */
const totalKey = (statement: Statement): string =>
  `${statement.sql}\u0000${statement.params.map((param) => `${typeof param}:${String(param)}`).join('\u0000')}`;

/** A {@link SearchIndex} on SQLite FTS5. Calls are synchronous underneath; the interface stays async. */
export class EmbeddedSearchIndex implements SearchIndex {
  readonly #db: DatabaseSync;
  readonly #writes: WriteStatements;
  readonly #vocabulary: TermsVocabulary;
  readonly #reads = new Map<string, StatementSync>();
  readonly #dataVersion: StatementSync;
  /** Exact totals by count statement, valid while no connection has written since they were counted. */
  readonly #totals = new Map<string, number>();
  #totalsDataVersion = -1;
  /** FTS5 writes of the open transaction, applied in ascending rowid order when it ends. */
  readonly #pendingText = new PendingText();
  /** When to refresh the planner statistics; `#jobsDelta` counts the open transaction's added jobs. */
  readonly #statistics: StatisticsSchedule;
  #jobsDelta = 0;
  #closed = false;
  /** A rebuild holds the write transaction open; writes of this connection join it as savepoints. */
  #rebuilding = false;

  public constructor(options: EmbeddedSearchIndexOptions) {
    const inMemory = options.path === ':memory:';
    const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    this.#db = new DatabaseSync(options.path, { timeout: busyTimeoutMs });
    this.#db.exec(connectionPragmas(inMemory, busyTimeoutMs));
    openSchema(this.#db);
    const { jobs } = this.#db.prepare('SELECT coalesce(sum(jobs), 0) AS jobs FROM counts').get() as { jobs: number };
    this.#statistics = new StatisticsSchedule(jobs, this.#analysedJobs());
    this.#writes = new WriteStatements(this.#db);
    this.#vocabulary = new TermsVocabulary(this.#db);
    this.#dataVersion = this.#db.prepare('PRAGMA data_version');
    this.#refreshStatisticsIfDue();
  }

  public async apply(operations: IndexOperation[]): Promise<IndexOutcome[]> {
    try {
      this.#jobsDelta = 0;
      const outcomes = this.#transaction(() => {
        const applied = operations.map((operation) => this.#applyOne(operation));
        this.#pendingText.flush(this.#writes, this.#vocabulary);
        return applied;
      });
      this.#totals.clear();
      this.#statistics.changed(this.#jobsDelta);
      this.#refreshStatisticsIfDue();
      return outcomes;
    } catch (error) {
      if (!isTransientSqliteError(error)) throw error;
      const reason = `search database unavailable: ${(error as Error).message}`;
      return operations.map(() => ({ status: 'retryable', reason }));
    }
  }

  public async search(query: SearchQuery): Promise<SearchResult> {
    return this.#snapshot(() => {
      const statements = searchStatements(query, this.#vocabulary);
      if (statements.kind === 'nothing') return { total: 0, jobs: [] };
      const total = statements.counts.reduce((sum, count) => sum + this.#total(count), 0);
      const page = statements.pageFor(total);
      if (page === undefined) return { total, jobs: [] };
      const rows = this.#query(page).all(...page.params) as { summary: string }[];
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
    return (await this.getMany([jobId])).get(jobId);
  }

  public async getMany(jobIds: readonly number[]): Promise<Map<number, SearchDocument>> {
    const sql = 'SELECT id, document FROM documents WHERE id IN (SELECT value FROM json_each(?))';
    const read = () => this.#statement(sql).all(JSON.stringify(jobIds)) as { id: number; document: string }[];
    const rows = this.#read(read);
    return new Map(rows.map((row) => [row.id, JSON.parse(row.document) as SearchDocument]));
  }

  /** One index, always: a rebuild replaces the rows in one transaction, so there is no alias to break. */
  public async health(): Promise<IndexHealth> {
    const row = this.#read(() => this.#statement('SELECT count(*) AS count FROM jobs').get() as { count: number });
    return { name: 'jobs', indices: ['jobs'], documents: row.count };
  }

  /**
   * Rebuilds inside one write transaction: the old rows are deleted and `fill` writes the new ones, each
   * of its `apply` calls a savepoint within it. Readers on other connections keep the last committed
   * index (WAL snapshots) until the commit makes the new one visible at once; a failed fill rolls back to
   * the old index. Writers on other connections wait for the commit (their busy timeout) and retry.
   * Rebuilds exclude each other: a second one (another process's `reindex`) waits for the lock as long as
   * its busy timeout allows, then gives up with {@link SearchUnavailableError}, having changed nothing.
   */
  public async rebuild<T>(fill: (writer: IndexWriter) => Promise<T>): Promise<T> {
    if (this.#rebuilding) throw new Error('A rebuild of this index is already running');
    try {
      this.#db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      if (!isTransientSqliteError(error)) throw error;
      throw new SearchUnavailableError('The search database is held by another write (a rebuild?)', { cause: error });
    }
    this.#rebuilding = true;
    try {
      this.#db.exec(CLEAR_ALL);
      this.#statistics.cleared();
      const result = await fill({ apply: (operations) => this.apply(operations) });
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      this.#pendingText.discard();
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    } finally {
      this.#rebuilding = false;
      this.#totals.clear();
      this.#refreshStatisticsIfDue();
    }
  }

  public async clear(): Promise<void> {
    await this.rebuild(async () => undefined);
  }

  public async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#reads.clear();
    this.#db.close();
  }

  /** How many jobs the planner statistics on file were taken at; 0 when none were taken. */
  #analysedJobs(): number {
    const analysed = this.#db
      .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat1'")
      .get();
    if (analysed === undefined) return 0;
    const row = this.#db.prepare(ANALYSED_JOBS).get() as { jobs: number } | undefined;
    return row?.jobs ?? 0;
  }

  /**
   * Refreshes the planner statistics once the job count has doubled or halved since they were taken
   * (see `statistics.ts`). After a commit, outside the transaction; a busy database only postpones it
   * to a later write.
   */
  #refreshStatisticsIfDue(): void {
    if (!this.#statistics.due) return;
    try {
      this.#db.exec(REFRESH_STATISTICS);
      this.#statistics.refreshed();
    } catch (error) {
      if (!isTransientSqliteError(error)) throw error;
    }
  }

  #applyOne(operation: IndexOperation): IndexOutcome {
    if (operation.type === 'delete') return this.#remove(operation.jobId, operation.version);
    let row: JobRow;
    try {
      row = toJobRow(operation.document);
    } catch (error) {
      // The conversion is pure: whatever it throws is about this document alone, never the others.
      if (error instanceof InvalidDocumentError) return { status: 'rejected', reason: error.message };
      return { status: 'rejected', reason: conversionProblem(error) };
    }
    return this.#upsert(row);
  }

  #current(id: number): CurrentJob | undefined {
    const row = this.#writes.current.get(id) as CurrentRow | undefined;
    if (row === undefined) return undefined;
    return {
      key: row.ord,
      version: Number(row.version),
      accountId: Number(row.accountId),
      status: row.status,
      created: Number(row.created),
    };
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
    if (current !== undefined && current.created === row.created) {
      w.updateJob.run(row.version, row.accountId, row.status, row.guid, row.delivered, current.key);
      this.#pendingText.delete(current.key);
      this.#pendingText.insert(current.key, row.texts, row.scope);
    } else {
      if (current !== undefined) this.#unplace(current.key);
      this.#place(row, this.#allocate(row));
    }
    w.upsertDocument.run(row.id, row.document);
    if (current === undefined) {
      // A job the index never saw has no tombstone to remove (`stored` would be its version).
      if (stored !== undefined) w.deleteTombstone.run(row.id);
      w.addCount.run(row.accountId, row.status, 1);
      this.#jobsDelta += 1;
    } else if (current.accountId !== row.accountId || current.status !== row.status) {
      w.addCount.run(current.accountId, current.status, -1);
      w.addCount.run(row.accountId, row.status, 1);
    }
    return { status: 'indexed' };
  }

  /** Writes a job's `jobs` row and FTS5 row at an order key. */
  #place(row: JobRow, key: bigint): void {
    const w = this.#writes;
    w.insertJob.run(key, row.id, row.version, row.accountId, row.status, row.guid, row.created, row.delivered);
    this.#pendingText.insert(key, row.texts, row.scope);
  }

  /** Removes a job's `jobs` row and FTS5 row. */
  #unplace(key: bigint): void {
    this.#writes.deleteJob.run(key);
    this.#pendingText.delete(key);
  }

  /**
   * The order key of a job about to be placed: between its neighbours in its creation millisecond,
   * after moving the members `allocateKey` respreads when those neighbours leave no room. Every moved
   * member's rows (jobs, FTS5 text) go to the new key in the same transaction; all leave their old
   * keys before any takes a new one, since a new key may be another member's old one.
   */
  #allocate(row: JobRow): bigint {
    const { key, moves } = allocateKey(groupOf(row.created), this.#writes.group, row);
    const rows = moves.map((move) => this.#storedRow(move.id));
    for (const move of moves) this.#unplace(move.from);
    moves.forEach((move, index) => this.#place(rows[index] as JobRow, move.to));
    return key;
  }

  /** The stored row of an indexed job, rebuilt from its stored document. */
  #storedRow(id: number): JobRow {
    const stored = this.#writes.storedDocument.get(id) as { document: string } | undefined;
    if (stored === undefined) throw new Error(`the search index has no document for job ${id}`);
    return toJobRow(JSON.parse(stored.document) as SearchDocument);
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
      this.#unplace(current.key);
      w.deleteDocument.run(id);
      w.addCount.run(current.accountId, current.status, -1);
      this.#jobsDelta -= 1;
    }
    w.upsertTombstone.run(id, version);
    return { status: 'indexed' };
  }

  /**
   * The exact result of a count statement, from the cache while no connection (this one or another
   * process's) has written since it was counted: `PRAGMA data_version` changes on others' commits, and
   * this connection's own writes clear the cache.
   */
  #total(count: Statement): number {
    const { data_version: dataVersion } = this.#dataVersion.get() as { data_version: number };
    if (dataVersion !== this.#totalsDataVersion) {
      this.#totals.clear();
      this.#totalsDataVersion = dataVersion;
    }
    const key = totalKey(count);
    const cached = this.#totals.get(key);
    if (cached !== undefined) return cached;
    const total = Number((this.#query(count).get(...count.params) as { total: number | bigint }).total);
    if (this.#totals.size >= TOTALS_CACHE_SIZE) this.#totals.clear();
    this.#totals.set(key, total);
    return total;
  }

  #transaction<T>(work: () => T): T {
    // Within a rebuild, a write is a savepoint of the rebuild's open transaction.
    const [begin, commit, rollback] = this.#rebuilding
      ? ['SAVEPOINT apply', 'RELEASE apply', 'ROLLBACK TO apply; RELEASE apply']
      : ['BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK'];
    this.#db.exec(begin);
    try {
      const result = work();
      this.#db.exec(commit);
      return result;
    } catch (error) {
      this.#pendingText.discard();
      if (this.#db.isTransaction) this.#db.exec(rollback);
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

  /**
   * Runs reads in one read transaction, so the vocabulary lookups, the counts and the page see the same
   * commit of the index (another process may write in between).
   */
  #snapshot<T>(work: () => T): T {
    return this.#read(() => {
      this.#db.exec('BEGIN');
      try {
        return work();
      } finally {
        if (this.#db.isTransaction) this.#db.exec('COMMIT');
      }
    });
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

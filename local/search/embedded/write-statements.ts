/**
 * The embedded engine's writes: the prepared statements of `apply()` and the FTS5 text writes of one
 * transaction, netted per rowid (see {@link PendingText}).
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { GroupReader, Placed } from './order-key';
import { SCOPE_COLUMN, TEXT_COLUMN_FIELDS, TEXT_COLUMNS } from './schema';
import { PendingTerms, type TermsVocabulary } from './vocabulary';

const ftsColumns = [...TEXT_COLUMN_FIELDS.map((field) => TEXT_COLUMNS[field]), SCOPE_COLUMN];

/** Prepares a statement that reads integers as `bigint` (order keys exceed 2^53). */
const prepareBig = (db: DatabaseSync, sql: string): StatementSync => {
  const statement = db.prepare(sql);
  statement.setReadBigInts(true);
  return statement;
};

/** A member of a creation millisecond as the group statements read it. */
interface MemberRow {
  key: bigint;
  created: bigint;
  id: bigint;
}

/** The statements every write uses, prepared once per connection. */
export class WriteStatements {
  public readonly current: StatementSync;
  /** Reads the members of a creation millisecond around a new job's place (see `order-key.ts`). */
  public readonly group: GroupReader;
  public readonly storedDocument: StatementSync;
  public readonly tombstoneVersion: StatementSync;
  public readonly insertJob: StatementSync;
  public readonly updateJob: StatementSync;
  public readonly upsertDocument: StatementSync;
  public readonly deleteJob: StatementSync;
  public readonly deleteDocument: StatementSync;
  public readonly deleteText: StatementSync;
  public readonly insertText: StatementSync;
  public readonly upsertTombstone: StatementSync;
  public readonly deleteTombstone: StatementSync;
  public readonly addCount: StatementSync;

  public constructor(db: DatabaseSync) {
    this.current = prepareBig(
      db,
      'SELECT ord, version, account_id AS accountId, status, created FROM jobs WHERE id = ?',
    );
    // Rowid range scans of `jobs` in either direction, one statement per direction and row limit (-1:
    // none). The limit is written into the SQL, not bound: a bound LIMIT made every scan about 7 µs
    // slower than the ~1 µs of the lookup itself, which is most of what an insert into an empty
    // millisecond costs. Limits are small integers of our own (1, 2, 2^k + 1, -1), so few statements.
    const scans = new Map<string, StatementSync>();
    const members = (order: 'ASC' | 'DESC', from: bigint, to: bigint, limit: number): Placed[] => {
      const name = `${order} ${limit}`;
      let scan = scans.get(name);
      if (scan === undefined) {
        const sql = `SELECT ord AS key, created, id FROM jobs WHERE ord >= ? AND ord < ? ORDER BY ord ${order} LIMIT ${Math.trunc(limit)}`;
        scan = prepareBig(db, sql);
        scans.set(name, scan);
      }
      return (scan.all(from, to) as unknown as MemberRow[]).map((row) => ({
        key: row.key,
        created: Number(row.created),
        id: Number(row.id),
      }));
    };
    this.group = {
      ascending: (from, to, limit) => members('ASC', from, to, limit),
      descending: (from, to, limit) => members('DESC', from, to, limit),
    };
    this.storedDocument = db.prepare('SELECT document FROM documents WHERE id = ?');
    this.tombstoneVersion = db.prepare('SELECT version FROM tombstones WHERE id = ?');
    this.insertJob = db.prepare(
      'INSERT INTO jobs (ord, id, version, account_id, status, guid, created, delivered) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.updateJob = db.prepare(
      'UPDATE jobs SET version = ?, account_id = ?, status = ?, guid = ?, delivered = ? WHERE ord = ?',
    );
    this.upsertDocument = db.prepare(
      'INSERT INTO documents (id, document) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET document = excluded.document',
    );
    this.deleteJob = db.prepare('DELETE FROM jobs WHERE ord = ?');
    this.deleteDocument = db.prepare('DELETE FROM documents WHERE id = ?');
    this.deleteText = db.prepare('DELETE FROM jobs_text WHERE rowid = ?');
    this.insertText = db.prepare(
      `INSERT INTO jobs_text (rowid, ${ftsColumns.join(', ')}) VALUES (?, ${ftsColumns.map(() => '?').join(', ')})`,
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
export interface CurrentJob {
  key: bigint;
  version: number;
  accountId: number;
  status: string;
  created: number;
}

export interface CurrentRow {
  ord: bigint;
  version: bigint;
  accountId: bigint;
  status: string;
  created: bigint;
}

/**
 * The FTS5 writes of one transaction, netted per rowid and applied in ascending rowid order: FTS5
 * flushes its pending terms into a new segment whenever a write's rowid is not above the previous one,
 * so writing order keys as they come (creation order is not arrival order) would make one segment per
 * row — many times slower writes and a fragmented index.
 */
export class PendingText {
  readonly #deletes = new Set<bigint>();
  readonly #inserts = new Map<bigint, SQLInputValue[]>();
  readonly #terms = new PendingTerms();

  /** Removes the FTS5 row at `key` (inserted earlier in this transaction, or before it). */
  public delete(key: bigint): void {
    if (!this.#inserts.delete(key)) this.#deletes.add(key);
  }

  /** Writes the FTS5 row at `key` (free now: never used, or deleted earlier in this transaction). */
  public insert(key: bigint, texts: readonly string[], scope: string): void {
    this.#inserts.set(key, [...texts, scope]);
    this.#terms.addTexts(texts);
  }

  /**
   * Applies the writes: every delete, then every insert, each in ascending rowid order, and records
   * the inserted texts' terms in the vocabulary.
   */
  public flush(writes: WriteStatements, vocabulary: TermsVocabulary): void {
    const ascending = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);
    for (const key of [...this.#deletes].sort(ascending)) writes.deleteText.run(key);
    for (const key of [...this.#inserts.keys()].sort(ascending)) {
      writes.insertText.run(key, ...(this.#inserts.get(key) as SQLInputValue[]));
    }
    vocabulary.add(this.#terms.byColumn);
    this.discard();
  }

  /** Forgets the writes (the transaction rolled back, or they were applied). */
  public discard(): void {
    this.#deletes.clear();
    this.#inserts.clear();
    this.#terms.clear();
  }
}

/**
 * Where the time of the embedded engine's `apply` goes, per document: SQLite's COMMIT (FTS5 writing the
 * batch's segment and merging, and the dirtied pages of every b-tree going to the WAL), BEGIN, the
 * statements run inside the transaction (inserts, lookups; FTS5 tokenises on insert), and the rest —
 * JavaScript (folding text, building rows, the vocabulary, the order keys). Measured by wrapping
 * `node:sqlite`'s `exec` and statement methods with timers for the length of one profile, the call
 * sizes interleaved slice by slice like the throughput measurement.
 *
 * The breakdown bounds what batching can gain: a call of N documents shares BEGIN, COMMIT's fixed part
 * and the per-call JavaScript, never the per-document SQLite work.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DatabaseSync, StatementSync } from 'node:sqlite';
import { EmbeddedSearchIndex } from '../../local/search/embedded/embedded-search-index';
import type { IndexOperation, SearchDocument } from '../../functions/search/search-index';

/** Microseconds per document, by part. */
export interface ApplyProfile {
  perCall: number;
  jobsPerSecond: number;
  total: number;
  begin: number;
  commit: number;
  statements: number;
  javascript: number;
}

type Part = 'begin' | 'commit' | 'statements';

/** Wraps the SQLite calls with timers adding into `spent`; returns the function that unwraps them. */
const instrument = (spent: Record<Part, number>, skip: string | undefined): (() => void) => {
  const exec = Object.getOwnPropertyDescriptor(DatabaseSync.prototype, 'exec')?.value as DatabaseSync['exec'];
  DatabaseSync.prototype.exec = function timedExec(this: DatabaseSync, sql: string): void {
    const started = performance.now();
    try {
      exec.call(this, sql);
    } finally {
      const part = sql === 'COMMIT' ? 'commit' : sql.startsWith('BEGIN') ? 'begin' : undefined;
      if (part !== undefined) spent[part] += performance.now() - started;
    }
  };
  const methods = ['run', 'get', 'all'] as const;
  const originals = methods.map(
    (name) => Object.getOwnPropertyDescriptor(StatementSync.prototype, name)?.value as (...args: unknown[]) => unknown,
  );
  methods.forEach((name, index) => {
    const original = originals[index] as (...args: unknown[]) => unknown;
    Object.defineProperty(StatementSync.prototype, name, {
      configurable: true,
      writable: true,
      value: function timed(this: StatementSync, ...args: unknown[]): unknown {
        // What a part costs: `skip` leaves out the statements that start with it (the engine is then wrong).
        if (skip !== undefined && name === 'run' && this.sourceSQL.startsWith(skip)) {
          return { changes: 0, lastInsertRowid: 0 };
        }
        const started = performance.now();
        try {
          return original.apply(this, args);
        } finally {
          spent.statements += performance.now() - started;
        }
      },
    });
  });
  return () => {
    DatabaseSync.prototype.exec = exec;
    methods.forEach((name, index) => {
      Object.defineProperty(StatementSync.prototype, name, {
        configurable: true,
        writable: true,
        value: originals[index],
      });
    });
  };
};

/**
 * Applies the same documents into one fresh engine (a temp file, WAL) per call size, `slice` documents
 * at a time into each in rotating order, and reports each call size's time per document by part.
 * `skip`: a statement prefix to leave out (e.g. `INSERT INTO jobs_text`), to see what that part costs.
 */
export const profileApply = async (
  documents: readonly SearchDocument[],
  callSizes: readonly number[],
  options: { slice?: number; skip?: string } = {},
): Promise<ApplyProfile[]> => {
  const slice = options.slice ?? 1_000;
  const spent: Record<Part, number> = { begin: 0, commit: 0, statements: 0 };
  const engines = callSizes.map((perCall) => {
    const path = join(tmpdir(), `jobs-api-bench-profile-${perCall}-${process.pid}.sqlite`);
    const remove = (): void => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    };
    remove();
    return {
      perCall,
      path,
      remove,
      index: new EmbeddedSearchIndex({ path }),
      total: 0,
      begin: 0,
      commit: 0,
      statements: 0,
    };
  });
  const restore = instrument(spent, options.skip);
  try {
    for (let first = 0; first < documents.length; first += slice) {
      const part = documents.slice(first, first + slice);
      for (let turn = 0; turn < engines.length; turn++) {
        const engine = engines[(turn + first / slice) % engines.length] as (typeof engines)[number];
        const before = { ...spent };
        const started = performance.now();
        for (let start = 0; start < part.length; start += engine.perCall) {
          const operations: IndexOperation[] = part
            .slice(start, start + engine.perCall)
            .map((document) => ({ type: 'upsert', document }));
          await engine.index.apply(operations);
        }
        engine.total += performance.now() - started;
        engine.begin += spent.begin - before.begin;
        engine.commit += spent.commit - before.commit;
        engine.statements += spent.statements - before.statements;
      }
    }
  } finally {
    restore();
    for (const engine of engines) {
      await engine.index.close();
      engine.remove();
    }
  }
  const perDocument = (ms: number): number => (ms * 1000) / documents.length;
  return engines.map((engine) => ({
    perCall: engine.perCall,
    jobsPerSecond: documents.length / (engine.total / 1000),
    total: perDocument(engine.total),
    begin: perDocument(engine.begin),
    commit: perDocument(engine.commit),
    statements: perDocument(engine.statements),
    javascript: perDocument(engine.total - engine.begin - engine.commit - engine.statements),
  }));
};

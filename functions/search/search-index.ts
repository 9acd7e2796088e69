/**
 * The SearchIndex: the one interface both search engines implement (SQLite FTS5 locally, OpenSearch
 * in AWS). The indexer writes documents with the job's version as an external version; search reads.
 */
import type { JobStatus, JobSummary } from '../jobs/model/model';
import type { SearchFieldId } from './fields';

/**
 * What the index stores of a job: the summary that search returns, plus every searchable text.
 * Built from a job in exactly one place (`search/search-document.ts`).
 */
export interface SearchDocument {
  summary: JobSummary;
  /** The job's `version`: a newer document always has a greater version. */
  version: number;
  accountName: string;
  invoiceReference: string;
  jobTags: string[];
  fileNames: string[];
  fileTags: string[];
  fileInstructions: string[];
}

/** One write of a bulk request. */
export type IndexOperation =
  | { type: 'upsert'; document: SearchDocument }
  /** Removes the job; `version` is the version of the last state the table had (a tombstone). */
  | { type: 'delete'; jobId: number; version: number };

/**
 * The outcome of one operation of a bulk request, in request order.
 * - `indexed`: written.
 * - `stale`: the index already holds this or a newer version; nothing to do (success).
 * - `retryable`: a transient failure (throttling, timeout, 5xx); the caller retries.
 * - `rejected`: the engine refuses the document itself (a poison record); retrying cannot help.
 */
export type IndexOutcome =
  | { status: 'indexed' }
  | { status: 'stale' }
  | { status: 'retryable'; reason: string }
  | { status: 'rejected'; reason: string };

/** A half-open instant range in epoch milliseconds: `from ≤ t < to`. */
export interface InstantRange {
  from?: number;
  to?: number;
}

/** A validated search, ready for an engine. */
export interface SearchQuery {
  /** The field to search; `Global` searches `globalFields` and the exact fields. */
  field: SearchFieldId;
  /** The raw query text (engines cut it into words with `text.words`); empty means no text condition. */
  text: string;
  /** For `Global`: the text fields the caller's role may use. */
  globalFields: SearchFieldId[];
  /** For `Global`: whether the whole query may also equal the account number (operators). */
  globalMatchesAccountNumber: boolean;
  /** Restricts to one account (users); undefined = every account (operators). */
  accountId?: number;
  /** Restricts to these statuses; undefined = any status. */
  statuses?: JobStatus[];
  created?: InstantRange;
  /** A job without a delivered date never matches a delivered range. */
  delivered?: InstantRange;
  /** Zero-based offset of the first job returned. */
  offset: number;
  /** How many jobs at most. */
  limit: number;
}

/** One page of matches with the exact total, ordered by `createdDate` desc, then `id` desc. */
export interface SearchResult {
  total: number;
  jobs: JobSummary[];
}

/** One job as the index holds it, for comparing the index with the table. */
export interface IndexedVersion {
  jobId: number;
  version: number;
}

/**
 * What the index's name points at, for operators (`status`, `verify-index`). Healthy is exactly one
 * concrete index; none (nothing indexed yet) and several (an interrupted or raced swap) are states an
 * operator repairs with `reindex`.
 */
export interface IndexHealth {
  /** The name the functions read and write (the alias). */
  name: string;
  /** The concrete indices behind the name. */
  indices: string[];
  /** Documents in the live index; undefined unless the name points at exactly one index. */
  documents: number | undefined;
  /**
   * Indices of the name's own kind beside it that it does not point at (an OpenSearch rebuild's leftovers),
   * each with its documents and size; absent for an engine that keeps no such indices.
   */
  unaliased?: UnaliasedIndex[];
}

/** A concrete index the name does not point at: its name, documents, and size on disk in bytes. */
export interface UnaliasedIndex {
  name: string;
  documents: number;
  bytes: number;
}

/** What a rebuild writes through. */
export interface IndexWriter {
  apply(operations: IndexOperation[]): Promise<IndexOutcome[]>;
}

export interface SearchIndex {
  /** Applies the operations as one bulk request; one outcome per operation, in order. */
  apply(operations: IndexOperation[]): Promise<IndexOutcome[]>;
  /** Runs a search. */
  search(query: SearchQuery): Promise<SearchResult>;
  /** Every job in the index with its version, in ascending job id order. */
  versions(): AsyncIterable<IndexedVersion>;
  /** The document the index holds for a job, if any. */
  get(jobId: number): Promise<SearchDocument | undefined>;
  /** The documents the index holds for these jobs (at most 1,000), in one read; absent jobs are not in the map. */
  getMany(jobIds: readonly number[]): Promise<Map<number, SearchDocument>>;
  /** Which concrete indices the name points at and how many documents the live one holds. */
  health(): Promise<IndexHealth>;
  /**
   * Builds a complete new index beside the live one and makes it live in one atomic step: `fill` writes
   * every document through the writer it is given, and searches answer from the previous index until the
   * switch, never from a missing or half-built one. Changes written to the live index while `fill` runs
   * are the caller's to carry over (`reindex` scans the table a second time). If `fill` fails, the live
   * index stays as it was.
   */
  rebuild<T>(fill: (writer: IndexWriter) => Promise<T>): Promise<T>;
  /** Replaces the index with an empty one, in the same atomic way as {@link rebuild}. */
  clear(): Promise<void>;
  /** Releases connections and files. */
  close(): Promise<void>;
}

/**
 * Thrown by an engine that refuses a search as malformed (OpenSearch's 400): retrying cannot help, so the
 * API answers it as the caller's `400 invalid_parameter` naming `query`, never as a retryable 503.
 */
export class SearchRejectedError extends Error {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SearchRejectedError';
  }
}

/** Thrown by an engine when it cannot be reached at all; the API answers 503. */
export class SearchUnavailableError extends Error {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SearchUnavailableError';
  }
}

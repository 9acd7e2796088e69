/**
 * The OpenSearch engine: the production {@link SearchIndex}. The index is created with its explicit
 * mapping on first use; writes are one `_bulk` per `apply()` with external versions; searches are
 * filter-only bool queries sorted by creation date and job id with exact totals.
 */
import type { JobSummary } from '../../jobs/model';
import type { OpenSearchSettings } from '../engine';
import {
  type IndexedVersion,
  type IndexOperation,
  type IndexOutcome,
  type SearchDocument,
  type SearchIndex,
  type SearchQuery,
  type SearchResult,
  SearchUnavailableError,
} from '../search-index';
import { type BulkResponse, bulkOutcomes, bulkRequest } from './bulk';
import {
  createClient,
  isTransientClientError,
  type OpenSearchClient,
  pathSegment,
  responseErrorType,
  responseStatus,
} from './client';
import { FIELDS, INDEX_DEFINITION } from './index-definition';
import type { IndexedDocument } from './indexed-document';
import { searchBody } from './search-body';

const VERSIONS_PAGE_SIZE = 1_000;

interface SearchHit<T> {
  _id: string;
  _version?: number;
  _source?: T;
  sort?: unknown[];
}

interface SearchResponse<T> {
  hits: { total: { value: number; relation: string } | number; hits: SearchHit<T>[] };
}

const totalOf = (total: SearchResponse<unknown>['hits']['total']): number =>
  typeof total === 'number' ? total : total.value;

/** A {@link SearchIndex} on an OpenSearch index. */
export class OpenSearchSearchIndex implements SearchIndex {
  readonly #client: OpenSearchClient;
  readonly #index: string;
  /** The index's path, `/<index>`. */
  readonly #indexPath: string;
  readonly #refresh: boolean;
  #ready: Promise<void> | undefined;

  public constructor(settings: OpenSearchSettings) {
    this.#client = createClient(settings);
    this.#index = settings.index;
    this.#indexPath = `/${pathSegment(settings.index)}`;
    this.#refresh = settings.refreshOnWrite ?? false;
  }

  /**
   * Writes the operations as one `_bulk` request. A failure of the whole request (unreachable,
   * timed out, throttled, any error answer) makes every operation `retryable`: none of them is at fault.
   */
  public async apply(operations: IndexOperation[]): Promise<IndexOutcome[]> {
    if (operations.length === 0) return [];
    const request = bulkRequest(this.#index, operations);
    if (request.body.length === 0) return bulkOutcomes(request, { errors: false, items: [] });
    try {
      await this.#ensureIndex();
      const response = await this.#client.request<BulkResponse>({
        method: 'POST',
        path: '/_bulk',
        querystring: { refresh: this.#refresh },
        bulkBody: request.body,
      });
      return bulkOutcomes(request, response.body);
    } catch (error) {
      const reason = `bulk request failed: ${error instanceof Error ? error.name : 'unknown error'}`;
      return request.slots.map((slot) =>
        'rejected' in slot ? { status: 'rejected', reason: slot.rejected } : { status: 'retryable', reason },
      );
    }
  }

  public async search(query: SearchQuery): Promise<SearchResult> {
    const response = await this.#call(async () => {
      await this.#ensureIndex();
      return this.#client.request<SearchResponse<Pick<IndexedDocument, 'document'>>>({
        method: 'POST',
        path: `${this.#indexPath}/_search`,
        body: searchBody(query),
      });
    });
    const body = response.body;
    return {
      total: totalOf(body.hits.total),
      jobs: body.hits.hits.map((hit) => hit._source?.document.summary as JobSummary),
    };
  }

  public async *versions(): AsyncIterable<IndexedVersion> {
    let after: unknown[] | undefined;
    for (;;) {
      const response = await this.#call(async () => {
        await this.#ensureIndex();
        return this.#client.request<SearchResponse<never>>({
          method: 'POST',
          path: `${this.#indexPath}/_search`,
          body: {
            query: { match_all: {} },
            sort: [{ [FIELDS.jobId]: { order: 'asc' } }],
            size: VERSIONS_PAGE_SIZE,
            _source: false,
            version: true,
            ...(after === undefined ? {} : { search_after: after }),
          },
        });
      });
      const hits = response.body.hits.hits;
      for (const hit of hits) yield { jobId: Number(hit._id), version: hit._version ?? 0 };
      const last = hits.at(-1);
      if (last === undefined || hits.length < VERSIONS_PAGE_SIZE) return;
      after = last.sort;
    }
  }

  public async get(jobId: number): Promise<SearchDocument | undefined> {
    try {
      const response = await this.#call(async () => {
        await this.#ensureIndex();
        return this.#client.request<{ found: boolean; _source?: IndexedDocument }>({
          method: 'GET',
          path: `${this.#indexPath}/_doc/${pathSegment(String(jobId))}`,
        });
      });
      const body = response.body;
      return body.found ? body._source?.document : undefined;
    } catch (error) {
      if (responseStatus(error) === 404) return undefined;
      throw error;
    }
  }

  /**
   * Drops the index (and with it every document and delete tombstone) and creates it again, so a
   * rebuild can write every job at its current version.
   */
  public async clear(): Promise<void> {
    await this.#call(async () => {
      const existing = await this.#client.request<Record<string, unknown>>({
        method: 'GET',
        path: this.#indexPath,
        querystring: { ignore_unavailable: true },
      });
      const concrete = Object.keys(existing.body);
      if (concrete.length > 0) {
        await this.#client.request({ method: 'DELETE', path: `/${pathSegment(concrete.join(','))}` });
      }
    });
    this.#ready = undefined;
    await this.#call(() => this.#ensureIndex());
  }

  public async close(): Promise<void> {
    await this.#client.close();
  }

  /** Creates the index with its mapping unless it exists; once per instance (retried after a failure). */
  #ensureIndex(): Promise<void> {
    this.#ready ??= this.#createIndexIfMissing().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #createIndexIfMissing(): Promise<void> {
    const exists = await this.#client.request<boolean>({ method: 'HEAD', path: this.#indexPath, ignore: [404] });
    if (exists.body === true) return;
    try {
      await this.#client.request({ method: 'PUT', path: this.#indexPath, body: INDEX_DEFINITION });
    } catch (error) {
      if (responseErrorType(error) !== 'resource_already_exists_exception') throw error;
    }
  }

  /** Runs a request; an unreachable, timed-out or overloaded engine becomes {@link SearchUnavailableError}. */
  async #call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (isTransientClientError(error)) {
        throw new SearchUnavailableError('The search engine is unavailable', { cause: error });
      }
      throw error;
    }
  }
}

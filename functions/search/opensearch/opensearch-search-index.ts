/**
 * The OpenSearch engine: the production {@link SearchIndex}.
 *
 * The functions address an alias (`jobs`), never a concrete index. The alias points at one versioned
 * concrete index (`jobs-v0`, `jobs-v1732...`); a rebuild fills a new one beside it and moves the alias in
 * one atomic `POST /_aliases`, so search never sees a missing or half-built index. Requests:
 *
 * - search: `POST /{alias}/_search` only. A missing alias is the dependency being unavailable (503).
 * - indexer: `POST /{alias}/_bulk?require_alias=true` with external versions. `require_alias` makes
 *   OpenSearch refuse to auto-create an index with a dynamic mapping; when it reports the alias missing
 *   (a new domain), the indexer creates the first concrete index `{alias}-v0` with its mapping and the
 *   alias, and sends the bulk again.
 * - rebuild (the operator's `reindex`): create `{alias}-v<ms>`, bulk into it, refresh, swap, then delete
 *   the concrete indices the alias left.
 */
import type { OpenSearchSettings } from '../engine';
import {
  type IndexedVersion,
  type IndexHealth,
  type IndexOperation,
  type IndexOutcome,
  type IndexWriter,
  type SearchDocument,
  type SearchIndex,
  type SearchQuery,
  type SearchResult,
  SearchRejectedError,
  SearchUnavailableError,
} from '../search-index';
import type {
  AliasAction,
  AliasesResponse,
  CreateIndexBody,
  GetResponse,
  SearchRequestBody,
  UpdateAliasesBody,
} from './api-types';
import { type BulkAnswer, bulkOutcomes, bulkRequest } from './bulk';
import {
  createClient,
  isStaleSocketError,
  isTransientClientError,
  type OpenSearchClient,
  pathSegment,
  responseErrorType,
  responseStatus,
} from './client';
import { FIELDS, INDEX_DEFINITION } from './index-definition';
import { inspectAlias, multiGet } from './index-inspection';
import type { IndexedDocument } from './indexed-document';
import { searchBody } from './search-body';
import { hitVersions, type SearchAnswer, type SummarySource, searchPage } from './search-response';

const VERSIONS_PAGE_SIZE = 1_000;

const INDEX_MISSING = 'index_not_found_exception';

/** Whether a bulk answer says its target is not an alias (a new domain, before the first index). */
const aliasMissing = (response: BulkAnswer): boolean =>
  response.errors &&
  response.items.some((entry) => {
    const item = Object.values(entry)[0];
    return item?.status === 404 && item.error?.type === INDEX_MISSING;
  });

/**
 * Sends an idempotent request once more when the first attempt died on a socket the engine had already
 * closed (a keep-alive connection that outlived a Lambda freeze); such a request never reached OpenSearch.
 * Bulk writes qualify: every item carries its external version, so a repeat changes nothing.
 */
const retryStaleSocket = async <T>(request: () => Promise<T>): Promise<T> => {
  try {
    return await request();
  } catch (error) {
    if (!isStaleSocketError(error)) throw error;
    return request();
  }
};

/** The name of a new concrete index behind `alias`. */
export const concreteIndexName = (alias: string, version: number | string): string => `${alias}-v${version}`;

/** A {@link SearchIndex} on an OpenSearch alias. */
export class OpenSearchSearchIndex implements SearchIndex {
  readonly #client: OpenSearchClient;
  readonly #alias: string;
  /** The alias's path, `/<alias>`. */
  readonly #aliasPath: string;
  readonly #refresh: boolean;

  public constructor(settings: OpenSearchSettings) {
    this.#client = createClient(settings);
    this.#alias = settings.index;
    this.#aliasPath = `/${pathSegment(settings.index)}`;
    this.#refresh = settings.refreshOnWrite ?? false;
  }

  /**
   * Writes the operations as one `_bulk` request to the alias. A failure of the whole request
   * (unreachable, timed out, throttled, any error answer) makes every operation `retryable`: none of them
   * is at fault.
   */
  public async apply(operations: IndexOperation[]): Promise<IndexOutcome[]> {
    return this.#bulk(this.#aliasPath, operations, true);
  }

  public async search(query: SearchQuery): Promise<SearchResult> {
    const response = await this.#read(() =>
      this.#client.request<SearchAnswer<SummarySource>>({
        method: 'POST',
        path: `${this.#aliasPath}/_search`,
        body: searchBody(query),
      }),
    );
    return searchPage(response.body);
  }

  public async *versions(): AsyncIterable<IndexedVersion> {
    let after: SearchRequestBody['search_after'];
    for (;;) {
      const body: SearchRequestBody = {
        query: { match_all: {} },
        sort: [{ [FIELDS.jobId]: { order: 'asc' } }],
        size: VERSIONS_PAGE_SIZE,
        _source: false,
        version: true,
        ...(after === undefined ? {} : { search_after: after }),
      };
      const response = await this.#readOrMissing(() =>
        this.#client.request<SearchAnswer<never>>({ method: 'POST', path: `${this.#aliasPath}/_search`, body }),
      );
      // No alias yet: the index holds nothing.
      if (response === undefined) return;
      const hits = response.body.hits.hits;
      yield* hitVersions(response.body);
      const last = hits.at(-1);
      if (last === undefined || hits.length < VERSIONS_PAGE_SIZE) return;
      after = last.sort;
    }
  }

  public async get(jobId: number): Promise<SearchDocument | undefined> {
    const response = await this.#readOrMissing(() =>
      this.#client.request<Pick<GetResponse, 'found'> & { _source?: IndexedDocument }>({
        method: 'GET',
        path: `${this.#aliasPath}/_doc/${pathSegment(String(jobId))}`,
        ignore: [404],
      }),
    );
    const body = response?.body;
    return body?.found === true ? body._source?.document : undefined;
  }

  public async getMany(jobIds: readonly number[]): Promise<Map<number, SearchDocument>> {
    return (await this.#readOrMissing(() => multiGet(this.#client, this.#alias, jobIds))) ?? new Map();
  }

  public async health(): Promise<IndexHealth> {
    return this.#call(() => inspectAlias(this.#client, this.#alias));
  }

  public async rebuild<T>(fill: (writer: IndexWriter) => Promise<T>): Promise<T> {
    const previous = await this.#call(() => this.#aliasTargets());
    const fresh = concreteIndexName(this.#alias, Date.now());
    const freshPath = `/${pathSegment(fresh)}`;
    await this.#call(() => this.#client.request({ method: 'PUT', path: freshPath, body: INDEX_DEFINITION }));
    let result: T;
    try {
      result = await fill({ apply: (operations) => this.#bulk(freshPath, operations, false) });
      await this.#call(() => this.#client.request({ method: 'POST', path: `${freshPath}/_refresh` }));
      await this.#call(() =>
        this.#client.request({ method: 'POST', path: '/_aliases', body: this.#swap(previous, fresh) }),
      );
    } catch (error) {
      // The new index never went live: remove it, leave the live one as it was.
      await this.#client.request({ method: 'DELETE', path: freshPath, ignore: [404] }).catch(() => undefined);
      throw error;
    }
    const retired = previous.indices.filter((index) => index !== fresh);
    if (retired.length > 0) {
      await this.#call(() =>
        this.#client.request({ method: 'DELETE', path: `/${retired.map(pathSegment).join(',')}`, ignore: [404] }),
      );
    }
    return result;
  }

  public async clear(): Promise<void> {
    await this.rebuild(async () => undefined);
  }

  public async close(): Promise<void> {
    await this.#client.close();
  }

  /**
   * The alias's current concrete indices; `legacy` when the name is a concrete index of its own (a domain
   * written before aliases were used), which the swap then replaces with `remove_index`.
   */
  async #aliasTargets(): Promise<{ indices: string[]; legacy: boolean }> {
    const aliases = await this.#client.request<AliasesResponse>({
      method: 'GET',
      path: `/_alias/${pathSegment(this.#alias)}`,
      ignore: [404],
    });
    if (aliases.statusCode !== 404) return { indices: Object.keys(aliases.body), legacy: false };
    const concrete = await this.#client.request<boolean>({ method: 'HEAD', path: this.#aliasPath, ignore: [404] });
    return { indices: [], legacy: concrete.body === true };
  }

  /** The body of the one atomic `_aliases` request that makes `fresh` the alias's only index. */
  #swap(previous: { indices: string[]; legacy: boolean }, fresh: string): UpdateAliasesBody {
    const actions: AliasAction[] = [
      ...(previous.legacy ? [{ remove_index: { index: this.#alias } }] : []),
      ...previous.indices.map((index) => ({ remove: { index, alias: this.#alias } })),
      { add: { index: fresh, alias: this.#alias } },
    ];
    return { actions };
  }

  /** Creates the first concrete index with its mapping and the alias; another writer may have done it. */
  async #createFirstIndex(): Promise<void> {
    try {
      await this.#client.request({
        method: 'PUT',
        path: `/${pathSegment(concreteIndexName(this.#alias, 0))}`,
        body: { ...INDEX_DEFINITION, aliases: { [this.#alias]: {} } } satisfies CreateIndexBody,
      });
    } catch (error) {
      if (responseErrorType(error) !== 'resource_already_exists_exception') throw error;
    }
  }

  async #bulk(path: string, operations: IndexOperation[], viaAlias: boolean): Promise<IndexOutcome[]> {
    if (operations.length === 0) return [];
    const request = bulkRequest(operations);
    if (request.body.length === 0) return bulkOutcomes(request, { errors: false, items: [] });
    const send = () =>
      this.#client.request<BulkAnswer>({
        method: 'POST',
        path: `${path}/_bulk`,
        querystring: viaAlias ? { refresh: this.#refresh, require_alias: true } : { refresh: false },
        bulkBody: request.body,
      });
    try {
      let response = await retryStaleSocket(send);
      if (viaAlias && aliasMissing(response.body)) {
        await this.#createFirstIndex();
        response = await retryStaleSocket(send);
      }
      return bulkOutcomes(request, response.body);
    } catch (error) {
      const reason = `bulk request failed: ${error instanceof Error ? error.name : 'unknown error'}`;
      return request.slots.map((slot) =>
        'rejected' in slot ? { status: 'rejected', reason: slot.rejected } : { status: 'retryable', reason },
      );
    }
  }

  /**
   * Runs a read. A missing alias (a domain nothing was indexed into yet) is the search engine being
   * unavailable; a 400 is the query being refused.
   */
  async #read<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await this.#call(request);
    } catch (error) {
      if (responseErrorType(error) === INDEX_MISSING) {
        throw new SearchUnavailableError('The search index does not exist yet', { cause: error });
      }
      if (responseStatus(error) === 400)
        throw new SearchRejectedError('OpenSearch refused the search', { cause: error });
      throw error;
    }
  }

  /** Runs a read for which a missing alias means "nothing indexed": `undefined`. */
  async #readOrMissing<T>(request: () => Promise<T>): Promise<T | undefined> {
    try {
      return await this.#call(request);
    } catch (error) {
      if (responseErrorType(error) === INDEX_MISSING) return undefined;
      throw error;
    }
  }

  /**
   * Runs an idempotent request (once more after a stale socket); an unreachable, timed-out or overloaded
   * engine becomes {@link SearchUnavailableError}.
   */
  async #call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await retryStaleSocket(request);
    } catch (error) {
      if (isTransientClientError(error)) {
        throw new SearchUnavailableError('The search engine is unavailable', { cause: error });
      }
      throw error;
    }
  }
}

/**
 * The OpenSearch engine: the production {@link SearchIndex}.
 *
 * The functions address an alias (`jobs`), never a concrete index. The alias points at one versioned
 * concrete index (`jobs-v0`, `jobs-v1732…-…`), which is also its write index; a rebuild fills a new one
 * beside it and moves the alias in one atomic `POST /_aliases`, so search never sees a half-built index
 * (see ./alias-bodies.ts for why the alias can never end on two indices). Requests:
 *
 * - deploy time ({@link OpenSearchSearchIndex.prepare}): `HEAD /{alias}`, and on a new domain
 *   `PUT /{alias}-v0` with the mapping and the alias, so a new stage serves from its first request.
 * - search: `POST /{alias}/_search` only. A missing alias is an index that holds nothing yet: the empty
 *   page (docs/contract.md §7), never an unavailable engine.
 * - indexer: `POST /{alias}/_bulk?require_alias=true` with external versions. `require_alias` makes
 *   OpenSearch refuse to auto-create an index with a dynamic mapping; should it report the alias missing
 *   (an index deleted by hand), the indexer creates `{alias}-v0` as at deploy time and sends the bulk again.
 * - rebuild (the operator's `reindex`): create `{alias}-v<ms>-<random>`, bulk into it, refresh, read where
 *   the alias points, swap, then delete the indices the alias left.
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
import { concreteIndexName, FIRST_INDEX_VERSION, firstIndexBody, swapBody } from './alias-bodies';
import type { AliasesResponse, GetResponse, SearchRequestBody } from './api-types';
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

  /** Runs a search; before the alias exists (nothing was ever indexed), the answer is the empty page. */
  public async search(query: SearchQuery): Promise<SearchResult> {
    const response = await this.#search(() =>
      this.#client.request<SearchAnswer<SummarySource>>({
        method: 'POST',
        path: `${this.#aliasPath}/_search`,
        body: searchBody(query),
      }),
    );
    return response === undefined ? { total: 0, jobs: [] } : searchPage(response.body);
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

  /**
   * Builds the new index, then swaps: the alias's targets are read right before the swap (so the ones
   * deleted afterwards are the ones the swap took the alias from), the swap itself removes the alias from
   * whatever carries it when OpenSearch applies it, and the new index becomes the alias's write index.
   * A rebuild that another one overtook (its index lost the alias again before it looked) deletes its own
   * index too. See docs/deploy.md for two `reindex` runs at once.
   */
  public async rebuild<T>(fill: (writer: IndexWriter) => Promise<T>): Promise<T> {
    const fresh = concreteIndexName(this.#alias, `${Date.now()}-${crypto.randomUUID().slice(0, 8)}`);
    const freshPath = `/${pathSegment(fresh)}`;
    await this.#call(() => this.#client.request({ method: 'PUT', path: freshPath, body: INDEX_DEFINITION }));
    let result: T;
    let swapSent = false;
    let previous: string[];
    try {
      result = await fill({ apply: (operations) => this.#bulk(freshPath, operations, false) });
      await this.#call(() => this.#client.request({ method: 'POST', path: `${freshPath}/_refresh` }));
      swapSent = true;
      previous = await this.#swap(fresh);
    } catch (error) {
      await this.#discard(fresh, swapSent);
      throw error;
    }
    const now = await this.#call(() => this.#aliasTargets());
    // `{alias}-v0` too: a first-index creation may have put the alias on it after the read above.
    const left = [...previous, concreteIndexName(this.#alias, FIRST_INDEX_VERSION), fresh];
    await this.#delete([...new Set(left)].filter((index) => !now.indices.includes(index)));
    return result;
  }

  public async clear(): Promise<void> {
    await this.rebuild(async () => undefined);
  }

  /**
   * Makes sure the alias exists, as the deployment does before the API serves: unless the name already
   * answers (the alias, or a concrete index of an older deployment), creates the first concrete index
   * `{alias}-v0` with the mapping and the alias as its write index. Idempotent, and safe beside writers,
   * other creations and rebuilds: a creation that lost a race to one of them is fine when the alias exists
   * afterwards. Resolves with whether it created the index.
   */
  public async prepare(): Promise<'created' | 'existed'> {
    if (await this.#exists()) return 'existed';
    let failure: unknown;
    try {
      await this.#call(() => this.#createFirstIndex());
    } catch (error) {
      failure = error;
    }
    if (await this.#exists()) return failure === undefined ? 'created' : 'existed';
    throw new Error(
      `The alias ${this.#alias} could not be created` +
        (failure === undefined
          ? ` (an index ${concreteIndexName(this.#alias, FIRST_INDEX_VERSION)} without it exists)`
          : ''),
      { cause: failure },
    );
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
    return { indices: [], legacy: await this.#exists() };
  }

  /**
   * Reads where the alias points, then swaps; resolves with the indices it pointed at. Two swaps OpenSearch
   * resolved against the same cluster state would give the alias two write indices, so it refuses the
   * later one (`illegal_state_exception`); sent again, that one resolves against the state the first left.
   */
  async #swap(fresh: string): Promise<string[]> {
    const send = async (): Promise<string[]> => {
      const live = await this.#call(() => this.#aliasTargets());
      const body = swapBody(this.#alias, fresh, live.legacy);
      await this.#call(() => this.#client.request({ method: 'POST', path: '/_aliases', body }));
      return live.indices;
    };
    try {
      return await send();
    } catch (error) {
      const cause = error instanceof SearchUnavailableError ? error.cause : error;
      if (responseErrorType(cause) !== 'illegal_state_exception') throw error;
      return send();
    }
  }

  /** Whether the alias's name answers: an alias or a concrete index (`HEAD /{alias}`). */
  async #exists(): Promise<boolean> {
    const found = await this.#call(() =>
      this.#client.request<boolean>({ method: 'HEAD', path: this.#aliasPath, ignore: [404] }),
    );
    return found.body === true;
  }

  /**
   * Removes a rebuild's index that did not go live. When the swap was sent, its answer may have been lost
   * though OpenSearch applied it: the index is kept if the alias points at it.
   */
  async #discard(fresh: string, swapSent: boolean): Promise<void> {
    try {
      if (swapSent && (await this.#aliasTargets()).indices.includes(fresh)) return;
      await this.#delete([fresh]);
    } catch {
      // The rebuild's own failure is what the caller needs; an unused index costs only space.
    }
  }

  /** Deletes concrete indices; one already gone (another rebuild deleted it) is no error. */
  async #delete(indices: string[]): Promise<void> {
    if (indices.length === 0) return;
    await this.#call(() =>
      this.#client.request({
        method: 'DELETE',
        path: `/${indices.map(pathSegment).join(',')}`,
        querystring: { ignore_unavailable: true },
        ignore: [404],
      }),
    );
  }

  /**
   * Creates the first concrete index with its mapping and the alias as its write index; another writer
   * may have created it already. OpenSearch refuses it when the alias already has a write index elsewhere.
   */
  async #createFirstIndex(): Promise<void> {
    try {
      await this.#client.request({
        method: 'PUT',
        path: `/${pathSegment(concreteIndexName(this.#alias, FIRST_INDEX_VERSION))}`,
        body: firstIndexBody(this.#alias),
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
   * Runs a search. A missing alias (a domain that holds no index yet) is `undefined`: nothing to find;
   * a 400 is the query being refused.
   */
  async #search<T>(request: () => Promise<T>): Promise<T | undefined> {
    try {
      return await this.#readOrMissing(request);
    } catch (error) {
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

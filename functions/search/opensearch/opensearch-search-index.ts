/**
 * The OpenSearch engine: the production {@link SearchIndex}.
 *
 * The functions address an alias (`jobs`), never a concrete index. The alias points at one versioned
 * concrete index (`jobs-v0`, `jobs-v1732…-…`), which is also its write index; a rebuild fills a new one
 * beside it and moves the alias in one atomic `POST /_aliases`, so search never sees a half-built index
 * (see ./alias-bodies.ts for why the alias can never end on two indices). Requests:
 *
 * - deploy time ({@link OpenSearchSearchIndex.prepare}): `PUT /_cluster/settings` refusing the automatic
 *   creation of the alias's names (./auto-create.ts), `HEAD /{alias}`, and on a new domain `PUT /{alias}-v0`
 *   with the mapping and the alias, so a new stage serves from its first request.
 * - search: `POST /{alias}/_search` only. A missing alias is an index that holds nothing yet: the empty
 *   page (docs/contract.md §7), never an unavailable engine.
 * - indexer: `POST /{alias}/_bulk?require_alias=true` with external versions. Neither `require_alias` (which
 *   OpenSearch applies to upserts, not deletes) nor anything else in the request keeps OpenSearch from creating
 *   a missing index: the cluster setting made at deploy time does (./auto-create.ts). Should the bulk report
 *   the alias missing (an index deleted by hand), the indexer creates `{alias}-v0` as at deploy time and sends
 *   the bulk again.
 * - rebuild (the operator's `reindex`): create `{alias}-v<ms>-<random>`, bulk into it, refresh, read where
 *   the alias points, swap unless a newer rebuild's index is live, then delete every older index no alias
 *   names (`GET /{alias}-v*\/_alias`, then `DELETE`).
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
  SearchUnavailableError,
} from '../search-index';
import {
  concreteIndexName,
  FIRST_INDEX_VERSION,
  firstIndexBody,
  MAX_SWAP_ATTEMPTS,
  SWAP_RACES,
  swapBody,
} from './alias-bodies';
import { autoCreateSettingsBody } from './auto-create';
import { RebuildSupersededError } from './errors';
import type { AliasesResponse, GetResponse, SearchRequestBody } from './api-types';
import { aliasMissing, type BulkAnswer, bulkOutcomes, type BulkRequest, bulkRequests, INDEX_MISSING } from './bulk';
import { createClient, type OpenSearchClient, pathSegment, responseErrorType, retryStaleSocket } from './client';
import { callEngine, readOrMissing, searchOrMissing } from './engine-calls';
import { FIELDS, INDEX_DEFINITION } from './index-definition';
import { indexAliases, inspectAlias, listIndices, multiGet } from './index-inspection';
import { indexVersion, newestOf, olderThan, retiredIndices } from './index-versions';
import type { IndexedDocument } from './indexed-document';
import { searchBody } from './search-body';
import { hitVersions, type SearchAnswer, type SummarySource, searchPage } from './search-response';

const VERSIONS_PAGE_SIZE = 1_000;

/** A {@link SearchIndex} on an OpenSearch alias. */
export class OpenSearchSearchIndex implements SearchIndex {
  readonly #client: OpenSearchClient;
  readonly #alias: string;
  /** The alias's path, `/<alias>`. */
  readonly #aliasPath: string;
  readonly #refresh: boolean;
  /** The time budget of a `_bulk` request. */
  readonly #writeTimeoutMs: number;

  public constructor(settings: OpenSearchSettings) {
    this.#client = createClient(settings);
    this.#writeTimeoutMs = settings.writeTimeoutMs ?? settings.timeoutMs;
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
    const response = await searchOrMissing(() =>
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
      const response = await readOrMissing(() =>
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
    const response = await readOrMissing(() =>
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
    return (await readOrMissing(() => multiGet(this.#client, this.#alias, jobIds))) ?? new Map();
  }

  /** The alias's indices and document count, and the `{alias}-v*` indices beside them that it does not name. */
  public async health(): Promise<IndexHealth> {
    const health = await callEngine(() => inspectAlias(this.#client, this.#alias));
    const all = await callEngine(() => listIndices(this.#client, concreteIndexName(this.#alias, '*')));
    const unaliased = all.filter((index) => !health.indices.includes(index.name));
    return { ...health, unaliased };
  }

  /**
   * Builds the new index, then swaps: the alias moves from the indices it was read on to the new one in one
   * `_aliases` request that OpenSearch refuses should another swap or a first-index creation land between
   * the read and the swap (./alias-bodies.ts), and is then read again. A rebuild never moves the alias onto an
   * index older than the live one: when a newer rebuild went live first, this one's index is retired instead.
   * Last, every `{alias}-v*` index older than the live one that no alias names is deleted — the ones the swap
   * retired, a first index that lost a race, an overtaken rebuild's — never a newer one, which a concurrent
   * rebuild may be filling (that rebuild deletes this one's index when it swaps). See docs/deploy.md.
   */
  public async rebuild<T>(fill: (writer: IndexWriter) => Promise<T>): Promise<T> {
    const fresh = concreteIndexName(this.#alias, `${Date.now()}-${crypto.randomUUID().slice(0, 8)}`);
    const freshPath = `/${pathSegment(fresh)}`;
    await callEngine(() => this.#client.request({ method: 'PUT', path: freshPath, body: INDEX_DEFINITION }));
    let result: T;
    let swapSent = false;
    let swapped: { live: string; previous: string[] };
    try {
      result = await fill({ apply: (operations) => this.#bulk(freshPath, operations, false) });
      await callEngine(() => this.#client.request({ method: 'POST', path: `${freshPath}/_refresh` })).catch(
        (error: unknown) => {
          throw responseErrorType(error) === INDEX_MISSING ? new RebuildSupersededError(fresh) : error;
        },
      );
      swapSent = true;
      swapped = await this.#swap(fresh);
    } catch (error) {
      await this.#discard(fresh, swapSent);
      throw error;
    }
    await this.#retire(swapped.live, swapped.previous);
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
    await callEngine(() =>
      this.#client.request({ method: 'PUT', path: '/_cluster/settings', body: autoCreateSettingsBody(this.#alias) }),
    );
    if (await this.#exists()) return 'existed';
    let failure: unknown;
    try {
      await callEngine(() => this.#createFirstIndex());
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
   * Reads where the alias points and, unless a newer rebuild's index is live, swaps; reads again when the
   * swap lost a race. Resolves with the index the alias is on afterwards (`fresh`, or the newer one) and the
   * indices the swap took it from.
   */
  async #swap(fresh: string): Promise<{ live: string; previous: string[] }> {
    const version = indexVersion(this.#alias, fresh) as NonNullable<ReturnType<typeof indexVersion>>;
    for (let attempt = 1; ; attempt += 1) {
      const live = await callEngine(() => this.#aliasTargets());
      const newest = newestOf(this.#alias, live.indices);
      if (newest !== undefined && olderThan(version, newest.version)) return { live: newest.name, previous: [] };
      try {
        const body = swapBody(this.#alias, fresh, live.indices, live.legacy);
        await callEngine(() => this.#client.request({ method: 'POST', path: '/_aliases', body }));
        return { live: fresh, previous: live.indices };
      } catch (error) {
        const cause = error instanceof SearchUnavailableError ? error.cause : error;
        if (!SWAP_RACES.has(responseErrorType(cause) ?? '') || attempt === MAX_SWAP_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * Deletes the `{alias}-v*` indices no alias names that are older than `live` or that the swap took the
   * alias from (`previous`: also an index of a name this project never makes, put under the alias by hand).
   */
  async #retire(live: string, previous: readonly string[]): Promise<void> {
    const version = indexVersion(this.#alias, live);
    const all = await callEngine(() => indexAliases(this.#client, concreteIndexName(this.#alias, '*')));
    const older = version === undefined ? [] : retiredIndices(this.#alias, version, all);
    const left = previous.filter((index) => all.get(index)?.length === 0);
    await this.#delete([...new Set([...older, ...left])].sort());
  }

  /** Whether the alias's name answers: an alias or a concrete index (`HEAD /{alias}`). */
  async #exists(): Promise<boolean> {
    const found = await callEngine(() =>
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
    await callEngine(() =>
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

  /**
   * Writes operations with `_bulk` requests of at most 5 MiB each (./bulk.ts), one after the other: through the
   * alias (`viaAlias`), or into a rebuild's own index. Each operation's outcome comes from the request that
   * carried it.
   */
  async #bulk(path: string, operations: IndexOperation[], viaAlias: boolean): Promise<IndexOutcome[]> {
    const outcomes: IndexOutcome[] = [];
    for (const request of bulkRequests(operations)) outcomes.push(...(await this.#bulkOnce(path, request, viaAlias)));
    return outcomes;
  }

  /**
   * One `_bulk` request, which throws {@link RebuildSupersededError} when it writes into a rebuild's index and
   * OpenSearch answers that the index is gone.
   */
  async #bulkOnce(path: string, request: BulkRequest, viaAlias: boolean): Promise<IndexOutcome[]> {
    if (request.body.length === 0) return bulkOutcomes(request, { errors: false, items: [] });
    const send = () =>
      this.#client.request<BulkAnswer>({
        method: 'POST',
        path: `${path}/_bulk`,
        querystring: viaAlias ? { refresh: this.#refresh, require_alias: true } : { refresh: false },
        bulkBody: request.body,
        timeoutMs: this.#writeTimeoutMs,
      });
    let response: BulkAnswer;
    try {
      response = (await retryStaleSocket(send)).body;
      if (viaAlias && aliasMissing(response)) {
        // No alias (an index deleted by hand): make the first index, as at deploy time, and write again.
        await this.#createFirstIndex();
        response = (await retryStaleSocket(send)).body;
      }
    } catch (error) {
      const reason = `bulk request failed: ${error instanceof Error ? error.name : 'unknown error'}`;
      return request.slots.map((slot) =>
        'rejected' in slot ? { status: 'rejected', reason: slot.rejected } : { status: 'retryable', reason },
      );
    }
    if (!viaAlias && aliasMissing(response)) throw new RebuildSupersededError(decodeURIComponent(path.slice(1)));
    return bulkOutcomes(request, response);
  }
}

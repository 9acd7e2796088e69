/**
 * A fake OpenSearch node for unit tests of the OpenSearch client and engine: a local `node:http`
 * server that records every request and answers with whatever `reply` returns.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** One request as the fake node received it. */
export interface RecordedRequest {
  method: string;
  /** The request target as sent: path and query string. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  contentType: string | undefined;
  body: string;
}

/** The fake node's answer: a status and an optional JSON body (never sent for HEAD). */
export interface FakeReply {
  status: number;
  body?: unknown;
  /** Reset the connection instead of answering (what a client sees on a socket the server had closed). */
  reset?: boolean;
  /** Answer only after this many milliseconds (a slow node). */
  delayMs?: number;
}

/** Decides the answer to one request. */
export type ReplyTo = (request: RecordedRequest) => FakeReply;

/** A fake OpenSearch node: records every request and answers with `reply`. */
export class FakeOpenSearchNode {
  public readonly requests: RecordedRequest[] = [];
  public reply: ReplyTo;
  readonly #server: Server;

  readonly #scheme: 'http' | 'https';

  /**
   * @param reply the answer until a test sets another.
   * @param tls serve HTTPS with this key and certificate (a domain's endpoint is always `https://`).
   */
  public constructor(reply: ReplyTo, tls?: { key: Buffer; cert: Buffer }) {
    this.reply = reply;
    const handle = (request: IncomingMessage, response: ServerResponse): void => this.#handle(request, response);
    this.#server = tls === undefined ? createServer(handle) : createTlsServer(tls, handle);
    this.#scheme = tls === undefined ? 'http' : 'https';
  }

  /** Listens on a free loopback port; resolves to the node's URL. */
  public async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `${this.#scheme}://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  public async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** The requests other than HEAD (the engine's index-exists probe). */
  public calls(): RecordedRequest[] {
    return this.requests.filter((request) => request.method !== 'HEAD');
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = new URL(request.url ?? '/', 'http://fake');
      const recorded: RecordedRequest = {
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        path: target.pathname,
        query: target.searchParams,
        headers: request.headers,
        contentType: request.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      };
      this.requests.push(recorded);
      const reply = this.reply(recorded);
      if (reply.reset === true) {
        request.socket.resetAndDestroy();
        return;
      }
      const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
      const answer = (): void => {
        if (response.destroyed) return;
        response.writeHead(reply.status, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        });
        response.end(request.method === 'HEAD' ? undefined : payload);
      };
      if (reply.delayMs === undefined) answer();
      else setTimeout(answer, reply.delayMs);
    });
  }
}

/** One document of a {@link FakeOpenSearchCluster} index: its external version, and its source unless deleted. */
interface StoredDocument {
  version: number;
  source?: unknown;
}

/** One concrete index of a {@link FakeOpenSearchCluster}. */
interface ClusterIndex {
  /** The index's aliases, each with its `is_write_index` flag when one was given. */
  aliases: Map<string, { isWriteIndex?: boolean }>;
  /** Every document and delete tombstone, as written. */
  docs: Map<string, StoredDocument>;
  /** What searches see: the documents as of the last refresh. */
  searchable: Map<string, StoredDocument>;
}

type Json = Record<string, unknown>;

/** OpenSearch's error body: `{ error: { root_cause, type, reason }, status }`. */
const failure = (status: number, type: string, reason: string): FakeReply => ({
  status,
  body: { error: { root_cause: [{ type, reason }], type, reason }, status },
});

const indexMissing = (name: string): FakeReply => failure(404, 'index_not_found_exception', `no such index [${name}]`);

const wildcard = (pattern: string): RegExp =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);

const namesOf = (value: unknown): string[] => [value ?? []].flat().map(String);

/** Thrown inside a request to answer it with an OpenSearch error, changing nothing. */
class Refusal extends Error {
  public constructor(public readonly reply: FakeReply) {
    super(JSON.stringify(reply.body));
  }
}

/**
 * A fake OpenSearch cluster for unit tests: it keeps cluster state — concrete indices, their aliases and
 * write-index flags, documents with external versions — and answers the engine's requests as an OpenSearch
 * node does (`reply` is its {@link ReplyTo}). What it models, from OpenSearch's published API description,
 * its upstream test stories and the behaviour its source code defines:
 *
 * - `POST /_aliases` resolves each action's indices (wildcards expanded) and, for a `remove`, only the
 *   indices that carry the alias, then applies the actions in order, atomically (a refused request changes
 *   nothing); `must_exist: true` refuses a removal whose alias an earlier action of the request already took
 *   away; `remove_index` deletes the index. An alias may have one write index only (a second is refused with
 *   `illegal_state_exception`, as is an index created with the alias as a second write index). Resolution and
 *   application happen at one moment here; OpenSearch resolves on the cluster manager and applies in the
 *   next cluster-state update, so of two swaps resolved against the same state the later is refused by that
 *   write-index check instead of leaving two indices (the engine's rebuild then fails, changing nothing).
 * - A search of an alias reads every index behind it. A write through an alias goes to its write index, or
 *   to its only index when that one's flag is not `false`; with several indices and none the write index,
 *   every bulk item is refused with OpenSearch's `illegal_argument_exception` (`no write index is defined
 *   for alias`).
 * - A bulk to a name that is neither an alias nor an index, as OpenSearch's `TransportBulkAction` treats it:
 *   the index is auto-created (empty, no aliases, dynamic mapping) when an item asks for it — an `index`
 *   item without `require_alias=true` (the request's flag applies to `index`, `create` and `update` items
 *   only: `DeleteRequest.isRequireAlias()` is always false), or a `delete` with an external version (a
 *   delete without one never creates) — and the cluster's `action.auto_create_index` allows the name
 *   (`true`, `false`, or `+`/`-` patterns where the first match decides, as `AutoCreateIndex` reads them;
 *   set with `PUT /_cluster/settings`). The request's `require_alias` flags of one name are OR-ed, so a bulk
 *   mixing a delete with an index item under `require_alias=true` creates nothing. Then each item is
 *   answered on its own: an `index` item under `require_alias=true` whose target is not an alias is
 *   `index_not_found_exception` (404, `[require_alias] request flag is [true]`); an item whose index does not
 *   exist is `index_not_found_exception` (404, with the auto-creation refusal's reason when there was one).
 * - External versions (`external_gte`): an older version is a `version_conflict_engine_exception` (409);
 *   deletes leave a tombstone with their version.
 * - Searches see what the last refresh (or a `refresh=true` bulk) made visible.
 * - `GET /{pattern}/_alias` answers every index the pattern names with all its aliases (`{}` when a wildcard
 *   names none); `GET /_cat/indices/{pattern}?format=json&bytes=b` each index's name, live document count and
 *   a store size in bytes (its sources' JSON plus a small empty-index size: a stand-in, not Lucene's).
 *
 * It evaluates no query: every search matches every searchable document of the indices it reads (sorted
 * by `jobId` when the body sorts on it), which is what tests of the cluster's state need.
 */
export class FakeOpenSearchCluster {
  public readonly indices = new Map<string, ClusterIndex>();
  /** The cluster's `action.auto_create_index` setting (OpenSearch's default: `true`). */
  public autoCreateIndex = 'true';
  /** The indices OpenSearch would have created by itself (auto-creation on a write), in order. */
  public readonly autoCreated: string[] = [];
  /** Called before each request is answered (a test can change the state between two requests). */
  public beforeRequest: (request: RecordedRequest) => void = () => undefined;

  /** The indices an alias points at, in name order. */
  public aliasTargets(alias: string): string[] {
    return [...this.indices]
      .filter(([, index]) => index.aliases.has(alias))
      .map(([name]) => name)
      .sort();
  }

  /** Makes every write to `target` (an index, or the indices of an alias) searchable, as OpenSearch does each second. */
  public refresh(target: string): void {
    for (const name of this.#readTargets(target)) this.#refresh(name);
  }

  /** Creates an index directly in the state (a test's setup, or another client's write). */
  public createIndex(name: string, aliases: Record<string, { is_write_index?: boolean }> = {}): void {
    const refusal = this.#create(name, aliases);
    if (refusal !== undefined) throw new Refusal(refusal);
  }

  /** Answers a request as an OpenSearch node with this state would. */
  public readonly reply: ReplyTo = (request) => {
    this.beforeRequest(request);
    try {
      return this.#answer(request);
    } catch (error) {
      if (error instanceof Refusal) return error.reply;
      throw error;
    }
  };

  #answer(request: RecordedRequest): FakeReply {
    const segments = request.path
      .split('/')
      .filter((part) => part !== '')
      .map(decodeURIComponent);
    const [target = '', operation, id] = segments;
    const body = request.body === '' ? {} : request.body;
    if (request.method === 'HEAD' && segments.length === 1) {
      return { status: this.indices.has(target) || this.aliasTargets(target).length > 0 ? 200 : 404 };
    }
    if (request.method === 'GET' && target === '_alias' && operation !== undefined) {
      const found = this.aliasTargets(operation);
      if (found.length === 0) return { status: 404, body: { error: `alias [${operation}] missing`, status: 404 } };
      return { status: 200, body: Object.fromEntries(found.map((name) => [name, this.#aliasesOf(name, operation)])) };
    }
    if (request.method === 'PUT' && segments.length === 1) {
      const aliases = ((JSON.parse(body as string) as Json).aliases ?? {}) as Record<string, Json>;
      return (
        this.#create(target, aliases) ?? {
          status: 200,
          body: { acknowledged: true, shards_acknowledged: true, index: target },
        }
      );
    }
    if (request.method === 'PUT' && target === '_cluster' && operation === 'settings') {
      return this.#putSettings(JSON.parse(body as string) as Json);
    }
    if (request.method === 'GET' && target === '_cat' && operation === 'indices') return this.#catIndices(id ?? '*');
    if (request.method === 'GET' && operation === '_alias' && id === undefined) return this.#indexAliases(target);
    if (request.method === 'POST' && target === '_aliases') {
      return this.#updateAliases((JSON.parse(body as string) as { actions: Json[] }).actions);
    }
    if (request.method === 'DELETE' && segments.length === 1) return this.#delete(target, request.query);
    if (request.method === 'POST' && operation === '_bulk') return this.#bulk(target, request);
    if (request.method === 'POST' && operation === '_refresh') {
      for (const name of this.#readTargets(target)) this.#refresh(name);
      return { status: 200, body: { _shards: { total: 1, successful: 1, failed: 0 } } };
    }
    if (request.method === 'POST' && operation === '_search') {
      return this.#search(target, JSON.parse(body as string) as Json);
    }
    if (request.method === 'GET' && operation === '_doc' && id !== undefined) return this.#get(target, id);
    if (request.method === 'GET' && operation === '_count') return this.#count(target);
    if (request.method === 'POST' && operation === '_mget') {
      return this.#multiGet(target, (JSON.parse(body as string) as { ids: string[] }).ids);
    }
    return failure(400, 'fake_not_modelled', `${request.method} ${request.path} is not modelled`);
  }

  #aliasesOf(name: string, only?: string): Json {
    const aliases = this.indices.get(name)?.aliases ?? new Map();
    const shown = [...aliases].filter(([alias]) => only === undefined || alias === only);
    return {
      aliases: Object.fromEntries(
        shown.map(([alias, flags]) => [
          alias,
          flags.isWriteIndex === undefined ? {} : { is_write_index: flags.isWriteIndex },
        ]),
      ),
    };
  }

  /** Creates an index with aliases, or answers why OpenSearch would not. */
  #create(name: string, aliases: Record<string, { is_write_index?: boolean }>): FakeReply | undefined {
    if (this.indices.has(name)) {
      return failure(400, 'resource_already_exists_exception', `index [${name}/fake-uuid] already exists`);
    }
    if (this.aliasTargets(name).length > 0) {
      return failure(400, 'invalid_index_name_exception', `Invalid index name [${name}], already exists as alias`);
    }
    const created: ClusterIndex = { aliases: new Map(), docs: new Map(), searchable: new Map() };
    for (const [alias, flags] of Object.entries(aliases)) {
      if (this.indices.has(alias)) {
        return failure(
          400,
          'invalid_alias_name_exception',
          `Invalid alias name [${alias}]: an index or data stream exists with the same name as the alias`,
        );
      }
      created.aliases.set(alias, flags.is_write_index === undefined ? {} : { isWriteIndex: flags.is_write_index });
    }
    const next = new Map(this.indices).set(name, created);
    const invalid = this.#validate(next);
    if (invalid !== undefined) return invalid;
    this.indices.set(name, created);
    return undefined;
  }

  /** Refuses a state in which an alias has more than one write index, as OpenSearch's metadata does. */
  #validate(state: Map<string, ClusterIndex>): FakeReply | undefined {
    const writers = new Map<string, string[]>();
    for (const [name, index] of state) {
      for (const [alias, flags] of index.aliases) {
        if (flags.isWriteIndex === true) writers.set(alias, [...(writers.get(alias) ?? []), name]);
      }
    }
    for (const [alias, names] of writers) {
      if (names.length > 1) {
        return failure(
          500,
          'illegal_state_exception',
          `alias [${alias}] has more than one write index [${names.join(',')}]`,
        );
      }
    }
    return undefined;
  }

  /**
   * `POST /_aliases`, as OpenSearch's transport action does it: each action's indices (wildcards expanded)
   * and, for `remove`, the aliases those indices carry are resolved against the current state; no resolved
   * action at all is `aliases_not_found_exception`. The resolved actions then apply in order to a copy of
   * the state, which replaces it only if every one applies and no alias ends with two write indices.
   */
  #updateAliases(actions: Json[]): FakeReply {
    type Resolved =
      | { type: 'add'; index: string; alias: string; isWriteIndex?: boolean }
      | { type: 'remove'; index: string; alias: string; mustExist: boolean }
      | { type: 'remove_index'; index: string };
    const resolved: Resolved[] = [];
    const requested: string[] = [];
    for (const entry of actions) {
      const [type, action] = Object.entries(entry)[0] as [string, Json];
      const aliases = [...namesOf(action.alias), ...namesOf(action.aliases)];
      requested.push(...aliases);
      const indices = [...namesOf(action.index), ...namesOf(action.indices)].flatMap((pattern) => {
        if (pattern.includes('*')) return [...this.indices.keys()].filter((name) => wildcard(pattern).test(name));
        if (!this.indices.has(pattern)) throw new Refusal(indexMissing(pattern));
        return [pattern];
      });
      for (const index of indices) {
        if (type === 'add') {
          const flag = action.is_write_index as boolean | undefined;
          for (const alias of aliases)
            resolved.push({ type, index, alias, ...(flag === undefined ? {} : { isWriteIndex: flag }) });
        } else if (type === 'remove') {
          const carried = aliases.filter((alias) => this.indices.get(index)?.aliases.has(alias));
          for (const alias of carried) resolved.push({ type, index, alias, mustExist: action.must_exist === true });
        } else if (type === 'remove_index') {
          resolved.push({ type, index });
        } else {
          return failure(400, 'x_content_parse_exception', `unknown alias action [${type}]`);
        }
      }
    }
    if (resolved.length === 0)
      return failure(404, 'aliases_not_found_exception', `aliases [${requested.join(',')}] missing`);
    const state = new Map(
      [...this.indices].map(([name, index]) => [name, { ...index, aliases: new Map(index.aliases) }]),
    );
    for (const action of resolved) {
      const index = state.get(action.index);
      if (index === undefined) return indexMissing(action.index);
      if (action.type === 'add') {
        if (state.has(action.alias)) {
          return failure(
            400,
            'invalid_alias_name_exception',
            `Invalid alias name [${action.alias}]: an index or data stream exists with the same name as the alias`,
          );
        }
        index.aliases.set(action.alias, action.isWriteIndex === undefined ? {} : { isWriteIndex: action.isWriteIndex });
      } else if (action.type === 'remove') {
        if (!index.aliases.delete(action.alias) && action.mustExist) {
          return failure(404, 'aliases_not_found_exception', `aliases [${action.alias}] missing`);
        }
      } else {
        state.delete(action.index);
      }
    }
    const invalid = this.#validate(state);
    if (invalid !== undefined) return invalid;
    this.indices.clear();
    for (const [name, index] of state) this.indices.set(name, index);
    return { status: 200, body: { acknowledged: true } };
  }

  /** `DELETE /{a,b}`: every named index, or (one missing, without `ignore_unavailable`) none. */
  #delete(target: string, query: URLSearchParams): FakeReply {
    const names = target.split(',');
    const missing = names.find((name) => !this.indices.has(name));
    if (missing !== undefined && query.get('ignore_unavailable') !== 'true') return indexMissing(missing);
    for (const name of names) this.indices.delete(name);
    return { status: 200, body: { acknowledged: true } };
  }

  /** The indices a read of `target` reads: the index, or every index behind the alias. */
  #readTargets(target: string): string[] {
    if (this.indices.has(target)) return [target];
    const behind = this.aliasTargets(target);
    if (behind.length === 0) throw new Refusal(indexMissing(target));
    return behind;
  }

  /**
   * Whether OpenSearch would auto-create `name` on a write, or the `index_not_found_exception` reason of its
   * refusal (`AutoCreateIndex.shouldAutoCreate`).
   */
  #autoCreation(name: string): true | string {
    const setting = this.autoCreateIndex.trim();
    if (setting === 'true') return true;
    if (setting === 'false') return `no such index [${name}] and [action.auto_create_index] is [false]`;
    for (const pattern of setting.split(',').map((part) => part.trim())) {
      const include = !pattern.startsWith('-');
      const expression = pattern.replace(/^[+-]/, '');
      if (wildcard(expression).test(name)) {
        if (include) return true;
        return `no such index [${name}] and [action.auto_create_index] contains [-${expression}] which forbids automatic creation of the index`;
      }
    }
    return `no such index [${name}] and [action.auto_create_index] ([${setting}]) doesn't match`;
  }

  /** The index a write through an alias goes to, or the refusal OpenSearch answers each item with. */
  #aliasWriteTarget(target: string, behind: string[]): string | { status: number; error: Json } {
    const flagged = behind.find((name) => this.indices.get(name)?.aliases.get(target)?.isWriteIndex === true);
    if (flagged !== undefined) return flagged;
    const [only] = behind;
    if (
      behind.length === 1 &&
      only !== undefined &&
      this.indices.get(only)?.aliases.get(target)?.isWriteIndex !== false
    ) {
      return only;
    }
    return {
      status: 400,
      error: {
        type: 'illegal_argument_exception',
        reason:
          `no write index is defined for alias [${target}]. The write index may be explicitly disabled using ` +
          'is_write_index=false or the alias points to multiple indices without one being designated as a write index',
      },
    };
  }

  #bulk(target: string, request: RecordedRequest): FakeReply {
    const lines = request.body
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Json);
    const requireAlias = request.query.get('require_alias') === 'true';
    const actions: { action: string; meta: Json; source?: unknown }[] = [];
    for (let position = 0; position < lines.length; position += 1) {
      const [action, meta] = Object.entries(lines[position] as Json)[0] as [string, Json];
      actions.push({ action, meta, ...(action === 'index' ? { source: lines[++position] } : {}) });
    }
    // Step 1 of OpenSearch's bulk: a name neither alias nor index is auto-created before any item runs,
    // when an item asks for it (not a delete without an external version) and none requires an alias.
    let cannotCreate: string | undefined;
    const isAlias = this.aliasTargets(target).length > 0;
    if (!isAlias && !this.indices.has(target)) {
      const creating = actions.filter(
        ({ action, meta }) => action !== 'delete' || String(meta.version_type ?? '').startsWith('external'),
      );
      if (creating.length > 0) {
        const decision = this.#autoCreation(target);
        const aliasRequired = requireAlias && creating.some(({ action }) => action !== 'delete');
        if (decision !== true) cannotCreate = decision;
        else if (!aliasRequired) {
          this.#create(target, {});
          this.autoCreated.push(target);
        }
      }
    }
    const behind = this.aliasTargets(target);
    const items: Json[] = [];
    for (const { action, meta, source } of actions) {
      const docId = String(meta._id);
      const refuse = (status: number, error: Json): void => {
        items.push({ [action]: { _index: target, _id: docId, status, error } });
      };
      if (requireAlias && action !== 'delete' && behind.length === 0) {
        refuse(404, {
          type: 'index_not_found_exception',
          reason: `no such index [${target}] and [require_alias] request flag is [true] and [${target}] is not an alias`,
        });
        continue;
      }
      const resolved = behind.length > 0 ? this.#aliasWriteTarget(target, behind) : target;
      if (typeof resolved !== 'string') {
        refuse(resolved.status, resolved.error);
        continue;
      }
      const index = this.indices.get(resolved);
      if (index === undefined) {
        refuse(404, { type: 'index_not_found_exception', reason: cannotCreate ?? `no such index [${target}]` });
        continue;
      }
      const version = Number(meta.version);
      const stored = index.docs.get(docId);
      if (stored !== undefined && version < stored.version) {
        items.push({
          [action]: {
            _index: resolved,
            _id: docId,
            status: 409,
            error: { type: 'version_conflict_engine_exception', reason: `[${docId}]: version conflict` },
          },
        });
        continue;
      }
      const live = stored?.source !== undefined;
      index.docs.set(docId, action === 'index' ? { version, source } : { version });
      const result = action === 'index' ? (live ? 'updated' : 'created') : live ? 'deleted' : 'not_found';
      const status = action === 'index' ? (live ? 200 : 201) : live ? 200 : 404;
      items.push({ [action]: { _index: resolved, _id: docId, _version: version, result, status } });
      if (request.query.get('refresh') === 'true') this.#refresh(resolved);
    }
    const errors = items.some((item) => (Object.values(item)[0] as Json).error !== undefined);
    return { status: 200, body: { took: 1, errors, items } };
  }

  /** `PUT /_cluster/settings`: the `action.auto_create_index` setting, persistent or transient, flat or nested. */
  #putSettings(body: Json): FakeReply {
    const echoed: Json = { persistent: {}, transient: {} };
    for (const scope of ['persistent', 'transient'] as const) {
      const settings = (body[scope] ?? {}) as Json;
      const nested = (settings.action as Json | undefined)?.auto_create_index;
      const value = settings['action.auto_create_index'] ?? nested;
      const unknown = Object.keys(settings).filter((key) => key !== 'action.auto_create_index' && key !== 'action');
      if (unknown.length > 0) return failure(400, 'fake_not_modelled', `setting [${unknown[0]}] is not modelled`);
      if (value === undefined) continue;
      if (value === null) this.autoCreateIndex = 'true';
      else this.autoCreateIndex = String(value);
      echoed[scope] = { action: { auto_create_index: this.autoCreateIndex } };
    }
    return { status: 200, body: { acknowledged: true, ...echoed } };
  }

  /** `GET /{pattern}/_alias`: every index the pattern names (none is `{}`), each with all its aliases. */
  #indexAliases(pattern: string): FakeReply {
    const names = [...this.indices.keys()].filter((name) =>
      pattern.split(',').some((part) => wildcard(part).test(name)),
    );
    if (names.length === 0 && !pattern.includes('*')) return indexMissing(pattern);
    return { status: 200, body: Object.fromEntries(names.sort().map((name) => [name, this.#aliasesOf(name)])) };
  }

  /** `GET /_cat/indices/{pattern}?format=json&bytes=b`: each index's name, document count and store size. */
  #catIndices(pattern: string): FakeReply {
    const names = [...this.indices.keys()].filter((name) =>
      pattern.split(',').some((part) => wildcard(part).test(name)),
    );
    return {
      status: 200,
      body: names.sort().map((name) => {
        const docs = [...(this.indices.get(name)?.docs.values() ?? [])].filter((stored) => stored.source !== undefined);
        // A size in bytes as the store would count it: the sources' JSON, plus an empty index's few kilobytes.
        const bytes = 208 + docs.reduce((sum, stored) => sum + JSON.stringify(stored.source).length, 0);
        return { index: name, 'docs.count': String(docs.length), 'store.size': String(bytes) };
      }),
    };
  }

  #refresh(name: string): void {
    const index = this.indices.get(name);
    if (index !== undefined) index.searchable = new Map(index.docs);
  }

  #search(target: string, body: Json): FakeReply {
    const hits = this.#readTargets(target).flatMap((name) =>
      [...(this.indices.get(name)?.searchable ?? [])]
        .filter(([, stored]) => stored.source !== undefined)
        .map(([docId, stored]) => ({ _index: name, _id: docId, stored })),
    );
    const byJobId = JSON.stringify(body.sort ?? '').includes('jobId');
    if (byJobId) hits.sort((a, b) => Number(a._id) - Number(b._id));
    const after = (body.search_after as number[] | undefined)?.[0];
    const from = Number(body.from ?? 0);
    const page = hits
      .filter((hit) => after === undefined || Number(hit._id) > after)
      .slice(from, from + Number(body.size ?? 10));
    return {
      status: 200,
      body: {
        took: 1,
        timed_out: false,
        hits: {
          total: { value: hits.length, relation: 'eq' },
          hits: page.map((hit) => ({
            _index: hit._index,
            _id: hit._id,
            ...(body.version === true ? { _version: hit.stored.version } : {}),
            ...(body._source === false ? {} : { _source: hit.stored.source }),
            ...(byJobId ? { sort: [Number(hit._id)] } : {}),
          })),
        },
      },
    };
  }

  /** `_count` without a query: the searchable documents of every index behind the target. */
  #count(target: string): FakeReply {
    const names = this.#readTargets(target);
    const count = names
      .flatMap((name) => [...(this.indices.get(name)?.searchable.values() ?? [])])
      .filter((stored) => stored.source !== undefined).length;
    return { status: 200, body: { count, _shards: { total: names.length, successful: names.length, failed: 0 } } };
  }

  /** `_mget` by ids: each as a real-time `GET /_doc` answers it, a failure per id (an alias on several indices). */
  #multiGet(target: string, ids: string[]): FakeReply {
    const docs = ids.map((docId) => {
      const answer = this.#get(target, docId).body as Json;
      return answer.error === undefined ? answer : { _index: target, _id: docId, error: answer.error };
    });
    return { status: 200, body: { docs } };
  }

  #get(target: string, docId: string): FakeReply {
    const behind = this.#readTargets(target);
    const [only] = behind;
    if (behind.length > 1 || only === undefined) {
      return failure(
        400,
        'illegal_argument_exception',
        `alias [${target}] has more than one index associated with it [${behind.join(', ')}], can't execute a single index op`,
      );
    }
    const stored = this.indices.get(only)?.docs.get(docId);
    if (stored?.source === undefined) return { status: 404, body: { _index: only, _id: docId, found: false } };
    return {
      status: 200,
      body: { _index: only, _id: docId, _version: stored.version, found: true, _source: stored.source },
    };
  }
}

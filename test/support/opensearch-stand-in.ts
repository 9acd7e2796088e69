/**
 * A recording OpenSearch stand-in for the operator's commands: an in-memory node (concrete indices of
 * documents with external versions, aliases) that answers the requests `reindex`, `verify-index` and `status`
 * send — create, `_bulk`, `_refresh`, `_aliases`, delete, `_alias`, `_count`, the version scan of `_search`
 * (`search_after`) and `_mget` — the way OpenSearch answers them, including an alias on several indices.
 * Every request is checked against OpenSearch's published API description (./opensearch-witness.ts) and
 * recorded. It serves HTTP, or HTTPS with a throwaway self-signed certificate (a domain's endpoint is
 * always `https://`), so a CLI process can reach it through `NODE_EXTRA_CA_CERTS`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSearchApiProblems } from './opensearch-witness';

type Json = Record<string, unknown>;

/** One request as the stand-in received it. */
export interface StandInRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
}

interface StoredDocument {
  version: number;
  source: Json;
}

interface Answer {
  status: number;
  body?: unknown;
}

const error = (status: number, type: string, reason: string): Answer => ({
  status,
  body: { error: { root_cause: [{ type, reason }], type, reason }, status },
});

/** A self-signed certificate for 127.0.0.1, made with the system's openssl; the file to trust it by. */
const selfSignedCertificate = (): { key: Buffer; cert: Buffer; certFile: string; directory: string } => {
  const directory = mkdtempSync(join(tmpdir(), 'opensearch-stand-in-'));
  const keyFile = join(directory, 'key.pem');
  const certFile = join(directory, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'].concat([
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]),
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile), cert: readFileSync(certFile), certFile, directory };
};

/** The in-memory node. */
export class OpenSearchStandIn {
  public readonly requests: StandInRequest[] = [];
  /** What the published API description says is wrong with each request it refused (none expected). */
  public readonly problems: string[] = [];
  /** Called with each request as it arrives (the rehearsal's recorder). */
  public onRequest: (request: StandInRequest) => void = () => undefined;
  /** Concrete indices by name. */
  public readonly indices = new Map<string, Map<string, StoredDocument>>();
  /** Alias name → the indices it points at. */
  public readonly aliases = new Map<string, Set<string>>();
  readonly #server: Server;
  /** Counts the requests that may change documents or aliases (the version scan's cache key). */
  #writes = 0;
  #scan: { key: string; entries: { index: string; id: number; version: number }[] } | undefined;
  readonly #tls: ReturnType<typeof selfSignedCertificate> | undefined;

  public constructor(options: { tls?: boolean } = {}) {
    this.#tls = options.tls === true ? selfSignedCertificate() : undefined;
    // Reading the description takes seconds: once here, not inside a client's request timeout.
    openSearchApiProblems({ method: 'GET', path: '/_alias/jobs', query: new URLSearchParams(), body: '' });
    const handle = (request: IncomingMessage, response: ServerResponse): void => this.#handle(request, response);
    this.#server =
      this.#tls === undefined
        ? createHttpServer(handle)
        : createHttpsServer({ key: this.#tls.key, cert: this.#tls.cert }, handle);
  }

  /** The certificate a client must trust (`NODE_EXTRA_CA_CERTS`), when serving HTTPS. */
  public get certificateFile(): string | undefined {
    return this.#tls?.certFile;
  }

  /** Listens on a free loopback port; resolves to the node's URL. */
  public async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const scheme = this.#tls === undefined ? 'http' : 'https';
    return `${scheme}://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  public async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    if (this.#tls !== undefined) rmSync(this.#tls.directory, { recursive: true, force: true });
  }

  /** Creates a concrete index (optionally under an alias), as a deployment or a raced rebuild would. */
  public createIndex(name: string, alias?: string): void {
    this.#writes += 1;
    this.indices.set(name, new Map());
    if (alias !== undefined) this.aliases.set(alias, new Set([...(this.aliases.get(alias) ?? []), name]));
  }

  /** The concrete indices a name resolves to: an alias's, or the index of that name. */
  public resolve(name: string): string[] {
    const aliased = this.aliases.get(name);
    if (aliased !== undefined && aliased.size > 0) return [...aliased].sort();
    return this.indices.has(name) ? [name] : [];
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = new URL(request.url ?? '/', 'http://stand-in');
      const recorded: StandInRequest = {
        method: request.method ?? 'GET',
        path: target.pathname,
        query: target.searchParams,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      this.requests.push(recorded);
      this.onRequest(recorded);
      const problems = openSearchApiProblems(recorded);
      this.problems.push(...problems.map((problem) => `${recorded.method} ${request.url}: ${problem}`));
      if (recorded.method !== 'GET' && !recorded.path.endsWith('/_search') && !recorded.path.endsWith('/_mget')) {
        this.#writes += 1;
      }
      const answer =
        problems.length > 0 ? error(400, 'x_content_parse_exception', problems[0]!) : this.#answer(recorded);
      const payload = answer.body === undefined ? '' : JSON.stringify(answer.body);
      response.writeHead(answer.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
      });
      response.end(recorded.method === 'HEAD' ? undefined : payload);
    });
  }

  #answer({ method, path, query, body }: StandInRequest): Answer {
    const segments = path
      .split('/')
      .filter((segment) => segment !== '')
      .map(decodeURIComponent);
    const [first, second] = segments;
    const json = (): Json => (body === '' ? {} : (JSON.parse(body) as Json));
    if (first === '_alias' && second !== undefined && method === 'GET') {
      const indices = [...(this.aliases.get(second) ?? [])];
      if (indices.length === 0) return { status: 404, body: { error: `alias [${second}] missing`, status: 404 } };
      return { status: 200, body: Object.fromEntries(indices.map((index) => [index, { aliases: { [second]: {} } }])) };
    }
    if (first === '_aliases' && method === 'POST') return this.#updateAliases(json());
    if (first === undefined) return error(400, 'illegal_argument_exception', 'no operation');
    if (second === undefined) {
      if (method === 'HEAD') return { status: this.resolve(first).length > 0 ? 200 : 404 };
      if (method === 'PUT') return this.#create(first, json());
      if (method === 'DELETE') {
        for (const name of first.split(',')) this.#deleteIndex(name);
        return { status: 200, body: { acknowledged: true } };
      }
    }
    const indices = this.resolve(first);
    if (indices.length === 0) {
      if (second === '_bulk') return this.#bulk(first, indices, body, query);
      return error(404, 'index_not_found_exception', `no such index [${first}]`);
    }
    if (second === '_bulk' && method === 'POST') return this.#bulk(first, indices, body, query);
    if (second === '_refresh' && method === 'POST')
      return { status: 200, body: { _shards: { total: 1, successful: 1, failed: 0 } } };
    if (second === '_count' && method === 'GET') {
      const count = indices.reduce((sum, index) => sum + (this.indices.get(index)?.size ?? 0), 0);
      return {
        status: 200,
        body: { count, _shards: { total: indices.length, successful: indices.length, failed: 0 } },
      };
    }
    if (second === '_search' && method === 'POST') return this.#versionScan(indices, json());
    if (second === '_mget' && method === 'POST') return this.#multiGet(first, indices, json());
    return error(400, 'illegal_argument_exception', `the stand-in does not answer ${method} ${path}`);
  }

  #create(name: string, body: Json): Answer {
    if (this.indices.has(name) || this.aliases.has(name)) {
      return error(400, 'resource_already_exists_exception', `index [${name}] already exists`);
    }
    this.createIndex(name);
    for (const alias of Object.keys((body.aliases as Json | undefined) ?? {})) this.createIndex(name, alias);
    return { status: 200, body: { acknowledged: true, shards_acknowledged: true, index: name } };
  }

  #deleteIndex(name: string): void {
    this.indices.delete(name);
    for (const members of this.aliases.values()) members.delete(name);
  }

  #updateAliases(body: Json): Answer {
    for (const action of body.actions as Json[]) {
      const [kind, target] = Object.entries(action)[0] as [string, { index: string; alias?: string }];
      if (!this.indices.has(target.index))
        return error(404, 'index_not_found_exception', `no such index [${target.index}]`);
      if (kind === 'add') this.createIndex(target.index, target.alias);
      else if (kind === 'remove') this.aliases.get(target.alias ?? '')?.delete(target.index);
      else if (kind === 'remove_index') this.#deleteIndex(target.index);
    }
    return { status: 200, body: { acknowledged: true } };
  }

  #bulk(name: string, indices: string[], body: string, query: URLSearchParams): Answer {
    const lines = body
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Json);
    const items: Json[] = [];
    const isAlias = this.aliases.has(name) && indices.length > 0;
    for (let position = 0; position < lines.length; position++) {
      const [kind, meta] = Object.entries(lines[position]!)[0] as [string, { _id: string; version: number }];
      const source = kind === 'index' ? (lines[++position] as Json) : undefined;
      const item = (status: number, extra: Json = {}): number =>
        items.push({ [kind]: { _id: meta._id, status, ...extra } });
      if (query.get('require_alias') === 'true' && !isAlias) {
        item(404, { error: { type: 'index_not_found_exception', reason: `[${name}] is not an alias` } });
        continue;
      }
      if (indices.length !== 1) {
        item(400, { error: { type: 'illegal_argument_exception', reason: `alias [${name}] has more than one index` } });
        continue;
      }
      const documents = this.indices.get(indices[0]!)!;
      const current = documents.get(meta._id);
      if (current !== undefined && meta.version < current.version) {
        item(409, { error: { type: 'version_conflict_engine_exception', reason: 'version conflict' } });
      } else if (kind === 'delete') {
        documents.delete(meta._id);
        item(200, { result: current === undefined ? 'not_found' : 'deleted' });
      } else {
        documents.set(meta._id, { version: meta.version, source: source ?? {} });
        item(current === undefined ? 201 : 200, { result: current === undefined ? 'created' : 'updated' });
      }
    }
    return {
      status: 200,
      body: { took: 1, errors: items.some((item) => Number((Object.values(item)[0] as Json).status) >= 300), items },
    };
  }

  /** The version scan: every document, ascending by id, after `search_after`, `size` at a time. */
  #versionScan(indices: string[], body: Json): Answer {
    const after = (body.search_after as number[] | undefined)?.[0] ?? Number.NEGATIVE_INFINITY;
    const size = Number(body.size ?? 10);
    const sorted = this.#sortedEntries(indices);
    let start = 0;
    for (let end = sorted.length; start < end;) {
      const middle = (start + end) >>> 1;
      if (sorted[middle]!.id <= after) start = middle + 1;
      else end = middle;
    }
    const hits = sorted.slice(start, start + size).map(({ index, id, version }) => ({
      _index: index,
      _id: String(id),
      _version: version,
      _score: null,
      sort: [id],
    }));
    return {
      status: 200,
      body: { took: 1, timed_out: false, hits: { total: { value: hits.length, relation: 'eq' }, hits } },
    };
  }

  /** Every document of `indices` ascending by id, sorted once per scan (until the next write). */
  #sortedEntries(indices: string[]): { index: string; id: number; version: number }[] {
    const key = `${this.#writes}:${indices.join(',')}`;
    if (this.#scan?.key !== key) {
      const entries = indices.flatMap((index) =>
        [...(this.indices.get(index) ?? new Map<string, StoredDocument>())].map(([id, doc]) => ({
          index,
          id: Number(id),
          version: doc.version,
        })),
      );
      this.#scan = { key, entries: entries.sort((a, b) => a.id - b.id) };
    }
    return this.#scan.entries;
  }

  #multiGet(name: string, indices: string[], body: Json): Answer {
    const ids = body.ids as string[];
    if (indices.length !== 1) {
      const reason = `alias [${name}] has more than one index associated with it [${indices.join(', ')}], can't execute a single index op`;
      return {
        status: 200,
        body: {
          docs: ids.map((id) => ({ _index: name, _id: id, error: { type: 'illegal_argument_exception', reason } })),
        },
      };
    }
    const documents = this.indices.get(indices[0]!)!;
    const docs = ids.map((id) => {
      const doc = documents.get(id);
      if (doc === undefined) return { _index: indices[0], _id: id, found: false };
      return {
        _index: indices[0],
        _id: id,
        _version: doc.version,
        found: true,
        _source: { document: doc.source.document },
      };
    });
    return { status: 200, body: { docs } };
  }
}

/**
 * Every request the OpenSearch engine sends, judged by OpenSearch's own published API description
 * (test/witness/opensearch/): an operation of the engine version, declared query parameters only, and a body
 * valid against the operation's request schema. The engine runs against a fake node that answers like
 * OpenSearch; the judge is the description, which nobody on this project wrote.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSearchDocument } from '../../../functions/search/search-document';
import { OpenSearchSearchIndex } from '../../../functions/search/opensearch/opensearch-search-index';
import { MAX_QUERY_WORDS, TEXT_FIELD_IDS } from '../../../functions/search/query-text';
import type { SearchQuery } from '../../../functions/search/search-index';
import {
  FakeOpenSearchCluster,
  FakeOpenSearchNode,
  type RecordedRequest,
  type ReplyTo,
} from '../../support/fake-opensearch';
import { makeFile, makeJob } from '../../support/jobs';
import { MIN_ENGINE_VERSION } from '../../../local/operations/domain-status';
import { openSearchApiProblems, openSearchOperationOf, WITNESS_ENGINE_VERSION } from '../../support/opensearch-witness';

const problemsOf = (request: Pick<RecordedRequest, 'method' | 'path' | 'query' | 'body'>) =>
  openSearchApiProblems({ method: request.method, path: request.path, query: request.query, body: request.body });

const request = (method: string, target: string, body: unknown = '') => {
  const url = new URL(target, 'http://node');
  return {
    method,
    path: url.pathname,
    query: url.searchParams,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
};

describe('the witness itself', { timeout: 60_000 }, () => {
  it('accepts a plain search', () => {
    expect(problemsOf(request('POST', '/jobs/_search', { query: { match_all: {} }, size: 1 }))).toEqual([]);
  });

  it('refuses an operation OpenSearch does not have', () => {
    expect(problemsOf(request('POST', '/jobs/_searches', {}))[0]).toContain('is no operation');
  });

  it('refuses a query parameter the operation does not declare', () => {
    expect(problemsOf(request('POST', '/jobs/_search?sizes=3', {}))[0]).toContain('no query parameter "sizes"');
  });

  it('refuses an unknown query type and a malformed body', () => {
    expect(problemsOf(request('POST', '/jobs/_search', { query: { prefix_words: { name: 'x' } } }))).not.toEqual([]);
    expect(problemsOf(request('POST', '/jobs/_search', { size: 'ten' }))).not.toEqual([]);
  });

  it('refuses a bulk line that is no action', () => {
    const body = `${JSON.stringify({ index: { _id: 1, version: 'v' } })}\n`;
    expect(problemsOf(request('POST', '/jobs/_bulk', body))).not.toEqual([]);
  });
});

/** A fake node answering each operation the way OpenSearch does. */
const answers: ReplyTo = (recorded) => {
  const { method, path } = recorded;
  if (path === '/_alias/jobs') return { status: 200, body: { 'jobs-v0': { aliases: { jobs: {} } } } };
  if (path.endsWith('/_bulk')) {
    const lines = recorded.body.split('\n').filter((line) => line !== '');
    const items = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => 'index' in line || 'delete' in line)
      .map((line) => ({ [Object.keys(line)[0] as string]: { status: 201, result: 'created' } }));
    return { status: 200, body: { took: 3, errors: false, items } };
  }
  if (path.endsWith('/_search'))
    return { status: 200, body: { hits: { total: { value: 0, relation: 'eq' }, hits: [] } } };
  if (path.includes('/_doc/')) return { status: 404, body: { _index: 'jobs-v0', _id: '1', found: false } };
  if (method === 'HEAD') return { status: 404 };
  return { status: 200, body: { acknowledged: true } };
};

const query = (overrides: Partial<SearchQuery>): SearchQuery => ({
  field: 'Global',
  text: '',
  globalFields: ['JobName', 'FileName'],
  globalMatchesAccountNumber: false,
  offset: 0,
  limit: 20,
  ...overrides,
});

const SEARCHES: [string, SearchQuery][] = [
  ['no condition', query({})],
  ['Global text, user', query({ text: 'spr cat', accountId: 5, globalFields: ['JobName', 'FileName', 'JobTags'] })],
  [
    'Global text, operator',
    query({ text: '1001', globalMatchesAccountNumber: true, globalFields: [...TEXT_FIELD_IDS] }),
  ],
  ['one text field', query({ field: 'JobName', text: 'spring' })],
  ['job number', query({ field: 'JobNumber', text: '42' })],
  ['account number that is no number', query({ field: 'AccountNumber', text: 'x' })],
  ['GUID', query({ field: 'Guid', text: 'ABCD-1234' })],
  ['statuses', query({ statuses: ['CJ_NEW', 'CJ_ACCEPT'] })],
  ['creation and delivery ranges', query({ created: { from: 1, to: 2 }, delivered: { from: 3 } })],
  ['a deep page', query({ offset: 9_900, limit: 100 })],
  [
    'the costliest accepted query',
    query({
      text: Array.from({ length: MAX_QUERY_WORDS }, (_, i) => `w${i}q`).join(' '),
      globalFields: [...TEXT_FIELD_IDS],
      globalMatchesAccountNumber: true,
    }),
  ],
];

describe('the OpenSearch engine’s requests, judged by OpenSearch’s published API', { timeout: 60_000 }, () => {
  let node: FakeOpenSearchNode;
  let index: OpenSearchSearchIndex;

  beforeAll(async () => {
    node = new FakeOpenSearchNode(answers);
    const url = await node.start();
    index = new OpenSearchSearchIndex({
      engine: 'opensearch',
      url,
      index: 'jobs',
      region: 'eu-west-1',
      timeoutMs: 5_000,
    });
  });

  afterAll(async () => {
    await index.close();
    await node.stop();
  });

  const sentSince = (from: number) => node.requests.slice(from);
  const expectValid = (requests: RecordedRequest[]) => {
    expect(requests.length).toBeGreaterThan(0);
    for (const sent of requests) expect(problemsOf(sent), `${sent.method} ${sent.url}`).toEqual([]);
  };

  it.each(SEARCHES)('search: %s', async (_name, search) => {
    const from = node.requests.length;
    await index.search(search);
    expectValid(sentSince(from));
  });

  it('indexer: a bulk of upserts and deletes to the alias', async () => {
    const from = node.requests.length;
    const job = makeJob({ id: 7, files: [makeFile({ id: 70, fileName: 'cem_test15.jpg' })] });
    await index.apply([
      { type: 'upsert', document: toSearchDocument(job, 3) },
      { type: 'delete', jobId: 8, version: 5 },
    ]);
    expectValid(sentSince(from));
  });

  it('indexer: the first index created when the alias is missing', async () => {
    const from = node.requests.length;
    let created = false;
    node.reply = (recorded) => {
      if (recorded.method === 'PUT') created = true;
      if (recorded.path.endsWith('/_bulk') && !created) {
        return {
          status: 200,
          body: { errors: true, items: [{ delete: { status: 404, error: { type: 'index_not_found_exception' } } }] },
        };
      }
      return answers(recorded);
    };
    await index.apply([{ type: 'delete', jobId: 8, version: 5 }]);
    node.reply = answers;
    expect(sentSince(from).map((sent) => sent.method)).toEqual(['POST', 'PUT', 'POST']);
    expectValid(sentSince(from));
  });

  it('reads: a document by id and every version, page by page', async () => {
    const from = node.requests.length;
    await index.get(7);
    for await (const _ of index.versions()) break;
    expectValid(sentSince(from));
  });

  it('operator reads: what the alias points at, its document count, the indices beside it, and documents in one _mget', async () => {
    const from = node.requests.length;
    node.reply = (recorded) => {
      if (recorded.path.endsWith('/_count')) return { status: 200, body: { count: 2 } };
      if (recorded.path.startsWith('/_cat/indices/')) {
        return {
          status: 200,
          body: [
            { index: 'jobs-v0', 'docs.count': '2', 'store.size': '9000' },
            { index: 'jobs-v1700000000000-0a1b2c3d', 'docs.count': '5', 'store.size': '20480' },
          ],
        };
      }
      if (recorded.path.endsWith('/_mget')) {
        return { status: 200, body: { docs: [{ _index: 'jobs-v0', _id: '7', found: false }] } };
      }
      return answers(recorded);
    };
    await expect(index.health()).resolves.toEqual({
      name: 'jobs',
      indices: ['jobs-v0'],
      documents: 2,
      unaliased: [{ name: 'jobs-v1700000000000-0a1b2c3d', documents: 5, bytes: 20480 }],
    });
    await expect(index.getMany([7])).resolves.toEqual(new Map());
    node.reply = answers;
    expect(sentSince(from).map((sent) => `${sent.method} ${sent.url}`)).toEqual([
      'GET /_alias/jobs',
      'GET /jobs/_count',
      'GET /_cat/indices/jobs-v*?format=json&bytes=b&h=index%2Cdocs.count%2Cstore.size',
      'POST /jobs/_mget?_source_includes=document',
    ]);
    expectValid(sentSince(from));
  });

  it('rebuild: create, fill, refresh, swap the alias, list the indices, drop the retired one', async () => {
    const from = node.requests.length;
    const cluster = new FakeOpenSearchCluster();
    cluster.createIndex('jobs-v0', { jobs: { is_write_index: true } });
    node.reply = cluster.reply;
    await index.rebuild((writer) =>
      writer.apply([{ type: 'upsert', document: toSearchDocument(makeJob({ id: 9 }), 1) }]),
    );
    const methods = sentSince(from).map(
      (sent) => `${sent.method} ${sent.path.replace(/-v\d{5,}-[0-9a-f]{8}/, '-v<ms>')}`,
    );
    expect(methods).toEqual([
      'PUT /jobs-v<ms>',
      'POST /jobs-v<ms>/_bulk',
      'POST /jobs-v<ms>/_refresh',
      'GET /_alias/jobs',
      'POST /_aliases',
      'GET /jobs-v*/_alias',
      'DELETE /jobs-v0',
    ]);
    node.reply = answers;
    // The swap's guarded removal (must_exist) and write index, and the deletion's ignore_unavailable.
    expect(sentSince(from).find((sent) => sent.path === '/_aliases')?.body).toContain('"must_exist":true');
    expect(sentSince(from).at(-1)?.url).toContain('ignore_unavailable=true');
    expectValid(sentSince(from));
  });

  it('deploy time: no automatic creation of the alias’s names, the look for the alias, and the first index with the alias as its write index', async () => {
    const from = node.requests.length;
    let created = false;
    node.reply = (recorded) => {
      if (recorded.method === 'HEAD') return { status: created ? 200 : 404 };
      if (recorded.path === '/_cluster/settings') {
        return {
          status: 200,
          body: {
            acknowledged: true,
            persistent: { action: { auto_create_index: '-jobs,-jobs-v*,+*' } },
            transient: {},
          },
        };
      }
      if (recorded.method === 'PUT') {
        created = true;
        return { status: 200, body: { acknowledged: true, shards_acknowledged: true, index: 'jobs-v0' } };
      }
      return answers(recorded);
    };
    expect(await index.prepare()).toBe('created');
    node.reply = answers;
    expect(sentSince(from).map((sent) => `${sent.method} ${sent.path}`)).toEqual([
      'PUT /_cluster/settings',
      'HEAD /jobs',
      'PUT /jobs-v0',
      'HEAD /jobs',
    ]);
    expect(JSON.parse(sentSince(from)[0]?.body ?? '')).toEqual({
      persistent: { 'action.auto_create_index': '-jobs,-jobs-v*,+*' },
    });
    expect(sentSince(from)[2]?.body).toContain('"is_write_index":true');
    expectValid(sentSince(from));
  });
  /**
   * The domain runs OpenSearch 3.7 (lib/search-domain.ts); the description vendored here covers operations up to
   * 3.5, the newest OpenSearch has published. It suffices: every request the engine and the CLI send above is
   * accepted by it both at the CLI's engine floor (2.12) and at 3.5, and none is an operation it marks as
   * deprecated or removed. OpenSearch follows semantic versioning — a minor release removes or breaks no API
   * (removals come with a major version, after a deprecation) — so what 3.5 accepts and does not deprecate,
   * 3.7 accepts too. When OpenSearch publishes a description covering 3.7, vendor it and raise
   * WITNESS_ENGINE_VERSION.
   */
  it('sends nothing the description marks deprecated or removed, and only what 2.12 to 3.5 accept: why a 3.5 description judges a 3.7 domain', () => {
    const floor = `${MIN_ENGINE_VERSION.major}.${MIN_ENGINE_VERSION.minor}`;
    expect(WITNESS_ENGINE_VERSION).toBe('3.5');
    const sent = node.requests.filter((recorded) => !(recorded.method === 'HEAD' && recorded.path === '/'));
    const operations = new Map<string, ReturnType<typeof openSearchOperationOf>>();
    for (const recorded of sent) {
      const witnessed = { method: recorded.method, path: recorded.path, query: recorded.query, body: recorded.body };
      const operation = openSearchOperationOf(witnessed);
      expect(operation, `${recorded.method} ${recorded.path}`).toBeDefined();
      operations.set(operation?.operationId ?? '', operation);
      expect(openSearchApiProblems(witnessed, floor), `${recorded.method} ${recorded.url} at ${floor}`).toEqual([]);
    }
    // Every kind of request the product sends was exercised above.
    expect([...operations.keys()].sort()).toEqual([
      'bulk.2',
      'cat.indices.1',
      'cluster.put_settings.0',
      'count.2',
      'get.0',
      'indices.create.0',
      'indices.delete.0',
      'indices.exists.0',
      'indices.get_alias.1',
      'indices.get_alias.2',
      'indices.refresh.3',
      'indices.update_aliases.0',
      'mget.3',
      'search.3',
    ]);
    for (const operation of operations.values()) {
      expect(operation, operation?.operationId).not.toHaveProperty('deprecated');
      expect(operation, operation?.operationId).not.toHaveProperty('removed');
    }
  });
});

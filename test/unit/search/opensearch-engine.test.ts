/**
 * The OpenSearch engine against a fake node (a local node:http server standing in for OpenSearch):
 * which requests it sends, and how it reads the answers and the failures.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toSearchDocument } from '../../../functions/search/search-document';
import { INDEX_DEFINITION } from '../../../functions/search/opensearch/index-definition';
import { OpenSearchSearchIndex } from '../../../functions/search/opensearch/opensearch-search-index';
import { searchBody } from '../../../functions/search/opensearch/search-body';
import { type SearchQuery, SearchRejectedError, SearchUnavailableError } from '../../../functions/search/search-index';
import { FakeOpenSearchCluster, FakeOpenSearchNode, type ReplyTo } from '../../support/fake-opensearch';
import { makeFile, makeJob } from '../../support/jobs';

/** What the node answers when a test routes nothing else. */
const notRouted: ReplyTo = () => ({ status: 404, body: { error: { type: 'not_routed' } } });

const ndjson = (body: string): unknown[] =>
  body
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));

const query = (overrides: Partial<SearchQuery> = {}): SearchQuery => ({
  field: 'JobName',
  text: 'spring',
  globalFields: [],
  globalMatchesAccountNumber: false,
  accountId: 5,
  offset: 20,
  limit: 10,
  ...overrides,
});

const document = (id: number, version: number) =>
  toSearchDocument(
    makeJob({
      id,
      guid: `guid-${id}`,
      createdDate: '2024-05-06T07:08:09.010Z',
      files: [makeFile({ id: id * 10, fileName: `file_${id}.jpg` })],
    }),
    version,
  );

/** The job ids an engine holds, read back with `versions()`. */
const versionsOf = async (engine: OpenSearchSearchIndex): Promise<number[]> => {
  const ids: number[] = [];
  for await (const entry of engine.versions()) ids.push(entry.jobId);
  return ids;
};

/** An index that exists, answering HEAD with 200. */
const existing =
  (route: ReplyTo): ReplyTo =>
  (request) =>
    request.method === 'HEAD' ? { status: 200 } : route(request);

describe('OpenSearch engine', () => {
  let node: FakeOpenSearchNode;
  let url: string;
  let index: OpenSearchSearchIndex;

  const engine = (refreshOnWrite = false) =>
    new OpenSearchSearchIndex({
      engine: 'opensearch',
      url,
      index: 'jobs',
      region: 'eu-west-1',
      timeoutMs: 2_000,
      refreshOnWrite,
    });

  beforeEach(async () => {
    node = new FakeOpenSearchNode(notRouted);
    url = await node.start();
    index = engine();
  });

  afterEach(async () => {
    await index.close();
    await node.stop();
  });

  it('searches with one _search request and nothing else: no probe, no index creation', async () => {
    node.reply = () => ({ status: 200, body: { hits: { total: { value: 0, relation: 'eq' }, hits: [] } } });
    await index.search(query());
    await index.search(query());
    expect(node.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /jobs/_search',
      'POST /jobs/_search',
    ]);
  });

  it('answers the empty page when the alias does not exist yet, and creates nothing', async () => {
    node.reply = () => ({
      status: 404,
      body: { error: { type: 'index_not_found_exception', reason: 'no such index [jobs]' }, status: 404 },
    });
    await expect(index.search(query())).resolves.toEqual({ total: 0, jobs: [] });
    expect(node.requests.map((request) => request.method)).toEqual(['POST']);
  });

  it('answers SearchRejectedError when OpenSearch refuses the search as malformed (400)', async () => {
    node.reply = () => ({
      status: 400,
      body: { error: { type: 'search_phase_execution_exception', reason: 'too_many_clauses' }, status: 400 },
    });
    await expect(index.search(query())).rejects.toBeInstanceOf(SearchRejectedError);
  });

  it('retries a search once when the socket was reset (a keep-alive connection after a freeze)', async () => {
    let resets = 1;
    node.reply = () => {
      if (resets-- > 0) return { status: 0, reset: true };
      return { status: 200, body: { hits: { total: { value: 0, relation: 'eq' }, hits: [] } } };
    };
    await expect(index.search(query())).resolves.toEqual({ total: 0, jobs: [] });
    expect(node.requests).toHaveLength(2);
  });

  it('creates {alias}-v0 with the mapping and the alias when a bulk reports the alias missing, then writes again', async () => {
    let created = false;
    node.reply = (request) => {
      if (request.method === 'PUT') {
        created = true;
        return { status: 200, body: { acknowledged: true, shards_acknowledged: true, index: 'jobs-v0' } };
      }
      if (!created) {
        const missing = { status: 404, error: { type: 'index_not_found_exception', reason: '[jobs] is not an alias' } };
        return { status: 200, body: { errors: true, items: [{ delete: missing }] } };
      }
      return { status: 200, body: { errors: false, items: [{ delete: { status: 200, result: 'deleted' } }] } };
    };
    await expect(index.apply([{ type: 'delete', jobId: 2, version: 1 }])).resolves.toEqual([{ status: 'indexed' }]);
    const calls = node.requests.map((request) => `${request.method} ${request.path}`);
    expect(calls).toEqual(['POST /jobs/_bulk', 'PUT /jobs-v0', 'POST /jobs/_bulk']);
    expect(JSON.parse(node.requests[1]?.body ?? '')).toEqual(
      JSON.parse(JSON.stringify({ ...INDEX_DEFINITION, aliases: { jobs: { is_write_index: true } } })),
    );
  });

  it('accepts a first index another writer created at the same moment', async () => {
    let bulks = 0;
    node.reply = (request) => {
      if (request.method === 'PUT') {
        return { status: 400, body: { error: { type: 'resource_already_exists_exception' }, status: 400 } };
      }
      bulks += 1;
      if (bulks === 1) {
        const missing = { status: 404, error: { type: 'index_not_found_exception' } };
        return { status: 200, body: { errors: true, items: [{ delete: missing }] } };
      }
      return { status: 200, body: { errors: false, items: [{ delete: { status: 200 } }] } };
    };
    await expect(index.apply([{ type: 'delete', jobId: 2, version: 1 }])).resolves.toEqual([{ status: 'indexed' }]);
  });

  it('searches with the query body and returns the exact total and the summaries', async () => {
    const first = document(1, 1);
    node.reply = existing(() => ({
      status: 200,
      body: {
        hits: {
          total: { value: 31, relation: 'eq' },
          hits: [{ _id: '1', _source: { document: { summary: first.summary } } }],
        },
      },
    }));
    await expect(index.search(query())).resolves.toEqual({ total: 31, jobs: [first.summary] });
    const [call] = node.calls();
    expect(call?.method).toBe('POST');
    expect(call?.path).toBe('/jobs/_search');
    expect(JSON.parse(call?.body ?? '')).toEqual(searchBody(query()));
  });

  it('sends one _bulk request per apply and maps each item', async () => {
    node.reply = existing(() => ({
      status: 200,
      body: { errors: true, items: [{ index: { status: 201, result: 'created' } }, { delete: { status: 409 } }] },
    }));
    const outcomes = await index.apply([
      { type: 'upsert', document: document(1, 3) },
      { type: 'delete', jobId: 2, version: 1 },
    ]);
    expect(outcomes).toEqual([{ status: 'indexed' }, { status: 'stale' }]);
    const calls = node.calls();
    expect(calls).toHaveLength(1);
    expect(calls[0]?.path).toBe('/jobs/_bulk');
    expect(calls[0]?.query.get('refresh')).toBe('false');
    expect(calls[0]?.query.get('require_alias')).toBe('true');
    expect(ndjson(calls[0]?.body ?? '')).toEqual([
      { index: { _id: '1', version: 3, version_type: 'external_gte' } },
      expect.objectContaining({ jobId: 1, document: document(1, 3) }),
      { delete: { _id: '2', version: 1, version_type: 'external_gte' } },
    ]);
  });

  it('leaves a malformed document out of the bulk request and rejects it alone', async () => {
    node.reply = existing(() => ({
      status: 200,
      body: {
        errors: false,
        items: [{ index: { status: 201, result: 'created' } }, { index: { status: 201, result: 'created' } }],
      },
    }));
    const noGuid = JSON.parse(JSON.stringify(document(2, 1))) as { summary: Record<string, unknown> };
    delete noGuid.summary.guid;
    const textualTags = { ...document(3, 1), jobTags: 'red, blue' as unknown as string[] };
    const outcomes = await index.apply([
      { type: 'upsert', document: document(1, 1) },
      { type: 'upsert', document: noGuid as unknown as ReturnType<typeof document> },
      { type: 'upsert', document: textualTags },
      { type: 'upsert', document: document(4, 1) },
    ]);
    expect(outcomes).toEqual([
      { status: 'indexed' },
      { status: 'rejected', reason: expect.stringContaining('guid') },
      { status: 'rejected', reason: expect.stringContaining('jobTags') },
      { status: 'indexed' },
    ]);
    const sent = ndjson(node.calls()[0]?.body ?? '').filter((line) => 'index' in (line as object));
    expect(sent).toEqual([
      { index: { _id: '1', version: 1, version_type: 'external_gte' } },
      { index: { _id: '4', version: 1, version_type: 'external_gte' } },
    ]);
  });

  it('sends the bulk body as NDJSON, one line per action or document, ending in a newline', async () => {
    node.reply = existing(() => ({ status: 200, body: { errors: false, items: [{ delete: { status: 200 } }] } }));
    await index.apply([{ type: 'delete', jobId: 2, version: 1 }]);
    const [call] = node.calls();
    expect(call?.method).toBe('POST');
    expect(call?.contentType).toBe('application/x-ndjson');
    expect(call?.body).toBe(`${JSON.stringify({ delete: { _id: '2', version: 1, version_type: 'external_gte' } })}\n`);
  });

  it('sends search and index-creation bodies as JSON', async () => {
    node.reply = (request) =>
      request.path === '/_alias/jobs'
        ? { status: 404, body: { error: 'alias [jobs] missing', status: 404 } }
        : request.method === 'HEAD'
          ? { status: 404 }
          : { status: 200, body: { acknowledged: true, hits: { total: { value: 0, relation: 'eq' }, hits: [] } } };
    await index.search(query());
    await index.clear();
    const sent = node.requests.filter((call) => call.body !== '');
    expect(
      sent.map((call) => `${call.method} ${call.path.replace(/-v\d+-[0-9a-f]{8}/, '-v<ms>')} ${call.contentType}`),
    ).toEqual([
      'POST /jobs/_search application/json',
      'PUT /jobs-v<ms> application/json',
      'POST /_aliases application/json',
    ]);
  });

  it('reads a document by its id under _doc, with no body', async () => {
    node.reply = existing(() => ({ status: 404, body: { _id: '7', found: false } }));
    await index.get(7);
    const [call] = node.calls();
    expect(`${call?.method} ${call?.path}`).toBe('GET /jobs/_doc/7');
    expect(call?.body).toBe('');
  });

  it('refreshes on write when asked to', async () => {
    await index.close();
    index = engine(true);
    node.reply = existing(() => ({ status: 200, body: { errors: false, items: [{ delete: { status: 200 } }] } }));
    await index.apply([{ type: 'delete', jobId: 2, version: 1 }]);
    expect(node.calls()[0]?.query.get('refresh')).toBe('true');
  });

  it('gives a bulk write its own time budget: a node slower than a search may take still takes the write', async () => {
    const slow = new OpenSearchSearchIndex({
      engine: 'opensearch',
      url,
      index: 'jobs',
      region: 'eu-west-1',
      timeoutMs: 100,
      writeTimeoutMs: 5_000,
    });
    node.reply = (request) =>
      request.path === '/jobs/_bulk'
        ? { status: 200, delayMs: 400, body: { errors: false, items: [{ index: { status: 201, result: 'created' } }] } }
        : { status: 200, delayMs: 400, body: { hits: { total: { value: 0, relation: 'eq' }, hits: [] } } };
    try {
      await expect(slow.apply([{ type: 'upsert', document: document(1, 1) }])).resolves.toEqual([
        { status: 'indexed' },
      ]);
      await expect(slow.search(query())).rejects.toBeInstanceOf(SearchUnavailableError);
    } finally {
      await slow.close();
    }
  });

  it('sends nothing for an empty batch', async () => {
    await expect(index.apply([])).resolves.toEqual([]);
    expect(node.requests).toEqual([]);
  });

  it('makes every operation retryable when the bulk request itself fails', async () => {
    node.reply = existing(() => ({ status: 503, body: { error: { type: 'cluster_block_exception' } } }));
    const outcomes = await index.apply([
      { type: 'upsert', document: document(1, 1) },
      { type: 'delete', jobId: 2, version: 1 },
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['retryable', 'retryable']);
  });

  it('answers SearchUnavailableError when OpenSearch is overloaded or failing', async () => {
    for (const status of [429, 500, 503]) {
      node.reply = existing(() => ({ status, body: { error: { type: 'boom' } } }));
      await expect(index.search(query()), String(status)).rejects.toBeInstanceOf(SearchUnavailableError);
    }
  });

  it('answers SearchUnavailableError when OpenSearch cannot be reached, and retries writes later', async () => {
    await node.stop();
    await expect(index.search(query())).rejects.toBeInstanceOf(SearchUnavailableError);
    await expect(index.get(1)).rejects.toBeInstanceOf(SearchUnavailableError);
    const outcomes = await index.apply([{ type: 'delete', jobId: 2, version: 1 }]);
    expect(outcomes[0]?.status).toBe('retryable');
    node = new FakeOpenSearchNode(notRouted);
    url = await node.start();
  });

  it('reads a document back, and nothing for a job it does not hold', async () => {
    const held = document(4, 2);
    node.reply = existing((request) =>
      request.path === '/jobs/_doc/4'
        ? { status: 200, body: { _id: '4', _version: 2, found: true, _source: { jobId: 4, document: held } } }
        : { status: 404, body: { _id: '5', found: false } },
    );
    await expect(index.get(4)).resolves.toEqual(held);
    await expect(index.get(5)).resolves.toBeUndefined();
  });

  it('lists versions in ascending id order across pages with search_after', async () => {
    const page = (from: number, count: number) =>
      Array.from({ length: count }, (_, position) => ({
        _id: String(from + position),
        _version: 7,
        sort: [from + position],
      }));
    node.reply = existing((request) => {
      const body = JSON.parse(request.body) as { search_after?: number[] };
      const after = body.search_after?.[0] ?? 0;
      const hits = after === 0 ? page(1, 1_000) : after === 1_000 ? page(1_001, 3) : [];
      return { status: 200, body: { hits: { total: { value: 1_003, relation: 'eq' }, hits } } };
    });
    const listed = [];
    for await (const entry of index.versions()) listed.push(entry);
    expect(listed).toHaveLength(1_003);
    expect(listed[0]).toEqual({ jobId: 1, version: 7 });
    expect(listed.at(-1)).toEqual({ jobId: 1_003, version: 7 });
    const bodies = node.calls().map((call) => JSON.parse(call.body));
    expect(bodies[0]).toMatchObject({
      sort: [{ jobId: { order: 'asc' } }],
      size: 1_000,
      _source: false,
      version: true,
    });
    expect(bodies[1]).toMatchObject({ search_after: [1_000] });
  });

  it('rebuilds into a new index, reads the alias, swaps it in one _aliases request, then drops the old one', async () => {
    node.reply = (request) => {
      if (request.path === '/_alias/jobs') {
        return { status: 200, body: { 'jobs-v0': { aliases: { jobs: { is_write_index: true } } } } };
      }
      if (request.path === '/jobs-v*/_alias') {
        const fresh = /^\/(jobs-v[^/]+)\//.exec(node.requests[1]?.path ?? '')?.[1] ?? '';
        return {
          status: 200,
          body: { 'jobs-v0': { aliases: {} }, [fresh]: { aliases: { jobs: { is_write_index: true } } } },
        };
      }
      if (request.path.endsWith('/_bulk')) {
        return { status: 200, body: { errors: false, items: [{ index: { status: 201, result: 'created' } }] } };
      }
      return { status: 200, body: { acknowledged: true } };
    };
    const written = await index.rebuild(async (writer) => writer.apply([{ type: 'upsert', document: document(1, 2) }]));
    expect(written).toEqual([{ status: 'indexed' }]);
    const calls = node.requests.map((call) => `${call.method} ${call.path}`);
    const fresh = /^PUT \/(jobs-v\d+-[0-9a-f]{8})$/.exec(calls[0] ?? '')?.[1];
    expect(fresh).toBeDefined();
    expect(calls).toEqual([
      `PUT /${fresh}`,
      `POST /${fresh}/_bulk`,
      `POST /${fresh}/_refresh`,
      'GET /_alias/jobs',
      'POST /_aliases',
      'GET /jobs-v*/_alias',
      'DELETE /jobs-v0',
    ]);
    expect(JSON.parse(node.requests[4]?.body ?? '')).toEqual({
      actions: [
        { remove: { index: 'jobs-v0', alias: 'jobs', must_exist: true } },
        { add: { index: fresh, alias: 'jobs', is_write_index: true } },
      ],
    });
    expect(node.requests[1]?.query.get('require_alias')).toBeNull();
    expect(node.requests[6]?.query.get('ignore_unavailable')).toBe('true');
  });

  it('replaces a concrete index named like the alias (an older deployment) in the same atomic swap', async () => {
    node.reply = (request) => {
      if (request.path === '/_alias/jobs') return { status: 404, body: { error: 'alias [jobs] missing', status: 404 } };
      if (request.method === 'HEAD') return { status: 200 };
      return { status: 200, body: { acknowledged: true } };
    };
    await index.clear();
    const swap = node.requests.find((call) => call.path === '/_aliases');
    const actions = (JSON.parse(swap?.body ?? '') as { actions: object[] }).actions;
    expect(actions[0]).toEqual({ remove_index: { index: 'jobs' } });
    expect(actions.at(-1)).toEqual({
      add: { index: expect.stringMatching(/^jobs-v\d+-[0-9a-f]{8}$/), alias: 'jobs', is_write_index: true },
    });
  });

  it('leaves the live index untouched when the fill fails: the new index is deleted, the alias never moves', async () => {
    node.reply = (request) => {
      if (request.path === '/_alias/jobs') return { status: 200, body: { 'jobs-v0': { aliases: { jobs: {} } } } };
      return { status: 200, body: { acknowledged: true } };
    };
    await expect(
      index.rebuild(async () => {
        throw new Error('table unreachable');
      }),
    ).rejects.toThrow('table unreachable');
    const calls = node.requests.map((call) => `${call.method} ${call.path.replace(/-v\d{5,}-[0-9a-f]{8}/, '-v<ms>')}`);
    expect(calls).toEqual(['PUT /jobs-v<ms>', 'DELETE /jobs-v<ms>']);
  });

  it('keeps the new index when the swap’s answer was lost but OpenSearch applied it', async () => {
    node.reply = (request) => {
      const fresh = /^\/(jobs-v[^/]+)$/.exec(node.requests[0]?.path ?? '')?.[1] ?? '';
      if (request.path === '/_aliases') return { status: 0, reset: true };
      if (request.path === '/_alias/jobs') {
        const swapped = node.requests.some((call) => call.path === '/_aliases');
        return { status: 200, body: { [swapped ? fresh : 'jobs-v0']: { aliases: { jobs: {} } } } };
      }
      return { status: 200, body: { acknowledged: true } };
    };
    await expect(index.rebuild(async () => undefined)).rejects.toThrow();
    expect(node.requests.some((call) => call.method === 'DELETE')).toBe(false);
  });

  describe('the alias, on a node that keeps cluster state', () => {
    let cluster: FakeOpenSearchCluster;
    /** Moments after a request at which the alias pointed at no index, several, or an unrefreshed one. */
    let windows: string[];
    const others: OpenSearchSearchIndex[] = [];

    /** Another container or operator on the same alias. */
    const another = () => {
      const engine = new OpenSearchSearchIndex({
        engine: 'opensearch',
        url,
        index: 'jobs',
        region: 'eu-west-1',
        timeoutMs: 2_000,
      });
      others.push(engine);
      return engine;
    };
    const upserts = (ids: number[]) => ids.map((id) => ({ type: 'upsert', document: document(id, 1) }) as const);
    const jobsIndices = () => [...cluster.indices.keys()].filter((name) => name.startsWith('jobs-')).sort();

    beforeEach(() => {
      cluster = new FakeOpenSearchCluster();
      windows = [];
      node.reply = (request) => {
        const answer = cluster.reply(request);
        const live = cluster.aliasTargets('jobs');
        const only = cluster.indices.get(live[0] ?? '');
        if (live.length !== 1 || only === undefined || only.searchable.size !== only.docs.size) {
          windows.push(`after ${request.method} ${request.path}: alias → ${JSON.stringify(live)}`);
        }
        return answer;
      };
    });

    afterEach(async () => {
      await Promise.all(others.splice(0).map((engine) => engine.close()));
    });

    it('prepares a new domain: jobs-v0 with the mapping and the alias as its write index, once', async () => {
      expect(await index.prepare()).toBe('created');
      expect(await index.prepare()).toBe('existed');
      expect(cluster.aliasTargets('jobs')).toEqual(['jobs-v0']);
      expect(cluster.indices.get('jobs-v0')?.aliases.get('jobs')).toEqual({ isWriteIndex: true });
      expect(node.requests.map((call) => `${call.method} ${call.path}`)).toEqual([
        'PUT /_cluster/settings',
        'HEAD /jobs',
        'PUT /jobs-v0',
        'HEAD /jobs',
        'PUT /_cluster/settings',
        'HEAD /jobs',
      ]);
      await expect(index.search(query())).resolves.toEqual({ total: 0, jobs: [] });
    });

    it('prepares nothing where the alias already points at a rebuilt index, or the name is an older concrete index', async () => {
      cluster.createIndex('jobs-v1700000000000-0a1b2c3d', { jobs: { is_write_index: true } });
      expect(await index.prepare()).toBe('existed');
      cluster.indices.clear();
      cluster.createIndex('jobs');
      expect(await index.prepare()).toBe('existed');
      expect(node.calls().map((call) => `${call.method} ${call.path}`)).toEqual([
        'PUT /_cluster/settings',
        'PUT /_cluster/settings',
      ]);
    });

    it('prepares well when a rebuild’s swap lands between its look and its creation', async () => {
      cluster.beforeRequest = (request) => {
        if (request.method === 'PUT' && request.path === '/jobs-v0') {
          cluster.createIndex('jobs-v1700000000000-0a1b2c3d', { jobs: { is_write_index: true } });
        }
      };
      expect(await index.prepare()).toBe('existed');
      expect(cluster.aliasTargets('jobs')).toEqual(['jobs-v1700000000000-0a1b2c3d']);
      expect(jobsIndices()).toEqual(['jobs-v1700000000000-0a1b2c3d']);
    });

    it('never points nowhere or at a half-built index, whether the fill succeeds or fails', async () => {
      await index.prepare();
      await index.apply(upserts([1, 2, 3, 4, 5]));
      cluster.refresh('jobs');
      windows = [];
      await index.rebuild(async (writer) => {
        for (let batch = 0; batch < 3; batch += 1) await writer.apply(upserts([batch * 2 + 1, batch * 2 + 2]));
      });
      await expect(
        index.rebuild(async (writer) => {
          await writer.apply(upserts([99]));
          throw new Error('table unreachable');
        }),
      ).rejects.toThrow('table unreachable');

      expect(windows).toEqual([]);
      const [live] = cluster.aliasTargets('jobs');
      expect(cluster.aliasTargets('jobs')).toHaveLength(1);
      expect(cluster.indices.get(live ?? '')?.searchable.size).toBe(6);
      // The failed rebuild's index and the retired one are gone; only the live one is left.
      expect(jobsIndices()).toEqual([live]);
    });

    it('leaves the alias on the new index alone when a first index is created between its read and its swap', async () => {
      // A new domain: no alias yet. The rebuild reads that, then the indexer creates jobs-v0 with the alias.
      cluster.beforeRequest = (request) => {
        if (request.path === '/_aliases' && !cluster.indices.has('jobs-v0')) {
          cluster.createIndex('jobs-v0', { jobs: { is_write_index: true } });
        }
      };
      await index.rebuild((writer) => writer.apply(upserts([1, 2])));

      const live = cluster.aliasTargets('jobs');
      expect(live).toHaveLength(1);
      expect(live[0]).toMatch(/^jobs-v\d+-[0-9a-f]{8}$/);
      expect(jobsIndices()).toEqual(live);
      const indexer = another();
      expect(await indexer.apply(upserts([3]))).toEqual([{ status: 'indexed' }]);
      cluster.refresh('jobs');
      expect(await versionsOf(index)).toEqual([1, 2, 3]);
    });

    it('leaves the alias on one index after two rebuilds at once, and writes through it succeed', async () => {
      await index.prepare();
      await index.apply(upserts([1]));
      const operator = another();
      const tick = () => new Promise((resolve) => setImmediate(resolve));
      const results = await Promise.allSettled([
        index.rebuild(async (writer) => {
          for (const id of [10, 11, 12]) {
            await writer.apply(upserts([id]));
            await tick();
          }
        }),
        operator.rebuild(async (writer) => {
          for (const id of [20, 21]) {
            await writer.apply(upserts([id]));
            await tick();
          }
        }),
      ]);

      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
      const live = cluster.aliasTargets('jobs');
      expect(live).toHaveLength(1);
      expect(jobsIndices()).toEqual(live);
      expect(await another().apply(upserts([30]))).toEqual([{ status: 'indexed' }]);
      cluster.refresh('jobs');
      // One rebuild's jobs, never both (each counted once), plus the write after.
      expect([
        [10, 11, 12, 30],
        [20, 21, 30],
      ]).toContainEqual((await versionsOf(index)).sort((a, b) => a - b));
    });

    it('sends its swap again when OpenSearch refused it for a second write index (two swaps resolved at once)', async () => {
      await index.prepare();
      let refusals = 1;
      node.reply = (request) => {
        if (request.path === '/_aliases' && refusals-- > 0) {
          // Another rebuild's swap, resolved against the same state, was applied first.
          cluster.createIndex('jobs-v1700000000000-0a1b2c3d');
          cluster.reply({
            ...request,
            body: JSON.stringify({
              actions: [
                { remove: { indices: ['*'], alias: 'jobs' } },
                { add: { index: 'jobs-v1700000000000-0a1b2c3d', alias: 'jobs', is_write_index: true } },
              ],
            }),
          });
          const reason = 'alias [jobs] has more than one write index [jobs-v1700000000000-0a1b2c3d,jobs-v…]';
          return { status: 500, body: { error: { type: 'illegal_state_exception', reason }, status: 500 } };
        }
        return cluster.reply(request);
      };
      await index.rebuild((writer) => writer.apply(upserts([1])));
      const live = cluster.aliasTargets('jobs');
      expect(live).toHaveLength(1);
      expect(live[0]).not.toBe('jobs-v1700000000000-0a1b2c3d');
      expect(jobsIndices()).toEqual(live);
    });

    it('answers what a real node answers for an alias left on two indices: reads both, refuses writes', async () => {
      // What the swap from a snapshot of the alias's targets could leave behind.
      cluster.createIndex('jobs-v0', { jobs: {} });
      cluster.createIndex('jobs-v1700000000000-0a1b2c3d', { jobs: {} });
      const [outcome] = await index.apply(upserts([1]));
      expect(outcome).toMatchObject({
        status: 'rejected',
        reason: expect.stringContaining('no write index is defined for alias [jobs]'),
      });
      // The job each index holds (written before the alias reached the second one) is read twice.
      for (const name of cluster.aliasTargets('jobs'))
        cluster.indices.get(name)?.docs.set('1', { version: 1, source: {} });
      cluster.refresh('jobs');
      expect(await versionsOf(index)).toEqual([1, 1]);

      // A rebuild repairs it: one index, the write index, and writes go through again.
      await index.rebuild((writer) => writer.apply(upserts([1])));
      expect(cluster.aliasTargets('jobs')).toHaveLength(1);
      expect(jobsIndices()).toEqual(cluster.aliasTargets('jobs'));
      expect(await index.apply(upserts([2]))).toEqual([{ status: 'indexed' }]);
    });
  });
});

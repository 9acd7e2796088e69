/**
 * OpenSearch's automatic index creation, and the product's guard against it.
 *
 * The fake cluster first (test/support/fake-opensearch.ts), against what OpenSearch's `TransportBulkAction`
 * and `AutoCreateIndex` do: a bulk to a missing name auto-creates it for an `index` item without
 * `require_alias` and for a `delete` with an external version, never for an upsert under `require_alias` or a
 * delete without a version, and `action.auto_create_index` refuses names by pattern. Then the engine over
 * it: with the alias gone (an index deleted by hand), a batch of deletes alone followed by upserts never
 * leaves a concrete index under the alias's name — the setup's setting refuses it, and the indexer makes the
 * first index with its mapping and writes again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { autoCreateRule } from '../../../functions/search/opensearch/auto-create';
import { OpenSearchSearchIndex } from '../../../functions/search/opensearch/opensearch-search-index';
import { toSearchDocument } from '../../../functions/search/search-document';
import { FakeOpenSearchCluster, FakeOpenSearchNode, type RecordedRequest } from '../../support/fake-opensearch';
import { makeJob } from '../../support/jobs';

/** A `_bulk` request to `target` as the fake node would record it. */
const bulk = (target: string, lines: object[], query = ''): RecordedRequest => ({
  method: 'POST',
  url: `/${target}/_bulk${query}`,
  path: `/${target}/_bulk`,
  query: new URLSearchParams(query),
  headers: {},
  contentType: 'application/x-ndjson',
  body: `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`,
});

const externalDelete = { delete: { _id: '1', version: 5, version_type: 'external_gte' } };
const plainDelete = { delete: { _id: '1' } };
const upsert = [{ index: { _id: '2', version: 5, version_type: 'external_gte' } }, { jobId: 2 }];

type Items = { items: Record<string, { status: number; error?: { type: string; reason: string } }>[] };
const items = (cluster: FakeOpenSearchCluster, request: RecordedRequest) =>
  (cluster.reply(request).body as Items).items.map((item) => Object.values(item)[0]);

describe('the fake cluster creates a missing index on a write as OpenSearch does', () => {
  it('creates it for a delete with an external version: require_alias does not apply to deletes', () => {
    const cluster = new FakeOpenSearchCluster();
    const [item] = items(cluster, bulk('jobs', [externalDelete], '?require_alias=true'));
    expect(cluster.autoCreated).toEqual(['jobs']);
    expect(cluster.indices.has('jobs')).toBe(true);
    expect(item).toMatchObject({ status: 404, result: 'not_found' });
  });

  it('creates nothing for a delete without a version, nor for upserts under require_alias', () => {
    const cluster = new FakeOpenSearchCluster();
    expect(items(cluster, bulk('jobs', [plainDelete]))[0]).toMatchObject({
      status: 404,
      error: { type: 'index_not_found_exception' },
    });
    expect(items(cluster, bulk('jobs', upsert, '?require_alias=true'))[0]).toMatchObject({
      status: 404,
      error: { type: 'index_not_found_exception', reason: expect.stringContaining('[require_alias] request flag') },
    });
    // A delete beside an upsert under require_alias: the name's flags are OR-ed, so nothing is created.
    items(cluster, bulk('jobs', [externalDelete, ...upsert], '?require_alias=true'));
    expect(cluster.autoCreated).toEqual([]);
    expect(cluster.indices.size).toBe(0);
  });

  it('creates an index for an upsert without require_alias (a rebuild writing into a deleted index)', () => {
    const cluster = new FakeOpenSearchCluster();
    expect(items(cluster, bulk('jobs-v1700000000000-0a1b2c3d', upsert))[0]).toMatchObject({ status: 201 });
    expect(cluster.autoCreated).toEqual(['jobs-v1700000000000-0a1b2c3d']);
  });

  it('refuses the names action.auto_create_index forbids, the first matching pattern deciding', () => {
    const cluster = new FakeOpenSearchCluster();
    const settings = cluster.reply({
      ...bulk('_cluster', []),
      method: 'PUT',
      url: '/_cluster/settings',
      path: '/_cluster/settings',
      body: JSON.stringify({ persistent: { 'action.auto_create_index': autoCreateRule('jobs') } }),
    });
    expect(settings).toMatchObject({ status: 200, body: { acknowledged: true } });
    expect(items(cluster, bulk('jobs', [externalDelete]))[0]).toMatchObject({
      status: 404,
      error: {
        type: 'index_not_found_exception',
        reason:
          'no such index [jobs] and [action.auto_create_index] contains [-jobs] which forbids automatic creation of the index',
      },
    });
    expect(items(cluster, bulk('jobs-v1700000000000-0a1b2c3d', upsert))[0]).toMatchObject({
      status: 404,
      error: { reason: expect.stringContaining('contains [-jobs-v*]') },
    });
    // Every other name keeps OpenSearch's default.
    expect(items(cluster, bulk('audit-2026', upsert))[0]).toMatchObject({ status: 201 });
    expect(cluster.autoCreated).toEqual(['audit-2026']);
    cluster.autoCreateIndex = 'false';
    expect(items(cluster, bulk('other', upsert))[0]).toMatchObject({
      error: { reason: 'no such index [other] and [action.auto_create_index] is [false]' },
    });
  });
});

describe('a delete-only batch while the alias is missing', () => {
  let node: FakeOpenSearchNode;
  let cluster: FakeOpenSearchCluster;
  let index: OpenSearchSearchIndex;

  beforeEach(async () => {
    cluster = new FakeOpenSearchCluster();
    node = new FakeOpenSearchNode(cluster.reply);
    const url = await node.start();
    index = new OpenSearchSearchIndex({
      engine: 'opensearch',
      url,
      index: 'jobs',
      region: 'eu-west-1',
      timeoutMs: 2_000,
    });
  });

  afterEach(async () => {
    await index.close();
    await node.stop();
  });

  const upserts = (ids: number[]) =>
    ids.map((id) => ({ type: 'upsert', document: toSearchDocument(makeJob({ id }), 3) }) as const);

  it('never leaves a concrete index under the alias’s name: the first index comes back and later upserts land in it', async () => {
    await index.prepare();
    await index.apply(upserts([1, 2]));
    // An operator deletes the index by hand; the alias goes with it.
    for (const name of [...cluster.indices.keys()]) cluster.indices.delete(name);

    const deleted = await index.apply([
      { type: 'delete', jobId: 1, version: 4 },
      { type: 'delete', jobId: 2, version: 4 },
    ]);
    expect(deleted).toEqual([{ status: 'indexed' }, { status: 'indexed' }]);
    expect(cluster.autoCreated).toEqual([]);
    expect(cluster.indices.has('jobs')).toBe(false);
    expect(cluster.aliasTargets('jobs')).toEqual(['jobs-v0']);

    expect(await index.apply(upserts([3]))).toEqual([{ status: 'indexed' }]);
    cluster.refresh('jobs');
    const found: number[] = [];
    for await (const entry of index.versions()) found.push(entry.jobId);
    expect(found).toEqual([3]);
    // The tombstones keep their versions: an older upsert of a deleted job stays out.
    expect(await index.apply(upserts([1]))).toEqual([{ status: 'stale' }]);
  });

  it('is what the deploy-time setting prevents: without it, OpenSearch creates "jobs" and every later upsert fails', async () => {
    // A domain whose setting was changed back to OpenSearch's default (the setup runs again on the next deploy).
    await index.prepare();
    cluster.autoCreateIndex = 'true';
    for (const name of [...cluster.indices.keys()]) cluster.indices.delete(name);

    await index.apply([{ type: 'delete', jobId: 1, version: 4 }]);
    expect(cluster.autoCreated).toEqual(['jobs']);
    const [outcome] = await index.apply(upserts([3]));
    // Nothing is lost: the records fail retryably (the stream retries, then the dead-letter queue keeps them).
    expect(outcome).toMatchObject({ status: 'retryable' });
    expect(cluster.aliasTargets('jobs')).toEqual([]);
  });
});

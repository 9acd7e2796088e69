/**
 * Two rebuilds at once (two operators' `reindex`, or one raced by the indexer's first index), over the fake
 * cluster: whatever order their requests reach OpenSearch in, the alias ends on exactly one index and no
 * `jobs-v*` index without it remains. The rebuilds' steps are interleaved systematically — which one starts
 * first, how long each fills, where the other's swap lands — and, for the moments between a rebuild's read
 * of the alias and its swap, the other rebuild is run whole in between.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { autoCreateRule } from '../../../functions/search/opensearch/auto-create';
import { RebuildSupersededError } from '../../../functions/search/opensearch/errors';
import { OpenSearchSearchIndex } from '../../../functions/search/opensearch/opensearch-search-index';
import { toSearchDocument } from '../../../functions/search/search-document';
import type { IndexWriter } from '../../../functions/search/search-index';
import { FakeOpenSearchCluster, FakeOpenSearchNode } from '../../support/fake-opensearch';
import { makeJob } from '../../support/jobs';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('two rebuilds in any interleaving', () => {
  let node: FakeOpenSearchNode;
  let cluster: FakeOpenSearchCluster;
  let url: string;
  const engines: OpenSearchSearchIndex[] = [];

  const engine = () => {
    const made = new OpenSearchSearchIndex({
      engine: 'opensearch',
      url,
      index: 'jobs',
      region: 'eu-west-1',
      timeoutMs: 2_000,
    });
    engines.push(made);
    return made;
  };
  const fill = (ids: number[], ticks: number) => async (writer: IndexWriter) => {
    for (const id of ids) {
      await writer.apply([{ type: 'upsert', document: toSearchDocument(makeJob({ id }), 1) }]);
      for (let step = 0; step < ticks; step += 1) await tick();
    }
  };
  const jobsIndices = () => [...cluster.indices.keys()].filter((name) => name.startsWith('jobs')).sort();

  /** The state every interleaving must end in: one index, the alias's write index, nothing beside it. */
  const expectOneIndex = () => {
    const live = cluster.aliasTargets('jobs');
    expect(live).toHaveLength(1);
    expect(cluster.indices.get(live[0] ?? '')?.aliases.get('jobs')).toEqual({ isWriteIndex: true });
    expect(jobsIndices()).toEqual(live);
    expect(cluster.autoCreated).toEqual([]);
  };

  beforeEach(async () => {
    cluster = new FakeOpenSearchCluster();
    node = new FakeOpenSearchNode(cluster.reply);
    url = await node.start();
  });

  afterEach(async () => {
    await Promise.all(engines.splice(0).map((made) => made.close()));
    await node.stop();
  });

  it('leaves one index for every start order and fill length, with and without a first index', async () => {
    for (const first of [true, false]) {
      for (const [aTicks, bTicks, bDelay] of [
        [0, 0, 0],
        [0, 3, 0],
        [3, 0, 0],
        [2, 2, 1],
        [4, 0, 2],
        [0, 4, 3],
        [1, 1, 5],
        [5, 1, 0],
      ] as const) {
        cluster.indices.clear();
        cluster.autoCreateIndex = autoCreateRule('jobs');
        if (first) cluster.createIndex('jobs-v0', { jobs: { is_write_index: true } });
        const older = engine();
        const newer = engine();
        const runs = await Promise.allSettled([
          older.rebuild(fill([1, 2, 3], aTicks)),
          (async () => {
            for (let step = 0; step < bDelay; step += 1) await tick();
            return newer.rebuild(fill([4, 5], bTicks));
          })(),
        ]);
        for (const run of runs) {
          // A rebuild whose index a newer one retired while it was filling says so; nothing else fails.
          if (run.status === 'rejected') expect(run.reason).toBeInstanceOf(RebuildSupersededError);
        }
        expectOneIndex();
      }
    }
  });

  it('gives way when a newer rebuild swaps between its read of the alias and its swap', async () => {
    cluster.createIndex('jobs-v0', { jobs: { is_write_index: true } });
    const newer = 'jobs-v9999999999999-ffffffff';
    let raced = false;
    cluster.beforeRequest = (request) => {
      if (request.path === '/_aliases' && !raced) {
        raced = true;
        // The other rebuild, started later, filled and swapped in between (its own swap, as it sends it).
        cluster.createIndex(newer);
        cluster.reply({
          ...request,
          body: JSON.stringify({
            actions: [
              { remove: { index: 'jobs-v0', alias: 'jobs', must_exist: true } },
              { add: { index: newer, alias: 'jobs', is_write_index: true } },
            ],
          }),
        });
      }
    };
    await engine().rebuild(fill([1], 0));
    expect(cluster.aliasTargets('jobs')).toEqual([newer]);
    expectOneIndex();
  });

  it('takes over from an older rebuild that swapped between its read and its swap, and deletes its index', async () => {
    const older = 'jobs-v1000000000000-00000000';
    let raced = false;
    cluster.beforeRequest = (request) => {
      if (request.path === '/_aliases' && !raced) {
        raced = true;
        // No alias yet (a new domain): the other rebuild's swap is a bare add, and lands first.
        cluster.createIndex(older, { jobs: { is_write_index: true } });
      }
    };
    await engine().rebuild(fill([1], 0));
    const [live] = cluster.aliasTargets('jobs');
    expect(live).not.toBe(older);
    expectOneIndex();
  });

  it('never deletes a newer index a concurrent rebuild is still filling', async () => {
    cluster.createIndex('jobs-v0', { jobs: { is_write_index: true } });
    // Another rebuild, started after this one, has created its index and is filling it.
    const filling = 'jobs-v9999999999999-ffffffff';
    await engine().rebuild(async (writer) => {
      cluster.createIndex(filling);
      await fill([1], 0)(writer);
    });
    expect(cluster.indices.has(filling)).toBe(true);
    // When it swaps, it retires this one's index in turn.
    const [mine] = cluster.aliasTargets('jobs');
    cluster.reply({
      method: 'POST',
      url: '/_aliases',
      path: '/_aliases',
      query: new URLSearchParams(),
      headers: {},
      contentType: 'application/json',
      body: JSON.stringify({
        actions: [
          { remove: { index: mine, alias: 'jobs', must_exist: true } },
          { add: { index: filling, alias: 'jobs', is_write_index: true } },
        ],
      }),
    });
    await engine().rebuild(fill([2], 0));
    expectOneIndex();
  });
});

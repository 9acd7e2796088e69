/**
 * Bulk writes larger than one request should carry, on the OpenSearch stand-in (the fake cluster behind a node
 * that checks every request against OpenSearch's published API): a batch whose documents exceed the byte cap
 * is written as several `_bulk` requests to the alias, each under the cap, and every document is indexed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BULK_LIMITS } from '../../../functions/search/opensearch/bulk';
import { OpenSearchSearchIndex } from '../../../functions/search/opensearch/opensearch-search-index';
import { toSearchDocument } from '../../../functions/search/search-document';
import type { IndexOperation } from '../../../functions/search/search-index';
import { makeFile, makeJob } from '../../support/jobs';
import { OpenSearchStandIn } from '../../support/opensearch-stand-in';

/** A job whose search document is about `files` × 1 KiB of instructions. */
const largeJob = (files: number) =>
  makeJob({
    files: Array.from({ length: files }, (_, position) =>
      makeFile({ remarkToProcessor: `Retouch area ${position} ${'and keep the grain '.repeat(50)}` }),
    ),
  });

describe('OpenSearch bulk writes larger than one request', { timeout: 120_000 }, () => {
  let standIn: OpenSearchStandIn;
  let engine: OpenSearchSearchIndex;

  beforeEach(async () => {
    standIn = new OpenSearchStandIn();
    const url = await standIn.start();
    engine = new OpenSearchSearchIndex({
      engine: 'opensearch',
      url,
      index: 'jobs',
      region: 'eu-west-1',
      timeoutMs: 30_000,
      writeTimeoutMs: 30_000,
    });
    await engine.prepare();
  });

  afterEach(async () => {
    await engine.close();
    await standIn.stop();
  });

  it('sends a batch over the byte cap as several _bulk requests to the alias, each under the cap, and indexes all', async () => {
    const jobs = Array.from({ length: 12 }, () => largeJob(700));
    const operations: IndexOperation[] = jobs.map((job) => ({ type: 'upsert', document: toSearchDocument(job, 3) }));
    operations.push({ type: 'delete', jobId: 1, version: 2 });

    const outcomes = await engine.apply(operations);

    expect(outcomes).toEqual(operations.map(() => ({ status: 'indexed' })));
    const bulks = standIn.requests.filter((request) => request.path.endsWith('/_bulk'));
    expect(bulks.length).toBeGreaterThanOrEqual(3);
    const total = bulks.reduce((sum, request) => sum + Buffer.byteLength(request.body), 0);
    expect(total).toBeGreaterThan(2 * BULK_LIMITS.bytes);
    for (const request of bulks) {
      expect(`${request.method} ${request.path}`).toBe('POST /jobs/_bulk');
      expect(Buffer.byteLength(request.body)).toBeLessThanOrEqual(BULK_LIMITS.bytes);
    }
    expect(standIn.problems).toEqual([]);
    const held = await engine.getMany(jobs.map((job) => job.id));
    expect([...held.keys()].sort()).toEqual(jobs.map((job) => job.id).sort());
    expect(held.get(jobs[11]!.id)?.fileInstructions).toHaveLength(700);
  });
});

import { describe, expect, it } from 'vitest';
import { toSearchDocument } from '../../../functions/search/search-document';
import {
  type BulkAnswer,
  bulkOutcomes,
  bulkRequest,
  bulkRequests,
  itemOutcome,
  MAX_BULK_ITEM_BYTES,
  ndjsonBytes,
} from '../../../functions/search/opensearch/bulk';
import type { IndexOperation } from '../../../functions/search/search-index';
import { makeFile, makeJob } from '../../support/jobs';

const document = (id: number, version: number) =>
  toSearchDocument(
    makeJob({
      id,
      guid: 'ABCD-EF',
      name: 'Spring Catalogue',
      createdDate: '2024-01-02T03:04:05.678Z',
      deliveredDate: null,
      files: [makeFile({ id: id * 10, fileName: 'cem_test15.jpg' })],
    }),
    version,
  );

describe('OpenSearch bulk request', () => {
  it('writes upserts as index actions and deletes as delete actions, each with an external_gte version', () => {
    const upsert = document(7, 3);
    const request = bulkRequest([
      { type: 'upsert', document: upsert },
      { type: 'delete', jobId: 8, version: 5 },
    ]);
    expect(request.body).toEqual([
      { index: { _id: '7', version: 3, version_type: 'external_gte' } },
      {
        jobId: 7,
        accountId: upsert.summary.accountId,
        status: 'CJ_NEW',
        guid: 'abcd-ef',
        created: Date.parse('2024-01-02T03:04:05.678Z'),
        delivered: null,
        text: expect.objectContaining({ JobName: 'spring catalogue', FileName: 'cem test15 jpg' }),
        document: upsert,
      },
      { delete: { _id: '8', version: 5, version_type: 'external_gte' } },
    ]);
    expect(request.slots).toEqual([{ sent: 0 }, { sent: 1 }]);
  });

  it('does not send a document it cannot index, and rejects it', () => {
    const broken = document(1, 1);
    broken.summary.createdDate = 'yesterday';
    const request = bulkRequest([
      { type: 'upsert', document: broken },
      { type: 'delete', jobId: 2, version: 1 },
    ]);
    expect(request.body).toHaveLength(1);
    expect(request.slots[0]).toEqual({ rejected: expect.stringContaining('createdDate') });
    expect(request.slots[1]).toEqual({ sent: 0 });
  });
});

describe('OpenSearch bulk requests within limits', () => {
  const upserts = (count: number): IndexOperation[] =>
    Array.from({ length: count }, (_, position) => ({ type: 'upsert', document: document(position + 1, 1) }));

  it('cuts the operations into requests of at most the byte limit, in order, each operation in exactly one', () => {
    const operations = upserts(10);
    const one = ndjsonBytes(bulkRequest(operations.slice(0, 1)).body);
    const requests = bulkRequests(operations, { bytes: one * 3, actions: 1_000 });

    expect(requests.map((request) => request.slots.length)).toEqual([3, 3, 3, 1]);
    for (const request of requests) expect(ndjsonBytes(request.body)).toBeLessThanOrEqual(one * 3);
    expect(requests.flatMap((request) => request.body)).toEqual(bulkRequest(operations).body);
  });

  it('cuts them at the action limit too', () => {
    const requests = bulkRequests(upserts(5), { bytes: Number.MAX_SAFE_INTEGER, actions: 2 });
    expect(requests.map((request) => request.slots.length)).toEqual([2, 2, 1]);
  });

  it('sends an item larger than the byte limit alone, and maps outcomes back across the requests', () => {
    const operations: IndexOperation[] = [
      { type: 'delete', jobId: 1, version: 1 },
      { type: 'upsert', document: document(2, 1) },
      { type: 'delete', jobId: 3, version: 1 },
    ];
    const requests = bulkRequests(operations, { bytes: 100, actions: 1_000 });
    expect(requests.map((request) => request.body.length)).toEqual([1, 2, 1]);
    const outcomes = requests.flatMap((request) =>
      bulkOutcomes(request, { errors: false, items: request.slots.map(() => ({ index: { status: 201 } })) }),
    );
    expect(outcomes).toEqual([{ status: 'indexed' }, { status: 'indexed' }, { status: 'indexed' }]);
  });

  it('never sends an item larger than any domain accepts, and rejects it alone', () => {
    const huge = document(4, 1);
    huge.fileInstructions = ['x'.repeat(MAX_BULK_ITEM_BYTES)];
    const requests = bulkRequests([
      { type: 'delete', jobId: 5, version: 1 },
      { type: 'upsert', document: huge },
    ]);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.body).toHaveLength(1);
    expect(requests[0]?.slots[1]).toEqual({ rejected: expect.stringContaining('bytes') });
  });

  it('makes no request for no operations', () => {
    expect(bulkRequests([])).toEqual([]);
  });
});

describe('OpenSearch bulk outcomes', () => {
  it('maps written items to indexed', () => {
    expect(itemOutcome('index', { status: 201, result: 'created' })).toEqual({ status: 'indexed' });
    expect(itemOutcome('index', { status: 200, result: 'updated' })).toEqual({ status: 'indexed' });
    expect(itemOutcome('delete', { status: 200, result: 'deleted' })).toEqual({ status: 'indexed' });
  });

  it('maps a version conflict to stale', () => {
    const conflict = { status: 409, error: { type: 'version_conflict_engine_exception', reason: 'current [5]' } };
    expect(itemOutcome('index', conflict)).toEqual({ status: 'stale' });
    expect(itemOutcome('delete', conflict)).toEqual({ status: 'stale' });
  });

  it('maps a delete of a job the index does not hold to indexed', () => {
    expect(itemOutcome('delete', { status: 404, result: 'not_found' })).toEqual({ status: 'indexed' });
  });

  it('maps throttling and server errors to retryable', () => {
    expect(itemOutcome('index', { status: 429, error: { type: 'es_rejected_execution_exception' } })).toEqual({
      status: 'retryable',
      reason: '429 es_rejected_execution_exception',
    });
    expect(itemOutcome('index', { status: 503, error: { type: 'unavailable_shards_exception' } }).status).toBe(
      'retryable',
    );
  });

  it('maps any other client error to rejected', () => {
    expect(
      itemOutcome('index', { status: 400, error: { type: 'mapper_parsing_exception', reason: 'failed to parse' } }),
    ).toEqual({ status: 'rejected', reason: '400 mapper_parsing_exception failed to parse' });
    expect(itemOutcome('delete', { status: 404, error: { type: 'index_not_found_exception' } }).status).toBe(
      'rejected',
    );
  });

  it('puts every outcome back in operation order, around rejected documents', () => {
    const broken = document(2, 1);
    broken.summary.createdDate = '';
    const request = bulkRequest([
      { type: 'upsert', document: document(1, 2) },
      { type: 'upsert', document: broken },
      { type: 'delete', jobId: 3, version: 4 },
    ]);
    const response: BulkAnswer = {
      errors: true,
      items: [{ index: { status: 409 } }, { delete: { status: 200, result: 'deleted' } }],
    };
    expect(bulkOutcomes(request, response)).toEqual([
      { status: 'stale' },
      { status: 'rejected', reason: expect.any(String) },
      { status: 'indexed' },
    ]);
  });

  it('retries an operation the response does not account for', () => {
    const request = bulkRequest([{ type: 'delete', jobId: 1, version: 1 }]);
    expect(bulkOutcomes(request, { errors: false, items: [] })[0]?.status).toBe('retryable');
  });
});

import { describe, expect, it } from 'vitest';
import { toSearchDocument } from '../../../functions/search/search-document';
import { type BulkAnswer, bulkOutcomes, bulkRequest, itemOutcome } from '../../../functions/search/opensearch/bulk';
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

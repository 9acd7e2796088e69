/**
 * The search contract against a real OpenSearch node, when `OPENSEARCH_URL` names one
 * (e.g. `OPENSEARCH_URL=http://localhost:9200`). Each test gets its own index, deleted afterwards.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe } from 'vitest';
import { createSearchIndex } from '../../functions/search/engine';
import { createClient, pathSegment } from '../../functions/search/opensearch/client';
import { searchIndexContract } from './search-index.contract';

const url = process.env.OPENSEARCH_URL?.trim();

if (url === undefined || url === '') {
  describe.skip('OpenSearch (skipped: set OPENSEARCH_URL to a test node to run it)', () => {
    searchIndexContract('OpenSearch', () => Promise.reject(new Error('OPENSEARCH_URL is not set')));
  });
} else {
  const prefix = `jobs-contract-${randomUUID().slice(0, 8)}`;
  let created = 0;

  const node = { url, region: process.env.AWS_REGION ?? 'us-east-1', timeoutMs: 10_000 };

  searchIndexContract(
    'OpenSearch',
    () => createSearchIndex({ engine: 'opensearch', ...node, index: `${prefix}-${++created}`, refreshOnWrite: true }),
    // Another container's handle on the same alias.
    () => createSearchIndex({ engine: 'opensearch', ...node, index: `${prefix}-${created}`, refreshOnWrite: true }),
  );

  afterAll(async () => {
    const client = createClient(node);
    await client.request({
      method: 'DELETE',
      path: `/${pathSegment(`${prefix}-*`)}`,
      querystring: { ignore_unavailable: true },
    });
    await client.close();
  });
}

/**
 * The search contract against a real OpenSearch node, when `OPENSEARCH_URL` names one
 * (e.g. `OPENSEARCH_URL=http://localhost:9200`). Each test gets its own index, deleted afterwards.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, describe } from 'vitest';
import { createSearchIndex } from '../../functions/search/engine';
import { searchIndexContract } from './search-index.contract';

const url = process.env.OPENSEARCH_URL?.trim();

if (url === undefined || url === '') {
  describe.skip('OpenSearch (skipped: set OPENSEARCH_URL to a test node to run it)', () => {
    searchIndexContract('OpenSearch', () => Promise.reject(new Error('OPENSEARCH_URL is not set')));
  });
} else {
  const prefix = `jobs-contract-${randomUUID().slice(0, 8)}`;
  let created = 0;

  searchIndexContract('OpenSearch', () =>
    createSearchIndex({
      engine: 'opensearch',
      url,
      index: `${prefix}-${++created}`,
      region: process.env.AWS_REGION ?? 'us-east-1',
      timeoutMs: 10_000,
      refreshOnWrite: true,
    }),
  );

  afterAll(async () => {
    const client = new Client({ node: url });
    await client.indices.delete({ index: `${prefix}-*`, ignore_unavailable: true });
    await client.close();
  });
}

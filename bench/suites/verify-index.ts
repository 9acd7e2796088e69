/**
 * `verify-index` over 100,000 jobs: how long the comparison of the table with the index takes, and how many
 * requests it sends to the index, on both engines behind the SearchIndex interface.
 *
 * - The jobs table is a generated one read in memory (the same deterministic jobs as the other suites, every
 *   job at version 1), so the figures are the index side's: DynamoDB's scan is measured by the `scan` suite.
 * - The embedded engine: an in-memory SQLite index holding every job.
 * - OpenSearch: the recording OpenSearch stand-in of the tests (test/support/opensearch-stand-in.ts, every
 *   request checked against OpenSearch's published API description) behind the real OpenSearch engine,
 *   over local HTTP. Its time is the engine's and the stand-in's, not a domain's; its request count is
 *   exactly what the command would send to a domain in AWS, and is set beside the one request per job the
 *   command sent before it read documents in batches.
 *
 *   npx tsx bench/suites/verify-index.ts [--quick]
 */
import { performance } from 'node:perf_hooks';
import { OpenSearchSearchIndex } from '../../functions/search/opensearch/opensearch-search-index';
import { toSearchDocument } from '../../functions/search/search-document';
import type { SearchIndex } from '../../functions/search/search-index';
import { DOCUMENT_BATCH, verifyIndex } from '../../local/operations/verify-index';
import { EmbeddedSearchIndex } from '../../local/search/embedded/embedded-search-index';
import { OpenSearchStandIn } from '../../test/support/opensearch-stand-in';
import { generateJob, type Population, totalJobs } from '../lib/generator';
import { round } from '../lib/stats';
import { runSuite } from '../lib/suite';

const POPULATIONS: Record<'full' | 'quick', Population> = {
  full: { jobs: 90_000, accounts: 1_000, largeAccountJobs: 10_000 },
  quick: { jobs: 9_000, accounts: 100, largeAccountJobs: 1_000 },
};
const APPLY_BATCH = 1_000;

await runSuite('verify-index', 'verify-index: table against index, read in pages', async ({ mode, log }) => {
  const population = POPULATIONS[mode];
  const total = totalJobs(population);
  const repository = {
    async *scanJobVersions() {
      for (let id = 1; id <= total; id++) yield { jobId: id, version: 1 };
    },
    async *scanJobs() {
      for (let id = 1; id <= total; id++) yield { job: generateJob(population, id), version: 1 };
    },
  };
  const fill = async (index: SearchIndex): Promise<void> => {
    for (let first = 1; first <= total; first += APPLY_BATCH) {
      const last = Math.min(total, first + APPLY_BATCH - 1);
      const operations = [];
      for (let id = first; id <= last; id++) {
        operations.push({ type: 'upsert' as const, document: toSearchDocument(generateJob(population, id), 1) });
      }
      const outcomes = await index.apply(operations);
      if (outcomes.some((outcome) => outcome.status !== 'indexed')) throw new Error(`apply failed near job ${first}`);
    }
  };
  const timed = async (index: SearchIndex): Promise<number> => {
    const started = performance.now();
    const report = await verifyIndex({ repository, index });
    const seconds = (performance.now() - started) / 1000;
    if (!report.ok || report.checked !== total) throw new Error(`verify-index disagreed: ${JSON.stringify(report)}`);
    return seconds;
  };

  log(`embedded engine: indexing ${total} jobs…`);
  const embedded = new EmbeddedSearchIndex({ path: ':memory:' });
  await fill(embedded);
  log('embedded engine: verifying…');
  const embeddedSeconds = await timed(embedded);
  await embedded.close();

  log(`OpenSearch stand-in: indexing ${total} jobs…`);
  const node = new OpenSearchStandIn();
  const url = await node.start();
  node.cluster.createIndex('jobs-v0', { jobs: { is_write_index: true } });
  const openSearch = new OpenSearchSearchIndex({
    engine: 'opensearch',
    url,
    index: 'jobs',
    region: 'eu-west-1',
    timeoutMs: 60_000,
  });
  await fill(openSearch);
  // What OpenSearch does by itself within a second of the writes.
  node.cluster.refresh('jobs');
  log('OpenSearch stand-in: verifying…');
  const from = node.requests.length;
  const openSearchSeconds = await timed(openSearch);
  const sent = node.requests.slice(from);
  await openSearch.close();
  await node.stop();
  if (node.problems.length > 0) throw new Error(`Requests the API description refuses: ${node.problems.join('; ')}`);
  const count = (suffix: string): number => sent.filter((request) => request.path.endsWith(suffix)).length;
  const pages = count('/_search');
  // Before: the same alias read and version pages, then one GET /jobs/_doc/<id> per job.
  const perJob = sent.length - count('/_mget') + total;

  return {
    parameters: { population, jobs: total, documentBatch: DOCUMENT_BATCH },
    figures: [
      {
        id: 'verify-index.embedded.seconds',
        label: `verify-index of ${total.toLocaleString('en-US')} jobs, embedded engine (in memory)`,
        value: round(embeddedSeconds),
        unit: 's',
      },
      {
        id: 'verify-index.opensearch-stand-in.seconds',
        label: `verify-index of ${total.toLocaleString('en-US')} jobs, OpenSearch engine against the local stand-in`,
        value: round(openSearchSeconds),
        unit: 's',
      },
      {
        id: 'verify-index.opensearch.requests',
        label: `requests to the domain (${count('/_alias/jobs')} _alias, ${count('/_count')} _count, ${pages} _search pages, ${count('/_mget')} _mget of ${DOCUMENT_BATCH})`,
        value: sent.length,
        unit: 'requests',
        baseline: { label: 'one GET /_doc per job, as before', value: perJob, unit: 'requests' },
        ratio: { value: round(perJob / sent.length), text: `${round(perJob / sent.length, 1)}× fewer` },
      },
    ],
    notes: [
      'The table side is generated in memory; the times are the index side: reading versions in pages and documents in batches, and comparing each document with the one the table produces.',
      'The OpenSearch time is the engine against a stand-in on this machine (no network, no domain); in AWS each request adds a round trip, so the request count is the figure that carries over.',
    ],
  };
});

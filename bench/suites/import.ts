/**
 * Import: jobs per second through `local/import.ts` importNdjson (validation, one consistent read and
 * one versioned transaction per job) into DynamoDB Local, beside plain BatchWriteItem of the same jobs'
 * items into an empty table of the same definition in the same DynamoDB Local.
 *
 *   npx tsx bench/suites/import.ts [--quick]
 */
import { createWriteStream, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { once } from 'node:events';
import { createDocumentClient } from '../../functions/aws/dynamodb';
import { JobRepository } from '../../functions/jobs/repository';
import { importNdjson } from '../../local/import';
import { type BenchDynamo, BENCH_REGION, batchWrite, itemsOf, startBenchDynamo } from '../lib/dynamo';
import { generateJob, type Population } from '../lib/generator';
import { formatNumber, proportion } from '../lib/report';
import { round } from '../lib/stats';
import { runSuite } from '../lib/suite';

const POPULATION: Population = { jobs: 90_000, accounts: 1_000, largeAccountJobs: 10_000 };

/** Runs a measurement against a DynamoDB Local of its own, stopped afterwards. */
const withDynamo = async <T>(measure: (dynamo: BenchDynamo) => Promise<T>): Promise<T> => {
  const dynamo = await startBenchDynamo();
  // The repository's client reads credentials from the environment, as in Lambda.
  Object.assign(process.env, dynamo.env);
  try {
    return await measure(dynamo);
  } finally {
    await dynamo.stop();
  }
};

await runSuite('import', 'Import into DynamoDB Local', async ({ scale, log }) => {
  const file = join(tmpdir(), `jobs-api-bench-import-${process.pid}.ndjson`);
  const output = createWriteStream(file);
  let items = 0;
  for (let id = 1; id <= scale.importJobs; id++) {
    const job = generateJob(POPULATION, id);
    items += 1 + job.files.length;
    if (!output.write(`${JSON.stringify(job)}\n`)) await once(output, 'drain');
  }
  output.end();
  await once(output, 'finish');

  try {
    // Each measurement gets a fresh DynamoDB Local, so neither inherits the other's table or stream.
    const importSeconds = await withDynamo(async (dynamo) => {
      const documents = createDocumentClient({
        region: BENCH_REGION,
        dynamodbEndpoint: dynamo.local.endpoint,
        dependencyTimeoutMs: 9_000,
      });
      try {
        const repository = new JobRepository(documents, dynamo.jobsTable);
        log(`importing ${formatNumber(scale.importJobs)} jobs (${formatNumber(items)} items)`);
        const started = performance.now();
        const result = await importNdjson(file, { repository });
        if (result.imported !== scale.importJobs) {
          throw new Error(`Imported ${result.imported} of ${scale.importJobs} jobs`);
        }
        return (performance.now() - started) / 1000;
      } finally {
        documents.destroy();
      }
    });
    const rawSeconds = await withDynamo(async (dynamo) => {
      const rawItems: object[] = [];
      for (let id = 1; id <= scale.importJobs; id++) rawItems.push(...itemsOf(generateJob(POPULATION, id)));
      log('BatchWriting the same jobs');
      const started = performance.now();
      await batchWrite(dynamo.documents, dynamo.jobsTable, rawItems);
      return (performance.now() - started) / 1000;
    });

    const importRate = scale.importJobs / importSeconds;
    const rawRate = scale.importJobs / rawSeconds;
    const ratio = proportion(importRate, rawRate, 'BatchWrite');
    return {
      parameters: { jobs: scale.importJobs, items, batchSize: 100, concurrency: 8 },
      figures: [
        {
          id: 'import.jobs-per-second',
          label: `import of ${formatNumber(scale.importJobs)} jobs (importNdjson, ${formatNumber(items)} items)`,
          value: round(importRate),
          unit: 'jobs/s',
          baseline: { label: 'BatchWriteItem of the same items', value: round(rawRate), unit: 'jobs/s' },
          ...(ratio === undefined ? {} : { ratio }),
        },
      ],
      notes: [
        'Each measurement runs on a fresh DynamoDB Local. importNdjson validates every line and writes each job with JobRepository.putJob (a consistent Query of its partition, then one TransactWriteItems with the version bump), 8 jobs at a time; the baseline writes the same items blind, 25 per BatchWriteItem, 8 requests at a time.',
      ],
    };
  } finally {
    rmSync(file, { force: true });
  }
});

/**
 * The "no index" baseline: jobs BatchWritten into DynamoDB Local, then each search answered by a full
 * table Scan filtered in application code (the common shortcut of services without a search index).
 *
 * A search's latency is the Scan of the whole table plus the filter, sort and page of that search.
 * The Scan does not depend on the search, so it is timed `scanRuns` times and each class's filter is
 * timed on the scanned jobs; when fewer jobs than the population are written (`--quick`), both parts
 * are extrapolated linearly to the population (a Scan reads every item, so its cost is linear).
 *
 *   npx tsx bench/suites/scan.ts [--quick]
 */
import { performance } from 'node:perf_hooks';
import { ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import { fromItems } from '../../functions/jobs/store/items';
import { toSearchDocument } from '../../functions/search/search-document';
import type { SearchDocument } from '../../functions/search/search-index';
import { batchWrite, itemsOf, startBenchDynamo } from '../lib/dynamo';
import { generateJob, totalJobs } from '../lib/generator';
import { engineQuery, queryClasses } from '../lib/queries';
import type { Figure } from '../lib/report';
import { searchByFilter } from '../lib/scan-filter';
import { median, round } from '../lib/stats';
import { runSuite } from '../lib/suite';

/** Reads every item of a table with a paginated Scan. */
const scanAll = async (
  send: (command: ScanCommand) => Promise<ScanCommandOutput>,
  tableName: string,
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: exclusiveStartKey }));
    items.push(...(page.Items ?? []));
    exclusiveStartKey = page.LastEvaluatedKey;
  } while (exclusiveStartKey !== undefined);
  return items;
};

/** The jobs of scanned items, as search documents. */
const documentsOf = (items: Record<string, unknown>[]): SearchDocument[] => {
  const partitions = new Map<unknown, Record<string, unknown>[]>();
  for (const item of items) {
    const list = partitions.get(item.pk);
    if (list === undefined) partitions.set(item.pk, [item]);
    else list.push(item);
  }
  const documents: SearchDocument[] = [];
  for (const partition of partitions.values()) {
    const stored = fromItems(partition);
    if (stored !== undefined) documents.push(toSearchDocument(stored.job, stored.version));
  }
  return documents;
};

await runSuite('scan', 'No-index baseline: DynamoDB Scan + filter', async ({ scale, log }) => {
  const population = scale.scanPopulation;
  const written = Math.min(scale.scanJobsWritten, totalJobs(population));
  const factor = totalJobs(population) / written;
  const dynamo = await startBenchDynamo();
  try {
    // Evenly spaced ids, so the written jobs span every year, account and status of the population.
    const items: object[] = [];
    for (let k = 0; k < written; k++) items.push(...itemsOf(generateJob(population, 1 + Math.floor(k * factor))));
    log(`BatchWriting ${written.toLocaleString('en-US')} jobs (${items.length.toLocaleString('en-US')} items)`);
    const writing = performance.now();
    await batchWrite(dynamo.documents, dynamo.jobsTable, items);
    const writeSeconds = (performance.now() - writing) / 1000;

    const scanMs: number[] = [];
    let scanned: Record<string, unknown>[] = [];
    for (let run = 0; run < scale.scanRuns; run++) {
      const started = performance.now();
      scanned = await scanAll((command) => dynamo.documents.send(command), dynamo.jobsTable);
      scanMs.push(performance.now() - started);
      log(`scan ${run + 1}/${scale.scanRuns}: ${scanned.length} items in ${Math.round(scanMs.at(-1) ?? 0)} ms`);
    }
    const documents = documentsOf(scanned);
    if (documents.length !== written) throw new Error(`Scanned ${documents.length} jobs, wrote ${written}`);
    const scanP50 = median(scanMs) * factor;

    const figures: Figure[] = [
      {
        id: 'scan.batch-write.jobs-per-second',
        label: `BatchWrite load into DynamoDB Local (${written.toLocaleString('en-US')} jobs, ${items.length.toLocaleString('en-US')} items)`,
        value: round(written / writeSeconds),
        unit: 'jobs/s',
      },
      {
        id: 'scan.batch-write.items-per-second',
        label: 'BatchWrite load into DynamoDB Local, items',
        value: round(items.length / writeSeconds),
        unit: 'items/s',
      },
      {
        id: 'scan.full-scan.ms',
        label: `full Scan of ${totalJobs(population).toLocaleString('en-US')} jobs${factor > 1 ? ` (extrapolated ×${round(factor)} from ${written.toLocaleString('en-US')})` : ''}`,
        value: round(scanP50),
        unit: 'ms',
      },
    ];
    for (const queryClass of queryClasses(population)) {
      const query = engineQuery(queryClass);
      const filterMs: number[] = [];
      let total = 0;
      for (let run = 0; run < 5; run++) {
        const started = performance.now();
        total = searchByFilter(documents, query).total;
        filterMs.push(performance.now() - started);
      }
      figures.push({
        id: `scan.${queryClass.id}.p50`,
        label: `Scan + filter: ${queryClass.label} (${round(total * factor)} matches)`,
        value: round(scanP50 + median(filterMs) * factor),
        unit: 'ms',
      });
    }
    return {
      parameters: {
        jobs: totalJobs(population),
        jobsWritten: written,
        items: items.length,
        scanRuns: scale.scanRuns,
        extrapolation: round(factor),
      },
      figures,
      notes:
        factor > 1
          ? [
              `Only ${written.toLocaleString('en-US')} of ${totalJobs(population).toLocaleString('en-US')} jobs were written (quick run); Scan and filter times are multiplied by ${round(factor)}.`,
            ]
          : [],
    };
  } finally {
    await dynamo.stop();
  }
});

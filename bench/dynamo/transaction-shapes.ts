/**
 * What shape of atomic write DynamoDB Local serves fastest: the same generated jobs written as
 * BatchWriteItem (25 items per request) and as TransactWriteItems of whole jobs (up to 25, 50 or 100
 * items, each job item conditioned on `attribute_not_exists(pk)` as the import writes it), at several
 * requests in flight. Each measurement runs on a fresh DynamoDB Local, the shapes interleaved over rounds
 * (the order reversed every other round); the medians are printed. A measurement for BENCHMARKS.md's
 * import findings, not a suite of `npm run bench` and not a test.
 *
 *   npx tsx bench/dynamo/transaction-shapes.ts [jobs=1500] [--rounds=3]
 */
import { performance } from 'node:perf_hooks';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type BenchDynamo, batchWrite, itemsOf, startBenchDynamo } from '../lib/dynamo';
import { generateJob, type Population } from '../lib/generator';
import { median } from '../lib/stats';
import { argValue } from '../lib/suite';

const POPULATION: Population = { jobs: 90_000, accounts: 1_000, largeAccountJobs: 10_000 };
const count = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 1_500);
const rounds = Number(argValue('rounds') ?? 3);

const jobItems = Array.from({ length: count }, (_, position) => itemsOf(generateJob(POPULATION, position + 1)));

/** Whole jobs packed into groups of at most `maxItems` items. */
const groupsOf = (maxItems: number): Array<Array<Record<string, unknown>>> => {
  const groups: Array<Array<Record<string, unknown>>> = [];
  for (const items of jobItems) {
    const last = groups.at(-1);
    if (last !== undefined && last.length + items.length <= maxItems)
      last.push(...(items as Array<Record<string, unknown>>));
    else groups.push([...(items as Array<Record<string, unknown>>)]);
  }
  return groups;
};

const transact = async (dynamo: BenchDynamo, maxItems: number, inFlight: number): Promise<void> => {
  const groups = groupsOf(maxItems);
  let next = 0;
  const writer = async (): Promise<void> => {
    for (let group = groups[next++]; group !== undefined; group = groups[next++]) {
      await dynamo.documents.send(
        new TransactWriteCommand({
          TransactItems: group.map((Item) => ({
            Put: {
              TableName: dynamo.jobsTable,
              Item,
              ...(Item.sk === 'JOB' ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
            },
          })),
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: inFlight }, writer));
};

const shapes: Array<[string, (dynamo: BenchDynamo) => Promise<void>]> = [
  ['BatchWriteItem, 8 in flight', (dynamo) => batchWrite(dynamo.documents, dynamo.jobsTable, jobItems.flat(), 8)],
  ['BatchWriteItem, 16 in flight', (dynamo) => batchWrite(dynamo.documents, dynamo.jobsTable, jobItems.flat(), 16)],
  ['TransactWriteItems ≤ 100 items, 8 in flight', (dynamo) => transact(dynamo, 100, 8)],
  ['TransactWriteItems ≤ 100 items, 16 in flight', (dynamo) => transact(dynamo, 100, 16)],
  ['TransactWriteItems ≤ 100 items, 32 in flight', (dynamo) => transact(dynamo, 100, 32)],
  ['TransactWriteItems ≤ 50 items, 16 in flight', (dynamo) => transact(dynamo, 50, 16)],
  ['TransactWriteItems ≤ 25 items, 16 in flight', (dynamo) => transact(dynamo, 25, 16)],
  ['TransactWriteItems ≤ 25 items, 32 in flight', (dynamo) => transact(dynamo, 25, 32)],
];

const rates = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  for (const [name, write] of round % 2 === 0 ? shapes : [...shapes].reverse()) {
    const dynamo = await startBenchDynamo();
    try {
      const started = performance.now();
      await write(dynamo);
      const rate = count / ((performance.now() - started) / 1000);
      rates.set(name, [...(rates.get(name) ?? []), rate]);
      process.stdout.write(`round ${round + 1}: ${name}: ${Math.round(rate)} jobs/s\n`);
    } finally {
      await dynamo.stop();
    }
  }
}
const batchRate = median(rates.get(shapes[0]?.[0] as string) ?? []);
process.stdout.write(`\n${count} jobs, median of ${rounds} rounds; ratio to BatchWriteItem at 8 in flight\n`);
for (const [name, values] of rates) {
  const rate = median(values);
  process.stdout.write(
    `${name.padEnd(46)} ${String(Math.round(rate)).padStart(6)} jobs/s  ${(rate / batchRate).toFixed(2)}×\n`,
  );
}

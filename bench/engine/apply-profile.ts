/**
 * Profile of the embedded engine's bulk `apply`: microseconds per document by part (BEGIN, COMMIT,
 * statements, JavaScript) for each call size, the sizes interleaved (bench/lib/apply-profile.ts). With
 * `--skip=<statement prefix>` the matching statements are left out, which shows what a part costs (the
 * index is then incomplete; a measurement, never a configuration). Not a test.
 *
 *   npx tsx bench/engine/apply-profile.ts [documents=10000] [--sizes=1,100,500]
 *     [--skip="INSERT INTO jobs_text"]   (FTS5)   [--skip="INSERT OR IGNORE INTO terms"]   (vocabulary)
 */
import { toSearchDocument } from '../../functions/search/search-document';
import { profileApply } from '../lib/apply-profile';
import { generateJob, type Population } from '../lib/generator';
import { argValue } from '../lib/suite';

const POPULATION: Population = { jobs: 90_000, accounts: 1_000, largeAccountJobs: 10_000 };
const count = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 10_000);
const sizes = (argValue('sizes') ?? '1,100,500').split(',').map(Number);
const skip = argValue('skip');

const documents = Array.from({ length: count }, (_, position) =>
  toSearchDocument(generateJob(POPULATION, position + 1), 1),
);
const fixed = (value: number): string => value.toFixed(1).padStart(7);
process.stdout.write(`${count} documents${skip === undefined ? '' : `, without "${skip}"`}; µs per document\n`);
process.stdout.write('per call   jobs/s    total    BEGIN   COMMIT  stmts       JS\n');
for (const profile of await profileApply(documents, sizes, { skip })) {
  process.stdout.write(
    `${String(profile.perCall).padStart(8)} ${String(Math.round(profile.jobsPerSecond)).padStart(8)} ${fixed(profile.total)}  ${fixed(profile.begin)}  ${fixed(profile.commit)} ${fixed(profile.statements)}  ${fixed(profile.javascript)}\n`,
  );
}

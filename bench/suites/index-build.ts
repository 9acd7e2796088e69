/**
 * Builds (or reuses) the large search index the search suite reads: every generated job written
 * straight into the embedded engine through `SearchIndex.apply`, 1,000 per call. Run in its own process
 * so the search suite's memory figure does not include the build.
 *
 *   npx tsx bench/suites/index-build.ts [--quick] [--rebuild]
 */
import { totalJobs } from '../lib/generator';
import { ensureIndex } from '../lib/index-cache';
import { round } from '../lib/stats';
import { runSuite } from '../lib/suite';

await runSuite('index-build', 'Search index build (bulk apply, no DynamoDB)', async ({ scale, log }) => {
  const { path, manifest, built } = await ensureIndex(scale.searchPopulation, log, process.argv.includes('--rebuild'));
  const jobs = totalJobs(scale.searchPopulation);
  const resumedAfter = manifest.resumedAfter ?? 0;
  const applied = jobs - resumedAfter;
  const into = resumedAfter > 0 ? `a ${resumedAfter.toLocaleString('en-US')}-job` : 'a new';
  return {
    parameters: {
      population: scale.searchPopulation,
      batchSize: manifest.batchSize,
      path,
      builtAt: manifest.builtAt,
      reusedFromCache: !built,
    },
    figures: [
      {
        id: 'index-build.apply.jobs-per-second',
        label: `bulk apply of ${applied.toLocaleString('en-US')} documents into ${into} index, ${manifest.batchSize} per call (apply time only)`,
        value: round(applied / manifest.applySeconds),
        unit: 'jobs/s',
      },
      {
        id: 'index-build.total.seconds',
        label: 'index build, generating the jobs included',
        value: round(manifest.buildSeconds),
        unit: 's',
      },
      {
        id: 'index-build.file.mib',
        label: 'index file size',
        value: round(manifest.fileBytes / 2 ** 20),
        unit: 'MiB',
      },
    ],
    notes: [
      ...(built ? [] : [`Reused the index built on ${manifest.builtAt}; its build figures are from that run.`]),
      ...(manifest.resumedAfter === undefined
        ? []
        : [
            `The build resumed an interrupted one after job ${manifest.resumedAfter.toLocaleString('en-US')}; its times cover only the resumed part.`,
          ]),
    ],
  };
});

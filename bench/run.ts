/**
 * `npm run bench [-- --quick] [-- --only=search,scan] [-- --rebuild] [-- --scan-jobs=N]`: runs every
 * benchmark suite in its own process (so each starts with a clean heap and its own handler
 * configuration), writes `bench/results/<suite>[-quick].json` and regenerates the result tables and the
 * plots (bench/plots/*.svg, bench/lib/plots.ts) of BENCHMARKS.md from every results file.
 *
 * Suites, in order: bundles (cold start and size), index-build (the large index, cached under the OS
 * temp directory), scan (the no-index baseline), search (latency at scale, which compares itself with
 * this run's scan), verify (every search's answer checked against an independent reference), indexing
 * (throughput and search delay), import, load (a fixed-rate mixed workload against `npm start`'s
 * server, bench/load/run.ts), verify-index (the operator's comparison of table and index, and the requests it
 * sends to a domain), jobs-read (GET /jobs/{id}, a page of files, accept beside reject: handler latency),
 * jobs-create (POST /jobs of 1, 100 and 1,000 files: jobs/s and DynamoDB requests per job), images (checking and
 * rendering one upload), events (a change's time to its webhook on the local stack, and the events function's
 * events per second).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { writePlots } from './lib/plots';
import { readAllResults, ROOT, updateBenchmarksMd } from './lib/report';
import { modeOf } from './lib/suite';

const SUITES = [
  'bundles',
  'index-build',
  'scan',
  'search',
  'verify',
  'indexing',
  'import',
  'load',
  'verify-index',
  'jobs-read',
  'jobs-create',
  'images',
  'events',
] as const;

/** Where a suite's script lives: the load run has its own folder, every other suite is in bench/suites/. */
const suiteFile = (suite: string): string =>
  suite === 'load' ? join(ROOT, 'bench', 'load', 'run.ts') : join(ROOT, 'bench', 'suites', `${suite}.ts`);

/** Runs one suite file in a fresh Node process (through tsx); resolves with its exit code. */
const runChild = (suite: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', suiteFile(suite), ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });

const main = async (): Promise<number> => {
  const argv = process.argv.slice(2);
  const mode = modeOf(argv);
  const only = argv
    .find((arg) => arg.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const selected = SUITES.filter((suite) => only === undefined || only.includes(suite));
  const passThrough = argv.filter((arg) => !arg.startsWith('--only='));
  const env = { ...process.env, BENCH_RUN_STARTED: new Date().toISOString() };
  const failed: string[] = [];
  const started = performance.now();
  for (const suite of selected) {
    process.stderr.write(`\n=== ${suite} (${mode}) ===\n`);
    const suiteStarted = performance.now();
    const code = await runChild(suite, passThrough, env);
    process.stderr.write(
      `=== ${suite}: ${code === 0 ? 'done' : `failed (exit ${code})`} in ${Math.round((performance.now() - suiteStarted) / 1000)} s ===\n`,
    );
    if (code !== 0) failed.push(suite);
  }
  const results = readAllResults();
  updateBenchmarksMd(results);
  writePlots(results);
  process.stderr.write(
    `\nBenchmarks (${mode}) finished in ${Math.round((performance.now() - started) / 1000)} s; BENCHMARKS.md and its plots updated.${failed.length > 0 ? ` Failed: ${failed.join(', ')}.` : ''}\n`,
  );
  return failed.length === 0 ? 0 : 1;
};

process.exitCode = await main();

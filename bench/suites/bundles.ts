/**
 * Cold start and size of the Lambda bundles: the four handler entries bundled by esbuild with the
 * options the CDK stack gives `NodejsFunction` (lib/handler-function.ts: ESM, minified, source maps,
 * Node 24, the ESM `require` banner, the AWS SDK left to the runtime), each imported by a fresh `node`
 * process (module initialisation time, median of `initRuns`), beside a baseline bundle that only
 * imports the DynamoDB client, built and timed the same way in the same run.
 *
 *   npx tsx bench/suites/bundles.ts [--quick]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ESM_BANNER, externalModulesFor, POWERTOOLS_ENVIRONMENT } from '../../lib/handler-function';
import { DEFAULT_CONFIG } from '../../lib/stack-config';
import { type Figure, formatNumber, proportion, ROOT } from '../lib/report';
import { median, round } from '../lib/stats';
import { runSuite } from '../lib/suite';

const TARGET_INIT_RATIO = 1.5;
const TARGET_BUNDLE_BYTES = 1024 * 1024;

const ENTRIES = ['search', 'search-fields', 'reject', 'indexer'] as const;
const BASELINE = 'baseline-dynamodb-client';

const BASELINE_SOURCE = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
const client = new DynamoDBClient({});
export const handler = async () => ({ statusCode: 200, body: String(typeof client.send) });
`;

/** The esbuild options NodejsFunction derives from the bundling props of lib/handler-function.ts. */
const bundle = async (entry: string, outfile: string): Promise<void> => {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    banner: { js: ESM_BANNER },
    external: externalModulesFor(DEFAULT_CONFIG.detailedTracing),
    logLevel: 'error',
  });
};

/** Imports a bundle in a fresh node process and returns the import time in milliseconds. */
const initTime = (file: string, env: NodeJS.ProcessEnv): number => {
  const script = `const t = performance.now(); await import(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - t));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`Importing ${file} failed:\n${result.stderr}`);
  return Number(result.stdout);
};

await runSuite('bundles', 'Lambda bundles: size and module initialisation', async ({ scale, log }) => {
  const dir = join(tmpdir(), `jobs-api-bench-bundles-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // The Lambda runtime provides the AWS SDK; here the project's copy stands in for it.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  try {
    const baselineEntry = join(dir, `${BASELINE}.mjs`);
    writeFileSync(baselineEntry, BASELINE_SOURCE);
    const files: Record<string, string> = {};
    for (const name of [...ENTRIES, BASELINE]) {
      const entry = name === BASELINE ? baselineEntry : join(ROOT, 'functions', 'handlers', `${name}.ts`);
      files[name] = join(dir, name, 'index.mjs');
      await bundle(entry, files[name]);
    }
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      ...POWERTOOLS_ENVIRONMENT,
      DETAILED_TRACING: String(DEFAULT_CONFIG.detailedTracing),
      AWS_REGION: 'us-east-1',
      AWS_LAMBDA_FUNCTION_NAME: 'bench',
      JOBS_TABLE: 'bench-Jobs',
      AUTH_TABLE: 'bench-Auth',
      SEARCH_ENGINE: 'opensearch',
      OPENSEARCH_URL: 'https://search.invalid',
    };
    // Interleaved, so every bundle sees the same machine conditions.
    const times: Record<string, number[]> = Object.fromEntries([...ENTRIES, BASELINE].map((name) => [name, []]));
    for (let run = 0; run < scale.initRuns; run++) {
      for (const name of [...ENTRIES, BASELINE]) times[name]?.push(initTime(files[name] as string, env));
    }
    log(`${scale.initRuns} fresh processes per bundle`);
    const baselineInit = median(times[BASELINE] ?? []);
    const baselineBytes = statSync(files[BASELINE] as string).size;
    const figures: Figure[] = [
      {
        id: 'bundles.baseline.init',
        label: 'baseline bundle (imports only the DynamoDB client): module init, median',
        value: round(baselineInit),
        unit: 'ms',
      },
      {
        id: 'bundles.baseline.size',
        label: 'baseline bundle size',
        value: round(baselineBytes / 1024),
        unit: 'KiB',
      },
    ];
    for (const name of ENTRIES) {
      const init = median(times[name] ?? []);
      const bytes = statSync(files[name] as string).size;
      const mapBytes = statSync(`${files[name]}.map`).size;
      const ratio = proportion(init, baselineInit);
      figures.push(
        {
          id: `bundles.${name}.init`,
          label: `${name}: module init, median of ${scale.initRuns} fresh processes`,
          value: round(init),
          unit: 'ms',
          baseline: { label: 'DynamoDB-client-only bundle', value: round(baselineInit), unit: 'ms' },
          ...(ratio === undefined ? {} : { ratio }),
          target: { text: `≤ ${TARGET_INIT_RATIO}× the baseline`, met: init <= TARGET_INIT_RATIO * baselineInit },
        },
        {
          id: `bundles.${name}.size`,
          label: `${name}: bundle size (index.mjs; source map ${formatNumber(mapBytes / 1024)} KiB beside it)`,
          value: round(bytes / 1024),
          unit: 'KiB',
          baseline: { label: 'baseline bundle', value: round(baselineBytes / 1024), unit: 'KiB' },
          target: { text: '≤ 1 MiB', met: bytes <= TARGET_BUNDLE_BYTES },
        },
      );
    }
    return {
      parameters: {
        initRuns: scale.initRuns,
        node: process.version,
        esbuild: 'lib/handler-function.ts bundling options',
      },
      figures,
      notes: [
        'Module init is the time of `await import(bundle)` in a fresh node process with the deployed environment (NODE_OPTIONS=--enable-source-maps, Powertools settings); the AWS SDK is external, as in Lambda, and resolved from the project node_modules.',
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * The programs the end-to-end tests run as processes (`npm run cli` is `tsx bin/cli.ts`, `npm start` is
 * `node --import tsx bin/local.ts`, `npm run invoke` is `tsx bin/invoke.ts`), bundled once per test run with
 * esbuild instead of compiled again by tsx in every process: a CLI command the tests spawn then starts in about
 * 0.3 s of CPU instead of 0.75 s, and the suite spawns about a hundred of them; an invocation of a handler costs
 * about 0.7 s instead of 1.1 s. The bundle is the same source compiled by the same compiler tsx uses (esbuild),
 * with the packages left to Node's own resolution (`packages: 'external'`), so a bundled process loads exactly the
 * modules `npm run cli` loads. The launch through tsx itself stays tested: `npm start`, `npm run cli -- --help`
 * and one `npm run invoke -- search-fields …` run as a user types them (test/e2e/start-supervision.test.ts,
 * test/e2e/cli.test.ts, test/e2e/invoke.test.ts).
 *
 * A module that finds a file next to itself (`new URL('../../openapi.yaml', import.meta.url)`) would look next to
 * the bundle instead: each source file's `import.meta.url`, `import.meta.filename` and `import.meta.dirname` are
 * therefore replaced with the values they have in the source tree.
 *
 * The scripts are one build with code splitting: a module the source loads with `await import()` is a chunk of
 * its own, loaded when it is asked for, with the package imports it holds, as Node loads it from the source tree.
 * Without splitting, esbuild would inline it and hoist its package imports to the top of the bundle, and every
 * command would load the packages of every other (S3, sharp, OpenSearch…) before it starts.
 *
 * The bundles are written under the repository's `node_modules/.cache/` (so that the packages they import are
 * found from there), in a directory of their own per run, removed when the run ends: `<script name>.mjs` for
 * each script, and the chunks they share or load on demand under `chunks/`.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** The scripts bundled, by their path from the repository root. */
export const BUNDLED_SCRIPTS = ['bin/cli.ts', 'bin/local.ts', 'bin/invoke.ts'] as const;

/** Replaces a source file's `import.meta` locations with the file's own (see the module's comment). */
const sourceLocations: Plugin = {
  name: 'source-locations',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${join(ROOT, 'node_modules')}`)) return undefined;
      const source = await readFile(args.path, 'utf8');
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.filename', JSON.stringify(args.path))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)));
      return { contents, loader: 'ts' };
    });
  },
};

/** Bundled scripts: the path of each script's bundle, by the script's path from the repository root. */
export interface ScriptBundles {
  directory: string;
  scripts: Record<string, string>;
  remove(): Promise<void>;
}

/** Bundles `BUNDLED_SCRIPTS` into a new directory under `node_modules/.cache/`. */
export const bundleScripts = async (): Promise<ScriptBundles> => {
  const cache = join(ROOT, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const directory = await mkdtemp(join(cache, 'test-scripts-'));
  await build({
    entryPoints: BUNDLED_SCRIPTS.map((script) => join(ROOT, script)),
    outdir: directory,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    logLevel: 'error',
    plugins: [sourceLocations],
  });
  const scripts = Object.fromEntries(
    BUNDLED_SCRIPTS.map((script) => [script, join(directory, `${relative('bin', script).replace(/\.ts$/, '')}.mjs`)]),
  );
  return { directory, scripts, remove: () => rm(directory, { recursive: true, force: true }) };
};

/**
 * `npm run mutate [-- <folder>... --<stryker option>=<value>...]`: Stryker's mutation run (stryker.config.mjs) over the domain, one folder at a
 * time (`jobs`, `auth`, `search`, `http`; all of them, in that order, when none is named). Each folder is its own
 * Stryker run, with its own HTML/JSON report under `reports/mutation/<folder>/`, its own incremental file and its
 * own `break` threshold; a folder measured in parts (`jobs`, `http`) is one run per part, in turn
 * (`reports/mutation/<folder>/<part>/`), and one part alone is named `<folder>/<part>` (`jobs/model`). The first
 * run whose score falls below its threshold (or which fails) ends the command with Stryker's exit code. Options in `--name=value` form go to each Stryker run as they are
 * (`--concurrency=2`, `--logLevel=debug`). Never part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STRYKER = join(
  dirname(createRequire(import.meta.url).resolve('@stryker-mutator/core/package.json')),
  'bin',
  'stryker.js',
);

const { FOLDERS, TARGETS } = (await import(pathToFileURL(`${ROOT}stryker.config.mjs`).href)) as {
  FOLDERS: Record<string, { parts?: Record<string, unknown> }>;
  TARGETS: string[];
};
/** The runs of a name: a folder measured in parts is one run per part; anything else, one run. */
const runsOf = (name: string): string[] => {
  const parts = FOLDERS[name]?.parts;
  return parts === undefined ? [name] : Object.keys(parts).map((part) => `${name}/${part}`);
};
const args = process.argv.slice(2);
const options = args.filter((arg) => arg.startsWith('-'));
const asked = args.filter((arg) => !arg.startsWith('-'));
const unknown = asked.filter((folder) => !TARGETS.includes(folder));
if (unknown.length > 0) {
  console.error(
    `Unknown folder ${unknown.join(', ')}. Usage: npm run mutate [-- ${TARGETS.join(' | ')}... --<option>=<value>...]`,
  );
  process.exit(2);
}

for (const folder of (asked.length > 0 ? asked : Object.keys(FOLDERS)).flatMap(runsOf)) {
  console.log(`\nMutation run of functions/${folder} (report: reports/mutation/${folder}/mutation.html)`);
  const run = spawnSync(process.execPath, [STRYKER, 'run', ...options], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, MUTATION_FOLDER: folder },
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

/**
 * What the generators of files derived from `openapi.yaml` share: writing their output — or, with `--check`, only comparing it with the committed files and failing when they
 * are out of date (the freshness tests call the generators the same way).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A generated file: where it goes and what it holds. */
export type GeneratedFile = readonly [path: string, text: string];

/**
 * Writes the files, or with `--check` in `argv` reports whether the committed ones are up to date and sets
 * a failing exit code when not. `command` is the npm script that regenerates them.
 */
export const writeOrCheck = (files: readonly GeneratedFile[], command: string, argv = process.argv): void => {
  const names = files.map(([path]) => relative(ROOT, path)).join(', ');
  if (argv.includes('--check')) {
    const stale = files.filter(([path, text]) => {
      try {
        return readFileSync(path, 'utf8') !== text;
      } catch {
        return true;
      }
    });
    if (stale.length > 0) {
      console.error(`${names}: out of date; run \`${command}\` and commit the result.`);
      process.exitCode = 1;
      return;
    }
    console.log(`${names}: up to date.`);
    return;
  }
  for (const [path, text] of files) {
    writeFileSync(path, text);
    console.log(`Wrote ${relative(ROOT, path)}`);
  }
};

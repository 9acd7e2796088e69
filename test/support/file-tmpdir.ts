/**
 * Setup of every project: a test file's temporary files live in a directory of its own, removed when the file
 * ends. `TMPDIR` names it from before the file is imported, so whatever the file, the code it runs and the
 * processes it starts put under the system's temporary directory (a CDK app's `cdk.out`, a launcher's class
 * file, a scratch copy) goes there, and a run leaves nothing behind even where a test forgot to clean up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const outer = tmpdir();
const own = mkdtempSync(join(outer, 'test-file-'));
process.env.TMPDIR = own;

afterAll(() => {
  if (process.env.TMPDIR === own) process.env.TMPDIR = outer;
  rmSync(own, { recursive: true, force: true });
});

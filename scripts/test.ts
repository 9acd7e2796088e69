/**
 * `npm test`: the static checks (`scripts/static-checks.ts`: the typecheck and the lint) and the test suite
 * (`vitest run`) side by side rather than one after the other. The suite cannot keep two cores busy all the time
 * (its processes wait on DynamoDB Local, on servers and on the files that run alone at its end), and the checks
 * fill those gaps. The suite's output streams as it comes; the checks' output is held and printed after it, so
 * the two never interleave. Arguments go to vitest (`npm test -- test/e2e`). The command fails when either
 * fails, after both have finished, naming which.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/** Runs a command to its end; its output streams (`inherit`) or is held and handed back. */
const run = (command: string, args: string[], output: 'inherit' | 'held'): Promise<{ code: number; held: string }> =>
  new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      stdio: output === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    let held = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      held += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      held += chunk.toString();
    });
    child.on('error', (error) => resolve({ code: 1, held: `${held}${error.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, held }));
  });

const [checks, suite] = await Promise.all([
  run(process.execPath, ['--import', 'tsx', join('scripts', 'static-checks.ts')], 'held'),
  run(join(ROOT, 'node_modules', '.bin', 'vitest'), ['run', ...process.argv.slice(2)], 'inherit'),
]);
process.stdout.write(`\n${checks.held}`);
const failed = [
  ...(checks.code === 0 ? [] : ['the static checks (npm run typecheck, npm run lint)']),
  ...(suite.code === 0 ? [] : ['the test suite (vitest run)']),
];
if (failed.length > 0) {
  process.stderr.write(`Failed: ${failed.join(' and ')}\n`);
  process.exit(1);
}

/**
 * `npm test`: the test suite (`vitest run`) and the static checks (`npm run typecheck`, `npm run lint`) side by
 * side rather than one after the other. The suite cannot keep two cores busy all the time (its processes wait on
 * DynamoDB Local, on servers and on the files that run alone at its end), and the checks (the type check about 15
 * CPU-seconds, ESLint and Prettier about 35) fill those gaps: they run at the lowest priority (niceness 19), so
 * they take only the CPU the suite leaves idle instead of slowing its files. The type check runs on one thread here
 * (`--singleThreaded`): TypeScript's parallel checkers would take cores the suite needs, for about a third more CPU
 * time in all. The suite's output streams as it comes; each check's output is held, every line with the check's
 * name in front, and printed after the suite's, so the outputs never interleave. Arguments go to vitest
 * (`npm test -- test/e2e`). The command fails when any of the three fails, after all have finished, naming which.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const CHECKS = ['typecheck', 'lint'] as const;
/** What each check is given after `--`. */
const CHECK_ARGS: Record<(typeof CHECKS)[number], string[]> = { typecheck: ['--singleThreaded'], lint: [] };

/** The niceness of the checks (the lowest priority): they take the CPU the suite leaves idle. */
const CHECK_PRIORITY = 19;

/**
 * Runs a command to its end. Its output streams (`prefix` undefined) or is held and handed back, each line
 * behind `[prefix] `. A held command runs at {@link CHECK_PRIORITY}, and so does every process it starts.
 */
const run = (command: string, args: string[], prefix?: string): Promise<{ code: number; held: string }> =>
  new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      stdio: prefix === undefined ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    if (prefix !== undefined && child.pid !== undefined) {
      try {
        setPriority(child.pid, CHECK_PRIORITY);
      } catch {
        // Not allowed here: the check runs at the suite's priority, as it did.
      }
    }
    const chunks: string[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    const held = (): string =>
      prefix === undefined
        ? ''
        : chunks
            .join('')
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => `[${prefix}] ${line}\n`)
            .join('');
    child.on('error', (error) => resolve({ code: 1, held: `${held()}[${prefix ?? command}] ${error.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, held: held() }));
  });

const [suite, ...checks] = await Promise.all([
  run(join(ROOT, 'node_modules', '.bin', 'vitest'), ['run', ...process.argv.slice(2)]),
  ...CHECKS.map((script) =>
    run(
      'npm',
      ['run', '--silent', script, ...(CHECK_ARGS[script].length > 0 ? ['--', ...CHECK_ARGS[script]] : [])],
      script,
    ),
  ),
]);
process.stdout.write(`\n${checks.map((check) => check.held).join('')}`);
const failedChecks = CHECKS.filter((_, index) => checks[index].code !== 0).map((script) => `npm run ${script}`);
if (failedChecks.length === 0)
  process.stdout.write(`${CHECKS.map((script) => `npm run ${script}`).join(' and ')}: passed\n`);
const failed = [...failedChecks, ...(suite.code === 0 ? [] : ['the test suite (vitest run)'])];
if (failed.length > 0) {
  process.stderr.write(`Failed: ${failed.join(', ')}\n`);
  process.exit(1);
}

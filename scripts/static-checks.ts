/**
 * `npm test`'s static checks (scripts/test.ts runs them beside the suite): the typecheck and the lint
 * (`npm run typecheck`, `npm run lint`) side by side rather than one after the other — each keeps one core
 * busy for about 18 s. Every output line keeps its check's name in front; the step fails when either check fails, after
 * both have finished.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const CHECKS = ['typecheck', 'lint'] as const;

const run = (script: string): Promise<number> =>
  new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const relay = (from: NodeJS.ReadableStream, to: NodeJS.WriteStream): void => {
      createInterface({ input: from }).on('line', (line) => to.write(`[${script}] ${line}\n`));
    };
    relay(child.stdout, process.stdout);
    relay(child.stderr, process.stderr);
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });

const codes = await Promise.all(CHECKS.map(run));
const failed = CHECKS.filter((_, index) => codes[index] !== 0);
if (failed.length > 0) {
  process.stderr.write(`Failed: ${failed.map((script) => `npm run ${script}`).join(', ')}\n`);
  process.exit(1);
}
process.stdout.write(`${CHECKS.map((script) => `npm run ${script}`).join(' and ')}: passed\n`);

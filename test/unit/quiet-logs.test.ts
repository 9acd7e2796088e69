/**
 * A test run you can read: with the project's vitest settings a passing test prints none of the log lines it
 * produced, and a failing test shows them beside its failure (test/support/quiet-logs.ts, `silent`).
 */
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { startVitest } from 'vitest/node';
import config from '../../vitest.config';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A stream that keeps what is written to it. */
const recorder = (): { stream: Writable; text: () => string } => {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
};

it('prints the log lines of the failing test only', async () => {
  const stdout = recorder();
  const stderr = recorder();
  const vitest = await startVitest(
    'test',
    [],
    {
      config: false,
      root: ROOT,
      include: ['test/support/fixtures/log-outcomes.ts'],
      watch: false,
      pool: 'forks',
      maxWorkers: 1,
      env: config.test?.env,
      setupFiles: config.test?.setupFiles,
      silent: config.test?.silent,
      reporters: ['default'],
    },
    {},
    { stdout: stdout.stream, stderr: stderr.stream },
  );
  await vitest.close();
  const output = stdout.text() + stderr.text();

  const outcomes = vitest.state
    .getFiles()
    .flatMap((file) => file.tasks)
    .map((task) => [task.name, task.result?.state]);
  expect(Object.fromEntries(outcomes)).toEqual({ 'passes after logging': 'pass', 'fails after logging': 'fail' });
  expect(output).toContain('"message":"line of the failing test"');
  expect(output).toContain('"Name":"MetricOfTheFailingTest"');
  expect(output).not.toContain('line of the passing test');
});

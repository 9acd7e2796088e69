/**
 * Two tiers of tests, as vitest projects:
 * - `unit` (test/unit/**): pure tests and handler tests on mocked events (aws-sdk-client-mock). No
 *   global setup, and `java` is removed from its PATH, so no DynamoDB Local and no network:
 *   `npm run test:unit` runs in seconds (test/unit/tier.test.ts checks this from inside the tier). Its files
 *   share their worker's modules (`isolate: false`), each from the worker's environment
 *   (test/support/file-environment.ts).
 * - `integration` (everything else: integration, end-to-end, reliability, contract, infra, docs): the
 *   global setup starts one DynamoDB Local per worker and hands their endpoints to the tests (each worker keeps
 *   to its own: test/support/dynamo.ts), and bundles the
 *   scripts the tests run as processes (test/support/script-bundles.ts). These files share their worker's
 *   modules too: each imported the AWS SDK, middy and the handlers again (about 0.6 CPU-seconds a file, over
 *   80 s of the run). Each starts from the worker's environment and a container that has made nothing
 *   (test/support/file-environment.ts), and its tables are deleted when it ends (test/support/file-tables.ts).
 *   The files whose requests must not wait behind any other file's traffic start a
 *   DynamoDB Local of their own (the cloud rehearsal, which counts requests; `reject-limits`, whose requests move
 *   megabytes).
 * `npm test` (`vitest run`) runs them all. A passing test prints nothing: the log lines a test produces, the
 * handlers' included (test/support/quiet-logs.ts), are shown only beside its failure (`silent: 'passed-only'`).
 */
import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/sequencer';

const UNIT_TESTS = 'test/unit/**/*.test.ts';
const GLOBAL_SETUP = 'test/support/global-setup.ts';
/** The setup of the files that share their worker's modules (`isolate: false`). */
const SHARED_MODULES_SETUP = [
  'test/support/quiet-logs.ts',
  'test/support/engines.ts',
  'test/support/file-environment.ts',
];

/**
 * A PATH on which `program` cannot be found: a directory (under the system's temporary directory) of links
 * to every other executable of the current PATH, the first of each name winning as a shell would pick. It is
 * removed when the process that read this configuration exits.
 */
const pathWithout = (program: string, path = process.env.PATH ?? ''): string => {
  const root = mkdtempSync(join(tmpdir(), `path-without-${program}-`));
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  const bin = join(root, 'bin');
  const linked = new Set<string>([program]);
  mkdirSync(bin);
  for (const folder of path.split(delimiter)) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      if (linked.has(name)) continue;
      try {
        accessSync(join(folder, name), constants.X_OK);
      } catch {
        continue;
      }
      symlinkSync(join(folder, name), join(bin, name));
      linked.add(name);
    }
  }
  return bin;
};

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    silent: 'passed-only',
    // The files known to be long start first (test/support/sequencer.ts), so the run does not end on one of them.
    sequence: { sequencer: LongestFirstSequencer },
    setupFiles: ['test/support/quiet-logs.ts', 'test/support/engines.ts'],
    env: {
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
      POWERTOOLS_DEV: 'false',
      // CDK's own CloudFormation template validation (aws-cdk-lib runs it on every synthesis unless told not to)
      // costs about 11 CPU-seconds per test process to load its rules and 3 s per synthesis, and only warns. The
      // tests that read templates leave it to test/infra/control-tower.test.ts, which synthesizes as `cdk synth`
      // does, with it on, and holds the app to having no finding of it.
      CDK_VALIDATION: 'false',
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [UNIT_TESTS],
          env: { PATH: pathWithout('java'), JAVA_HOME: '' },
          // The unit files share their worker's module cache instead of importing the code again for each file
          // (the tier ran about three times longer isolated); each file starts from the worker's environment
          // (test/support/file-environment.ts) and restores what it mocks.
          isolate: false,
          setupFiles: SHARED_MODULES_SETUP,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [UNIT_TESTS],
          globalSetup: [GLOBAL_SETUP],
          isolate: false,
          setupFiles: [...SHARED_MODULES_SETUP, 'test/support/file-tables.ts'],
        },
      },
    ],
  },
});

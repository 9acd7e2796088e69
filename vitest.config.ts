/**
 * Two tiers of tests, as vitest projects:
 * - `unit` (test/unit/**): pure tests and handler tests on mocked events (aws-sdk-client-mock). No
 *   global setup, so no Java, no DynamoDB Local and no network: `npm run test:unit` runs in seconds.
 * - `integration` (everything else: integration, end-to-end, reliability, contract, infra, docs): the
 *   global setup starts one DynamoDB Local for the run and hands its endpoint to the tests.
 * `npm test` (`vitest run`) runs both.
 */
import { defineConfig } from 'vitest/config';

const UNIT_TESTS = 'test/unit/**/*.test.ts';

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    env: {
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
      POWERTOOLS_DEV: 'false',
    },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: [UNIT_TESTS] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [UNIT_TESTS],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});

/**
 * The files that share their worker's modules each log at the level their own environment names
 * (test/support/file-environment.ts), even when the worker's logger was made by an earlier file under another level.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { afterEach, expect, it, vi } from 'vitest';
import { logger } from '../../functions/observability';
import { lambdaContext } from '../support/api-event';
import { applyFileLogSettings } from '../support/file-environment';

afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  await applyFileLogSettings();
});

it("keeps a file's log level on every invocation when the worker's logger was made under another level", async () => {
  // The logger as an earlier file made it, with POWERTOOLS_LOG_LEVEL=SILENT (what its constructor does with that
  // setting), and invoked it since.
  (logger as unknown as { setInitialLogLevel: (level: string) => void }).setInitialLogLevel('SILENT');
  const handler = middy(async () => {
    logger.info('line of this file');
    return 'done';
  }).use(injectLambdaContext(logger));
  await handler({}, lambdaContext());

  // This file names INFO.
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
  await applyFileLogSettings();
  const written: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  for (let invocation = 0; invocation < 3; invocation++) await handler({}, lambdaContext());

  expect(written.filter((line) => line.includes('"message":"line of this file"'))).toHaveLength(3);
});

/**
 * Setup of the unit project, whose files share their worker's modules (`isolate: false` in vitest.config.ts):
 * each test file starts from the environment variables the worker started with, and whatever a file set
 * (often at import time, in `vi.hoisted`) is undone when it ends, so no file's configuration leaks into the next.
 *
 * The one setting read at import time by a module every handler shares is the logger's level
 * (`POWERTOOLS_LOG_LEVEL`): the container's logger is made once, by whichever file imported it first. Before a
 * file's tests run (after it was imported, its environment set), the logger takes the level that file's
 * environment names, as a logger made for that file alone would.
 */
import type { LogLevel } from '@aws-lambda-powertools/logger/types';
import { afterAll, beforeAll } from 'vitest';

const initial = { ...process.env };

beforeAll(async () => {
  const { logger } = await import('../../functions/observability');
  logger.setLogLevel((process.env.POWERTOOLS_LOG_LEVEL?.trim() || 'INFO') as LogLevel);
});

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in initial)) delete process.env[name];
  Object.assign(process.env, initial);
});

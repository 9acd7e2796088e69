/**
 * Setup of the projects whose files share their worker's modules (`isolate: false` in vitest.config.ts): each
 * test file starts from the environment variables the worker started with and from a container that has made
 * nothing yet, as a file given modules of its own would.
 *
 * - Whatever a file set in `process.env` (often at import time, in `vi.hoisted`) is undone when it ends, so no
 *   file's configuration leaks into the next.
 * - What the container made from one file's configuration — the configuration itself, its DynamoDB and S3
 *   clients, the open search engines, the sinks a local stack plugged in — is forgotten when the file ends.
 * - The settings a module every handler shares reads at import time are the logger's level
 *   (`POWERTOOLS_LOG_LEVEL`) and whether it logs each invocation's event (`POWERTOOLS_LOGGER_LOG_EVENT`): the
 *   container's logger is made once, by whichever file imported it first. Before a file's tests run (after it was
 *   imported, its environment set), the logger takes the level and the choice that file's environment names, as a
 *   logger made for that file alone would ({@link applyFileLogSettings}). The level is set as the logger's initial
 *   one, not only its current one: from its second invocation on, the logger middleware puts the level back to the
 *   initial level on every invocation (its debug-sampling refresh), which would otherwise be the level of the file
 *   that made the logger. Powertools reads both settings in methods of its own, called here by name; should a
 *   release rename one, every file fails here saying so rather than one file far from the cause.
 */
import type { LogLevel } from '@aws-lambda-powertools/logger/types';
import { afterAll, beforeAll } from 'vitest';

const initial = { ...process.env };

/** The Powertools methods that read the logger's settings from the environment, as its constructor does. */
interface EnvironmentSettings {
  setInitialLogLevel?: (level?: string) => void;
  setLogEvent?: () => void;
}

/** Gives the container's logger the level and log-event choice the current environment names. */
export const applyFileLogSettings = async (): Promise<void> => {
  const { logger } = await import('../../functions/observability');
  const settings = logger as unknown as EnvironmentSettings;
  for (const method of ['setInitialLogLevel', 'setLogEvent'] as const) {
    if (typeof settings[method] !== 'function') {
      throw new Error(`The Powertools logger no longer has ${method}(): see test/support/file-environment.ts`);
    }
  }
  settings.setInitialLogLevel!((process.env.POWERTOOLS_LOG_LEVEL?.trim() || 'INFO') as LogLevel);
  settings.setLogEvent!();
};

beforeAll(applyFileLogSettings);

afterAll(async () => {
  for (const name of Object.keys(process.env)) if (!(name in initial)) delete process.env[name];
  Object.assign(process.env, initial);
  const [config, dynamodb, s3, search, audit, events, deadLetters] = await Promise.all([
    import('../../functions/config'),
    import('../../functions/aws/dynamodb'),
    import('../../functions/aws/s3'),
    import('../../functions/search/engine'),
    import('../../functions/auth/audit-sink'),
    import('../../functions/events/configured-sink'),
    import('../../functions/indexing/dead-letters'),
  ]);
  config.resetConfig();
  dynamodb.resetDocumentClient();
  s3.resetPicturesBucket();
  await search.resetSearchIndex();
  audit.useAuditSink(undefined);
  events.useEventSink(undefined);
  deadLetters.useDeadLetterSink(undefined);
});

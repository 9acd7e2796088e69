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
 *   logger made for that file alone would. Powertools reads the second in a method of its own, called here by
 *   name; should a release rename it, every file fails here saying so rather than one file far from the cause.
 */
import type { LogLevel } from '@aws-lambda-powertools/logger/types';
import { afterAll, beforeAll } from 'vitest';

const initial = { ...process.env };

beforeAll(async () => {
  const { logger } = await import('../../functions/observability');
  logger.setLogLevel((process.env.POWERTOOLS_LOG_LEVEL?.trim() || 'INFO') as LogLevel);
  const readsLogEvent = logger as unknown as { setLogEvent?: () => void };
  if (typeof readsLogEvent.setLogEvent !== 'function') {
    throw new Error('The Powertools logger no longer has setLogEvent(): see test/support/file-environment.ts');
  }
  readsLogEvent.setLogEvent();
});

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

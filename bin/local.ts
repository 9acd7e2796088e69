/**
 * `npm start`: the API on http://localhost:$PORT with DynamoDB Local and the embedded search index.
 *
 * Environment: PORT (default 3000), DYNAMODB_PORT (default 8000), S3_PORT (the local S3, default 4569), DATA_DIR (default `.data`,
 * `:memory:` keeps nothing), SEED_DEMO (`0` seeds nothing). Stops cleanly on SIGINT/SIGTERM, answering
 * the requests in flight first. Exits 1 when DynamoDB Local dies and cannot be restarted.
 */
import { JavaMissingError } from '../local/dynamodb/dynamodb-local';
import {
  DEFAULT_DATA_DIR,
  DEFAULT_DYNAMODB_PORT,
  DEFAULT_PORT,
  DEFAULT_S3_PORT,
  LocalSettingError,
  localDynamoDbEndpoint,
  portFrom,
  UnsupportedNodeError,
} from '../local/paths';
import { demoExportsFor } from '../local/demo/seeding';
import { demoCommandsFor, type LocalStack, PortInUseError, startLocalStack } from '../local/stack/runtime';
import '../local/search/use-embedded-engine';

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};
const err = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

const printDemo = (stack: LocalStack, baseUrl: string): void => {
  if (stack.demo === undefined) {
    err(
      stack.paths.inMemory
        ? 'No demo data (SEED_DEMO=0). Create credentials with `npm run cli -- create-client` and `create-session`.'
        : 'No demo tokens are saved for this data directory. Create credentials with `npm run cli -- create-client` ' +
            'and `create-session`, or start with an empty DATA_DIR to seed the demo data.',
    );
    return;
  }
  out('Try it (demo credentials; user sessions last 30 days, the operator’s 12 hours):');
  for (const { title, command } of demoCommandsFor(stack.demo, baseUrl)) {
    out();
    out(`# ${title}`);
    out(command);
  }
  out();
};

/**
 * The last lines printed: the shell set-up of the README's examples, after a line saying what it is, so
 * that a reader pastes the block that ends the output and nothing else.
 */
const printExports = (stack: LocalStack, baseUrl: string): void => {
  if (stack.demo === undefined) return;
  out();
  out(
    '# Paste these lines into a shell to run the README\'s examples there (CLIENT_SECRET is the "Demo app" ' +
      "client's secret, used with its CLIENT_TOKEN by a backend only):",
  );
  for (const line of demoExportsFor(stack.demo, baseUrl)) out(line);
};

const main = async (): Promise<void> => {
  const port = portFrom(process.env, 'PORT', DEFAULT_PORT);
  const dynamodbPort = portFrom(process.env, 'DYNAMODB_PORT', DEFAULT_DYNAMODB_PORT);
  const s3Port = portFrom(process.env, 'S3_PORT', DEFAULT_S3_PORT);
  const dataDir = process.env.DATA_DIR?.trim() || DEFAULT_DATA_DIR;
  const seedDemo = process.env.SEED_DEMO?.trim() !== '0';

  let stopping = false;
  /** The stack once started, and whether DynamoDB Local was lost before that. */
  const state: { stack?: LocalStack; lost?: Error } = {};
  /** Stops the stack (requests in flight are answered first) and exits with `code`. */
  const stopAndExit = (running: LocalStack, code: number): void => {
    running.stop().then(
      () => {
        err(code === 0 ? 'Stopped.' : 'Stopped the local stack.');
        process.exit(code);
      },
      (error: unknown) => {
        err(`Stopping failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  // DynamoDB Local died and was not (or could not be) restarted: say so, stop, and exit non-zero.
  const onFatal = (error: Error): void => {
    err(error.message);
    if (stopping) return;
    stopping = true;
    if (state.stack === undefined) state.lost = error;
    else stopAndExit(state.stack, 1);
  };

  const stack = await startLocalStack({ port, dynamodbPort, s3Port, dataDir, seedDemo, log: err, onFatal });
  state.stack = stack;
  if (state.lost !== undefined) {
    stopAndExit(stack, 1);
    return;
  }
  const baseUrl = `http://localhost:${stack.port}`;
  printDemo(stack, baseUrl);
  err(
    `DynamoDB Local: ${localDynamoDbEndpoint(dynamodbPort)} (pid ${stack.dynamodbPid}); data: ${stack.paths.root ?? 'in memory'}`,
  );
  err(`Local S3: ${stack.s3Endpoint}, bucket ${stack.imagesBucket} (pictures: ${stack.paths.s3Dir ?? 'in memory'})`);

  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal: stop waiting for a clean stop, but never leave DynamoDB Local running.
      err(`${signal} received again, stopping at once.`);
      if (stack.dynamodbPid !== undefined) {
        try {
          process.kill(stack.dynamodbPid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      process.exit(1);
    }
    stopping = true;
    err(`${signal} received, stopping (requests in flight are answered first)…`);
    stopAndExit(stack, 0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  // Announced only now: whoever waits for this line (a terminal, a test, a process manager) may stop the
  // stack the moment it reads it, and the handlers above must already be there to stop it cleanly.
  out(`Listening on ${baseUrl}`);
  printExports(stack, baseUrl);
};

main().catch((error: unknown) => {
  const known =
    error instanceof JavaMissingError ||
    error instanceof PortInUseError ||
    error instanceof LocalSettingError ||
    error instanceof UnsupportedNodeError;
  err(
    known
      ? (error as Error).message
      : `Could not start the local stack: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
});

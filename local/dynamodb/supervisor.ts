/**
 * Keeps the local stack's DynamoDB Local running. Without it, a DynamoDB Local that died (killed, out
 * of memory, a crash of Java) left the stack serving 503s and logging a poller warning every few
 * seconds, never saying why or bringing the database back.
 *
 * When DynamoDB Local exits without having been asked to, the supervisor says so (naming it, its pid
 * and how it ended) and starts it again on the same port and data directory, so the handlers, the
 * stream poller and the CLI find it where they left it. Restarts are bounded: after `maxRestarts`
 * within `windowMs`, or when a restart fails, or when DynamoDB Local kept its data in memory (a new
 * one would be empty: no tables, no clients, no jobs), it gives up and calls `onLost` once with a
 * {@link DynamoDbLocalLostError}; `npm start` then stops and exits 1.
 */
import type { DynamoDbLocal, DynamoDbLocalExit } from './dynamodb-local';

/** DynamoDB Local died and the supervisor will not (or could not) bring it back. */
export class DynamoDbLocalLostError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'DynamoDbLocalLostError';
  }
}

export interface DynamoDbSupervisorOptions {
  /** Starts DynamoDB Local on a port (0: a free one); the supervisor passes the first start's port afterwards. */
  start(port: number): Promise<DynamoDbLocal>;
  /** The port of the first start. */
  port: number;
  /** Where DynamoDB Local keeps its data; undefined when in memory (then it is never restarted). */
  dataDir: string | undefined;
  /** Restarts allowed within `windowMs` (default {@link DEFAULT_MAX_RESTARTS}). */
  maxRestarts?: number;
  /** The window restarts are counted in, in milliseconds (default {@link DEFAULT_RESTART_WINDOW_MS}). */
  windowMs?: number;
  log: (message: string) => void;
  /** Called once when DynamoDB Local is gone for good. */
  onLost: (error: DynamoDbLocalLostError) => void;
}

/** A supervised DynamoDB Local: its endpoint stays, its pid changes with each restart. */
export interface SupervisedDynamoDb {
  endpoint: string;
  port: number;
  /** The pid of the DynamoDB Local running now (or of the last one, once it is gone). */
  readonly pid: number;
  /** How many times it has been restarted. */
  readonly restarts: number;
  /** `running`, `restarting` (it died and is being started again), `lost` (gone for good) or `stopped`. */
  readonly state: 'running' | 'restarting' | 'lost' | 'stopped';
  /** Stops supervising and stops DynamoDB Local (waiting for a restart in progress). Safe to call twice. */
  stop(): Promise<void>;
}

export const DEFAULT_MAX_RESTARTS = 3;
export const DEFAULT_RESTART_WINDOW_MS = 10 * 60_000;

/** `was killed by SIGKILL`, `exited with code 1`, and the last lines it printed. */
export const describeExit = (exit: DynamoDbLocalExit): string => {
  const how = exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  const lastLines = exit.output
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .slice(-5);
  return lastLines.length === 0 ? how : `${how} (its last output: ${lastLines.join(' | ')})`;
};

const minutes = (ms: number): string => {
  const value = ms / 60_000;
  return `${Number.isInteger(value) ? value : value.toFixed(1)} minute${value === 1 ? '' : 's'}`;
};

/** Starts DynamoDB Local and supervises it. */
export const superviseDynamoDbLocal = async (options: DynamoDbSupervisorOptions): Promise<SupervisedDynamoDb> => {
  const maxRestarts = options.maxRestarts ?? DEFAULT_MAX_RESTARTS;
  const windowMs = options.windowMs ?? DEFAULT_RESTART_WINDOW_MS;
  let current = await options.start(options.port);
  const { endpoint, port } = current;
  const restartTimes: number[] = [];
  let restarts = 0;
  let stopping = false;
  let lost = false;
  let restarting: Promise<void> | undefined;

  const giveUp = (message: string): void => {
    if (lost || stopping) return;
    lost = true;
    options.onLost(new DynamoDbLocalLostError(message));
  };

  const restart = async (dead: DynamoDbLocal, exit: DynamoDbLocalExit): Promise<void> => {
    const what = `DynamoDB Local (pid ${dead.pid}, ${endpoint}) ${describeExit(exit)}`;
    if (options.dataDir === undefined) {
      giveUp(`${what}. It kept its data in memory, so a new one would start empty: the local stack cannot go on.`);
      return;
    }
    const now = Date.now();
    while (restartTimes.length > 0 && (restartTimes[0] as number) <= now - windowMs) restartTimes.shift();
    if (restartTimes.length >= maxRestarts) {
      giveUp(
        `${what}. It was restarted ${maxRestarts} time${maxRestarts === 1 ? '' : 's'} within the last ` +
          `${minutes(windowMs)}, the most allowed: not restarting it again; the local stack cannot go on.`,
      );
      return;
    }
    restartTimes.push(now);
    restarts += 1;
    options.log(
      `${what}. Restarting it on ${options.dataDir} (restart ${restartTimes.length} of at most ${maxRestarts} ` +
        `within ${minutes(windowMs)})…`,
    );
    let started: DynamoDbLocal;
    try {
      started = await options.start(port);
    } catch (error) {
      giveUp(`${what}, and restarting it failed: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    current = started;
    if (stopping) return; // stop() stops it once this restart is over
    options.log(`DynamoDB Local is back on ${endpoint} (pid ${started.pid}).`);
    watch(started);
  };

  const watch = (dynamo: DynamoDbLocal): void => {
    void dynamo.exited.then((exit) => {
      if (exit.requested || stopping || lost) return;
      restarting = restart(dynamo, exit).finally(() => {
        restarting = undefined;
      });
    });
  };
  watch(current);

  let stopped: Promise<void> | undefined;
  return {
    endpoint,
    port,
    get pid() {
      return current.pid;
    },
    get restarts() {
      return restarts;
    },
    get state() {
      if (stopping) return 'stopped';
      if (lost) return 'lost';
      return restarting === undefined ? 'running' : 'restarting';
    },
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        await restarting;
        await current.stop();
      })()),
  };
};

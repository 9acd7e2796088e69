/**
 * The DynamoDB Local supervisor's decisions, on stand-in processes: restart on the same port within
 * the budget, a window that forgets old restarts, never a restart of an in-memory database, a failed
 * restart reported once, and no restart of a process it was asked to stop.
 * (test/reliability/dynamodb-local-supervision.test.ts kills a real DynamoDB Local.)
 */
import { describe, expect, it } from 'vitest';
import type { DynamoDbLocal, DynamoDbLocalExit } from '../../../local/dynamodb/dynamodb-local';
import { describeExit, type DynamoDbLocalLostError, superviseDynamoDbLocal } from '../../../local/dynamodb/supervisor';

/** A stand-in DynamoDB Local whose death the test decides. */
interface FakeProcess extends DynamoDbLocal {
  die(exit?: Partial<DynamoDbLocalExit>): void;
}

const fakeProcess = (pid: number, port: number): FakeProcess => {
  let resolveExit: (exit: DynamoDbLocalExit) => void = () => {};
  const exited = new Promise<DynamoDbLocalExit>((resolve) => {
    resolveExit = resolve;
  });
  let done = false;
  const end = (exit: DynamoDbLocalExit): void => {
    if (done) return;
    done = true;
    resolveExit(exit);
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    boundTo: `127.0.0.1:${port}`,
    pid,
    exited,
    stop: async () => end({ code: 0, signal: null, requested: true, output: '' }),
    die: (exit = {}) => end({ code: null, signal: 'SIGKILL', requested: false, output: '', ...exit }),
  };
};

/** A supervisor over stand-ins: `processes` are the ones started, in order. */
const supervise = async (options: { dataDir?: string; maxRestarts?: number; windowMs?: number; failAt?: number }) => {
  const processes: FakeProcess[] = [];
  const ports: number[] = [];
  const logged: string[] = [];
  const lost: DynamoDbLocalLostError[] = [];
  const supervised = await superviseDynamoDbLocal({
    port: 0,
    dataDir: 'dataDir' in options ? options.dataDir : '/data/dynamodb',
    ...(options.maxRestarts === undefined ? {} : { maxRestarts: options.maxRestarts }),
    ...(options.windowMs === undefined ? {} : { windowMs: options.windowMs }),
    start: async (port) => {
      ports.push(port);
      if (processes.length === options.failAt) throw new Error('port 8123 is taken');
      const started = fakeProcess(1000 + processes.length, port === 0 ? 8123 : port);
      processes.push(started);
      return started;
    },
    log: (message) => logged.push(message),
    onLost: (error) => lost.push(error),
  });
  return { supervised, processes, ports, logged, lost };
};

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10));

describe('DynamoDB Local supervisor', () => {
  it('restarts a dead DynamoDB Local on the port it first got, up to the budget, then reports it lost once', async () => {
    const { supervised, processes, ports, logged, lost } = await supervise({ maxRestarts: 2 });
    expect(supervised.state).toBe('running');
    processes[0]?.die();
    await settle();
    processes[1]?.die({ signal: null, code: 1, output: 'starting\njava.lang.OutOfMemoryError: Java heap space\n' });
    await settle();
    expect(ports).toEqual([0, 8123, 8123]);
    expect(supervised.pid).toBe(1002);
    expect(supervised.restarts).toBe(2);
    expect(logged).toEqual([
      'DynamoDB Local (pid 1000, http://127.0.0.1:8123) was killed by SIGKILL. Restarting it on /data/dynamodb (restart 1 of at most 2 within 10 minutes)…',
      'DynamoDB Local is back on http://127.0.0.1:8123 (pid 1001).',
      'DynamoDB Local (pid 1001, http://127.0.0.1:8123) exited with code 1 (its last output: starting | java.lang.OutOfMemoryError: Java heap space). Restarting it on /data/dynamodb (restart 2 of at most 2 within 10 minutes)…',
      'DynamoDB Local is back on http://127.0.0.1:8123 (pid 1002).',
    ]);
    processes[2]?.die();
    await settle();
    expect(processes).toHaveLength(3);
    expect(lost.map((error) => error.message)).toEqual([
      'DynamoDB Local (pid 1002, http://127.0.0.1:8123) was killed by SIGKILL. It was restarted 2 times within the last 10 minutes, the most allowed: not restarting it again; the local stack cannot go on.',
    ]);
    expect(supervised.state).toBe('lost');
    await supervised.stop();
    expect(supervised.state).toBe('stopped');
  });

  it('counts only the restarts inside the window', async () => {
    const { processes, lost } = await supervise({ maxRestarts: 1, windowMs: 1 });
    for (let index = 0; index < 4; index++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      processes[index]?.die();
      await settle();
    }
    expect(processes).toHaveLength(5);
    expect(lost).toEqual([]);
  });

  it('never restarts an in-memory DynamoDB Local: a new one would be empty', async () => {
    const { processes, logged, lost } = await supervise({ dataDir: undefined });
    processes[0]?.die();
    await settle();
    expect(processes).toHaveLength(1);
    expect(logged).toEqual([]);
    expect(lost.map((error) => [error.name, error.message])).toEqual([
      [
        'DynamoDbLocalLostError',
        'DynamoDB Local (pid 1000, http://127.0.0.1:8123) was killed by SIGKILL. It kept its data in memory, so a new one would start empty: the local stack cannot go on.',
      ],
    ]);
  });

  it('reports a failed restart as lost', async () => {
    const { supervised, processes, lost } = await supervise({ failAt: 1 });
    processes[0]?.die();
    await settle();
    expect(lost.map((error) => error.message)).toEqual([
      'DynamoDB Local (pid 1000, http://127.0.0.1:8123) was killed by SIGKILL, and restarting it failed: port 8123 is taken',
    ]);
    expect(supervised.state).toBe('lost');
  });

  it('does not restart what it was asked to stop', async () => {
    const { supervised, processes, lost, logged } = await supervise({});
    await supervised.stop();
    await supervised.stop();
    await settle();
    expect(processes).toHaveLength(1);
    expect(lost).toEqual([]);
    expect(logged).toEqual([]);
    expect(supervised.state).toBe('stopped');
  });

  it('describes how a process ended', () => {
    expect(describeExit({ code: 143, signal: null, requested: false, output: '' })).toBe('exited with code 143');
    expect(describeExit({ code: null, signal: 'SIGSEGV', requested: false, output: 'a\n\nb\nc\nd\ne\nf\n' })).toBe(
      'was killed by SIGSEGV (its last output: b | c | d | e | f)',
    );
  });
});

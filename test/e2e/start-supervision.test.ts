/**
 * `npm start` when things end: a DynamoDB Local that dies and cannot be restarted (its data was in
 * memory) stops the stack with exit code 1 and a message naming it, rather than a stack that runs on
 * blind; and a SIGTERM sent to `npm start` itself (as a process manager sends it) reaches the stack, which answers
 * a request still in flight — one whose body is still arriving, well within the request time limit, after the stop
 * began — before the server and DynamoDB Local go.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/dynamodb/dynamodb-local';
import {
  isRunning,
  ROOT,
  type RunningProcess,
  runProcess,
  type StartedStack,
  startNpmStart,
} from '../support/local-stack';

const started: StartedStack[] = [];

afterAll(async () => {
  for (const { running, dynamodbPid } of started) {
    if (running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
    if (dynamodbPid !== undefined && isRunning(dynamodbPid)) process.kill(dynamodbPid, 'SIGKILL');
  }
}, 60_000);

const startStack = (env: Record<string, string>) => startNpmStart(env, started);

/** The exit code, or `still running` when the process has not exited within `limitMs`. */
const exitWithin = (running: RunningProcess, limitMs: number): Promise<number | string> =>
  Promise.race([running.exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), limitMs))]);

describe('npm start supervision and stop', { timeout: 300_000 }, () => {
  it('exits 1 naming DynamoDB Local when it dies with its data in memory', async () => {
    const { running, dynamodbPid } = await startStack({ DATA_DIR: ':memory:', SEED_DEMO: '0' });
    process.kill(dynamodbPid, 'SIGKILL');
    expect(await exitWithin(running, 90_000)).toBe(1);
    const death = new RegExp(
      `DynamoDB Local \\(pid ${dynamodbPid}, \\S+\\) was killed by SIGKILL\\. It kept its data in memory`,
    );
    expect(running.stderr()).toMatch(death);
    // Once the stack has said what happened, the stream poller adds no warnings of its own. (One poll may fail
    // in the moment between the kill and the stack noticing it; that line comes before the explanation.)
    const afterExplanation = running.stderr().slice(running.stderr().search(death));
    expect(afterExplanation).not.toContain('[indexer warn]');
  });

  // One start serves both: the SIGTERM a process manager sends to npm must reach the stack, and the stack it reaches
  // must answer the request in flight before it stops.
  it('stops through `npm start` itself: a SIGTERM to the npm process answers a request in flight, then leaves nothing running', async () => {
    // A process manager signals the process it started, here npm; the script must not leave the stack
    // running under a shell npm signalled instead.
    const port = await freePort();
    const dynamodbPort = await freePort();
    const env = {
      ...process.env,
      PORT: String(port),
      DYNAMODB_PORT: String(dynamodbPort),
      S3_PORT: String(await freePort()),
    };
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...env, DATA_DIR: ':memory:', SEED_DEMO: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    const printed = async (text: string, limitMs: number): Promise<void> => {
      const deadline = Date.now() + limitMs;
      while (!output.includes(text) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    };
    await printed('Listening on', 120_000);
    const dynamodbPid = Number(/DynamoDB Local listens on \S+ \(pid (\d+)\)/.exec(output)?.[1]);
    try {
      expect(output).toContain(`Listening on http://localhost:${port}`);
      const cliEnv = { DYNAMODB_PORT: String(dynamodbPort) };
      const client = await runProcess(
        'bin/cli.ts',
        ['create-client', '--name', 'Drain', '--grants', 'search', '--all-accounts'],
        cliEnv,
      );
      expect(client.code).toBe(0);
      const { token: clientToken } = JSON.parse(client.stdout) as { token: string };
      const session = await runProcess(
        'bin/cli.ts',
        ['create-session', '--client-token', clientToken, '--account', '1'],
        cliEnv,
      );
      expect(session.code).toBe(0);
      const { token: sessionToken } = JSON.parse(session.stdout) as { token: string };

      // A search whose headers are in and whose body is still arriving when SIGTERM comes.
      const socket = connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString();
      });
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.on('error', () => {});
      socket.write(
        'POST /search HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\nContent-Type: application/json\r\n' +
          `X-Client-Token: ${clientToken}\r\nX-Session-Token: ${sessionToken}\r\nConnection: close\r\n` +
          'Content-Length: 13\r\n\r\n{"query"',
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      npm.kill('SIGTERM');
      await printed('SIGTERM received, stopping', 30_000);
      expect(output).toContain('SIGTERM received, stopping');
      // The rest of the body comes 6 s later: inside the 10 s request time, longer than a short grace.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(isRunning(dynamodbPid)).toBe(true);
      socket.write(':"x"}');
      await closed;
      expect(received.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
      expect(received).toContain('"totalJobs":0');

      expect(await exited).toBe(0);
      expect(isRunning(dynamodbPid)).toBe(false);
    } finally {
      // On a failure, leave nothing behind: the stack under npm, and its DynamoDB Local.
      if (npm.exitCode === null) npm.kill('SIGKILL');
      if (Number.isInteger(dynamodbPid) && isRunning(dynamodbPid)) process.kill(dynamodbPid, 'SIGKILL');
    }
  });
});

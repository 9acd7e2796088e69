/**
 * Stopping the local stack: requests in flight are answered, then the HTTP server, the stream poller
 * and DynamoDB Local all stop, and no process is left behind.
 */
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { AuthStore } from '../../functions/auth/store';
import { documentClient } from '../../functions/aws/dynamodb';
import { type LocalStack, startLocalStack } from '../../local/stack/runtime';

let stack: LocalStack | undefined;

afterAll(async () => {
  await stack?.stop();
}, 60_000);

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const refusesConnections = (url: string): Promise<boolean> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

describe('local stack shutdown', { timeout: 300_000 }, () => {
  it('answers the requests in flight, then stops the server and DynamoDB Local, leaving no process', async () => {
    const local = await startLocalStack({
      port: 0,
      dynamodbPort: 0,
      s3Port: 0,
      dataDir: ':memory:',
      seedDemo: false,
      log: () => {},
    });
    stack = local;
    const pid = local.dynamodbPid;
    expect(pid).toBeGreaterThan(0);
    expect(isRunning(pid as number)).toBe(true);

    const store = new AuthStore(documentClient(), local.tables.authTable);
    const client = await store.createClient({ name: 'shutdown test', grants: ['search'] });
    const session = await store.createSession({
      clientToken: client.token,
      accountId: 1,
      role: 'user',
      ttlSeconds: 600,
    });
    // A request whose body is still arriving when the stack is told to stop.
    const { port } = new URL(local.baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    const answered = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      'POST /search HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Type: application/json\r\n' +
        `X-Client-Token: ${client.token}\r\nX-Session-Token: ${session.token}\r\nConnection: close\r\n` +
        'Content-Length: 13\r\n\r\n{"query"',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stopped = local.stop();
    socket.write(':"x"}');
    await answered;
    expect(received.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(received).toContain('"_type":"SearchResponseBody"');
    await stopped;

    expect(isRunning(pid as number)).toBe(false);
    expect(await refusesConnections(local.baseUrl)).toBe(true);
    expect(await refusesConnections(local.dynamodbEndpoint)).toBe(true);
    await expect(local.stop()).resolves.toBeUndefined();
  });
});

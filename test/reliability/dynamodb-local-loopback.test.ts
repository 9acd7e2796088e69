/**
 * DynamoDB Local holds every client, session and job of the local stack and asks for no credentials,
 * so it must be reachable from this machine only: its port answers on 127.0.0.1 and refuses a
 * connection to any other address this machine has (DynamoDB Local's own jar binds every interface).
 */
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local';

let dynamo: DynamoDbLocal;

beforeAll(async () => {
  dynamo = await startDynamoDbLocal({ port: 0, startTimeoutMs: 120_000 });
}, 180_000);

afterAll(async () => {
  await dynamo?.stop();
}, 60_000);

/** How a TCP connection to an address ends: `connected`, or the error code (`ECONNREFUSED` …). */
const tryConnect = (host: string, port: number): Promise<string> =>
  new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 10_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });

/** Every address of this machine that is not a loopback address, link-local IPv6 with its interface. */
const nonLoopbackAddresses = (): string[] =>
  Object.entries(networkInterfaces()).flatMap(([name, addresses]) =>
    (addresses ?? [])
      .filter((address) => !address.internal)
      .map((address) =>
        address.family === 'IPv6' && address.address.toLowerCase().startsWith('fe80:')
          ? `${address.address}%${name}`
          : address.address,
      ),
  );

describe('DynamoDB Local is reachable from this machine only', () => {
  it('binds the loopback address and says so', () => {
    expect(dynamo.host).toBe('127.0.0.1');
    expect(dynamo.boundTo).toBe(`127.0.0.1:${dynamo.port}`);
    expect(dynamo.endpoint).toBe(`http://127.0.0.1:${dynamo.port}`);
  });

  it('answers on 127.0.0.1', async () => {
    expect(await tryConnect('127.0.0.1', dynamo.port)).toBe('connected');
    // An HTTP answer of DynamoDB Local itself (400 to a bare GET), not just an open port.
    const response = await fetch(dynamo.endpoint);
    expect(response.status).toBe(400);
  });

  it('refuses connections on every non-loopback address of this machine', async ({ annotate }) => {
    const addresses = nonLoopbackAddresses();
    if (addresses.length === 0) {
      // Nothing to connect to from outside the loopback interface: the bind address DynamoDB Local
      // reported (asserted above and here) is all there is to check on this machine.
      await annotate('This machine has no non-loopback address; only the reported bind address was checked.');
      expect(dynamo.boundTo).toBe(`127.0.0.1:${dynamo.port}`);
      return;
    }
    const outcomes = await Promise.all(
      addresses.map(async (address) => ({ address, outcome: await tryConnect(address, dynamo.port) })),
    );
    expect(outcomes).toEqual(addresses.map((address) => ({ address, outcome: 'ECONNREFUSED' })));
  });
});

/**
 * The answers only the local server's HTTP framing produces (411, 408) match openapi.yaml like every
 * other answer. Read from a raw socket, since fetch always frames its requests correctly.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IssuedTokens, startTestStack, type TestStack } from '../support/local-stack';
import { assertMatchesOpenApi, parseRawHttpAnswer } from '../support/openapi';

let stack: TestStack;
let tokens: IssuedTokens;

beforeAll(async () => {
  stack = await startTestStack({ requestTimeoutMs: 1_000 });
  tokens = await stack.issue();
});

afterAll(async () => {
  await stack?.stop();
});

/** Writes raw bytes to the server and reads until it has answered once (or closed the connection). */
const rawExchange = (request: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(stack.baseUrl);
    const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
    let received = '';
    const answered = (): boolean => {
      const split = received.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(received.slice(0, split))?.[1];
      return split !== -1 && length !== undefined && received.length >= split + 4 + Number(length);
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (answered()) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    socket.write(request);
  });

const head = (): string =>
  'POST /search HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\nContent-Type: application/json\r\n' +
  `X-Client-Token: ${tokens.clientToken}\r\nX-Session-Token: ${tokens.sessionToken}\r\n`;

describe('answers of the HTTP framing match openapi.yaml', () => {
  it('answers 411 to a POST with neither Content-Length nor chunked encoding', async () => {
    const answer = parseRawHttpAnswer(await rawExchange(`${head()}\r\n`));
    expect(answer.status).toBe(411);
    assertMatchesOpenApi({ method: 'POST', path: '/search' }, answer);
  });

  it('answers 408 to a body that never completes', async () => {
    const answer = parseRawHttpAnswer(await rawExchange(`${head()}Content-Length: 10\r\n\r\n{`));
    expect(answer.status).toBe(408);
    assertMatchesOpenApi({ method: 'POST', path: '/search' }, answer);
  });

  it('reads a raw answer the validator can refuse', async () => {
    const answer = parseRawHttpAnswer(await rawExchange(`${head()}\r\n`));
    const withoutId = Object.fromEntries(
      Object.entries(answer.headers).filter(([name]) => name.toLowerCase() !== 'x-request-id'),
    );
    expect(() => assertMatchesOpenApi({ method: 'POST', path: '/search' }, { ...answer, headers: withoutId })).toThrow(
      /header X-Request-Id is required but missing/,
    );
  });
});

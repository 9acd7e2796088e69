/**
 * The answers only the local server's HTTP framing can give: 408 for a client too slow to send its
 * request (a short request timeout here), in the contract's error shape.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ requestTimeoutMs: 500 });
});

afterAll(async () => {
  await stack?.stop();
});

/** Sends the start of a request, never finishes it, and reads what the server answers before it closes. */
const sendSlowly = (text: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const { port } = new URL(stack.baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
    socket.write(text);
  });

const parse = (text: string) => {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { statusLine, headers, body: JSON.parse(body) };
};

describe('request timeout', () => {
  it('answers 408 request_timeout with the contract body when the body arrives too slowly', async () => {
    const tokens = await stack.issue();
    const answer = parse(
      await sendSlowly(
        'POST /search HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Type: application/json\r\n' +
          `X-Client-Token: ${tokens.clientToken}\r\nX-Session-Token: ${tokens.sessionToken}\r\n` +
          'Content-Length: 50\r\n\r\n{"query":',
      ),
    );
    expect(answer.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.body).toEqual({
      code: 'request_timeout',
      message: expect.any(String),
      requestId: answer.headers.get('x-request-id'),
    });
  });

  it('answers 408 when the headers never end', async () => {
    const answer = parse(await sendSlowly('GET /search/fields HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n'));
    expect(answer.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(answer.body.code).toBe('request_timeout');
  });

  it('still answers clients that are quick enough', async () => {
    expect((await stack.request('/search', { body: {} })).status).toBe(200);
  });
});

import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BODY_READ_LIMIT,
  clientErrorAnswer,
  createLocalServer,
  type LocalServer,
  type LocalServerOptions,
  localAnswer,
  MAX_BODY_BYTES,
  type ProxyHandler,
} from '../../../local/gateway/server';

const running: LocalServer[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close(100)));
});

const echo: ProxyHandler = async (event) => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': event.requestContext.requestId },
  body: JSON.stringify({
    resource: event.resource,
    method: event.httpMethod,
    bodyLength: event.body === null ? 0 : Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8'),
  }),
});

const start = async (handler: ProxyHandler = echo, options: LocalServerOptions = {}) => {
  const server = createLocalServer({ loadHandler: async () => handler, ...options });
  running.push(server);
  const port = await server.listen(0);
  return { server, port, url: `http://127.0.0.1:${port}` };
};

/** Sends raw bytes, optionally keeps the socket open, and reads everything until the server closes. */
const raw = (port: number, text: string, holdOpenMs = 0): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(text);
    if (holdOpenMs === 0) setTimeout(() => socket.end(), 1_000);
  });

const parseRaw = (text: string) => {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answer bodies are read as arbitrary JSON
const expectErrorShape = (headers: Record<string, string | null>, body: any, code: string) => {
  expect(body).toMatchObject({ code, message: expect.any(String), requestId: expect.any(String) });
  expect(headers['content-type']).toBe('application/json; charset=utf-8');
  expect(headers['cache-control']).toBe('no-store');
  expect(headers['x-request-id']).toBe(body.requestId);
};

describe('local HTTP server', () => {
  it('answers 404 not_found with the contract error body and common headers for an unknown path', async () => {
    const { url } = await start();
    const response = await fetch(`${url}/nowhere`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    const body = await response.json();
    expectErrorShape(Object.fromEntries(response.headers), body, 'not_found');
  });

  it('builds its own answers with the chain’s error response builder', () => {
    const answer = localAnswer('request_timeout', 'r-1');
    expect(answer.statusCode).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({
      code: 'request_timeout',
      message: 'The request was not received in time.',
      requestId: 'r-1',
    });
  });

  it('hands a known path to its route handler with the route as the event resource', async () => {
    const { url } = await start();
    const response = await fetch(`${url}/search/fields?x=1`, { method: 'GET' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ resource: '/search/fields', method: 'GET', bodyLength: 0 });
  });

  it('passes the request body whole', async () => {
    const { url } = await start();
    const body = JSON.stringify({ query: 'x'.repeat(100_000) });
    const response = await fetch(`${url}/search`, { method: 'POST', body });
    expect(((await response.json()) as { bodyLength: number }).bodyLength).toBe(Buffer.byteLength(body));
  });

  it('answers 411 length_required for a POST with neither Content-Length nor chunked encoding', async () => {
    const { port } = await start();
    const answer = parseRaw(
      await raw(port, 'POST /search HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nConnection: close\r\n\r\n'),
    );
    expect(answer.status).toBe(411);
    expectErrorShape(answer.headers, answer.body, 'length_required');
  });

  it('accepts a chunked POST without Content-Length', async () => {
    const { port } = await start();
    const text = await raw(
      port,
      'POST /search HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
    );
    expect(text.startsWith('HTTP/1.1 200')).toBe(true);
  });

  it('answers 408 request_timeout with the contract body to a client that sends its body too slowly', async () => {
    const { port } = await start(echo, { requestTimeoutMs: 300 });
    const text = await raw(
      port,
      'POST /search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"qu',
      5_000,
    );
    const answer = parseRaw(text);
    expect(answer.status).toBe(408);
    expectErrorShape(answer.headers, answer.body, 'request_timeout');
  });

  it('answers 408 to a client that never finishes its headers', async () => {
    const { port } = await start(echo, { requestTimeoutMs: 300 });
    const answer = parseRaw(await raw(port, 'POST /search HTTP/1.1\r\nHost: x\r\n', 5_000));
    expect(answer.status).toBe(408);
    expectErrorShape(answer.headers, answer.body, 'request_timeout');
  });

  it('buffers no more than the read limit of an oversized body and still answers', async () => {
    let seen = 0;
    const { url } = await start(async (event) => {
      seen = Buffer.byteLength(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
      return { statusCode: 413, headers: {}, body: '{}' };
    });
    const response = await fetch(`${url}/search`, { method: 'POST', body: 'a'.repeat(4 * MAX_BODY_BYTES) });
    expect(response.status).toBe(413);
    expect(seen).toBe(BODY_READ_LIMIT);
    expect(seen).toBeGreaterThan(MAX_BODY_BYTES);
  });

  it('answers 500 internal_error without leaking when a handler throws', async () => {
    const { url } = await start(async () => {
      throw new Error('secret stack detail');
    });
    const response = await fetch(`${url}/search`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain('secret');
    expectErrorShape(Object.fromEntries(response.headers), JSON.parse(text), 'internal_error');
  });

  it('answers 500 when a handler returns something that is not a proxy result', async () => {
    const { url } = await start(async () => ({ body: 'no status' }) as unknown as APIGatewayProxyResult);
    const response = await fetch(`${url}/search`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(500);
  });

  it('answers 503 with Retry-After when a handler overruns its budget', async () => {
    const { url } = await start(() => new Promise(() => {}), { invocationBudgetMs: 200 });
    const response = await fetch(`${url}/search`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expectErrorShape(Object.fromEntries(response.headers), await response.json(), 'service_unavailable');
  });

  it('keeps connections alive between requests', async () => {
    const { port } = await start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = () =>
      new Promise<boolean>((resolve, reject) => {
        const request = httpRequest({ port, host: '127.0.0.1', path: '/search/fields', agent }, (response) => {
          response.resume();
          response.on('end', () => resolve(request.reusedSocket));
        });
        request.on('error', reject);
        request.end();
      });
    expect(await send()).toBe(false);
    expect(await send()).toBe(true);
    agent.destroy();
  });

  it('lets a request in flight finish when closed', async () => {
    let release: () => void = () => {};
    let arrived: () => void = () => {};
    const inHandler = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const { server, url } = await start(
      (event: APIGatewayProxyEvent) =>
        new Promise((resolve) => {
          release = () => resolve({ statusCode: 200, headers: {}, body: event.httpMethod });
          arrived();
        }),
    );
    const pending = fetch(`${url}/search`, { method: 'POST', body: '{}' });
    // Close only once the request is in the handler (a fixed wait loses the race on a busy machine).
    await inHandler;
    const closed = server.close(5_000);
    release();
    const response = await pending;
    expect(response.status).toBe(200);
    await closed;
    await expect(fetch(`${url}/search`, { method: 'POST', body: '{}' })).rejects.toThrow();
  });

  it('asks extra routes first and hands every other path to the API', async () => {
    const { url } = await start(echo, {
      extraRoutes: [
        (request, response) => {
          if (request.url !== '/docs') return false;
          response.writeHead(200, { 'Content-Type': 'text/html' }).end('<html></html>');
          return true;
        },
      ],
    });
    const docs = await fetch(`${url}/docs`);
    expect(await docs.text()).toBe('<html></html>');
    expect((await fetch(`${url}/search/fields`)).status).toBe(200);
    expect((await fetch(`${url}/elsewhere`)).status).toBe(404);
  });

  it('maps HTTP parse errors to contract answers and ignores connection resets', () => {
    expect(clientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT', 'r')?.statusCode).toBe(408);
    expect(clientErrorAnswer('HPE_INVALID_CONTENT_LENGTH', 'r')?.statusCode).toBe(411);
    expect(clientErrorAnswer('HPE_INVALID_METHOD', 'r')?.statusCode).toBe(400);
    expect(clientErrorAnswer('ECONNRESET', 'r')).toBeUndefined();
  });
});

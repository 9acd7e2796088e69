import { createServer, type IncomingMessage, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  eventBody,
  eventHeaders,
  eventQuery,
  lambdaContext,
  requestTimeText,
  resultHeaders,
  serializeProxyResult,
  toProxyEvent,
  UnsupportedContextCallError,
  writeProxyResult,
} from '../../../local/gateway/api-event';

const head = (overrides: Partial<Parameters<typeof toProxyEvent>[0]> = {}): Parameters<typeof toProxyEvent>[0] => ({
  method: 'POST',
  url: '/search?page=1',
  httpVersion: '1.1',
  rawHeaders: ['Host', 'localhost:3000', 'Accept', 'application/json', 'User-Agent', 'curl/8.5.0'],
  socket: { remoteAddress: '::ffff:127.0.0.1' },
  ...overrides,
});

describe('HTTP request to API Gateway REST v1 proxy event', () => {
  it('keeps header names as sent, the last value in headers and every value in multiValueHeaders', () => {
    const { headers, multiValueHeaders } = eventHeaders([
      'X-Client-Token',
      'a',
      'accept',
      'text/html',
      'Accept',
      'application/json',
    ]);
    expect(headers).toEqual({ 'X-Client-Token': 'a', accept: 'application/json' });
    expect(multiValueHeaders).toEqual({ 'X-Client-Token': ['a'], accept: ['text/html', 'application/json'] });
  });

  it('gives null query parameters when the URL has none', () => {
    expect(eventQuery('')).toEqual({ queryStringParameters: null, multiValueQueryStringParameters: null });
  });

  it('decodes query parameters, the last value singly and every value in the multi-value map', () => {
    expect(eventQuery('?a=1&a=2&b=x%20y')).toEqual({
      queryStringParameters: { a: '2', b: 'x y' },
      multiValueQueryStringParameters: { a: ['1', '2'], b: ['x y'] },
    });
  });

  it('passes an empty body as null, UTF-8 as text and other bytes as base64', () => {
    expect(eventBody(Buffer.alloc(0))).toEqual({ body: null, isBase64Encoded: false });
    expect(eventBody(Buffer.from('{"query":"Café"}'))).toEqual({ body: '{"query":"Café"}', isBase64Encoded: false });
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
    expect(eventBody(binary)).toEqual({ body: binary.toString('base64'), isBase64Encoded: true });
  });

  it('builds a complete event with the route resource and the request context', () => {
    const event = toProxyEvent(head(), Buffer.from('{}'), {
      resource: '/search',
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      requestTimeEpoch: Date.UTC(2016, 4, 6, 15, 22, 2, 860),
    });
    expect(event).toMatchObject({
      resource: '/search',
      path: '/search',
      httpMethod: 'POST',
      body: '{}',
      isBase64Encoded: false,
      pathParameters: null,
      stageVariables: null,
      queryStringParameters: { page: '1' },
      headers: { Host: 'localhost:3000', Accept: 'application/json', 'User-Agent': 'curl/8.5.0' },
    });
    expect(event.requestContext).toMatchObject({
      stage: 'local',
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      requestTimeEpoch: Date.UTC(2016, 4, 6, 15, 22, 2, 860),
      requestTime: '06/May/2016:15:22:02 +0000',
      httpMethod: 'POST',
      path: '/local/search',
      resourcePath: '/search',
      protocol: 'HTTP/1.1',
      domainName: 'localhost:3000',
      identity: { sourceIp: '127.0.0.1', userAgent: 'curl/8.5.0' },
    });
    expect(event.requestContext.accountId).toMatch(/^\d{12}$/);
    expect(event.requestContext.apiId).toBeTruthy();
  });

  it('uses the request path as the resource when no route is given, and a fresh uuid request id', () => {
    const event = toProxyEvent(head({ url: '/nowhere' }), Buffer.alloc(0));
    expect(event.resource).toBe('/nowhere');
    expect(event.body).toBeNull();
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('formats requestTime as API Gateway does', () => {
    expect(requestTimeText(Date.UTC(2015, 3, 9, 2, 4, 6))).toBe('09/Apr/2015:02:04:06 +0000');
  });
});

describe('Lambda context', () => {
  it('counts the remaining time down from a 10 s budget', () => {
    let now = 1_000_000;
    const context = lambdaContext({ functionName: 'jobs-api-local-search', now: () => now });
    expect(context.getRemainingTimeInMillis()).toBe(10_000);
    now += 2_500;
    expect(context.getRemainingTimeInMillis()).toBe(7_500);
    now += 60_000;
    expect(context.getRemainingTimeInMillis()).toBe(0);
  });

  it('describes the function like the Lambda runtime does', () => {
    const context = lambdaContext({ functionName: 'jobs-api-local-reject', awsRequestId: 'abc' });
    expect(context).toMatchObject({
      functionName: 'jobs-api-local-reject',
      functionVersion: '$LATEST',
      awsRequestId: 'abc',
      memoryLimitInMB: '1024',
      logGroupName: '/aws/lambda/jobs-api-local-reject',
    });
    expect(context.invokedFunctionArn).toContain(':function:jobs-api-local-reject');
  });

  it('refuses the deprecated callback methods with a named error', () => {
    const context = lambdaContext({ functionName: 'f' });
    expect(() => context.succeed('x')).toThrow(UnsupportedContextCallError);
  });
});

const roundTrip = async (result: APIGatewayProxyResult) => {
  const server = createServer((_request: IncomingMessage, response: ServerResponse) =>
    writeProxyResult(response, result),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>(
      (resolve, reject) => {
        const request = httpRequest({ port, host: '127.0.0.1', path: '/' }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
          );
        });
        request.on('error', reject);
        request.end();
      },
    );
  } finally {
    server.close();
  }
};

describe('proxy result to HTTP response', () => {
  it('writes status, headers and body', async () => {
    const answer = await roundTrip({ statusCode: 201, headers: { 'X-Request-Id': 'r1', 'X-Count': 3 }, body: 'ok' });
    expect(answer.status).toBe(201);
    expect(answer.headers['x-request-id']).toBe('r1');
    expect(answer.headers['x-count']).toBe('3');
    expect(answer.headers['content-length']).toBe('2');
    expect(answer.body.toString()).toBe('ok');
  });

  it('sends a 304 with no body and no Content-Length, keeping its own headers', async () => {
    const answer = await roundTrip({
      statusCode: 304,
      headers: { ETag: '"7"', 'Cache-Control': 'no-store', 'X-Request-Id': 'r1' },
      body: 'ignored',
    });
    expect(answer.status).toBe(304);
    expect(answer.headers['content-length']).toBeUndefined();
    expect(answer.headers['transfer-encoding']).toBeUndefined();
    expect(answer.headers['content-type']).toBeUndefined();
    expect(answer.headers.etag).toBe('"7"');
    expect(answer.body.length).toBe(0);
  });

  it('lets multiValueHeaders win over headers and sends every value', async () => {
    const answer = await roundTrip({
      statusCode: 200,
      headers: { 'Set-Cookie': 'a=1' },
      multiValueHeaders: { 'Set-Cookie': ['b=2', 'c=3'] },
      body: '',
    });
    expect(answer.headers['set-cookie']).toEqual(['b=2', 'c=3']);
  });

  it('decodes a base64 body', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    const answer = await roundTrip({ statusCode: 200, body: bytes.toString('base64'), isBase64Encoded: true });
    expect(answer.body.equals(bytes)).toBe(true);
  });

  it('ignores framing headers a result tries to set', () => {
    const merged = resultHeaders({ statusCode: 200, headers: { 'content-length': '1' }, body: 'abc' });
    expect(merged.get('content-length')).toEqual({ name: 'content-length', values: ['1'] });
    const raw = serializeProxyResult({ statusCode: 200, headers: { 'Content-Length': '1' }, body: 'abc' }, 'OK');
    expect(raw.toString()).toContain('Content-Length: 3\r\n');
    expect(raw.toString()).not.toContain('Content-Length: 1\r\n');
  });

  it('serializes an answer for a raw socket with Connection: close', () => {
    const raw = serializeProxyResult(
      { statusCode: 408, headers: { 'Cache-Control': 'no-store' }, body: '{}' },
      'Request Timeout',
    );
    expect(raw.toString()).toBe(
      'HTTP/1.1 408 Request Timeout\r\nCache-Control: no-store\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
  });
});

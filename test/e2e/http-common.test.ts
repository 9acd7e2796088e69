/**
 * docs/contract.md §1 through real HTTP: every check, in its order, on every endpoint, with the error body
 * and the common headers on every answer.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFile, makeJob } from '../support/jobs';
import { type IssuedTokens, startTestStack, type TestResponse, type TestStack } from '../support/local-stack';

let stack: TestStack;
let searchOnly: IssuedTokens;
let rejectFileId: number;

beforeAll(async () => {
  stack = await startTestStack();
  searchOnly = await stack.issue({ grants: ['search'] });
  const file = makeFile();
  rejectFileId = file.id;
  await stack.importJobs([
    makeJob({ name: 'Spring catalogue', status: 'CJ_REVIEWING', files: [file] }),
    makeJob({ name: 'Autumn lookbook', status: 'CJ_NEW' }),
  ]);
  await stack.drained();
});

afterAll(async () => {
  await stack?.stop();
});

const MiB = 1024 * 1024;

/** The common headers of docs/contract.md §1, present on every answer. */
const expectCommonHeaders = (response: TestResponse): void => {
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('x-request-id')).toMatch(/\S/);
};

/** An error answer: status, the contract body (code, message, requestId, context) and the common headers. */
const expectError = (response: TestResponse, status: number, code: string, context: Record<string, unknown> = {}) => {
  expect({ status: response.status, code: response.json?.code }).toEqual({ status, code });
  expectCommonHeaders(response);
  expect(response.json).toEqual({
    code,
    message: expect.any(String),
    requestId: response.headers.get('x-request-id'),
    ...context,
  });
};

const rejection = () => ({ files: [{ fileId: rejectFileId, customRejection: 'Shadow under the shoe is missing' }] });

describe('row 1: the route exists', () => {
  it.each([
    ['GET', '/'],
    ['POST', '/nowhere'],
    ['POST', '/Search'],
    ['POST', '/search/'],
    ['GET', '/search/fields/extra'],
  ])('answers 404 not_found to %s %s with the error body and common headers', async (method, path) => {
    expectError(await stack.request(path, { method, body: method === 'POST' ? {} : undefined }), 404, 'not_found');
  });

  it('answers 404 before looking at any header', async () => {
    const response = await stack.request('/nowhere', {
      method: 'POST',
      headers: { Accept: undefined, 'Content-Type': undefined, 'X-Client-Token': undefined },
    });
    expectError(response, 404, 'not_found');
  });

  it.each([
    ['GET', '/search', 'POST'],
    ['PUT', '/search', 'POST'],
    ['POST', '/search/fields', 'GET'],
    ['DELETE', '/reject', 'POST'],
    ['GET', '/reject', 'POST'],
  ])('answers 405 method_not_allowed to %s %s with Allow: %s', async (method, path, allow) => {
    const response = await stack.request(path, { method, body: method === 'GET' ? undefined : '{}' });
    expectError(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe(allow);
  });

  it('answers 405 before 406', async () => {
    const response = await stack.request('/search', { method: 'GET', headers: { Accept: 'text/html' } });
    expectError(response, 405, 'method_not_allowed');
  });
});

describe('row 2: Accept explicitly accepts application/json', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['*/*', '*/*'],
    ['application/*', 'application/*'],
    ['application/json;q=0', 'application/json;q=0'],
    ['text/html', 'text/html'],
    ['application/jsonx', 'application/jsonx'],
  ])('answers 406 not_acceptable when Accept is %s', async (_label, accept) => {
    expectError(await stack.request('/search', { headers: { Accept: accept }, body: {} }), 406, 'not_acceptable');
    expectError(
      await stack.request('/search/fields', { method: 'GET', headers: { Accept: accept } }),
      406,
      'not_acceptable',
    );
  });

  it.each([
    'application/json',
    'APPLICATION/JSON',
    'application/json; charset=utf-8',
    'text/html, application/json;q=0.5',
    'application/json;q=0.001, */*;q=0.1',
  ])('accepts Accept: %s', async (accept) => {
    const response = await stack.request('/search', { headers: { Accept: accept }, body: {} });
    expect(response.status).toBe(200);
    expectCommonHeaders(response);
  });

  it('answers 406 before 415', async () => {
    const response = await stack.request('/search', {
      headers: { Accept: 'text/html', 'Content-Type': 'text/plain' },
      body: 'x',
    });
    expectError(response, 406, 'not_acceptable');
  });
});

describe('row 3: a POST body is JSON or form encoded', () => {
  it.each([
    ['missing', undefined],
    ['text/plain', 'text/plain'],
    ['multipart/form-data', 'multipart/form-data; boundary=x'],
    ['application/jsonp', 'application/jsonp'],
  ])('answers 415 unsupported_media_type when Content-Type is %s', async (_label, contentType) => {
    const response = await stack.request('/search', { headers: { 'Content-Type': contentType }, body: '{}' });
    expectError(response, 415, 'unsupported_media_type');
  });

  it.each([
    'application/json',
    'Application/JSON; charset=utf-8',
    'application/x-www-form-urlencoded',
    'APPLICATION/X-WWW-FORM-URLENCODED; charset=UTF-8',
  ])('accepts Content-Type: %s', async (contentType) => {
    const response = await stack.request('/search', { headers: { 'Content-Type': contentType }, body: '' });
    expect(response.status).toBe(200);
  });

  it('ignores Content-Type on GET', async () => {
    const response = await stack.request('/search/fields', {
      method: 'GET',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(response.status).toBe(200);
  });

  it('answers 415 before 400 missing_header', async () => {
    const response = await stack.request('/search', {
      headers: { 'Content-Type': 'text/plain', 'X-Client-Token': undefined },
      body: '{}',
    });
    expectError(response, 415, 'unsupported_media_type');
  });
});

describe('row 4: X-Client-Token, then X-Session-Token, present and non-blank', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
  ])('answers 400 missing_header naming X-Client-Token when it is %s', async (_label, value) => {
    const response = await stack.request('/search', { headers: { 'X-Client-Token': value }, body: {} });
    expectError(response, 400, 'missing_header', { headerName: 'X-Client-Token' });
  });

  it('answers 400 missing_header naming X-Session-Token when only it is missing', async () => {
    const response = await stack.request('/search/fields', {
      method: 'GET',
      headers: { 'X-Session-Token': undefined },
    });
    expectError(response, 400, 'missing_header', { headerName: 'X-Session-Token' });
  });

  it('names X-Client-Token first when both are missing', async () => {
    const response = await stack.request('/reject', {
      headers: { 'X-Client-Token': undefined, 'X-Session-Token': undefined },
      body: rejection(),
    });
    expectError(response, 400, 'missing_header', { headerName: 'X-Client-Token' });
  });

  it('reads the token headers whatever their case', async () => {
    const tokens = await stack.issue();
    const response = await stack.request('/search', {
      tokens: { clientToken: '', sessionToken: '' },
      headers: {
        'X-Client-Token': undefined,
        'X-Session-Token': undefined,
        'x-client-token': tokens.clientToken,
        'X-SESSION-TOKEN': tokens.sessionToken,
      },
      body: {},
    });
    expect(response.status).toBe(200);
  });
});

describe('rows 5 and 6: known client, valid session issued to it', () => {
  it('answers 401 invalid_client for an unknown client token', async () => {
    const tokens = await stack.issue();
    const response = await stack.request('/search', {
      tokens: { clientToken: 'unknown-client-token', sessionToken: tokens.sessionToken },
      body: {},
    });
    expectError(response, 401, 'invalid_client');
  });

  it('answers 401 invalid_client for a disabled client', async () => {
    const tokens = await stack.issue();
    await stack.disableClient(tokens.clientId);
    expectError(await stack.request('/search', { tokens, body: {} }), 401, 'invalid_client');
  });

  it('answers 401 invalid_session for an unknown session token', async () => {
    const tokens = await stack.issue();
    const response = await stack.request('/search', {
      tokens: { clientToken: tokens.clientToken, sessionToken: 'unknown-session-token' },
      body: {},
    });
    expectError(response, 401, 'invalid_session');
  });

  it('answers 401 invalid_session for a session issued to another client', async () => {
    const mine = await stack.issue();
    const theirs = await stack.issue();
    const response = await stack.request('/search', {
      tokens: { clientToken: mine.clientToken, sessionToken: theirs.sessionToken },
      body: {},
    });
    expectError(response, 401, 'invalid_session');
  });

  it('answers 401 invalid_session for an expired session', async () => {
    const tokens = await stack.issue({ ttlSeconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expectError(await stack.request('/search', { tokens, body: {} }), 401, 'invalid_session');
  });

  it('answers 401 invalid_client before invalid_session', async () => {
    const response = await stack.request('/search', {
      tokens: { clientToken: 'nobody', sessionToken: 'nothing' },
      body: {},
    });
    expectError(response, 401, 'invalid_client');
  });
});

describe('row 7: the client is granted the operation', () => {
  it('answers 403 forbidden to a search-only client on /reject', async () => {
    expectError(await stack.request('/reject', { tokens: searchOnly, body: rejection() }), 403, 'forbidden', {
      grant: 'reject',
    });
  });

  it('lets a search-only client use both search endpoints', async () => {
    expect((await stack.request('/search', { tokens: searchOnly, body: {} })).status).toBe(200);
    expect((await stack.request('/search/fields', { method: 'GET', tokens: searchOnly })).status).toBe(200);
  });

  it('answers 403 forbidden to a reject-only client on both search endpoints', async () => {
    const rejectOnly = await stack.issue({ grants: ['reject'] });
    expectError(await stack.request('/search', { tokens: rejectOnly, body: {} }), 403, 'forbidden', {
      grant: 'search',
    });
    expectError(await stack.request('/search/fields', { method: 'GET', tokens: rejectOnly }), 403, 'forbidden', {
      grant: 'search',
    });
  });

  it('answers 403 before 413', async () => {
    const response = await stack.request('/reject', { tokens: searchOnly, body: `{"x":"${'a'.repeat(2 * MiB)}"}` });
    expectError(response, 403, 'forbidden', { grant: 'reject' });
  });
});

describe('row 8: the body is at most 1 MiB', () => {
  it('answers 413 payload_too_large to a body of 1 MiB and one byte', async () => {
    const body = `{"query":"${'a'.repeat(MiB - 11)}"}`;
    expect(Buffer.byteLength(body)).toBe(MiB + 1);
    expectError(await stack.request('/search', { body }), 413, 'payload_too_large');
  });

  it('answers 413 to a body of several MiB, and the connection stays usable', async () => {
    expectError(await stack.request('/search', { body: 'x'.repeat(5 * MiB) }), 413, 'payload_too_large');
    expect((await stack.request('/search', { body: {} })).status).toBe(200);
  });

  it('counts bytes, not characters', async () => {
    const body = `{"query":"${'é'.repeat(MiB / 2)}"}`;
    expect(body.length).toBeLessThan(MiB);
    expectError(await stack.request('/search', { body }), 413, 'payload_too_large');
  });

  it('answers 413 to an oversized chunked body', async () => {
    const { port } = new URL(stack.baseUrl);
    const tokens = await stack.issue();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString();
        if (received.includes('\r\n\r\n') && received.includes('}')) socket.destroy();
      });
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
      socket.write(
        'POST /search HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Type: application/json\r\n' +
          `X-Client-Token: ${tokens.clientToken}\r\nX-Session-Token: ${tokens.sessionToken}\r\n` +
          'Transfer-Encoding: chunked\r\n\r\n',
      );
      const chunk = 'a'.repeat(256 * 1024);
      for (let index = 0; index < 6; index++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      socket.write('0\r\n\r\n');
    });
    expect(answer.startsWith('HTTP/1.1 413 ')).toBe(true);
    expect(answer).toContain('"code":"payload_too_large"');
  });

  it('accepts a body of exactly 1 MiB', async () => {
    const body = `{"query":"x","padding":"${'a'.repeat(MiB - 26)}"}`;
    expect(Buffer.byteLength(body)).toBe(MiB);
    expect((await stack.request('/search', { body })).status).toBe(200);
  });

  it('answers 413 before invalid_json', async () => {
    expectError(await stack.request('/search', { body: `{${'a'.repeat(MiB + 10)}` }), 413, 'payload_too_large');
  });
});

describe('row 9: the body parses', () => {
  it.each(['{', '{"query": }', "{'query': 'x'}", '{"query":"x"} trailing'])(
    'answers 400 invalid_json to the JSON body %s',
    async (body) => {
      expectError(await stack.request('/search', { body }), 400, 'invalid_json');
    },
  );

  it('answers 400 invalid_json to a form body with broken percent-encoding', async () => {
    const response = await stack.request('/search', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'query=%zz',
    });
    expectError(response, 400, 'invalid_json');
  });

  it('answers invalid_json before invalid_parameter', async () => {
    expectError(await stack.request('/search', { body: '[1, ' }), 400, 'invalid_json');
  });
});

describe('row 10: the body is an object and every field is valid', () => {
  it.each(['null', '[]', '"text"', '42', 'true'])(
    'answers 400 invalid_parameter "body" to the JSON body %s',
    async (body) => {
      expectError(await stack.request('/search', { body }), 400, 'invalid_parameter', { parameter: 'body' });
    },
  );

  it('names the offending field', async () => {
    expectError(await stack.request('/search', { body: { page: -1 } }), 400, 'invalid_parameter', {
      parameter: 'page',
    });
    expectError(await stack.request('/reject', { body: { files: [] } }), 400, 'invalid_parameter', {
      parameter: 'files',
    });
  });

  it('treats an empty POST body as {}', async () => {
    const response = await stack.request('/search', { body: '' });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ _type: 'SearchResponseBody', totalJobs: expect.any(Number) });
  });

  it('ignores unknown body fields', async () => {
    expect((await stack.request('/search', { body: { query: 'spring', colour: 'blue' } })).status).toBe(200);
  });
});

describe('form bodies', () => {
  it('searches with a form body, lists as repeated keys or with []', async () => {
    for (const form of [
      'query=spring&statuses=CJ_REVIEWING&statuses=CJ_NEW',
      'query=spring&statuses[]=CJ_REVIEWING',
      'query=spring&statuses=CJ_REVIEWING',
    ]) {
      const response = await stack.request('/search', {
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: form,
      });
      expect(response.status).toBe(200);
      expect(response.json.totalJobs).toBe(1);
      expect(response.json.jobs[0].name).toBe('Spring catalogue');
    }
  });

  it('coerces form values to the field types and names an invalid one', async () => {
    const page = await stack.request('/search', { body: new URLSearchParams({ page: '0', pageSize: '5' }) });
    expect(page.status).toBe(200);
    expectError(
      await stack.request('/search', { body: new URLSearchParams({ page: 'one' }) }),
      400,
      'invalid_parameter',
      {
        parameter: 'page',
      },
    );
  });

  it('rejects files with the flat form', async () => {
    const response = await stack.request('/reject', {
      body: new URLSearchParams([
        ['fileId', String(rejectFileId)],
        ['reason', 'Cropping'],
      ]),
    });
    expect(response.status).toBe(200);
    expect(response.json.files).toEqual([expect.objectContaining({ fileId: rejectFileId, isRejected: true })]);
  });
});

describe('beside the API', () => {
  it('serves the API description and its reference page', async () => {
    const description = await fetch(`${stack.baseUrl}/openapi.json`);
    expect(description.status).toBe(200);
    expect(((await description.json()) as { openapi: string }).openapi).toMatch(/^3\./);
    const page = await fetch(`${stack.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
  });
});

describe('every answer', () => {
  it('carries the common headers on success too, with a fresh request id each time', async () => {
    const first = await stack.request('/search', { body: {} });
    const second = await stack.request('/search/fields', { method: 'GET' });
    for (const response of [first, second]) {
      expect(response.status).toBe(200);
      expectCommonHeaders(response);
    }
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
  });

  it('answers 411 length_required to a POST with neither Content-Length nor chunked encoding', async () => {
    const { port } = new URL(stack.baseUrl);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString();
      });
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
      socket.end(
        'POST /search HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n',
      );
    });
    const [head = '', body = ''] = text.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 411 Length Required');
    expect(head.toLowerCase()).toContain('content-type: application/json; charset=utf-8');
    expect(head.toLowerCase()).toContain('cache-control: no-store');
    const requestId = /x-request-id: (\S+)/i.exec(head)?.[1];
    expect(JSON.parse(body)).toEqual({ code: 'length_required', message: expect.any(String), requestId });
  });
});

import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  Object.assign(process.env, {
    JOBS_TABLE: 'jobs-unit',
    AUTH_TABLE: 'auth-unit',
    SEARCH_ENGINE: 'embedded',
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    // Logs are captured (see beforeEach) so that the tests can read what was written.
    POWERTOOLS_LOG_LEVEL: 'DEBUG',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
});

import { resetDefaultAuthenticator } from '../../../functions/auth/authenticate';
import type { Principal } from '../../../functions/auth/principal';
import { resetDocumentClient } from '../../../functions/aws/dynamodb';
import { resetConfig } from '../../../functions/config';
import { logger } from '../../../functions/observability';
import { httpEndpoint, routedHandler } from '../../../functions/http/endpoint';
import { ApiError, DependencyUnavailableError } from '../../../functions/http/errors';
import { MAX_BODY_BYTES } from '../../../functions/http/middlewares/body-size';
import type { RequestBody } from '../../../functions/http/request';
import { coerceFields, formInteger } from '../../../functions/http/schema-validation';
import { type ApiEventOptions, apiEvent, lambdaContext } from '../../support/api-event';
import { BINARY_MEDIA_TYPES } from '../../../lib/rest-api';
import { eventBody } from '../../../local/gateway/api-event';
import { serveAuthTable } from './auth-fixture';

const ddb = mockClient(DynamoDBDocumentClient);

interface Input {
  fileIds: number[];
  page: number;
}

/** A test endpoint's parser: `fileId` a list of integers written as strings, `page` an integer up to a role's limit. */
const parse = (body: RequestBody, principal: Principal): Input => {
  const fields = coerceFields(body, { fileId: { type: 'array', items: 'string' }, page: { type: 'integer' } });
  const fileIds = ((fields.fileId ?? []) as unknown[]).map((value, index) => {
    const id = typeof value === 'string' ? formInteger(value) : undefined;
    if (id === undefined) throw new ApiError('invalid_parameter', { parameter: `fileId[${index}]` });
    return id;
  });
  const page = fields.page ?? 0;
  const maxPage = principal.role === 'operator' ? 1000 : 10;
  if (!Number.isInteger(page) || (page as number) < 0 || (page as number) > maxPage) {
    throw new ApiError('invalid_parameter', { parameter: 'page' });
  }
  return { fileIds, page: page as number };
};

const handled = vi.fn(
  async ({ input, principal, requestId }: { input: Input; principal: Principal; requestId: string }) => {
    if (input.fileIds.includes(404)) throw new ApiError('file_not_found', { fileId: 404 });
    if (input.fileIds.includes(503)) throw new DependencyUnavailableError('search', new Error('engine down'), 7);
    if (input.fileIds.includes(500)) throw new Error('the handler has a bug: jobs-unit');
    return { _type: 'TestResponseBody', input, accountId: principal.accountId, requestId };
  },
);

/** A POST endpoint under the shared chain (the /reject route: POST, grant reject). */
const endpoint = httpEndpoint({ path: '/reject', method: 'POST', parse }, handled);

const good = {
  Accept: 'application/json',
  'Content-Type': 'application/json',
  'X-Client-Token': 'client-all',
  'X-Session-Token': 'session-user',
};

const call = async (options: ApiEventOptions) => {
  const event = apiEvent({ method: 'POST', path: '/reject', requestId: 'req-post', ...options });
  const result = (await endpoint(event, lambdaContext())) as APIGatewayProxyResult;
  expect(result.headers).toMatchObject({
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Request-Id': 'req-post',
  });
  return { ...result, json: JSON.parse(result.body) as Record<string, unknown> };
};

const expectCode = async (
  options: ApiEventOptions,
  status: number,
  code: string,
  context: Record<string, unknown> = {},
) => {
  const result = await call(options);
  expect(result.statusCode).toBe(status);
  expect(result.json).toEqual({ code, message: expect.any(String), requestId: 'req-post', ...context });
  return result;
};

/** What the logger wrote during the current test. */
let logged: string[] = [];

beforeEach(() => {
  logged = [];
  const capture = (chunk: string | Uint8Array) => {
    logged.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  resetConfig();
  resetDocumentClient();
  resetDefaultAuthenticator();
  handled.mockClear();
  ddb.reset();
  serveAuthTable(ddb, 'auth-unit', {
    clients: [
      { token: 'client-all', clientId: 'c-all', grants: ['search', 'reject'] },
      { token: 'client-search', clientId: 'c-search', grants: ['search'] },
    ],
    sessions: [
      { token: 'session-user', clientId: 'c-all', accountId: 42, role: 'user' },
      { token: 'session-search', clientId: 'c-search', accountId: 42, role: 'user' },
    ],
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

const tooLarge = JSON.stringify({ pad: 'x'.repeat(MAX_BODY_BYTES) });

describe('the shared chain around a POST endpoint', () => {
  it('answers 200 with the handler result, after parsing the JSON body for the caller', async () => {
    const result = await call({ headers: good, body: { fileId: ['1', '2'], page: 3, unknown: 'ignored' } });
    expect(result.statusCode).toBe(200);
    expect(result.json).toEqual({
      _type: 'TestResponseBody',
      input: { fileIds: [1, 2], page: 3 },
      accountId: 42,
      requestId: 'req-post',
    });
  });

  it('reads an empty body as {}', async () => {
    const result = await call({ headers: good, body: '' });
    expect(result.statusCode).toBe(200);
    expect(result.json.input).toEqual({ fileIds: [], page: 0 });
  });

  it('reads a form body with repeated keys and key[]', async () => {
    const result = await call({
      headers: { ...good, 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: 'fileId[]=5&page=2',
    });
    expect(result.statusCode).toBe(200);
    expect(result.json.input).toEqual({ fileIds: [5], page: 2 });
  });

  it('hands the handler the negotiated media type, whatever parameters Accept carries', async () => {
    for (const accept of ['application/json', 'text/html;q=0.9, Application/JSON; charset=utf-8']) {
      handled.mockClear();
      const result = await call({ headers: { ...good, Accept: accept }, body: {} });
      expect(result.statusCode).toBe(200);
      const [request] = handled.mock.calls[0] as unknown as [{ context: { preferredMediaType?: string } }];
      expect(request.context.preferredMediaType).toBe('application/json');
    }
  });

  it('reads a base64-encoded body', async () => {
    const result = await call({
      headers: good,
      body: Buffer.from(JSON.stringify({ page: 4 })).toString('base64'),
      isBase64Encoded: true,
    });
    expect(result.json.input).toEqual({ fileIds: [], page: 4 });
  });

  describe('checks of docs/contract.md §1, in order', () => {
    it('answers 405 with Allow: POST to a GET', async () => {
      const result = await expectCode({ method: 'GET', headers: {} }, 405, 'method_not_allowed');
      expect(result.headers?.Allow).toBe('POST');
    });

    it('answers 406 to a request failing both 406 and 415', async () => {
      await expectCode({ headers: { Accept: '*/*', 'Content-Type': 'text/plain' } }, 406, 'not_acceptable');
    });

    it('answers 415 to a POST without Content-Type, before the missing tokens', async () => {
      await expectCode({ headers: { Accept: 'application/json' } }, 415, 'unsupported_media_type');
    });

    it('answers 415 to a POST with Content-Type text/plain', async () => {
      await expectCode({ headers: { ...good, 'Content-Type': 'text/plain' } }, 415, 'unsupported_media_type');
    });

    it('answers missing_header for X-Client-Token before X-Session-Token', async () => {
      await expectCode(
        { headers: { Accept: 'application/json', 'Content-Type': 'application/json' } },
        400,
        'missing_header',
        {
          headerName: 'X-Client-Token',
        },
      );
    });

    it('answers missing_header before authentication when a token is missing', async () => {
      await expectCode({ headers: { ...good, 'X-Session-Token': '' }, body: tooLarge }, 400, 'missing_header', {
        headerName: 'X-Session-Token',
      });
    });

    it('answers 401 to a too-large body with an unknown client', async () => {
      await expectCode({ headers: { ...good, 'X-Client-Token': 'unknown' }, body: tooLarge }, 401, 'invalid_client');
    });

    it('answers 403 before 413 when the client lacks the grant', async () => {
      await expectCode(
        {
          headers: { ...good, 'X-Client-Token': 'client-search', 'X-Session-Token': 'session-search' },
          body: tooLarge,
        },
        403,
        'forbidden',
        { grant: 'reject' },
      );
    });

    it('answers 413 before invalid_json to a body over 1 MiB that is not JSON', async () => {
      await expectCode({ headers: good, body: `{${'x'.repeat(MAX_BODY_BYTES)}` }, 413, 'payload_too_large');
    });

    it('answers 400 invalid_json to a body that does not parse', async () => {
      await expectCode({ headers: good, body: '{"page": 1' }, 400, 'invalid_json');
    });

    it('answers 400 invalid_json to a malformed form encoding', async () => {
      await expectCode(
        { headers: { ...good, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'page=%zz' },
        400,
        'invalid_json',
      );
    });

    it('answers invalid_json, not invalid_parameter, to a broken body with bad fields', async () => {
      await expectCode({ headers: good, body: '{"page": -1,' }, 400, 'invalid_json');
    });

    it.each([
      ['null', 'null'],
      ['an array', '[{"page":1}]'],
      ['a string', '"page"'],
      ['a number', '42'],
    ])('answers 400 invalid_parameter "body" to a top-level %s', async (_name, body) => {
      await expectCode({ headers: good, body }, 400, 'invalid_parameter', { parameter: 'body' });
    });

    it('answers 400 invalid_parameter naming the bad field', async () => {
      await expectCode({ headers: good, body: { page: 11 } }, 400, 'invalid_parameter', { parameter: 'page' });
      await expectCode({ headers: good, body: { page: '1' } }, 400, 'invalid_parameter', { parameter: 'page' });
      expect(handled).not.toHaveBeenCalled();
    });
  });

  describe('errors of the handler', () => {
    it('answers an ApiError with its status and context', async () => {
      await expectCode({ headers: good, body: { fileId: '404' } }, 404, 'file_not_found', { fileId: 404 });
    });

    it('answers 503 with the Retry-After of a DependencyUnavailableError', async () => {
      const result = await expectCode({ headers: good, body: { fileId: '503' } }, 503, 'service_unavailable');
      expect(result.headers?.['Retry-After']).toBe('7');
      expect(result.body).not.toMatch(/engine down|search/);
    });

    it('answers 500 to a bug, leaking nothing', async () => {
      const result = await expectCode({ headers: good, body: { fileId: '500' } }, 500, 'internal_error');
      expect(result.body).not.toMatch(/bug|jobs-unit|Error/);
    });
  });

  describe('logging', () => {
    const captureLogs = async (action: () => Promise<unknown>): Promise<string> => {
      logged = [];
      await action();
      return logged.join('');
    };

    it('logs the real cause of a 500 with the request id, and never the tokens', async () => {
      const output = await captureLogs(() => call({ headers: good, body: { fileId: '500' } }));
      expect(output).toContain('the handler has a bug');
      expect(output).toContain('req-post');
      expect(output).not.toContain('client-all');
      expect(output).not.toContain('session-user');
    });

    it('logs a refused request by its code, never the tokens', async () => {
      const output = await captureLogs(() => call({ headers: { ...good, 'X-Client-Token': 'unknown-secret' } }));
      expect(output).toContain('invalid_client');
      expect(output).not.toContain('unknown-secret');
      expect(output).not.toContain('session-user');
    });

    it('redacts the token headers when the event itself is logged', async () => {
      const event = apiEvent({ method: 'POST', path: '/reject', headers: good, body: {} });
      const output = await captureLogs(async () => logger.logEventIfEnabled(event, true));
      expect(output).toContain('application/json');
      expect(output).not.toContain('client-all');
      expect(output).not.toContain('session-user');
    });
  });
});

describe('a function serving several endpoints', () => {
  const searchEndpoint = httpEndpoint({ path: '/search', method: 'POST', parse }, async () => ({ served: 'search' }));
  const rejectEndpoint = httpEndpoint({ path: '/reject', method: 'POST', parse }, async () => ({ served: 'reject' }));
  const routed = routedHandler([searchEndpoint, rejectEndpoint]);
  const send = async (method: string, path: string) => {
    const result = await routed(apiEvent({ method, path, headers: good, body: { fileIds: [1] } }), lambdaContext());
    return {
      status: result.statusCode,
      headers: result.headers,
      json: JSON.parse(result.body) as Record<string, unknown>,
    };
  };

  it('hands each request to the endpoint of its resource and method', async () => {
    expect(await send('POST', '/reject')).toMatchObject({ status: 200, json: { served: 'reject' } });
    expect(await send('POST', '/search')).toMatchObject({ status: 200, json: { served: 'search' } });
  });

  it("answers another method of a served path with 405 and the path's Allow", async () => {
    const answer = await send('DELETE', '/reject');
    expect(answer.status).toBe(405);
    expect(answer.headers).toMatchObject({ Allow: 'POST' });
    expect(answer.json.code).toBe('method_not_allowed');
  });
});

describe('bodies as API Gateway hands them to the function', () => {
  /** Whether a media range of `binaryMediaTypes` (`*\/*`, `image/*`, `application/json`) covers a Content-Type. */
  const covers = (range: string, contentType: string): boolean => {
    const [rangeType, rangeSubtype] = range.toLowerCase().split('/');
    const [type, subtype] = (contentType.split(';')[0] ?? '').trim().toLowerCase().split('/');
    return (rangeType === '*' || rangeType === type) && (rangeSubtype === '*' || rangeSubtype === subtype);
  };

  /** The proxy event's body for bytes of a binary media type: base64, flagged (AWS's content type conversions). */
  const gatewayBody = (bytes: Buffer): ApiEventOptions => ({ body: bytes.toString('base64'), isBase64Encoded: true });

  /** The same bytes as the local server hands them over (local/gateway/api-event.ts). */
  const localBody = (bytes: Buffer): ApiEventOptions => {
    const { body, isBase64Encoded } = eventBody(bytes);
    return { body, isBase64Encoded };
  };

  const JSON_TYPE = 'application/json; charset=utf-8';
  const FORM_TYPE = 'application/x-www-form-urlencoded';

  it('makes every Content-Type the API reads a binary media type of the stack, so the function gets the bytes', () => {
    for (const contentType of [JSON_TYPE, 'Application/JSON', FORM_TYPE, `${FORM_TYPE}; charset=utf-8`]) {
      expect(BINARY_MEDIA_TYPES.some((range) => covers(range, contentType))).toBe(true);
    }
  });

  it.each([
    [
      'a JSON body in Latin-1',
      JSON_TYPE,
      Buffer.concat([Buffer.from('{"page":1,"note":"caf'), Buffer.from([0xe9, 0x22, 0x7d])]),
    ],
    [
      'a form body with a raw Latin-1 byte',
      FORM_TYPE,
      Buffer.concat([Buffer.from('page=1&note=caf'), Buffer.from([0xe9])]),
    ],
    ['a JSON body with a lone continuation byte', JSON_TYPE, Buffer.from([0x7b, 0x80, 0x7d])],
  ])('answers 400 invalid_json to %s, from API Gateway and from the local server alike', async (_, type, bytes) => {
    const headers = { ...good, 'Content-Type': type };
    await expectCode({ headers, ...gatewayBody(bytes) }, 400, 'invalid_json');
    await expectCode({ headers, ...localBody(bytes) }, 400, 'invalid_json');
    expect(handled).not.toHaveBeenCalled();
  });

  it('reads a UTF-8 body API Gateway base64-encoded as the local server’s text, and answers JSON text', async () => {
    const bytes = Buffer.from(JSON.stringify({ page: 2, note: 'Über café' }));
    const fromGateway = await call({ headers: { ...good, 'Content-Type': JSON_TYPE }, ...gatewayBody(bytes) });
    const fromLocal = await call({ headers: { ...good, 'Content-Type': JSON_TYPE }, ...localBody(bytes) });
    expect(fromGateway.statusCode).toBe(200);
    expect(fromGateway.json.input).toEqual({ fileIds: [], page: 2 });
    expect(fromLocal.json.input).toEqual(fromGateway.json.input);
    // Not flagged as base64, so API Gateway passes the answer on as the JSON text it is.
    expect(fromGateway.isBase64Encoded).not.toBe(true);
  });
});

import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  Object.assign(process.env, {
    JOBS_TABLE: 'jobs-unit',
    AUTH_TABLE: 'auth-unit',
    SEARCH_ENGINE: 'embedded',
    // Never AWS: an address nothing listens on (every call is mocked anyway).
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
});

import { resetDefaultAuthenticator } from '../../functions/auth/authenticate';
import { resetDocumentClient } from '../../functions/aws/dynamodb';
import { resetConfig } from '../../functions/config';
import { handler } from '../../functions/handlers/search-fields';
import { type ApiEventOptions, apiEvent, lambdaContext } from '../support/api-event';
import { serveAuthTable } from './http/auth-fixture';

const ddb = mockClient(DynamoDBDocumentClient);

const TOKENS = {
  searchClient: 'client-search-token',
  rejectOnlyClient: 'client-reject-token',
  disabledClient: 'client-disabled-token',
  userSession: 'session-user-token',
  operatorSession: 'session-operator-token',
  expiredSession: 'session-expired-token',
  rejectOnlySession: 'session-reject-only-token',
  disabledClientSession: 'session-disabled-client-token',
};

const serveFixtures = () =>
  serveAuthTable(ddb, 'auth-unit', {
    clients: [
      { token: TOKENS.searchClient, clientId: 'c-search', grants: ['search', 'reject'] },
      { token: TOKENS.rejectOnlyClient, clientId: 'c-reject', grants: ['reject'] },
      { token: TOKENS.disabledClient, clientId: 'c-disabled', grants: ['search'], enabled: false },
    ],
    sessions: [
      { token: TOKENS.userSession, clientId: 'c-search', accountId: 42, role: 'user' },
      { token: TOKENS.operatorSession, clientId: 'c-search', accountId: 1, role: 'operator' },
      {
        token: TOKENS.expiredSession,
        clientId: 'c-search',
        accountId: 42,
        role: 'user',
        expiresAt: new Date(Date.now() - 1000),
      },
      { token: TOKENS.rejectOnlySession, clientId: 'c-reject', accountId: 42, role: 'user' },
      { token: TOKENS.disabledClientSession, clientId: 'c-disabled', accountId: 42, role: 'user' },
    ],
  });

const good = {
  Accept: 'application/json',
  'X-Client-Token': TOKENS.searchClient,
  'X-Session-Token': TOKENS.userSession,
};

const call = async (options: ApiEventOptions): Promise<APIGatewayProxyResult & { json: Record<string, unknown> }> => {
  const event = apiEvent({ path: '/search/fields', requestId: 'req-fields', ...options });
  const result = (await handler(event, lambdaContext())) as APIGatewayProxyResult;
  return { ...result, json: JSON.parse(result.body) as Record<string, unknown> };
};

const expectCommonHeaders = (result: APIGatewayProxyResult) => {
  expect(result.headers).toMatchObject({
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Request-Id': 'req-fields',
  });
};

const expectError = async (options: ApiEventOptions, status: number, body: Record<string, unknown>) => {
  const result = await call(options);
  expect(result.statusCode).toBe(status);
  expectCommonHeaders(result);
  expect(result.json).toEqual({ ...body, message: expect.any(String), requestId: 'req-fields' });
  return result;
};

beforeEach(() => {
  resetConfig();
  resetDocumentClient();
  resetDefaultAuthenticator();
  ddb.reset();
  serveFixtures();
});

afterEach(() => {
  ddb.reset();
});

describe('GET /search/fields', () => {
  it('lists the fields a user may use, ordered by seqno', async () => {
    const result = await call({ headers: good });
    expect(result.statusCode).toBe(200);
    expectCommonHeaders(result);
    expect(result.json._type).toBe('SearchFieldsResponseBody');
    const fields = result.json.fields as Array<Record<string, unknown>>;
    expect(fields.map((field) => field.id)).toEqual([
      'Global',
      'JobNumber',
      'JobName',
      'FileName',
      'JobInstruction',
      'JobTags',
      'FileTags',
      'FileInstruction',
      'InvoiceReference',
      'Guid',
    ]);
    expect(fields[0]).toEqual({ id: 'Global', name: 'Global', isOperatorOnly: false, isUserOnly: false, seqno: 10 });
    expect(fields.find((field) => field.id === 'JobTags')).toEqual({
      id: 'JobTags',
      name: 'Job tags',
      isOperatorOnly: false,
      isUserOnly: true,
      seqno: 60,
    });
  });

  it('lists the fields an operator may use, ordered by seqno', async () => {
    const result = await call({ headers: { ...good, 'X-Session-Token': TOKENS.operatorSession } });
    expect(result.statusCode).toBe(200);
    const fields = result.json.fields as Array<Record<string, unknown>>;
    expect(fields.map((field) => [field.id, field.seqno])).toEqual([
      ['Global', 10],
      ['AccountNumber', 15],
      ['AccountName', 17],
      ['JobNumber', 20],
      ['JobName', 30],
      ['FileName', 40],
      ['JobInstruction', 50],
      ['FileInstruction', 75],
      ['InvoiceReference', 80],
      ['Guid', 90],
    ]);
    expect(fields[1]).toEqual({
      id: 'AccountNumber',
      name: 'Account number',
      isOperatorOnly: true,
      isUserOnly: false,
      seqno: 15,
    });
  });

  it('reads headers whatever the case of their names and ignores the Content-Type of a GET', async () => {
    const result = await call({
      headers: {
        ACCEPT: 'text/html, Application/JSON;q=0.5',
        'content-type': 'text/plain',
        'x-client-token': TOKENS.searchClient,
        'X-SESSION-TOKEN': TOKENS.userSession,
      },
    });
    expect(result.statusCode).toBe(200);
  });

  it('falls back to the Lambda request id without an API Gateway one', async () => {
    const event = apiEvent({ headers: good });
    event.requestContext.requestId = '';
    const result = (await handler(event, lambdaContext({ awsRequestId: 'lambda-req' }))) as APIGatewayProxyResult;
    expect(result.headers?.['X-Request-Id']).toBe('lambda-req');
    expect(JSON.parse(result.body)).toMatchObject({ _type: 'SearchFieldsResponseBody' });
  });

  describe('checks of docs/contract.md §1, in order', () => {
    it('answers 405 with Allow: GET to a POST (before Accept is checked)', async () => {
      const result = await expectError({ method: 'POST', headers: {} }, 405, { code: 'method_not_allowed' });
      expect(result.headers?.Allow).toBe('GET');
    });

    it('answers 406 when Accept is */* (before the tokens are checked)', async () => {
      await expectError({ headers: { Accept: '*/*' } }, 406, { code: 'not_acceptable' });
    });

    it('answers 406 when Accept is missing', async () => {
      await expectError({ headers: { 'X-Client-Token': 'x', 'X-Session-Token': 'y' } }, 406, {
        code: 'not_acceptable',
      });
    });

    it('answers 406 when Accept refuses JSON with q=0', async () => {
      await expectError({ headers: { ...good, Accept: 'application/json;q=0' } }, 406, { code: 'not_acceptable' });
    });

    it('names X-Client-Token when both tokens are missing', async () => {
      await expectError({ headers: { Accept: 'application/json' } }, 400, {
        code: 'missing_header',
        headerName: 'X-Client-Token',
      });
    });

    it('names X-Session-Token when only it is missing', async () => {
      await expectError({ headers: { Accept: 'application/json', 'X-Client-Token': TOKENS.searchClient } }, 400, {
        code: 'missing_header',
        headerName: 'X-Session-Token',
      });
    });

    it('answers 400 missing_header to a blank token, before looking it up', async () => {
      await expectError({ headers: { ...good, 'X-Session-Token': '   ' } }, 400, {
        code: 'missing_header',
        headerName: 'X-Session-Token',
      });
      expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
    });

    it('answers 401 invalid_client to an unknown client token', async () => {
      await expectError({ headers: { ...good, 'X-Client-Token': 'who-is-this' } }, 401, { code: 'invalid_client' });
    });

    it('answers 401 invalid_client to a disabled client', async () => {
      await expectError(
        {
          headers: {
            ...good,
            'X-Client-Token': TOKENS.disabledClient,
            'X-Session-Token': TOKENS.disabledClientSession,
          },
        },
        401,
        { code: 'invalid_client' },
      );
    });

    it('answers invalid_client before invalid_session when both tokens are unknown', async () => {
      await expectError({ headers: { ...good, 'X-Client-Token': 'nope', 'X-Session-Token': 'nope' } }, 401, {
        code: 'invalid_client',
      });
    });

    it('answers 401 invalid_session to an unknown session token', async () => {
      await expectError({ headers: { ...good, 'X-Session-Token': 'who-is-this' } }, 401, { code: 'invalid_session' });
    });

    it('answers 401 invalid_session to an expired session', async () => {
      await expectError({ headers: { ...good, 'X-Session-Token': TOKENS.expiredSession } }, 401, {
        code: 'invalid_session',
      });
    });

    it('answers 401 invalid_session to a session issued to another client', async () => {
      await expectError({ headers: { ...good, 'X-Session-Token': TOKENS.rejectOnlySession } }, 401, {
        code: 'invalid_session',
      });
    });

    it('answers 401 before 403 when a client without the grant shows a bad session', async () => {
      await expectError({ headers: { ...good, 'X-Client-Token': TOKENS.rejectOnlyClient } }, 401, {
        code: 'invalid_session',
      });
    });

    it('answers 403 forbidden to a client without the search grant', async () => {
      await expectError(
        {
          headers: { ...good, 'X-Client-Token': TOKENS.rejectOnlyClient, 'X-Session-Token': TOKENS.rejectOnlySession },
        },
        403,
        { code: 'forbidden', grant: 'search' },
      );
    });
  });

  describe('unavailable dependencies', () => {
    it('answers 503 with Retry-After when DynamoDB throttles past its retries', async () => {
      ddb.on(GetCommand).rejects(
        new ProvisionedThroughputExceededException({
          message: 'Throughput exceeded',
          $metadata: { httpStatusCode: 400 },
        }),
      );
      const result = await expectError({ headers: good }, 503, { code: 'service_unavailable' });
      expect(result.headers?.['Retry-After']).toBe('1');
      expect(result.body).not.toMatch(/Throughput|Provisioned/);
    });

    it('answers 503 with Retry-After when DynamoDB times out', async () => {
      ddb.on(GetCommand).rejects(Object.assign(new Error('Request timed out after 3000ms'), { name: 'TimeoutError' }));
      const result = await expectError({ headers: good }, 503, { code: 'service_unavailable' });
      expect(result.headers?.['Retry-After']).toBe('1');
    });

    it('answers 500 internal_error, leaking nothing, when DynamoDB fails for another reason', async () => {
      ddb.on(GetCommand).rejects(
        Object.assign(new Error('Requested resource not found: Table: auth-unit not found'), {
          name: 'ResourceNotFoundException',
          $metadata: { httpStatusCode: 400 },
        }),
      );
      const result = await expectError({ headers: good }, 500, { code: 'internal_error' });
      expect(result.body).not.toMatch(/auth-unit|ResourceNotFound|stack/);
      expect(result.headers?.['Retry-After']).toBeUndefined();
    });
  });

  describe('authentication cache', () => {
    it('serves a repeated request without reading the auth table again', async () => {
      await call({ headers: good });
      const reads = ddb.commandCalls(GetCommand).length;
      expect(reads).toBe(2);
      const again = await call({ headers: good });
      expect(again.statusCode).toBe(200);
      expect(ddb.commandCalls(GetCommand)).toHaveLength(reads);
    });
  });
});

import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetDefaultAuthenticator } from '../../functions/auth/authenticate';
import { AuthStore } from '../../functions/auth/store';
import { createDocumentClient, resetDocumentClient } from '../../functions/aws/dynamodb';
import { resetConfig } from '../../functions/config';
import { logger } from '../../functions/observability';
import { handler } from '../../functions/handlers/search-fields';
import { apiEvent, lambdaContext, passingHeaders } from '../support/api-event';
import { createTestTables, handlerEnv } from '../support/dynamo';

const saved = { ...process.env };
const tokens: Record<string, { clientToken: string; sessionToken: string }> = {};

const call = async (headers: Record<string, string>) => {
  const result = (await handler(apiEvent({ headers }), lambdaContext())) as APIGatewayProxyResult;
  return { status: result.statusCode, json: JSON.parse(result.body) as Record<string, unknown> };
};

beforeAll(async () => {
  const tables = await createTestTables();
  // The largest dependency budget the configuration allows: the shared test machine can be slow.
  Object.assign(process.env, handlerEnv(tables), { DEPENDENCY_TIMEOUT_MS: '9000' });
  resetConfig();
  resetDocumentClient();
  resetDefaultAuthenticator();
  logger.setLogLevel('SILENT');
  const store = new AuthStore(
    createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: tables.endpoint, dependencyTimeoutMs: 9_000 }),
    tables.authTable,
  );
  const portal = await store.createClient({ name: 'Portal', grants: ['search'], sessionRoles: ['user', 'operator'] });
  const rejecter = await store.createClient({
    name: 'Rejecter',
    grants: ['reject'],
    sessionRoles: ['user', 'operator'],
  });
  const session = (clientToken: string, role: 'user' | 'operator') =>
    store.createSession({ clientToken, accountId: 42, role, ttlSeconds: 600 });
  tokens.user = { clientToken: portal.token, sessionToken: (await session(portal.token, 'user')).token };
  tokens.operator = { clientToken: portal.token, sessionToken: (await session(portal.token, 'operator')).token };
  tokens.rejecter = { clientToken: rejecter.token, sessionToken: (await session(rejecter.token, 'user')).token };
});

afterAll(() => {
  process.env = saved;
  resetConfig();
  resetDocumentClient();
  resetDefaultAuthenticator();
});

const ids = (json: Record<string, unknown>) => (json.fields as Array<{ id: string }>).map((field) => field.id);

describe('GET /search/fields with tokens issued by AuthStore on DynamoDB Local', () => {
  it('lists user fields to a user session', async () => {
    const { status, json } = await call(passingHeaders(tokens.user!));
    expect(status).toBe(200);
    expect(ids(json)).toContain('JobTags');
    expect(ids(json)).not.toContain('AccountNumber');
  });

  it('lists operator fields to an operator session', async () => {
    const { status, json } = await call(passingHeaders(tokens.operator!));
    expect(status).toBe(200);
    expect(ids(json)).toContain('AccountNumber');
    expect(ids(json)).not.toContain('FileTags');
  });

  it('answers 403 to a client granted only reject', async () => {
    const { status, json } = await call(passingHeaders(tokens.rejecter!));
    expect(status).toBe(403);
    expect(json.code).toBe('forbidden');
  });

  it('answers 401 invalid_session to a session shown with another client', async () => {
    const { status, json } = await call(
      passingHeaders({ clientToken: tokens.user!.clientToken, sessionToken: tokens.rejecter!.sessionToken }),
    );
    expect(status).toBe(401);
    expect(json.code).toBe('invalid_session');
  });

  it('answers 401 invalid_client to a token never issued', async () => {
    const { status, json } = await call(passingHeaders({ clientToken: 'never-issued', sessionToken: 'never-issued' }));
    expect(status).toBe(401);
    expect(json.code).toBe('invalid_client');
  });
});

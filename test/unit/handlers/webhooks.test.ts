/**
 * The `/webhooks` endpoints (functions/handlers/webhooks.ts) on mocked events, the auth table mocked with
 * aws-sdk-client-mock: a client's backend registers, lists and removes webhooks with its token and secret, and
 * never reaches another client's.
 */
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Grant } from '../../../functions/auth/principal';
import { hashToken } from '../../../functions/auth/tokens';
import { handler } from '../../../functions/handlers/webhooks';
import { authKeys, webhookKeys } from '../../../functions/tables';
import { apiEvent, lambdaContext } from '../../support/api-event';
import { useUnitHandlerEnvironment } from './sample-events';

const dynamo = mockClient(DynamoDBDocumentClient);
const TOKEN = 'webhook-client-token';
const SECRET = 'jsk_webhook-client-secret';
const CLIENT_ID = 'client-a';
const OWN_HOOK = `wh_${'a'.repeat(32)}`;
const OTHER_HOOK = `wh_${'b'.repeat(32)}`;
const PUBLIC_URL = 'https://93.184.216.34/hooks';

const knownClient = (grants: Grant[] = ['webhooks']): void => {
  dynamo.on(GetCommand, { Key: { pk: authKeys.client(hashToken(TOKEN)) } }).resolves({
    Item: {
      type: 'client',
      clientId: CLIENT_ID,
      name: 'Shop',
      grants,
      enabled: true,
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  });
  dynamo.on(GetCommand, { Key: { pk: authKeys.secret(hashToken(SECRET)) } }).resolves({
    Item: { type: 'secret', secretId: 's1', clientId: CLIENT_ID, createdAt: '2026-01-01T00:00:00.000Z' },
  });
};

const webhookItem = (webhookId: string, clientId: string) => ({
  pk: webhookKeys.webhook(webhookId),
  type: 'webhook',
  webhookId,
  clientId,
  clientKey: 'CLIENT#x',
  url: PUBLIC_URL,
  events: ['job.created'],
  secret: `whsec_${'A'.repeat(43)}=`,
  createdAt: '2026-02-01T00:00:00.000Z',
  enabled: true,
  attemptCount: 0,
});

const call = async (
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<APIGatewayProxyResult & { json: Record<string, unknown> }> => {
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'X-Client-Token': TOKEN,
    'X-Client-Secret': SECRET,
    ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}),
    ...options.headers,
  };
  const response = await handler(
    apiEvent({ method, path, headers, ...(options.body === undefined ? {} : { body: options.body as object }) }),
    lambdaContext(),
  );
  return { ...response, json: JSON.parse(response.body) as Record<string, unknown> };
};

const cancelled = (...codes: string[]): Error =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

beforeEach(() => {
  useUnitHandlerEnvironment();
  dynamo.reset();
  dynamo.on(GetCommand).resolves({});
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('POST /webhooks', () => {
  it('answers 201 with the id, url, events and a whsec_ secret, stored with the webhook in one transaction', async () => {
    knownClient();
    dynamo.on(TransactWriteCommand).resolves({});
    const answer = await call('POST', '/webhooks', {
      body: { url: PUBLIC_URL, events: ['job.created', 'file.rejected'] },
    });
    expect(answer.statusCode, answer.body).toBe(201);
    expect(answer.json).toMatchObject({
      _type: 'WebhookCreatedResponseBody',
      url: PUBLIC_URL,
      events: ['job.created', 'file.rejected'],
      enabled: true,
      disabledAt: null,
    });
    expect(answer.json.id).toMatch(/^wh_[0-9a-f]{32}$/);
    expect(answer.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const [write] = dynamo.commandCalls(TransactWriteCommand);
    const items = (write?.args[0].input as TransactWriteCommandInput).TransactItems ?? [];
    expect(items[0]?.Put?.Item).toMatchObject({
      pk: `WEBHOOK#${answer.json.id as string}`,
      clientId: CLIENT_ID,
      clientKey: authKeys.client(hashToken(TOKEN)),
      secret: answer.json.secret,
    });
    expect(items[1]?.Update?.Key).toEqual({ pk: webhookKeys.clientList(CLIENT_ID) });
    expect(items[2]?.Update?.Key).toEqual({ pk: webhookKeys.registry });
  });

  it.each([
    ['the metadata address', 'https://169.254.169.254/latest/meta-data/'],
    ['a loopback address', 'https://127.0.0.1/hooks'],
    ['a private address', 'https://10.1.2.3/hooks'],
    ['http', 'http://93.184.216.34/hooks'],
    ['http://localhost without ALLOW_LOCAL_WEBHOOKS', 'http://localhost:8080/hooks'],
    ['a URL of more than 2048 characters', `https://93.184.216.34/${'a'.repeat(2048)}`],
    ['a relative URL', '/hooks'],
  ])('answers 400 invalid_parameter naming url for %s, writing nothing', async (_name, url) => {
    knownClient();
    const answer = await call('POST', '/webhooks', { body: { url, events: ['job.created'] } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toMatchObject({ code: 'invalid_parameter', parameter: 'url' });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('takes an https URL whose host does not resolve yet (every delivery checks it again)', async () => {
    knownClient();
    dynamo.on(TransactWriteCommand).resolves({});
    const answer = await call('POST', '/webhooks', {
      body: { url: 'https://hooks.nowhere.invalid/jobs', events: ['job.created'] },
    });
    expect(answer.statusCode, answer.body).toBe(201);
  });

  it.each([
    ['an unknown type', ['job.created', 'job.exploded']],
    ['a type twice', ['job.created', 'job.created']],
    ['no type', []],
    ['a number', [1]],
    ['nine types', Array.from({ length: 9 }, () => 'job.created')],
  ])('answers 400 invalid_parameter naming events for %s', async (_name, events) => {
    knownClient();
    const answer = await call('POST', '/webhooks', { body: { url: PUBLIC_URL, events } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toMatchObject({ code: 'invalid_parameter', parameter: 'events' });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('takes a form body with events as repeated keys', async () => {
    knownClient();
    dynamo.on(TransactWriteCommand).resolves({});
    const answer = await call('POST', '/webhooks', {
      body: `url=${encodeURIComponent(PUBLIC_URL)}&events=job.created&events=job.updated`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(answer.statusCode, answer.body).toBe(201);
    expect(answer.json.events).toEqual(['job.created', 'job.updated']);
  });

  it('answers 409 webhook_limit_reached when the client list refuses another webhook', async () => {
    knownClient();
    dynamo.on(TransactWriteCommand).rejects(cancelled('None', 'ConditionalCheckFailed', 'None'));
    const answer = await call('POST', '/webhooks', { body: { url: PUBLIC_URL, events: ['job.created'] } });
    expect(answer.statusCode).toBe(409);
    expect(answer.json).toMatchObject({ code: 'webhook_limit_reached' });
  });

  it('answers 400 missing_header naming X-Client-Secret when only a session token is sent', async () => {
    knownClient();
    const answer = await call('POST', '/webhooks', {
      body: { url: PUBLIC_URL, events: ['job.created'] },
      headers: { 'X-Client-Secret': '', 'X-Session-Token': 'a-session' },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toMatchObject({ code: 'missing_header', headerName: 'X-Client-Secret' });
  });

  it('answers 401 invalid_client for a wrong secret and 403 forbidden for a client without the grant', async () => {
    knownClient();
    const wrong = await call('GET', '/webhooks', { headers: { 'X-Client-Secret': 'jsk_wrong' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json).toMatchObject({ code: 'invalid_client' });
    dynamo.reset();
    dynamo.on(GetCommand).resolves({});
    knownClient(['search', 'sessions']);
    const ungranted = await call('GET', '/webhooks');
    expect(ungranted.statusCode).toBe(403);
    expect(ungranted.json).toMatchObject({ code: 'forbidden', grant: 'webhooks' });
  });
});

describe('GET /webhooks', () => {
  it("lists the client's own webhooks, never a secret", async () => {
    knownClient();
    dynamo.on(GetCommand, { Key: { pk: webhookKeys.clientList(CLIENT_ID) } }).resolves({
      Item: { pk: webhookKeys.clientList(CLIENT_ID), webhookIds: new Set([OWN_HOOK]) },
    });
    dynamo.on(BatchGetCommand).resolves({ Responses: { 'auth-unit': [webhookItem(OWN_HOOK, CLIENT_ID)] } });
    const answer = await call('GET', '/webhooks');
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json).toEqual({
      _type: 'WebhooksResponseBody',
      webhooks: [
        {
          id: OWN_HOOK,
          url: PUBLIC_URL,
          events: ['job.created'],
          enabled: true,
          createdAt: '2026-02-01T00:00:00.000Z',
          disabledAt: null,
        },
      ],
    });
    expect(answer.body).not.toContain('whsec_');
  });
});

describe("another client's webhook", () => {
  it('answers 404 webhook_not_found to DELETE, removing nothing', async () => {
    knownClient();
    dynamo.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None', 'None'));
    const answer = await call('DELETE', `/webhooks/${OTHER_HOOK}`);
    expect(answer.statusCode).toBe(404);
    expect(answer.json).toMatchObject({ code: 'webhook_not_found' });
  });

  it('answers 404 webhook_not_found to GET deliveries, reading none of its attempts', async () => {
    knownClient();
    dynamo
      .on(GetCommand, { Key: { pk: webhookKeys.webhook(OTHER_HOOK) } })
      .resolves({ Item: webhookItem(OTHER_HOOK, 'client-b') });
    const answer = await call('GET', `/webhooks/${OTHER_HOOK}/deliveries`);
    expect(answer.statusCode).toBe(404);
    expect(answer.json).toMatchObject({ code: 'webhook_not_found' });
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(0);
  });

  it('answers 404 webhook_not_found for an id of another form, reading nothing', async () => {
    knownClient();
    const answer = await call('DELETE', '/webhooks/not-a-webhook');
    expect(answer.statusCode).toBe(404);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('DELETE /webhooks/{id} and GET /webhooks/{id}/deliveries of its own', () => {
  it('answers 200 with the id once removed', async () => {
    knownClient();
    dynamo.on(TransactWriteCommand).resolves({});
    const answer = await call('DELETE', `/webhooks/${OWN_HOOK}`);
    expect(answer.statusCode).toBe(200);
    expect(answer.json).toEqual({
      _type: 'WebhookDeletedResponseBody',
      id: OWN_HOOK,
    });
  });

  it('lists the attempts newest first', async () => {
    knownClient();
    dynamo
      .on(GetCommand, { Key: { pk: webhookKeys.webhook(OWN_HOOK) } })
      .resolves({ Item: webhookItem(OWN_HOOK, CLIENT_ID) });
    const attempt = (n: number, status: string, at: string) => ({
      pk: webhookKeys.attempt(OWN_HOOK, n - 1),
      type: 'webhook-attempt',
      eventId: 'e1',
      eventType: 'job.created',
      attempt: n,
      status,
      statusCode: status === 'delivered' ? 200 : 500,
      at,
      durationMs: 3,
      ttl: 4_000_000_000,
    });
    dynamo.on(BatchGetCommand).resolves({
      Responses: {
        'auth-unit': [
          attempt(1, 'retrying', '2026-02-01T00:00:00.000Z'),
          attempt(2, 'delivered', '2026-02-01T00:00:05.000Z'),
        ],
      },
    });
    const answer = await call('GET', `/webhooks/${OWN_HOOK}/deliveries`);
    expect(answer.statusCode, answer.body).toBe(200);
    const deliveries = answer.json.deliveries as { attempt: number; status: string }[];
    expect(deliveries.map((d) => [d.attempt, d.status])).toEqual([
      [2, 'delivered'],
      [1, 'retrying'],
    ]);
  });
});

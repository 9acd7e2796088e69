import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AuthStore,
  InvalidAuthInputError,
  MAX_SESSION_TTL_SECONDS,
  UnknownClientError,
} from '../../../functions/auth/store';
import { hashToken } from '../../../functions/auth/tokens';
import { createDocumentClient } from '../../../functions/aws/dynamodb';

const ddb = mockClient(DynamoDBDocumentClient);
// Never AWS: every call is mocked, and the endpoint is an address nothing listens on.
const documentClient = createDocumentClient({
  region: 'us-east-1',
  dynamodbEndpoint: 'http://127.0.0.1:9',
  dependencyTimeoutMs: 1_000,
});
const NOW = new Date('2025-03-01T12:00:00.000Z');
const store = () => new AuthStore(documentClient, 'auth', { now: () => NOW });

beforeEach(() => {
  ddb.reset();
});

describe('AuthStore (mocked DynamoDB)', () => {
  it('stores a new client under the hash of its token, never the token', async () => {
    ddb.on(PutCommand).resolves({});
    const created = await store().createClient({ name: ' Portal ', grants: ['search', 'search', 'reject'] });
    const input = ddb.commandCalls(PutCommand)[0]?.args[0].input;
    expect(input?.Item).toEqual({
      pk: `CLIENT#${hashToken(created.token)}`,
      type: 'client',
      clientId: created.clientId,
      name: 'Portal',
      grants: ['search', 'reject'],
      enabled: true,
      createdAt: NOW.toISOString(),
    });
    expect(JSON.stringify(input)).not.toContain(created.token);
    expect(input?.ConditionExpression).toBe('attribute_not_exists(pk)');
  });

  it.each([
    ['a blank name', { name: ' ', grants: ['search'] }],
    ['an unknown grant', { name: 'x', grants: ['admin'] }],
  ])('refuses a client with %s', async (_name, input) => {
    await expect(store().createClient(input as never)).rejects.toThrow(InvalidAuthInputError);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('opens a session with an ISO expiry and a TTL in epoch seconds', async () => {
    ddb.on(GetCommand).resolves({
      Item: { pk: 'x', type: 'client', clientId: 'c1', name: 'P', grants: ['search'], enabled: true, createdAt: 'x' },
    });
    ddb.on(PutCommand).resolves({});
    const created = await store().createSession({ clientToken: 'ct', accountId: 7, role: 'operator', ttlSeconds: 90 });
    expect(created.expiresAt).toBe('2025-03-01T12:01:30.000Z');
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input.Key).toEqual({ pk: `CLIENT#${hashToken('ct')}` });
    const item = ddb.commandCalls(PutCommand)[0]?.args[0].input.Item;
    expect(item).toEqual({
      pk: `SESSION#${hashToken(created.token)}`,
      type: 'session',
      sessionId: created.sessionId,
      clientId: 'c1',
      accountId: 7,
      userId: created.sessionId,
      role: 'operator',
      createdAt: NOW.toISOString(),
      expiresAt: created.expiresAt,
      ttl: Date.parse(created.expiresAt) / 1000,
    });
  });

  it('refuses a session for an unknown or disabled client', async () => {
    ddb
      .on(GetCommand)
      .resolvesOnce({})
      .resolvesOnce({
        Item: { pk: 'x', type: 'client', clientId: 'c1', name: 'P', grants: [], enabled: false, createdAt: 'x' },
      });
    const input = { clientToken: 'ct', accountId: 7, role: 'user' as const, ttlSeconds: 60 };
    await expect(store().createSession(input)).rejects.toThrow(UnknownClientError);
    await expect(store().createSession(input)).rejects.toThrow(UnknownClientError);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });

  it.each([
    ['a negative account', { accountId: -1 }],
    ['a fractional account', { accountId: 1.5 }],
    ['an unknown role', { role: 'admin' }],
    ['a zero lifetime', { ttlSeconds: 0 }],
    ['a lifetime over a year', { ttlSeconds: MAX_SESSION_TTL_SECONDS + 1 }],
    ['a blank user', { userId: ' ' }],
  ])('refuses a session with %s', async (_name, override) => {
    const input = { clientToken: 'ct', accountId: 7, role: 'user', ttlSeconds: 60, ...override };
    await expect(store().createSession(input as never)).rejects.toThrow(InvalidAuthInputError);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('reads nothing from an item of the other kind', async () => {
    ddb.on(GetCommand).resolves({ Item: { pk: 'x', type: 'session' } });
    await expect(store().getClient('h')).resolves.toBeUndefined();
  });

  it('reports whether a disabled client or a revoked session existed', async () => {
    ddb
      .on(UpdateCommand)
      .resolvesOnce({})
      .rejectsOnce(Object.assign(new Error('failed'), { name: 'ConditionalCheckFailedException' }));
    await expect(store().disableClient('ct')).resolves.toBe(true);
    await expect(store().disableClient('ct')).resolves.toBe(false);
    ddb
      .on(DeleteCommand)
      .resolvesOnce({ Attributes: { pk: 'x' } })
      .resolvesOnce({});
    await expect(store().revokeSession('st')).resolves.toBe(true);
    await expect(store().revokeSession('st')).resolves.toBe(false);
  });

  it('bounds every call with an abort signal when given a timeout', async () => {
    ddb.on(GetCommand).resolves({});
    await new AuthStore(documentClient, 'auth', { timeoutMs: 500 }).getSession('h');
    const [call] = ddb.commandCalls(GetCommand);
    const sendOptions = (call?.args as unknown[] | undefined)?.[1];
    expect(sendOptions).toMatchObject({ abortSignal: expect.any(AbortSignal) });
  });
});

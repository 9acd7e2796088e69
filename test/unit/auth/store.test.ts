import { DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_OPERATOR_SESSION_TTL_SECONDS, MAX_USER_SESSION_TTL_SECONDS } from '../../../functions/auth/session-limits';
import {
  AccountNotAllowedError,
  AuthStore,
  InvalidAuthInputError,
  SessionRoleNotAllowedError,
  UnknownClientError,
} from '../../../functions/auth/store';
import { hashToken } from '../../../functions/auth/tokens';
import { unreachableDocumentClient } from '../../support/mocked-dynamo';

const ddb = mockClient(DynamoDBDocumentClient);
const documentClient = unreachableDocumentClient();
const NOW = new Date('2025-03-01T12:00:00.000Z');
const store = () => new AuthStore(documentClient, 'auth', { now: () => NOW });
const CLIENT_ITEM = {
  pk: 'x',
  type: 'client',
  clientId: 'c1',
  name: 'P',
  grants: ['search'],
  enabled: true,
  createdAt: 'x',
};

beforeEach(() => {
  ddb.reset();
});

describe('AuthStore (mocked DynamoDB)', () => {
  it('stores a new client and its first secret in one transaction under their hashes, never the token or the secret', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const created = await store().createClient({
      name: ' Portal ',
      grants: ['search', 'search', 'reject'],
      accounts: [1001, 1001, 1002],
    });
    const [transaction] = ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input);
    expect(transaction?.TransactItems).toHaveLength(2);
    const [client, secret] = (transaction?.TransactItems ?? []).map((item) => item.Put);
    expect(client?.Item).toEqual({
      pk: `CLIENT#${hashToken(created.token)}`,
      type: 'client',
      clientId: created.clientId,
      clientEntry: 'CLIENT',
      name: 'Portal',
      grants: ['search', 'reject'],
      enabled: true,
      sessionRoles: ['user'],
      accounts: [1001, 1002],
      secrets: { [created.secretId]: { key: `SECRET#${hashToken(created.secret)}`, createdAt: NOW.toISOString() } },
      sessionGeneration: 0,
      createdAt: NOW.toISOString(),
    });
    expect(secret?.Item).toEqual({
      pk: `SECRET#${hashToken(created.secret)}`,
      type: 'secret',
      secretId: created.secretId,
      clientId: created.clientId,
      clientEntry: `SECRET#${created.secretId}`,
      createdAt: NOW.toISOString(),
    });
    expect(created.secret).toMatch(/^jsk_[A-Za-z0-9_-]{43}$/);
    for (const input of [client, secret]) {
      expect(JSON.stringify(input)).not.toContain(created.token);
      expect(JSON.stringify(input)).not.toContain(created.secret);
      expect(input?.ConditionExpression).toBe('attribute_not_exists(pk)');
    }
  });

  it.each([
    ['a blank name', { name: ' ', grants: ['search'] }],
    ['an unknown grant', { name: 'x', grants: ['admin'] }],
    ['an empty list of accounts', { name: 'x', grants: ['search'], accounts: [] }],
    ['an account that is not an id', { name: 'x', grants: ['search'], accounts: [0] }],
    [
      'listed accounts and the operator role',
      { name: 'x', grants: ['search'], accounts: [7], sessionRoles: ['operator'] },
    ],
  ])('refuses a client with %s', async (_name, input) => {
    await expect(store().createClient(input as never)).rejects.toThrow(InvalidAuthInputError);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('refuses a session for an account outside the client’s list, after every other check, opening nothing', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...CLIENT_ITEM, accounts: [1001] } });
    ddb.on(PutCommand).resolves({});
    const input = { clientToken: 'ct', role: 'user' as const };
    await expect(store().createSession({ ...input, accountId: 1002 })).rejects.toThrow(AccountNotAllowedError);
    await expect(store().createSession({ ...input, accountId: 1002, ttlSeconds: 0 })).rejects.toThrow(
      InvalidAuthInputError,
    );
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    await expect(store().createSession({ ...input, accountId: 1001 })).resolves.toMatchObject({
      token: expect.any(String),
    });
  });

  it('opens a session with an ISO expiry and a TTL in epoch seconds', async () => {
    ddb.on(GetCommand).resolves({
      Item: { ...CLIENT_ITEM, sessionRoles: ['user', 'operator'] },
    });
    ddb.on(PutCommand).resolves({});
    const created = await store().createSession({ clientToken: 'ct', accountId: 7, role: 'operator', ttlSeconds: 90 });
    expect(created.expiresAt).toBe('2025-03-01T12:01:30.000Z');
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toMatchObject({
      Key: { pk: `CLIENT#${hashToken('ct')}` },
      ConsistentRead: true,
    });
    const item = ddb.commandCalls(PutCommand)[0]?.args[0].input.Item;
    expect(item).toEqual({
      pk: `SESSION#${hashToken(created.token)}`,
      type: 'session',
      sessionId: created.sessionId,
      clientId: 'c1',
      clientEntry: `SESSION#${created.sessionId}#${created.sessionId}`,
      accountId: 7,
      userId: created.sessionId,
      role: 'operator',
      createdAt: NOW.toISOString(),
      expiresAt: created.expiresAt,
      ttl: Date.parse(created.expiresAt) / 1000,
      generation: 0,
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
    ['a user session over 30 days', { ttlSeconds: MAX_USER_SESSION_TTL_SECONDS + 1 }],
    ['an operator session over 12 hours', { role: 'operator', ttlSeconds: MAX_OPERATOR_SESSION_TTL_SECONDS + 1 }],
    ['a session over the client’s own cap', { ttlSeconds: 3601, client: { maxSessionTtlSeconds: 3600 } }],
    ['a blank user', { userId: ' ' }],
    ['a user with a control character', { userId: 'anna\n' }],
    ['a user with a key separator', { userId: 'anna#1' }],
  ])('refuses a session with %s', async (_name, override) => {
    ddb.on(GetCommand).resolves({
      Item: { ...CLIENT_ITEM, sessionRoles: ['user', 'operator'], ...('client' in override ? override.client : {}) },
    });
    const input = { clientToken: 'ct', accountId: 7, role: 'user', ttlSeconds: 60, ...override };
    await expect(store().createSession(input as never)).rejects.toThrow(InvalidAuthInputError);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('refuses a session of a role the client may not open, and defaults to 24 hours under the caps', async () => {
    ddb.on(GetCommand).resolves({ Item: CLIENT_ITEM });
    ddb.on(PutCommand).resolves({});
    const operator = { clientToken: 'ct', accountId: 7, role: 'operator' as const };
    await expect(store().createSession(operator)).rejects.toThrow(SessionRoleNotAllowedError);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    const user = await store().createSession({ clientToken: 'ct', accountId: 7, role: 'user' });
    expect(user.expiresAt).toBe('2025-03-02T12:00:00.000Z');
    ddb.on(GetCommand).resolves({ Item: { ...CLIENT_ITEM, sessionRoles: ['operator'] } });
    const staff = await store().createSession(operator);
    expect(staff.expiresAt).toBe('2025-03-02T00:00:00.000Z');
  });

  it('reads nothing from an item of the other kind', async () => {
    ddb.on(GetCommand).resolves({ Item: { pk: 'x', type: 'session' } });
    await expect(store().getClient('h')).resolves.toBeUndefined();
  });

  it('bounds every call with an abort signal when given a timeout', async () => {
    ddb.on(GetCommand).resolves({});
    await new AuthStore(documentClient, 'auth', { timeoutMs: 500 }).getSession('h');
    const [call] = ddb.commandCalls(GetCommand);
    const sendOptions = (call?.args as unknown[] | undefined)?.[1];
    expect(sendOptions).toMatchObject({ abortSignal: expect.any(AbortSignal) });
  });
});

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuthAdministration, ClientNotFoundError } from '../../functions/auth/administration';
import type { AuditSource } from '../../functions/auth/audit';

const CLI_SOURCE: AuditSource = { via: 'cli', who: 'os-user:test' };
import { Authenticator } from '../../functions/auth/authenticate';
import { AuthStore, UnknownClientError } from '../../functions/auth/store';
import { generateSecret, generateToken, hashToken } from '../../functions/auth/tokens';
import { createDocumentClient } from '../../functions/aws/dynamodb';
import { ApiError } from '../../functions/http/errors';
import { authKeys, byClientEntries } from '../../functions/tables';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let store: AuthStore;
let admin: AuthAdministration;
/** Generous budgets: the shared test machine can be slow; these tests are about behaviour, not speed. */
const BUDGET_MS = 9_000;
const client = () =>
  createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: tables.endpoint, dependencyTimeoutMs: BUDGET_MS });

const codeOf = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
};

beforeAll(async () => {
  tables = await createTestTables();
  store = new AuthStore(client(), tables.authTable, { timeoutMs: BUDGET_MS });
  admin = new AuthAdministration(client(), tables.authTable, { timeoutMs: BUDGET_MS });
});

describe('AuthStore and Authenticator on DynamoDB Local', () => {
  it('issues a client and a session that authenticate to the right principal', async () => {
    const portal = await store.createClient({
      name: 'Portal',
      grants: ['search', 'reject'],
      sessionRoles: ['user', 'operator'],
    });
    const session = await store.createSession({
      clientToken: portal.token,
      accountId: 4711,
      userId: 'anna',
      role: 'user',
      ttlSeconds: 3600,
    });
    const authenticator = new Authenticator({ lookup: store, cacheTtlMs: 0 });
    await expect(authenticator.authenticate(portal.token, session.token)).resolves.toEqual({
      clientId: portal.clientId,
      clientName: 'Portal',
      grants: ['search', 'reject'],
      sessionId: session.sessionId,
      userId: 'anna',
      accountId: 4711,
      role: 'user',
    });
  });

  it('stores only token hashes, and sessions with a TTL attribute in epoch seconds', async () => {
    const portal = await store.createClient({ name: 'Hashes', grants: ['search'], sessionRoles: ['user', 'operator'] });
    const session = await store.createSession({
      clientToken: portal.token,
      accountId: 1,
      role: 'operator',
      ttlSeconds: 120,
    });
    const documents = client();
    const { Item: clientItem } = await documents.send(
      new GetCommand({ TableName: tables.authTable, Key: { pk: authKeys.client(hashToken(portal.token)) } }),
    );
    const { Item: sessionItem } = await documents.send(
      new GetCommand({ TableName: tables.authTable, Key: { pk: authKeys.session(hashToken(session.token)) } }),
    );
    expect(JSON.stringify([clientItem, sessionItem])).not.toContain(portal.token);
    expect(JSON.stringify([clientItem, sessionItem])).not.toContain(session.token);
    expect(sessionItem?.ttl).toBe(Math.ceil(Date.parse(session.expiresAt) / 1000));
    expect(sessionItem?.role).toBe('operator');
  });

  it('refuses to open a session for an unknown client', async () => {
    await expect(
      store.createSession({ clientToken: 'not-a-client', accountId: 1, role: 'user', ttlSeconds: 60 }),
    ).rejects.toThrow(UnknownClientError);
  });

  it('answers invalid_client for a disabled client and invalid_session for a revoked session', async () => {
    const portal = await store.createClient({
      name: 'Revocable',
      grants: ['search'],
      sessionRoles: ['user', 'operator'],
    });
    const session = await store.createSession({
      clientToken: portal.token,
      accountId: 2,
      role: 'user',
      ttlSeconds: 600,
    });
    const authenticator = new Authenticator({ lookup: store, cacheTtlMs: 0 });
    expect(await codeOf(authenticator.authenticate(portal.token, session.token))).toBe('ok');

    await expect(admin.revokeSessions(portal.clientId, { sessionId: session.sessionId }, CLI_SOURCE)).resolves.toBe(1);
    expect(await codeOf(authenticator.authenticate(portal.token, session.token))).toBe('invalid_session');

    const second = await store.createSession({
      clientToken: portal.token,
      accountId: 2,
      role: 'user',
      ttlSeconds: 600,
    });
    await admin.setClientEnabled(portal.clientId, false, CLI_SOURCE);
    expect(await codeOf(authenticator.authenticate(portal.token, second.token))).toBe('invalid_client');
    await expect(
      store.createSession({ clientToken: portal.token, accountId: 2, role: 'user', ttlSeconds: 60 }),
    ).rejects.toThrow(UnknownClientError);
    await expect(admin.setClientEnabled('never-issued', false, CLI_SOURCE)).rejects.toThrow(ClientNotFoundError);
  });

  it('answers invalid_session for a session of another client', async () => {
    const first = await store.createClient({ name: 'First', grants: ['search'], sessionRoles: ['user', 'operator'] });
    const second = await store.createClient({ name: 'Second', grants: ['search'], sessionRoles: ['user', 'operator'] });
    const session = await store.createSession({
      clientToken: first.token,
      accountId: 3,
      role: 'user',
      ttlSeconds: 600,
    });
    const authenticator = new Authenticator({ lookup: store, cacheTtlMs: 0 });
    expect(await codeOf(authenticator.authenticate(second.token, session.token))).toBe('invalid_session');
  });

  it('answers invalid_session once a session has expired, though TTL has not deleted it yet', async () => {
    const portal = await store.createClient({
      name: 'Clocked',
      grants: ['search'],
      sessionRoles: ['user', 'operator'],
    });
    const session = await store.createSession({
      clientToken: portal.token,
      accountId: 5,
      role: 'user',
      ttlSeconds: 60,
    });
    let now = Date.now();
    const authenticator = new Authenticator({ lookup: store, cacheTtlMs: 60_000, now: () => now });
    expect(await codeOf(authenticator.authenticate(portal.token, session.token))).toBe('ok');
    now = Date.parse(session.expiresAt);
    expect(await codeOf(authenticator.authenticate(portal.token, session.token))).toBe('invalid_session');
    await expect(store.getSession(hashToken(session.token))).resolves.toMatchObject({ sessionId: session.sessionId });
  });

  it('keeps honouring a cached session until the cache entry ages out after a revocation', async () => {
    const portal = await store.createClient({ name: 'Cached', grants: ['search'], sessionRoles: ['user', 'operator'] });
    const session = await store.createSession({
      clientToken: portal.token,
      accountId: 6,
      role: 'user',
      ttlSeconds: 3600,
    });
    let now = Date.now();
    const authenticator = new Authenticator({ lookup: store, cacheTtlMs: 60_000, now: () => now });
    expect(await codeOf(authenticator.authenticate(portal.token, session.token))).toBe('ok');
    await admin.revokeSessions(portal.clientId, { sessionId: session.sessionId }, CLI_SOURCE);
    now += 59_000;
    expect(await codeOf(authenticator.authenticate(portal.token, session.token))).toBe('ok');
    now += 1_000;
    expect(await codeOf(authenticator.authenticate(portal.token, session.token))).toBe('invalid_session');
  });
});

describe('a client stored before clients had accounts and kept their secrets', () => {
  it('keeps every account, shows "*" in list-clients, and rotates and revokes its secrets from their items', async () => {
    const documents = client();
    const token = generateToken();
    const secret = generateSecret();
    const clientId = `legacy-${hashToken(token).slice(0, 8)}`;
    const createdAt = '2025-01-01T00:00:00.000Z';
    await documents.send(
      new PutCommand({
        TableName: tables.authTable,
        Item: {
          pk: authKeys.client(hashToken(token)),
          type: 'client',
          clientId,
          clientEntry: byClientEntries.client,
          name: 'Legacy',
          grants: ['search', 'sessions'],
          enabled: true,
          createdAt,
        },
      }),
    );
    await documents.send(
      new PutCommand({
        TableName: tables.authTable,
        Item: {
          pk: authKeys.secret(hashToken(secret)),
          type: 'secret',
          secretId: 'legacy-secret',
          clientId,
          clientEntry: byClientEntries.secret('legacy-secret'),
          createdAt,
        },
      }),
    );
    const authenticator = new Authenticator({ lookup: store, cacheTtlMs: 0 });
    expect(await codeOf(authenticator.authenticateClient(token, secret))).toBe('ok');
    await expect(
      store.createSession({ clientToken: token, accountId: 987_654, role: 'user' }, CLI_SOURCE),
    ).resolves.toMatchObject({ token: expect.any(String) });
    const listed = (await admin.listClients()).find((one) => one.clientId === clientId);
    expect(listed).toMatchObject({
      accounts: '*',
      secrets: [{ secretId: 'legacy-secret', createdAt, expiresAt: null }],
    });
    const rotated = await admin.rotateSecret(clientId, 0, CLI_SOURCE);
    expect(await codeOf(authenticator.authenticateClient(token, secret))).toBe('invalid_client');
    expect(await codeOf(authenticator.authenticateClient(token, rotated.secret))).toBe('ok');
    await admin.revokeSecret(clientId, rotated.secretId, CLI_SOURCE);
    expect(await codeOf(authenticator.authenticateClient(token, rotated.secret))).toBe('invalid_client');
  });
});

/**
 * The `byClient` index lags its table (DynamoDB propagates a global secondary index asynchronously), but
 * DynamoDB Local's index is immediate. Here the operators' commands run over a document client that hides,
 * from every index query, the items written after a mark — the index as it is a moment after those writes —
 * and none of rotate, revoke-secret, disable-client or revoke-session --all may miss a secret or session
 * written just before it. The secrets and sessions are then judged by the authenticator, as every request is.
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuthAdministration } from '../../functions/auth/administration';
import type { AuditRecord, AuditSource } from '../../functions/auth/audit';
import { Authenticator } from '../../functions/auth/authenticate';
import { SecretNotFoundError } from '../../functions/auth/errors';
import { AuthStore, type CreatedClient } from '../../functions/auth/store';
import { createDocumentClient } from '../../functions/aws/dynamodb';
import { ApiError } from '../../functions/http/errors';
import { createTestTables, type TestTables } from '../support/dynamo';

const OPERATOR: AuditSource = { via: 'cli', who: 'os-user:test' };
const API: AuditSource = { via: 'api', requestId: 'r', who: '192.0.2.1' };
const BUDGET_MS = 9_000;

let tables: TestTables;
let documents: DynamoDBDocumentClient;
let store: AuthStore;
let authenticator: Authenticator;

/**
 * A document client whose index queries leave out every item created at or after `mark` (ISO): the index
 * has not caught up with them yet. Reads and writes of the table itself are untouched.
 */
const laggingIndex = (inner: DynamoDBDocumentClient, mark: string): DynamoDBDocumentClient =>
  new Proxy(inner, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver) as unknown;
      return async (command: unknown, options?: unknown) => {
        const output = await (target.send as (c: unknown, o?: unknown) => Promise<Record<string, unknown>>)(
          command,
          options,
        );
        if (!(command instanceof QueryCommand) || command.input.IndexName === undefined) return output;
        const items = (output.Items ?? []) as Record<string, unknown>[];
        const visible = items.filter((item) => String(item.createdAt) < mark);
        return { ...output, Items: visible, Count: visible.length };
      };
    },
  });

/** The keys an auth-table write command touches. */
const writtenKeys = (command: unknown): unknown[] => {
  if (command instanceof PutCommand) return [command.input.Item?.pk];
  if (command instanceof UpdateCommand || command instanceof DeleteCommand) return [command.input.Key?.pk];
  if (command instanceof TransactWriteCommand) {
    return (command.input.TransactItems ?? []).map(
      (item) => item.Put?.Item?.pk ?? item.Update?.Key?.pk ?? item.Delete?.Key?.pk ?? item.ConditionCheck?.Key?.pk,
    );
  }
  return [];
};

/**
 * A document client whose index catches up `lagMs` after each write made through it: an index query leaves
 * out every item written (created or changed) less than `lagMs` ago, as DynamoDB's index shows it only once
 * propagated. Reads and writes of the table itself are untouched.
 */
const slowIndex = (inner: DynamoDBDocumentClient, lagMs: number): DynamoDBDocumentClient => {
  const writtenAt = new Map<unknown, number>();
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver) as unknown;
      return async (command: unknown, options?: unknown) => {
        const output = await (target.send as (c: unknown, o?: unknown) => Promise<Record<string, unknown>>)(
          command,
          options,
        );
        for (const key of writtenKeys(command)) writtenAt.set(key, Date.now());
        if (!(command instanceof QueryCommand) || command.input.IndexName === undefined) return output;
        const items = (output.Items ?? []) as Record<string, unknown>[];
        const visible = items.filter((item) => Date.now() - (writtenAt.get(item.pk) ?? 0) >= lagMs);
        return { ...output, Items: visible, Count: visible.length };
      };
    },
  });
};

/** Operators' commands over the lagging index, from this moment on. */
const lagFromNow = async (): Promise<AuthAdministration> => {
  const mark = new Date().toISOString();
  // Everything written from here on carries a createdAt at or after the mark.
  await new Promise((resolve) => setTimeout(resolve, 2));
  return new AuthAdministration(laggingIndex(documents, mark), tables.authTable, { timeoutMs: BUDGET_MS });
};

const codeOf = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
};

/** A session opened as `POST /sessions` opens it: by the client read with the secret it presented. */
const signIn = async (client: CreatedClient, secret: string): Promise<string> => {
  const signedIn = await authenticator.authenticateClient(client.token, secret);
  const session = await store.openSession(
    { client: signedIn, secretId: signedIn.secretId, accountId: 7, role: 'user' },
    API,
  );
  return session.token;
};

const newClient = (): Promise<CreatedClient> =>
  store.createClient({ name: 'Lagging', grants: ['search', 'sessions'], accounts: '*' }, OPERATOR);

beforeAll(async () => {
  tables = await createTestTables();
  documents = createDocumentClient({
    region: 'us-east-1',
    dynamodbEndpoint: tables.endpoint,
    dependencyTimeoutMs: BUDGET_MS,
  });
  store = new AuthStore(documents, tables.authTable, { timeoutMs: BUDGET_MS });
  authenticator = new Authenticator({ lookup: store, cacheTtlMs: 0 });
});

describe('operators’ commands over a lagging byClient index', () => {
  it('the stand-in index really lags: it does not show a session written after the mark', async () => {
    const client = await newClient();
    const admin = await lagFromNow();
    await signIn(client, client.secret);
    await expect(admin.listSessions(client.clientId)).resolves.toEqual([]);
    await expect(
      new AuthAdministration(documents, tables.authTable).listSessions(client.clientId),
    ).resolves.toHaveLength(1);
  });

  it('rotate-secret ends a secret issued just before it', async () => {
    const client = await newClient();
    const admin = await lagFromNow();
    const second = await admin.rotateSecret(client.clientId, 3600, OPERATOR);
    const third = await admin.rotateSecret(client.clientId, 0, OPERATOR);
    expect(await codeOf(authenticator.authenticateClient(client.token, client.secret))).toBe('invalid_client');
    expect(await codeOf(authenticator.authenticateClient(client.token, second.secret))).toBe('invalid_client');
    expect(await codeOf(authenticator.authenticateClient(client.token, third.secret))).toBe('ok');
  });

  it('revoke-secret finds a secret issued just before it and ends the sessions it opened just before', async () => {
    const client = await newClient();
    const admin = await lagFromNow();
    const issued = await admin.rotateSecret(client.clientId, 3600, OPERATOR);
    const opened = await signIn(client, issued.secret);
    const other = await signIn(client, client.secret);
    await admin.revokeSecret(client.clientId, issued.secretId, OPERATOR);
    expect(await codeOf(authenticator.authenticateClient(client.token, issued.secret))).toBe('invalid_client');
    expect(await codeOf(authenticator.authenticate(client.token, opened))).toBe('invalid_session');
    expect(await codeOf(authenticator.authenticate(client.token, other))).toBe('ok');
  });

  it('disable-client ends a session opened just before it, and enable-client does not bring it back', async () => {
    const client = await newClient();
    const admin = await lagFromNow();
    const opened = await signIn(client, client.secret);
    const byCli = await store.createSession({ clientToken: client.token, accountId: 7, role: 'user' }, OPERATOR);
    await admin.setClientEnabled(client.clientId, false, OPERATOR);
    await admin.setClientEnabled(client.clientId, true, OPERATOR);
    expect(await codeOf(authenticator.authenticate(client.token, opened))).toBe('invalid_session');
    expect(await codeOf(authenticator.authenticate(client.token, byCli.token))).toBe('invalid_session');
    expect(await codeOf(authenticator.authenticate(client.token, await signIn(client, client.secret)))).toBe('ok');
  });

  it('revoke-session --all ends a session opened just before it', async () => {
    const client = await newClient();
    const admin = await lagFromNow();
    const opened = await signIn(client, client.secret);
    await admin.revokeSessions(client.clientId, { all: true }, OPERATOR);
    expect(await codeOf(authenticator.authenticate(client.token, opened))).toBe('invalid_session');
    await expect(admin.listSessions(client.clientId)).resolves.toEqual([]);
  });

  it('revoke-secret ends the sessions of a secret a later rotation dropped after its overlap', async () => {
    const client = await newClient();
    const admin = await lagFromNow();
    const opened = await signIn(client, client.secret);
    // The first secret ends now; the next rotation drops it from the client item.
    await admin.rotateSecret(client.clientId, 0, OPERATOR);
    const kept = await admin.rotateSecret(client.clientId, 3600, OPERATOR);
    expect(await codeOf(authenticator.authenticate(client.token, opened))).toBe('ok');
    await admin.revokeSecret(client.clientId, client.secretId, OPERATOR);
    expect(await codeOf(authenticator.authenticate(client.token, opened))).toBe('invalid_session');
    expect(await codeOf(authenticator.authenticateClient(client.token, kept.secret))).toBe('ok');
  });

  it('revoke-secret of a secret already revoked ends the sessions it opened that are still found, and says how many', async () => {
    const client = await newClient();
    const opened = await signIn(client, client.secret);
    const admin = new AuthAdministration(documents, tables.authTable, { timeoutMs: BUDGET_MS });
    await expect(admin.revokeSecret(client.clientId, client.secretId, OPERATOR)).resolves.toBe(1);
    await expect(admin.revokeSecret(client.clientId, client.secretId, OPERATOR)).resolves.toBe(0);
    expect(await codeOf(authenticator.authenticate(client.token, opened))).toBe('invalid_session');
  });

  it('revoke-secret of an id the client never had is SecretNotFoundError and changes nothing', async () => {
    const client = await newClient();
    const opened = await signIn(client, client.secret);
    const admin = await lagFromNow();
    const { pk } = await admin.findClient(client.clientId);
    const before = await documents.send(
      new GetCommand({ TableName: tables.authTable, Key: { pk }, ConsistentRead: true }),
    );
    await expect(admin.revokeSecret(client.clientId, 'no-such-secret', OPERATOR)).rejects.toBeInstanceOf(
      SecretNotFoundError,
    );
    const after = await documents.send(
      new GetCommand({ TableName: tables.authTable, Key: { pk }, ConsistentRead: true }),
    );
    expect(after.Item).toEqual(before.Item);
    expect(await codeOf(authenticator.authenticate(client.token, opened))).toBe('ok');
  });

  describe('an index that catches up a moment later', () => {
    const LAG_MS = 600;
    let records: AuditRecord[];
    let slow: DynamoDBDocumentClient;

    beforeAll(() => {
      slow = slowIndex(documents, LAG_MS);
    });

    const admin = (): AuthAdministration =>
      new AuthAdministration(slow, tables.authTable, {
        timeoutMs: BUDGET_MS,
        audit: (record) => {
          records.push(record);
          return Promise.resolve();
        },
      });

    /** A session opened through the slow index's client, so the index shows it only `LAG_MS` later. */
    const openSlowly = async (client: CreatedClient) => {
      const signedIn = await authenticator.authenticateClient(client.token, client.secret);
      return new AuthStore(slow, tables.authTable, { timeoutMs: BUDGET_MS }).openSession(
        { client: signedIn, secretId: signedIn.secretId, accountId: 7, role: 'user' },
        API,
      );
    };

    it('the stand-in index shows a session only once it caught up', async () => {
      const client = await newClient();
      const opened = await openSlowly(client);
      await expect(admin().listSessions(client.clientId)).resolves.toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, LAG_MS));
      await expect(admin().listSessions(client.clientId)).resolves.toEqual([
        expect.objectContaining({ sessionId: opened.sessionId }),
      ]);
    });

    it('revoke-session --all records every session it ends, one the index had not shown yet included, and one record of its own with the count', async () => {
      records = [];
      const client = await newClient();
      const opened = await openSlowly(client);
      await expect(admin().revokeSessions(client.clientId, { all: true }, OPERATOR)).resolves.toBe(1);
      expect(records.filter((record) => record.action === 'session.revoked')).toEqual([
        expect.objectContaining({ clientId: client.clientId, sessionId: opened.sessionId, cause: 'all' }),
        expect.objectContaining({ clientId: client.clientId, cause: 'all', count: 1 }),
      ]);
      expect(records.at(-1)?.sessionId).toBeUndefined();
      expect(await codeOf(authenticator.authenticate(client.token, opened.token))).toBe('invalid_session');
      await expect(new AuthAdministration(documents, tables.authTable).listSessions(client.clientId)).resolves.toEqual(
        [],
      );
    });

    it('disable-client records the ending of a session the index had not shown yet', async () => {
      records = [];
      const client = await newClient();
      const opened = await openSlowly(client);
      await admin().setClientEnabled(client.clientId, false, OPERATOR);
      expect(records.filter((record) => record.action === 'session.revoked')).toEqual([
        expect.objectContaining({ sessionId: opened.sessionId, cause: 'client.disabled' }),
      ]);
    });

    it('revoke-secret records the ending of a session its secret opened that the index had not shown yet', async () => {
      records = [];
      const client = await newClient();
      const opened = await openSlowly(client);
      await expect(admin().revokeSecret(client.clientId, client.secretId, OPERATOR)).resolves.toBe(1);
      expect(records.filter((record) => record.action === 'session.revoked')).toEqual([
        expect.objectContaining({ sessionId: opened.sessionId, cause: 'secret' }),
      ]);
    });
  });
});

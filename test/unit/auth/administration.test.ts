/**
 * What operators do to clients, secrets and sessions (AuthAdministration), on a mocked document client: the
 * requests each command sends (index queries, consistent reads, conditions, transactions) and what it makes of
 * the answers — the items the lagging index shows, expired and already-ended sessions, conditions that fail
 * because another command got there first. The same commands run on DynamoDB Local in
 * test/integration/auth-store.test.ts and test/integration/auth-lagging-index.test.ts.
 */
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AuthAdministration,
  BY_CLIENT_INDEX,
  ClientNotFoundError,
  DEFAULT_SECRET_OVERLAP_SECONDS,
  SecretNotFoundError,
} from '../../../functions/auth/administration';
import type { AuditRecord, AuditSource } from '../../../functions/auth/audit';
import { unreachableDocumentClient } from '../../support/mocked-dynamo';

const ddb = mockClient(DynamoDBDocumentClient);
const documentClient = unreachableDocumentClient();
const NOW = new Date('2025-03-01T12:00:00.000Z');
const HOUR_MS = 3_600_000;
const at = (offsetMs: number): string => new Date(NOW.getTime() + offsetMs).toISOString();
const SOURCE: AuditSource = { via: 'cli', who: 'os-user:operator' };
const CLIENT_PK = 'CLIENT#hash-of-token';

const clientItem = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  pk: CLIENT_PK,
  type: 'client',
  clientId: 'c1',
  name: 'Portal',
  grants: ['search'],
  enabled: true,
  createdAt: at(-HOUR_MS),
  secrets: {},
  sessionGeneration: 0,
  ...fields,
});

const sessionItem = (sessionId: string, fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  pk: `SESSION#hash-${sessionId}`,
  type: 'session',
  sessionId,
  clientId: 'c1',
  clientEntry: `SESSION#u1#${sessionId}`,
  accountId: 7,
  userId: 'u1',
  role: 'user',
  createdAt: at(-HOUR_MS),
  expiresAt: at(HOUR_MS),
  generation: 0,
  ...fields,
});

/** What the `byClient` index shows for an entry or prefix: a function of the query's values. */
type IndexView = (entry: string, exact: boolean) => Record<string, unknown>[];

/** Answers the index queries from `view` and the client item's consistent read with `client`. */
const tableOf = (client: Record<string, unknown> | undefined, view: IndexView = () => []): void => {
  ddb.on(QueryCommand).callsFake((input: QueryCommandInput) => {
    const entry = String(input.ExpressionAttributeValues?.[':entry']);
    const exact = !String(input.KeyConditionExpression).includes('begins_with');
    if (exact && entry === 'CLIENT') return { Items: client === undefined ? [] : [{ pk: client.pk }] };
    return { Items: view(entry, exact) };
  });
  ddb.on(GetCommand).resolves(client === undefined ? {} : { Item: client });
  ddb.on(UpdateCommand).resolves({});
  ddb.on(DeleteCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
};

/** The sessions the index shows under a prefix (every one of the client, or one user's). */
const sessionsView =
  (sessions: Record<string, unknown>[]): IndexView =>
  (entry) =>
    entry.startsWith('SESSION#') ? sessions.filter((item) => String(item.clientEntry).startsWith(entry)) : [];

const conditionFailure = (): Error =>
  Object.assign(new Error('The conditional request failed'), {
    name: 'ConditionalCheckFailedException',
  });

let records: AuditRecord[];
const administration = (options: { timeoutMs?: number } = {}) =>
  new AuthAdministration(documentClient, 'auth', {
    now: () => NOW,
    // The index here is a view of fixed items: a command looks once whether it shows its write, and goes on.
    indexCatchUpMs: 0,
    audit: (record) => {
      records.push(record);
      return Promise.resolve();
    },
    ...options,
  });

const deletedKeys = (): unknown[] => ddb.commandCalls(DeleteCommand).map((call) => call.args[0].input.Key?.pk);
const updates = () => ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);

beforeEach(() => {
  ddb.reset();
  records = [];
});

describe('AuthAdministration: finding a client', () => {
  it('finds the key through the byClient index by exact entry, then reads the client item consistently', async () => {
    tableOf(clientItem());
    const found = await administration().findClient('c1');
    expect(found.pk).toBe(CLIENT_PK);
    expect(found.client).toMatchObject({ clientId: 'c1', name: 'Portal', enabled: true });
    const [query] = ddb.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(query).toMatchObject({
      TableName: 'auth',
      IndexName: BY_CLIENT_INDEX,
      KeyConditionExpression: 'clientId = :clientId AND clientEntry = :entry',
      ExpressionAttributeValues: { ':clientId': 'c1', ':entry': 'CLIENT' },
    });
    expect(ddb.commandCalls(GetCommand).map((call) => call.args[0].input)).toEqual([
      { TableName: 'auth', Key: { pk: CLIENT_PK }, ConsistentRead: true },
    ]);
  });

  it('is ClientNotFoundError when the index has no client entry, and reads nothing more', async () => {
    tableOf(undefined);
    await expect(administration().findClient('c9')).rejects.toBeInstanceOf(ClientNotFoundError);
    // The words the CLI prints.
    await expect(administration().findClient('c9')).rejects.toMatchObject({
      name: 'ClientNotFoundError',
      message: 'No client has the id c9',
    });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('is ClientNotFoundError when the key the index gave no longer holds that client', async () => {
    for (const item of [undefined, clientItem({ clientId: 'c2' }), clientItem({ type: 'session' })]) {
      ddb.reset();
      ddb.on(QueryCommand).resolves({ Items: [{ pk: CLIENT_PK }] });
      ddb.on(GetCommand).resolves(item === undefined ? {} : { Item: item });
      await expect(administration().findClient('c1')).rejects.toThrow(ClientNotFoundError);
    }
  });

  it('gives each request a time budget when one is set, and none otherwise', async () => {
    tableOf(clientItem());
    await administration({ timeoutMs: 500 }).findClient('c1');
    const [bounded] = ddb.commandCalls(GetCommand);
    expect(
      ((bounded?.args as unknown[] | undefined)?.[1] as { abortSignal?: unknown } | undefined)?.abortSignal,
    ).toBeInstanceOf(AbortSignal);
    ddb.resetHistory();
    await administration().findClient('c1');
    const [unbounded] = ddb.commandCalls(GetCommand);
    expect(
      ((unbounded?.args as unknown[] | undefined)?.[1] as { abortSignal?: unknown } | undefined)?.abortSignal,
    ).toBeUndefined();
  });
});

describe('AuthAdministration: enabling and disabling a client', () => {
  it('enables with one conditional update and one audit record, ending no session', async () => {
    tableOf(clientItem({ enabled: false }), sessionsView([sessionItem('s1')]));
    await administration().setClientEnabled('c1', true, SOURCE);
    expect(updates()).toEqual([
      {
        TableName: 'auth',
        Key: { pk: CLIENT_PK },
        UpdateExpression: 'SET enabled = :enabled',
        ConditionExpression: 'clientId = :clientId',
        ExpressionAttributeValues: { ':clientId': 'c1', ':enabled': true },
      },
    ]);
    expect(deletedKeys()).toEqual([]);
    expect(records).toEqual([{ at: NOW.toISOString(), action: 'client.enabled', clientId: 'c1', ...SOURCE }]);
  });

  it('disables by moving the session generation on, then deletes the live sessions the index shows', async () => {
    const live = sessionItem('s1');
    const expired = sessionItem('s2', { expiresAt: at(-1) });
    const notASession = { pk: 'SECRET#x', type: 'secret', clientEntry: 'SESSION#u1#odd' };
    tableOf(clientItem(), sessionsView([live, expired, notASession]));
    await administration().setClientEnabled('c1', false, SOURCE);
    expect(updates()).toEqual([
      expect.objectContaining({
        UpdateExpression: 'SET enabled = :enabled ADD sessionGeneration :one',
        ConditionExpression: 'clientId = :clientId',
        ExpressionAttributeValues: { ':clientId': 'c1', ':enabled': false, ':one': 1 },
      }),
    ]);
    expect(ddb.commandCalls(DeleteCommand).map((call) => call.args[0].input)).toEqual([
      {
        TableName: 'auth',
        Key: { pk: live.pk },
        ConditionExpression: 'clientId = :clientId',
        ExpressionAttributeValues: { ':clientId': 'c1' },
      },
    ]);
    expect(records.map((record) => record.action)).toEqual(['client.disabled', 'session.revoked']);
    expect(records[1]).toEqual({
      at: NOW.toISOString(),
      action: 'session.revoked',
      clientId: 'c1',
      sessionId: 's1',
      userId: 'u1',
      accountId: 7,
      role: 'user',
      expiresAt: live.expiresAt,
      cause: 'client.disabled',
      ...SOURCE,
    });
  });

  it('reads every page of the index, passing each page’s last key on', async () => {
    tableOf(clientItem());
    const pages = [{ Items: [sessionItem('s1')], LastEvaluatedKey: { pk: 'page-1' } }, { Items: [sessionItem('s2')] }];
    ddb
      .on(QueryCommand, { ExpressionAttributeValues: { ':clientId': 'c1', ':entry': 'SESSION#' } })
      .callsFake((input: QueryCommandInput) => (input.ExclusiveStartKey === undefined ? pages[0] : pages[1]));
    expect(await administration().listSessions('c1')).toHaveLength(2);
    const starts = ddb
      .commandCalls(QueryCommand)
      .map((call) => call.args[0].input)
      .filter((input) => input.ExpressionAttributeValues?.[':entry'] === 'SESSION#')
      .map((input) => input.ExclusiveStartKey);
    expect(starts).toEqual([undefined, { pk: 'page-1' }]);
  });
});

describe('AuthAdministration: rotating and revoking secrets', () => {
  const entry = (key: string, expiresAt?: string) => ({
    key,
    createdAt: at(-HOUR_MS),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  });

  it('issues a secret and gives every other working secret the overlap as its end, in one conditional transaction', async () => {
    const secrets = {
      open: entry('SECRET#open'),
      later: entry('SECRET#later', at(48 * HOUR_MS)),
      sooner: entry('SECRET#sooner', at(HOUR_MS)),
      gone: entry('SECRET#gone', at(-1)),
    };
    tableOf(clientItem({ secrets }));
    const overlapSeconds = 24 * 3_600;
    const issued = await administration().rotateSecret('c1', overlapSeconds, SOURCE);
    const end = at(overlapSeconds * 1_000);

    const [transaction] = ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems);
    expect(transaction).toHaveLength(2);
    const put = transaction?.[0]?.Put;
    expect(put?.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put?.Item).toMatchObject({ type: 'secret', clientId: 'c1', secretId: issued.secretId });
    const update = transaction?.[1]?.Update;
    expect(update).toMatchObject({
      Key: { pk: CLIENT_PK },
      UpdateExpression: 'SET secrets = :secrets ADD retiredSecretIds :dropped',
      ConditionExpression: 'clientId = :clientId AND secrets = :previous',
    });
    expect(update?.ExpressionAttributeValues?.[':previous']).toEqual(secrets);
    // The ended secret leaves the list of secrets, and is kept among the retired ones (revoke-secret knows it).
    expect(update?.ExpressionAttributeValues?.[':dropped']).toEqual(new Set(['gone']));
    expect(update?.ExpressionAttributeValues?.[':secrets']).toEqual({
      open: { ...secrets.open, expiresAt: end },
      later: { ...secrets.later, expiresAt: end },
      sooner: secrets.sooner,
      [issued.secretId]: { key: put?.Item?.pk, createdAt: NOW.toISOString() },
    });

    // Each secret given an end has it on its own item too, for TTL; an expired or sooner-ending one is left alone.
    expect(updates()).toEqual(
      ['SECRET#open', 'SECRET#later'].map((pk) => ({
        TableName: 'auth',
        Key: { pk },
        UpdateExpression: 'SET expiresAt = :expiresAt, #ttl = :ttl',
        ConditionExpression: 'clientId = :clientId',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':clientId': 'c1',
          ':expiresAt': end,
          ':ttl': Math.ceil(Date.parse(end) / 1_000),
        },
      })),
    );
    expect(records.map(({ action, secretId, expiresAt }) => ({ action, secretId, expiresAt }))).toEqual([
      { action: 'secret.issued', secretId: issued.secretId, expiresAt: undefined },
      { action: 'secret.revoked', secretId: 'open', expiresAt: end },
      { action: 'secret.revoked', secretId: 'later', expiresAt: end },
    ]);
  });

  it('gives the other working secrets 24 hours by default, the overlap the CLI passes when given none', async () => {
    tableOf(clientItem({ secrets: { open: entry('SECRET#open') } }));
    await administration().rotateSecret('c1', DEFAULT_SECRET_OVERLAP_SECONDS, SOURCE);
    expect(updates().map((update) => update.ExpressionAttributeValues?.[':expiresAt'])).toEqual([at(24 * HOUR_MS)]);
  });

  it('leaves a secret that ends exactly when the overlap would alone: no update, no audit record', async () => {
    const overlapSeconds = 3_600;
    tableOf(clientItem({ secrets: { exact: entry('SECRET#exact', at(overlapSeconds * 1_000)) } }));
    await administration().rotateSecret('c1', overlapSeconds, SOURCE);
    expect(updates()).toEqual([]);
    expect(records.map((record) => record.action)).toEqual(['secret.issued']);
  });

  it('rounds the TTL of an ending secret up to the next whole second', async () => {
    tableOf(clientItem({ secrets: { open: entry('SECRET#open') } }));
    await administration().rotateSecret('c1', 0.5, SOURCE);
    expect(updates()[0]?.ExpressionAttributeValues?.[':ttl']).toBe(Math.ceil((NOW.getTime() + 500) / 1_000));
  });

  it('still finishes a rotation when an ending secret’s item has gone (its condition fails), but not on other errors', async () => {
    tableOf(clientItem({ secrets: { open: entry('SECRET#open') } }));
    ddb.on(UpdateCommand).rejects(conditionFailure());
    await expect(administration().rotateSecret('c1', 60, SOURCE)).resolves.toMatchObject({
      secret: expect.stringMatching(/^jsk_/),
    });
    expect(records.map((record) => record.action)).toEqual(['secret.issued', 'secret.revoked']);

    ddb.on(UpdateCommand).rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    await expect(administration().rotateSecret('c1', 60, SOURCE)).rejects.toThrow('throttled');
  });

  it('rotates a client stored before clients kept their secrets: reads them from the index, writes the list once', async () => {
    const legacy = clientItem({ secrets: undefined, revokedSecretIds: new Set(['revoked']) });
    tableOf(legacy, (prefix) =>
      prefix === 'SECRET#'
        ? [
            { pk: 'SECRET#a', type: 'secret', secretId: 'a', clientId: 'c1', createdAt: at(-HOUR_MS) },
            { pk: 'SECRET#revoked', type: 'secret', secretId: 'revoked', clientId: 'c1', createdAt: at(-HOUR_MS) },
            { pk: 'SESSION#x', type: 'session', clientEntry: 'SECRET#odd' },
          ]
        : [],
    );
    const issued = await administration().rotateSecret('c1', 60, SOURCE);
    const [transaction] = ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems);
    const update = transaction?.[1]?.Update;
    expect(update?.ConditionExpression).toBe('clientId = :clientId AND attribute_not_exists(secrets)');
    expect(update?.ExpressionAttributeValues).not.toHaveProperty(':previous');
    expect(Object.keys(update?.ExpressionAttributeValues?.[':secrets'] as object).sort()).toEqual(
      ['a', issued.secretId].sort(),
    );
  });

  it('reads a legacy client’s secrets from their items, keeping each one’s key and end', async () => {
    tableOf(clientItem({ secrets: undefined }), (prefix) =>
      prefix === 'SECRET#'
        ? [
            {
              pk: 'SECRET#a',
              type: 'secret',
              secretId: 'a',
              clientId: 'c1',
              createdAt: at(-HOUR_MS),
              expiresAt: at(HOUR_MS),
            },
          ]
        : [],
    );
    const admin = administration();
    expect(await admin.secretsOf(await admin.findClient('c1'))).toEqual({
      a: { key: 'SECRET#a', createdAt: at(-HOUR_MS), expiresAt: at(HOUR_MS) },
    });
  });

  it('revokes a secret: removed from the client item and recorded as revoked in the transaction that deletes it', async () => {
    const fromA = sessionItem('s1', { secretId: 'a' });
    const fromB = sessionItem('s2', { secretId: 'b' });
    tableOf(clientItem({ secrets: { a: entry('SECRET#a'), b: entry('SECRET#b') } }), sessionsView([fromA, fromB]));
    await administration().revokeSecret('c1', 'a', SOURCE);
    const [transaction] = ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems);
    expect(transaction).toEqual([
      {
        Update: {
          TableName: 'auth',
          Key: { pk: CLIENT_PK },
          UpdateExpression: 'REMOVE secrets.#secretId ADD revokedSecretIds :ids',
          ConditionExpression: 'clientId = :clientId AND attribute_exists(secrets.#secretId)',
          ExpressionAttributeNames: { '#secretId': 'a' },
          ExpressionAttributeValues: { ':clientId': 'c1', ':ids': new Set(['a']) },
        },
      },
      { Delete: { TableName: 'auth', Key: { pk: 'SECRET#a' } } },
    ]);
    // Only the sessions the revoked secret opened end with it.
    expect(deletedKeys()).toEqual([fromA.pk]);
    expect(records.map(({ action, cause }) => ({ action, cause }))).toEqual([
      { action: 'secret.revoked', cause: undefined },
      { action: 'session.revoked', cause: 'secret' },
    ]);
  });

  it('revokes a legacy client’s secret by adding it to the revoked ids alone', async () => {
    tableOf(clientItem({ secrets: undefined }), (prefix) =>
      prefix === 'SECRET#'
        ? [{ pk: 'SECRET#a', type: 'secret', secretId: 'a', clientId: 'c1', createdAt: at(-HOUR_MS) }]
        : [],
    );
    await administration().revokeSecret('c1', 'a', SOURCE);
    const [transaction] = ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems);
    expect(transaction?.[0]?.Update).toEqual({
      TableName: 'auth',
      Key: { pk: CLIENT_PK },
      UpdateExpression: 'ADD revokedSecretIds :ids',
      ConditionExpression: 'clientId = :clientId',
      ExpressionAttributeValues: { ':clientId': 'c1', ':ids': new Set(['a']) },
    });
  });

  it('is SecretNotFoundError for a secret the client never had, and writes nothing', async () => {
    tableOf(clientItem({ secrets: { a: entry('SECRET#a') }, retiredSecretIds: new Set(['old']) }));
    await expect(administration().revokeSecret('c1', 'zzz', SOURCE)).rejects.toBeInstanceOf(SecretNotFoundError);
    await expect(administration().revokeSecret('c1', 'zzz', SOURCE)).rejects.toMatchObject({
      name: 'SecretNotFoundError',
      message: 'The client has never had a secret with the id zzz',
    });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(updates()).toEqual([]);
    expect(deletedKeys()).toEqual([]);
    expect(records).toEqual([]);
  });

  it.each([
    ['a rotation dropped after its overlap', { retiredSecretIds: new Set(['old']) }],
    ['was revoked before', { revokedSecretIds: new Set(['old']) }],
  ])(
    'revokes a secret the client item no longer lists because %s, and ends the sessions it opened',
    async (_why, fields) => {
      const fromOld = sessionItem('s1', { secretId: 'old' });
      const fromA = sessionItem('s2', { secretId: 'a' });
      tableOf(clientItem({ secrets: { a: entry('SECRET#a') }, ...fields }), sessionsView([fromOld, fromA]));
      await expect(administration().revokeSecret('c1', 'old', SOURCE)).resolves.toBe(1);
      expect(updates()).toEqual([
        {
          TableName: 'auth',
          Key: { pk: CLIENT_PK },
          UpdateExpression: 'ADD revokedSecretIds :ids',
          ConditionExpression: 'clientId = :clientId',
          ExpressionAttributeValues: { ':clientId': 'c1', ':ids': new Set(['old']) },
        },
      ]);
      expect(deletedKeys()).toEqual([fromOld.pk]);
      expect(records.map(({ action, secretId, sessionId }) => ({ action, secretId, sessionId }))).toEqual([
        { action: 'secret.revoked', secretId: 'old', sessionId: undefined },
        { action: 'session.revoked', secretId: undefined, sessionId: 's1' },
      ]);
    },
  );

  it('knows a secret dropped before the client item kept ended ones by a session it opened', async () => {
    const fromOld = sessionItem('s1', { secretId: 'older' });
    tableOf(clientItem({ secrets: { a: entry('SECRET#a') } }), sessionsView([fromOld]));
    await expect(administration().revokeSecret('c1', 'older', SOURCE)).resolves.toBe(1);
    expect(deletedKeys()).toEqual([fromOld.pk]);
  });
});

describe('AuthAdministration: listing and revoking sessions', () => {
  const sessions = [
    sessionItem('live'),
    sessionItem('expired', { expiresAt: at(-1) }),
    sessionItem('old-generation', { generation: 0 }),
    sessionItem('revoked-secret', { secretId: 'gone', generation: 2 }),
    sessionItem('other-user', { userId: 'u2', clientEntry: 'SESSION#u2#other-user', generation: 2 }),
  ];
  // The client's generation moved to 2 after `live` and `old-generation` were opened (both at 0) …
  const client = clientItem({ sessionGeneration: 2, revokedSecretIds: new Set(['gone']) });

  it('lists only live sessions the client has not ended (generation and revoked secret), never a token or hash', async () => {
    const current = sessions.map((item) => (item.sessionId === 'live' ? { ...item, generation: 2 } : item));
    tableOf(client, sessionsView(current));
    const listed = await administration().listSessions('c1');
    expect(listed.map((session) => session.sessionId)).toEqual(['live', 'other-user']);
    expect(JSON.stringify(listed)).not.toContain('hash-');
  });

  it('lists one user’s sessions through that user’s prefix', async () => {
    tableOf(clientItem(), sessionsView(sessions));
    const listed = await administration().listSessions('c1', 'u2');
    expect(listed.map((session) => session.sessionId)).toEqual(['other-user']);
    const prefixes = ddb
      .commandCalls(QueryCommand)
      .map((call) => call.args[0].input)
      .filter((input) => String(input.KeyConditionExpression).includes('begins_with'))
      .map((input) => input.ExpressionAttributeValues?.[':entry']);
    expect(prefixes).toEqual(['SESSION#u2#']);
  });

  it('revokes one session by id, counting it, with cause "session"', async () => {
    tableOf(clientItem(), sessionsView(sessions));
    expect(await administration().revokeSessions('c1', { sessionId: 'live' }, SOURCE)).toBe(1);
    expect(deletedKeys()).toEqual([sessions[0]?.pk]);
    expect(records.map(({ action, cause, sessionId }) => ({ action, cause, sessionId }))).toEqual([
      { action: 'session.revoked', cause: 'session', sessionId: 'live' },
    ]);
    expect(updates()).toEqual([]);
  });

  it('revokes a user’s live sessions the client has not ended already, with cause "user"', async () => {
    tableOf(client, sessionsView(sessions));
    expect(await administration().revokeSessions('c1', { userId: 'u1' }, SOURCE)).toBe(0);
    expect(deletedKeys()).toEqual([]);
    tableOf(clientItem(), sessionsView(sessions));
    expect(await administration().revokeSessions('c1', { userId: 'u1' }, SOURCE)).toBe(3);
    expect(deletedKeys()).toEqual(['live', 'old-generation', 'revoked-secret'].map((id) => `SESSION#hash-${id}`));
    expect(new Set(records.map((record) => record.cause))).toEqual(new Set(['user']));
  });

  it('revokes all: moves the generation on first, then deletes every live session the index shows', async () => {
    tableOf(client, sessionsView(sessions));
    expect(await administration().revokeSessions('c1', { all: true }, SOURCE)).toBe(4);
    expect(updates()).toEqual([
      {
        TableName: 'auth',
        Key: { pk: CLIENT_PK },
        UpdateExpression: 'ADD sessionGeneration :one',
        ConditionExpression: 'clientId = :clientId',
        ExpressionAttributeValues: { ':clientId': 'c1', ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      },
    ]);
    expect(deletedKeys()).not.toContain('SESSION#hash-expired');
    expect(new Set(records.map((record) => record.cause))).toEqual(new Set(['all']));
  });

  it('revokes all with one record of its own after the sessions’ own, carrying the count', async () => {
    tableOf(client, sessionsView(sessions));
    expect(await administration().revokeSessions('c1', { all: true }, SOURCE)).toBe(4);
    expect(records).toHaveLength(5);
    expect(records.slice(0, 4).every((record) => record.sessionId !== undefined)).toBe(true);
    expect(records[4]).toEqual({
      at: NOW.toISOString(),
      action: 'session.revoked',
      clientId: 'c1',
      cause: 'all',
      count: 4,
      ...SOURCE,
    });
  });

  it('revokes all: ends only the sessions opened before the generation it moved to, never one opened after', async () => {
    const before = sessionItem('before', { generation: 2 });
    const after = sessionItem('after', { generation: 3 });
    tableOf(clientItem({ sessionGeneration: 2 }), sessionsView([before, after]));
    ddb.on(UpdateCommand).resolves({ Attributes: { sessionGeneration: 3 } });
    expect(await administration().revokeSessions('c1', { all: true }, SOURCE)).toBe(1);
    expect(deletedKeys()).toEqual([before.pk]);
  });

  it('does not count a session whose delete finds it gone or moved to another client, and stops on other errors', async () => {
    tableOf(clientItem(), sessionsView([sessionItem('s1'), sessionItem('s2')]));
    ddb.on(DeleteCommand, { Key: { pk: 'SESSION#hash-s1' } }).rejects(conditionFailure());
    expect(await administration().revokeSessions('c1', { all: true }, SOURCE)).toBe(1);
    expect(records.map((record) => record.sessionId)).toEqual(['s2', undefined]);
    expect(records[1]).toMatchObject({ cause: 'all', count: 1 });

    ddb.on(DeleteCommand).rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    await expect(administration().revokeSessions('c1', { all: true }, SOURCE)).rejects.toThrow('throttled');
  });
});

describe('AuthAdministration: listing clients', () => {
  // The listing judges secrets against the clock itself, so these ends are relative to the real now.
  const fromNow = (offsetMs: number): string => new Date(Date.now() + offsetMs).toISOString();

  it('scans the table consistently for client items, page by page, oldest client first', async () => {
    const newer = clientItem({ pk: 'CLIENT#b', clientId: 'b', name: 'Newer', createdAt: '2025-02-01T00:00:00.000Z' });
    const older = clientItem({
      pk: 'CLIENT#a',
      clientId: 'a',
      name: 'Older',
      createdAt: '2025-01-01T00:00:00.000Z',
      accounts: [3, 4],
      maxSessionTtlSeconds: 600,
    });
    ddb
      .on(ScanCommand)
      .callsFake((input: ScanCommandInput) =>
        input.ExclusiveStartKey === undefined
          ? { Items: [newer, sessionItem('s1')], LastEvaluatedKey: { pk: 'CLIENT#b' } }
          : { Items: [older] },
      );
    const listed = await administration().listClients();
    expect(listed.map((client) => client.clientId)).toEqual(['a', 'b']);
    expect(listed[0]).toEqual({
      clientId: 'a',
      name: 'Older',
      enabled: true,
      grants: ['search'],
      sessionRoles: ['user'],
      accounts: [3, 4],
      maxSessionTtlSeconds: 600,
      createdAt: '2025-01-01T00:00:00.000Z',
      secrets: [],
    });
    expect(listed[1]).not.toHaveProperty('maxSessionTtlSeconds');
    expect(listed[1]?.accounts).toBe('*');
    const scans = ddb.commandCalls(ScanCommand).map((call) => call.args[0].input);
    expect(scans).toEqual(
      [undefined, { pk: 'CLIENT#b' }].map((ExclusiveStartKey) => ({
        TableName: 'auth',
        FilterExpression: '#type = :client',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':client': 'client' },
        ConsistentRead: true,
        ExclusiveStartKey,
      })),
    );
  });

  it("shows each client's live secrets, oldest first, by id and end only: never a key or hash", async () => {
    const secrets = {
      second: { key: 'SECRET#hash-2', createdAt: '2025-01-02T00:00:00.000Z', expiresAt: fromNow(HOUR_MS) },
      first: { key: 'SECRET#hash-1', createdAt: '2025-01-01T00:00:00.000Z' },
      ended: { key: 'SECRET#hash-3', createdAt: '2025-01-03T00:00:00.000Z', expiresAt: fromNow(-1_000) },
    };
    ddb.on(ScanCommand).resolves({ Items: [clientItem({ secrets })] });
    const [listed] = await administration().listClients();
    expect(listed?.secrets).toEqual([
      { secretId: 'first', createdAt: '2025-01-01T00:00:00.000Z', expiresAt: null },
      { secretId: 'second', createdAt: '2025-01-02T00:00:00.000Z', expiresAt: secrets.second.expiresAt },
    ]);
    expect(JSON.stringify(listed)).not.toMatch(/hash|CLIENT#|SECRET#/);
  });
});

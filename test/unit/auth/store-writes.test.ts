/**
 * What the auth store writes beyond a client's and a session's fixed fields, on a mocked DynamoDB: the optional
 * lifetime cap and the secret that opened a session, in the item and in its audit record, only when given; each
 * new item conditioned on its key being free; the consistency of each read; and ending a session that is gone or
 * belongs to another client.
 */
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AuditRecord, AuditSource } from '../../../functions/auth/audit';
import { AuthStore } from '../../../functions/auth/store';
import { unreachableDocumentClient } from '../../support/mocked-dynamo';
import { clientRecord } from '../../support/auth-records';

const ddb = mockClient(DynamoDBDocumentClient);
const NOW = new Date('2025-03-01T12:00:00.000Z');
const SOURCE: AuditSource = { via: 'cli', who: 'os-user:operator' };
const client = clientRecord({ createdAt: NOW.toISOString(), sessionGeneration: 3 });

let records: AuditRecord[];
const store = () =>
  new AuthStore(unreachableDocumentClient(), 'auth', {
    now: () => NOW,
    source: SOURCE,
    audit: (record) => {
      records.push(record);
      return Promise.resolve();
    },
  });

beforeEach(() => {
  ddb.reset();
  records = [];
});

describe('AuthStore: what a new client and session carry', () => {
  const clientPut = () => ddb.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems?.[0]?.Put;

  it('writes a lifetime cap on the client and in its audit record only when one is given', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await store().createClient({ name: 'Capped', grants: ['search'], maxSessionTtlSeconds: 600 });
    expect(clientPut()?.Item?.maxSessionTtlSeconds).toBe(600);
    expect(clientPut()?.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(records[0]).toMatchObject({ action: 'client.created', maxSessionTtlSeconds: 600, accounts: '*' });

    ddb.resetHistory();
    records = [];
    await store().createClient({ name: 'Open', grants: ['search'] });
    expect(clientPut()?.Item).not.toHaveProperty('maxSessionTtlSeconds');
    expect(clientPut()?.Item?.accounts).toBe('*');
    expect(records[0]).not.toHaveProperty('maxSessionTtlSeconds');
    expect(records.map((record) => record.action)).toEqual(['client.created', 'secret.issued']);
  });

  it('records the secret that opened a session on its item and in its audit record, and no secret when none did', async () => {
    ddb.on(PutCommand).resolves({});
    const opened = await store().openSession({ client, accountId: 7, role: 'user', secretId: 's-9' }, SOURCE);
    const [put] = ddb.commandCalls(PutCommand).map((call) => call.args[0].input);
    expect(put?.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put?.Item).toMatchObject({ secretId: 's-9', generation: 3, sessionId: opened.sessionId });
    expect(records).toEqual([
      {
        at: NOW.toISOString(),
        action: 'session.opened',
        clientId: 'c1',
        sessionId: opened.sessionId,
        userId: opened.sessionId,
        accountId: 7,
        role: 'user',
        expiresAt: opened.expiresAt,
        secretId: 's-9',
        ...SOURCE,
      },
    ]);

    ddb.resetHistory();
    records = [];
    await store().openSession({ client, accountId: 7, role: 'user', userId: 'anna' }, SOURCE);
    expect(ddb.commandCalls(PutCommand)[0]?.args[0].input.Item).not.toHaveProperty('secretId');
    expect(records[0]).not.toHaveProperty('secretId');
    expect(records[0]?.userId).toBe('anna');
  });
});

describe('AuthStore: reads', () => {
  it('reads clients, secrets and sessions consistently unless a client read asks otherwise', async () => {
    ddb.on(GetCommand).resolves({});
    const reader = store();
    await reader.getClient('h1');
    await reader.getClient('h2', { consistent: false });
    await reader.getSecret('h3');
    await reader.getSession('h4');
    expect(ddb.commandCalls(GetCommand).map((call) => call.args[0].input)).toEqual([
      { TableName: 'auth', Key: { pk: 'CLIENT#h1' }, ConsistentRead: true },
      { TableName: 'auth', Key: { pk: 'CLIENT#h2' }, ConsistentRead: false },
      { TableName: 'auth', Key: { pk: 'SECRET#h3' }, ConsistentRead: true },
      { TableName: 'auth', Key: { pk: 'SESSION#h4' }, ConsistentRead: true },
    ]);
  });
});

describe('AuthStore: ending a session', () => {
  const session = {
    pk: 'SESSION#h',
    type: 'session',
    sessionId: 's1',
    clientId: 'c1',
    accountId: 7,
    userId: 'anna',
    role: 'user',
    createdAt: NOW.toISOString(),
    expiresAt: '2025-03-02T12:00:00.000Z',
  };

  it('deletes it only for its own client, returns it and records its end', async () => {
    ddb.on(DeleteCommand).resolves({ Attributes: session });
    expect(await store().endSession('h', 'c1', SOURCE)).toMatchObject({ sessionId: 's1', userId: 'anna' });
    expect(ddb.commandCalls(DeleteCommand)[0]?.args[0].input).toEqual({
      TableName: 'auth',
      Key: { pk: 'SESSION#h' },
      ConditionExpression: 'clientId = :clientId',
      ExpressionAttributeValues: { ':clientId': 'c1' },
      ReturnValues: 'ALL_OLD',
    });
    expect(records).toEqual([
      {
        at: NOW.toISOString(),
        action: 'session.ended',
        clientId: 'c1',
        sessionId: 's1',
        userId: 'anna',
        accountId: 7,
        role: 'user',
        expiresAt: '2025-03-02T12:00:00.000Z',
        ...SOURCE,
      },
    ]);
  });

  it('answers undefined and records nothing for a session of another client, or none', async () => {
    ddb
      .on(DeleteCommand)
      .rejectsOnce(
        Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' }),
      )
      .resolvesOnce({});
    expect(await store().endSession('h', 'c2', SOURCE)).toBeUndefined();
    expect(await store().endSession('h', 'c1', SOURCE)).toBeUndefined();
    expect(records).toEqual([]);
  });

  it('passes on any other failure', async () => {
    ddb.on(DeleteCommand).rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    await expect(store().endSession('h', 'c1', SOURCE)).rejects.toThrow('slow down');
    expect(records).toEqual([]);
  });
});

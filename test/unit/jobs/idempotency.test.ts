/**
 * `Idempotency-Key` records on a mocked DynamoDB: the conditional claim (its item, its TTL, the states and the
 * lease it may take over), the answer stored under the claim's claimId, a replay, a key reused for another
 * request (`409`), a request waiting for the one in progress (and `503` past its budget), and the release of a
 * claim whose work failed.
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError, DependencyUnavailableError } from '../../../functions/http/errors';
import {
  fingerprintOf,
  IDEMPOTENCY_TTL_SECONDS,
  IdempotencyKeyReusedError,
  IdempotencyStore,
  LEASE_MS,
  type Seal,
  type StoredAnswer,
  WAIT_BUDGET_MS,
} from '../../../functions/jobs/create/idempotency';
import { JobsTable, type TransactItem } from '../../../functions/jobs/store/jobs-table';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const mock = mockClient(documents);
const named = (name: string): Error => Object.assign(new Error(name), { name });
const conditionFailed = (): Error => named('ConditionalCheckFailedException');

const NOW = 1_700_000_000_999;
const SCOPE = { clientId: 'client-1', accountId: 1001 };
const KEYS = {
  pk: `IDEMPOTENCY#1001#client-1#${createHash('sha256').update('key-1').digest('hex')}`,
  sk: 'IDEMPOTENCY',
};

let clock: number;
let waits: number[];
const store = (step = 0): IdempotencyStore =>
  new IdempotencyStore(new JobsTable(documents, 'jobs'), {
    now: () => clock,
    sleep: async (ms) => {
      waits.push(ms);
      clock += step || ms;
    },
  });
const puts = () => mock.commandCalls(PutCommand).map((call) => call.args[0].input);
const updates = () => mock.commandCalls(UpdateCommand).map((call) => call.args[0].input);

let worked: number;
/** What the work committed its answer with (the item its seal made). */
let sealed: TransactItem[];
const work = async (seal: Seal<StoredAnswer>) => {
  worked += 1;
  const answer = { job: '{"id":1}', fileIds: [2, 3] };
  sealed.push(seal(answer));
  return answer;
};

beforeEach(() => {
  mock.reset();
  clock = NOW;
  waits = [];
  worked = 0;
  sealed = [];
});

describe('the fingerprint of a request', () => {
  it('is the SHA-256 of its JSON text: the same for the same request, another for any other', () => {
    expect(fingerprintOf({ a: 1 })).toBe(createHash('sha256').update('{"a":1}').digest('hex'));
    expect(fingerprintOf({ a: 1 })).not.toBe(fingerprintOf({ a: 2 }));
  });
});

describe('the first request with a key', () => {
  it('claims the key with a conditional put and does the work once, which stores the answer under its claimId', async () => {
    mock.on(PutCommand).resolves({});
    mock.on(UpdateCommand).resolves({});

    await expect(store().run(SCOPE, 'key-1', 'print-1', work)).resolves.toEqual({
      answer: { job: '{"id":1}', fileIds: [2, 3] },
      replayed: false,
    });

    expect(worked).toBe(1);
    const [claim] = puts();
    const claimId = claim?.Item?.claimId as string;
    expect(claimId).toMatch(/^[0-9a-f-]{36}$/);
    expect(claim).toEqual({
      TableName: 'jobs',
      Item: {
        ...KEYS,
        state: 'pending',
        fingerprint: 'print-1',
        claimId,
        claimedAt: NOW,
        ttl: 1_700_000_000 + IDEMPOTENCY_TTL_SECONDS,
      },
      ConditionExpression:
        'attribute_not_exists(pk) OR #ttl < :nowSeconds OR #state = :released OR ' +
        '(#state = :pending AND #claimedAt < :leaseStart)',
      ExpressionAttributeNames: { '#ttl': 'ttl', '#state': 'state', '#claimedAt': 'claimedAt' },
      ExpressionAttributeValues: {
        ':nowSeconds': 1_700_000_000,
        ':pending': 'pending',
        ':released': 'released',
        ':leaseStart': NOW - LEASE_MS,
      },
    });
    // The answer is stored by the work's own commit, with the item the seal made: nothing is written after it.
    expect(updates()).toEqual([]);
    expect(sealed).toEqual([
      {
        Update: {
          TableName: 'jobs',
          Key: KEYS,
          UpdateExpression: 'SET #state = :done, #answer = :answer REMOVE #claimedAt',
          ConditionExpression: '#state = :pending AND #claimId = :claimId',
          ExpressionAttributeNames: {
            '#state': 'state',
            '#claimId': 'claimId',
            '#answer': 'answer',
            '#claimedAt': 'claimedAt',
          },
          ExpressionAttributeValues: {
            ':done': 'done',
            ':answer': { job: '{"id":1}', fileIds: [2, 3] },
            ':pending': 'pending',
            ':claimId': claimId,
          },
        },
      },
    ]);
  });

  it('remembers a key for 24 hours and takes over a claim pending for a minute', () => {
    expect(IDEMPOTENCY_TTL_SECONDS).toBe(86_400);
    expect(LEASE_MS).toBe(60_000);
    expect(WAIT_BUDGET_MS).toBe(6_000);
  });

  it('keys the record by account, client and the hash of the key', async () => {
    mock.on(PutCommand).resolves({});
    mock.on(UpdateCommand).resolves({});

    await store().run({ ...SCOPE, clientId: 'client-2' }, 'key-1', 'print-1', work);
    await store().run({ ...SCOPE, accountId: 1002 }, 'key-1', 'print-1', work);
    await store().run(SCOPE, 'key-2', 'print-1', work);

    expect(puts().map((input) => input.Item?.pk)).toEqual([
      KEYS.pk.replace('client-1', 'client-2'),
      KEYS.pk.replace('1001', '1002'),
      `IDEMPOTENCY#1001#client-1#${createHash('sha256').update('key-2').digest('hex')}`,
    ]);
  });

  it('releases the claim while it is pending and its own when the work fails, so a retry runs again, and passes the failure on', async () => {
    mock.on(PutCommand).resolves({});
    mock.on(UpdateCommand).resolves({});
    const failure = new Error('the create failed');

    await expect(
      store().run(SCOPE, 'key-1', 'print-1', async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);

    const claimId = puts()[0]?.Item?.claimId as string;
    expect(updates()).toEqual([
      {
        TableName: 'jobs',
        Key: KEYS,
        UpdateExpression: 'SET #state = :released',
        ConditionExpression: '#state = :pending AND #claimId = :claimId',
        ExpressionAttributeNames: { '#state': 'state', '#claimId': 'claimId' },
        ExpressionAttributeValues: { ':claimId': claimId, ':pending': 'pending', ':released': 'released' },
      },
    ]);
  });

  it('passes the failure of the work on even when the release fails too', async () => {
    mock.on(PutCommand).resolves({});
    mock.on(UpdateCommand).rejects(named('ThrottlingException'));
    const failure = new Error('the create failed');

    await expect(
      store().run(SCOPE, 'key-1', 'print-1', async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(updates()).toHaveLength(1);
  });

  it('answers its own answer when the release finds its record done: the commit went through and only its answer was lost', async () => {
    mock.on(PutCommand).resolves({});
    mock.on(UpdateCommand).rejects(conditionFailed());
    mock.on(GetCommand).callsFake(() => ({
      Item: { ...KEYS, state: 'done', claimId: puts()[0]?.Item?.claimId, fingerprint: 'print-1', answer: { id: 7 } },
    }));

    await expect(
      store().run(SCOPE, 'key-1', 'print-1', async () => {
        throw named('TimeoutError');
      }),
    ).resolves.toEqual({ answer: { id: 7 }, replayed: false });
    expect(mock.commandCalls(GetCommand)[0]?.args[0].input).toEqual({
      TableName: 'jobs',
      Key: KEYS,
      ConsistentRead: true,
    });
  });

  it.each([
    ['taken over by another request', { state: 'pending', claimId: 'another-request' }],
    ['done by another request', { state: 'done', claimId: 'another-request', answer: { id: 8 } }],
    ['gone', undefined],
  ])('passes the failure of the work on when the release finds its claim %s', async (_case, found) => {
    mock.on(PutCommand).resolves({});
    mock.on(UpdateCommand).rejects(conditionFailed());
    mock.on(GetCommand).resolves(found === undefined ? {} : { Item: { ...KEYS, fingerprint: 'print-1', ...found } });
    const failure = new Error('the create failed');

    await expect(
      store().run(SCOPE, 'key-1', 'print-1', async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
  });

  it('passes on a failed claim that is not a held key, reading nothing', async () => {
    const refused = named('ValidationException');
    mock.on(PutCommand).rejects(refused);

    await expect(store().run(SCOPE, 'key-1', 'print-1', work)).rejects.toBe(refused);
    expect(mock.commandCalls(GetCommand)).toHaveLength(0);
    expect(worked).toBe(0);
  });
});

describe('a request whose key is held', () => {
  it('answers the stored answer again, doing nothing, from a consistent read of the record', async () => {
    mock.on(PutCommand).rejects(conditionFailed());
    mock.on(GetCommand).resolves({ Item: { ...KEYS, state: 'done', fingerprint: 'print-1', answer: { first: true } } });

    await expect(store().run(SCOPE, 'key-1', 'print-1', work)).resolves.toEqual({
      answer: { first: true },
      replayed: true,
    });

    expect(worked).toBe(0);
    expect(updates()).toHaveLength(0);
    expect(mock.commandCalls(GetCommand)[0]?.args[0].input).toEqual({
      TableName: 'jobs',
      Key: KEYS,
      ConsistentRead: true,
    });
  });

  it.each(['done', 'pending'])('refuses another request with the key (%s) as idempotency_key_reused', async (state) => {
    mock.on(PutCommand).rejects(conditionFailed());
    mock.on(GetCommand).resolves({ Item: { ...KEYS, state, fingerprint: 'print-1', answer: {} } });

    const outcome = store().run(SCOPE, 'key-1', 'print-2', work);

    await expect(outcome).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    await expect(outcome).rejects.toBeInstanceOf(ApiError);
    await expect(outcome).rejects.toMatchObject({
      name: 'IdempotencyKeyReusedError',
      code: 'idempotency_key_reused',
      context: { headerName: 'Idempotency-Key' },
    });
    expect(worked).toBe(0);
    expect(waits).toEqual([]);
  });

  it('waits for the request in progress, a growing moment up to half a second, then answers its answer', async () => {
    mock.on(PutCommand).rejects(conditionFailed());
    const pending = { Item: { ...KEYS, state: 'pending', fingerprint: 'print-1' } };
    mock
      .on(GetCommand)
      .resolvesOnce(pending)
      .resolvesOnce(pending)
      .resolvesOnce(pending)
      .resolvesOnce(pending)
      .resolvesOnce(pending)
      .resolvesOnce(pending)
      .resolves({ Item: { ...KEYS, state: 'done', fingerprint: 'print-1', answer: { late: 1 } } });

    await expect(store().run(SCOPE, 'key-1', 'print-1', work)).resolves.toEqual({
      answer: { late: 1 },
      replayed: true,
    });

    expect(waits).toEqual([50, 100, 200, 400, 500, 500]);
    // One claim; then reads only, so nothing writes the record beside the holder's commit, which updates it.
    expect(puts()).toHaveLength(1);
    expect(mock.commandCalls(GetCommand)).toHaveLength(7);
    expect(worked).toBe(0);
  });

  it.each([
    ['released', { state: 'released', fingerprint: 'print-1' }],
    ['pending past its lease', { state: 'pending', fingerprint: 'print-1', claimedAt: NOW - LEASE_MS - 1 }],
    ['past its 24 hours', { state: 'pending', fingerprint: 'print-1', ttl: Math.floor(NOW / 1000) - 1 }],
  ])('claims the key while waiting once the record it reads is %s, and does the work', async (_case, record) => {
    mock.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});
    mock
      .on(GetCommand)
      .resolvesOnce({ Item: { ...KEYS, state: 'pending', fingerprint: 'print-1', claimedAt: NOW } })
      .resolves({ Item: { ...KEYS, ...record } });

    await expect(store().run(SCOPE, 'key-1', 'print-1', work)).resolves.toMatchObject({ replayed: false });

    expect(puts()).toHaveLength(2);
    expect(worked).toBe(1);
    expect(waits).toEqual([50]);
  });

  it('waits as long as it is told to', async () => {
    mock.on(PutCommand).rejects(conditionFailed());
    mock.on(GetCommand).resolves({ Item: { ...KEYS, state: 'pending', fingerprint: 'print-1', claimedAt: NOW } });
    const patient = new IdempotencyStore(new JobsTable(documents, 'jobs'), {
      now: () => clock,
      sleep: async () => {
        clock += 3_000;
      },
      waitBudgetMs: 30_000,
    });

    await expect(patient.run(SCOPE, 'key-1', 'print-1', work)).rejects.toBeInstanceOf(DependencyUnavailableError);
    // Reads at 0, 3, …, 30 seconds wait again; the one at 33 seconds gives up.
    expect(mock.commandCalls(GetCommand)).toHaveLength(12);
  });

  it('answers 503 once it has waited past its budget of six seconds, not at six seconds', async () => {
    mock.on(PutCommand).rejects(conditionFailed());
    mock.on(GetCommand).resolves({ Item: { ...KEYS, state: 'pending', fingerprint: 'print-1' } });

    const outcome = store(3_000).run(SCOPE, 'key-1', 'print-1', work);

    await expect(outcome).rejects.toBeInstanceOf(DependencyUnavailableError);
    await expect(outcome).rejects.toMatchObject({
      dependency: 'dynamodb',
      cause: { message: 'An earlier request with this key is in progress' },
    });
    // Reads at 0, 3 and 6 seconds wait again; the read at 9 seconds gives up.
    expect(waits).toHaveLength(3);
    expect(mock.commandCalls(GetCommand)).toHaveLength(4);
    expect(worked).toBe(0);
  });

  it.each([
    ['released', { Item: { ...KEYS, state: 'released', fingerprint: 'print-1' } }],
    ['gone by TTL', {}],
  ])('claims the key again when it was %s between the claim and the read', async (_case, answer) => {
    mock.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});
    mock.on(GetCommand).resolves(answer);
    mock.on(UpdateCommand).resolves({});

    await expect(store().run(SCOPE, 'key-1', 'print-1', work)).resolves.toMatchObject({ replayed: false });

    expect(puts()).toHaveLength(2);
    expect(worked).toBe(1);
    expect(waits).toEqual([]);
  });
});

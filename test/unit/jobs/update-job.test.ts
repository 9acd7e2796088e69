/**
 * `PATCH /jobs/{id}` on a mocked DynamoDB: the rules in the order they answer (`428`, `400` naming `If-Match`,
 * `403`, `404` — another account's job exactly like a missing one —, `410` for an archived job, `412` with the
 * current version, `409 job_not_editable`, `409 invalid_transition`), what counts as no change, and the one
 * UpdateItem conditioned on the version read.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../../functions/auth/principal';
import { ApiError, DependencyUnavailableError } from '../../../functions/http/errors';
import { type JobItem, toJobItem } from '../../../functions/jobs/store/items';
import { jobView } from '../../../functions/jobs/store/job-view';
import type { Job } from '../../../functions/jobs/model/model';
import { versionsOfIfMatch } from '../../../functions/jobs/edit/if-match';
import { type JobChanges, jobNotFound, UpdateJob } from '../../../functions/jobs/edit/update-job';
import { makeJob } from '../../support/jobs';
import { readyVariant } from '../../support/pictures';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const mock = mockClient(documents);
const named = (name: string): Error => Object.assign(new Error(name), { name });

const NOW = new Date('2026-11-26T12:00:00.000Z');
const update = new UpdateJob({ client: documents, tableName: 'jobs', now: () => NOW });
const user: Pick<Principal, 'role' | 'accountId'> = { role: 'user', accountId: 1001 };
const operator: Pick<Principal, 'role' | 'accountId'> = { role: 'operator', accountId: 1 };

const stored = (overrides: Partial<Job> = {}, version = 5): JobItem =>
  toJobItem(makeJob({ id: 4242, accountId: 1001, name: 'Old name', tags: ['a'], ...overrides }), version);
/** A file item of job 4242 as the gate's projected Query answers it, its original as given. */
const fileOf = (id: number, original?: unknown): Record<string, unknown> => ({
  entity: 'file',
  id,
  ...(original === undefined ? {} : { original }),
});

/**
 * The table holds `item` and `files` (by default two files with ready originals); an update answers it with the
 * sets applied and the version bumped.
 */
const tableHolds = (
  item: JobItem | undefined,
  files: Record<string, unknown>[] = [fileOf(1, readyVariant()), fileOf(2, readyVariant())],
): void => {
  mock.on(GetCommand).resolves(item === undefined ? {} : { Item: item });
  mock
    .on(QueryCommand)
    .resolves({ Items: [...files, ...(item === undefined ? [] : [{ entity: 'job', id: item.id }])] });
  mock.on(UpdateCommand).callsFake(async (input: Parameters<typeof applyUpdate>[1]) => ({
    Attributes: applyUpdate(item as JobItem, input),
  }));
};
const applyUpdate = (
  item: JobItem,
  input: { ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> },
): JobItem => {
  const next: Record<string, unknown> = { ...item, version: item.version + 1 };
  for (const [placeholder, field] of Object.entries(input.ExpressionAttributeNames)) {
    if (placeholder === '#version') continue;
    next[field] = input.ExpressionAttributeValues[placeholder.replace('#f', ':v')];
  }
  return next as unknown as JobItem;
};
const updates = () => mock.commandCalls(UpdateCommand).map((call) => call.args[0].input);

const refusal = async (changes: JobChanges, ifMatch: string | undefined, principal = user): Promise<ApiError> => {
  const outcome = update.run(4242, changes, ifMatch, principal);
  await expect(outcome).rejects.toBeInstanceOf(ApiError);
  return outcome.then(
    () => {
      throw new Error('not refused');
    },
    (error: unknown) => error as ApiError,
  );
};

beforeEach(() => {
  mock.reset();
});

describe('the versions of an If-Match header', () => {
  it.each([
    ['"17"', [17]],
    [' "17" ', [17]],
    ['"1", "2" ,"3"', [1, 2, 3]],
    ['"1",,"2",', [1, 2]],
    ['"1234567890123456"', [1_234_567_890_123_456]],
    ['"12345678901234567"', []],
    ['""', []],
    ['"1a"', []],
    ['"*"', []],
    ['"a,b", "5"', [5]],
  ])('reads %j as the versions %j', (header, expected) => {
    expect(versionsOfIfMatch(header)).toEqual(expected);
  });

  it.each([undefined, '', '  ', '*', ' * '])(
    'answers 428 precondition_required for %j, which names no version',
    (header) => {
      expect(() => versionsOfIfMatch(header)).toThrow(expect.objectContaining({ code: 'precondition_required' }));
    },
  );

  it('says that * names no version', () => {
    expect(() => versionsOfIfMatch('*')).toThrow(/If-Match: \* names no version/);
  });

  it.each([
    '17',
    '1764147600000',
    '"17',
    'x"17"',
    '"17"x',
    '"1" "2"',
    '*, "5"',
    '"*", *',
    ',',
    "'17'",
    'W/"17"',
    '"5", W/"5"',
    'w/"5"',
  ])(
    'answers 400 invalid_parameter naming If-Match for %j, which is no list of strong quoted entity-tags',
    (header) => {
      expect(() => versionsOfIfMatch(header)).toThrow(
        expect.objectContaining({ code: 'invalid_parameter', context: { parameter: 'If-Match' } }),
      );
    },
  );

  it('says why a weak tag is refused', () => {
    expect(() => versionsOfIfMatch('W/"17"')).toThrow(/weak tag/);
  });
});

describe('the refusals, in the order they answer', () => {
  it.each([undefined, '', '  ', '*'])('asks for If-Match (428) when it is %j, reading nothing', async (ifMatch) => {
    expect((await refusal({ name: 'New' }, ifMatch)).code).toBe('precondition_required');
    expect(mock.calls()).toHaveLength(0);
  });

  it.each([
    ['realCost', { realCost: 12 }],
    ['accountName', { accountName: 'Other' }],
  ])('lets only operators set %s (403), reading nothing', async (field, changes) => {
    const error = await refusal({ name: 'New', ...changes }, '"5"');
    expect(error).toMatchObject({ code: 'forbidden', message: `Only operators may set ${field}.` });
    expect(mock.calls()).toHaveLength(0);
  });

  it('answers job_not_found (404) for a job that does not exist, after one consistent read of its job item', async () => {
    tableHolds(undefined);
    const error = await refusal({ name: 'New' }, '"5"');
    expect(error).toMatchObject({ code: 'job_not_found', message: 'The job does not exist.' });
    expect(mock.commandCalls(GetCommand)[0]?.args[0].input).toEqual({
      TableName: 'jobs',
      Key: { pk: 'JOB#4242', sk: 'JOB' },
      ConsistentRead: true,
    });
  });

  it("answers another account's job exactly like a missing one, whatever the If-Match", async () => {
    tableHolds(stored({ accountId: 2002 }));
    const other = await refusal({ name: 'New' }, '"999"');
    tableHolds(undefined);
    const missing = await refusal({ name: 'New' }, '"999"');
    expect(other).toEqual(missing);
    expect(other.code).toBe('job_not_found');
    expect(jobNotFound()).toMatchObject({ code: 'job_not_found' });
    expect(updates()).toHaveLength(0);
  });

  it('refuses an If-Match that is no quoted ETag (400 naming If-Match) before the operator fields, reading nothing', async () => {
    const error = await refusal({ name: 'New', realCost: 1 }, '5');
    expect(error).toMatchObject({ code: 'invalid_parameter', context: { parameter: 'If-Match' } });
    expect(mock.calls()).toHaveLength(0);
  });

  it('answers job_not_found for an item that is no job', async () => {
    tableHolds({ ...stored(), entity: 'file' } as unknown as JobItem);
    expect((await refusal({ name: 'New' }, '"5"')).code).toBe('job_not_found');
  });

  it('lets an operator change a job of any account', async () => {
    tableHolds(stored({ accountId: 2002 }));
    await expect(update.run(4242, { name: 'New' }, '"5"', operator)).resolves.toMatchObject({
      job: { name: 'New', accountId: 2002, version: 6 },
      etag: '"6"',
    });
  });

  it('answers precondition_failed (412) with the current version in the ETag and in the body for another version', async () => {
    tableHolds(stored({}, 7));
    const error = await refusal({ name: 'New' }, '"5", "6"');
    expect(error).toMatchObject({
      code: 'precondition_failed',
      headers: { ETag: '"7"' },
      context: { currentVersion: 7 },
      message: 'The job was changed since the version in If-Match; its current version is 7.',
    });
    expect(updates()).toHaveLength(0);
  });

  it('accepts any of the versions listed', async () => {
    tableHolds(stored({}, 7));
    await expect(update.run(4242, { name: 'New' }, '"5", "7"', user)).resolves.toMatchObject({ etag: '"8"' });
  });

  it('answers 428 for If-Match: *, which names no version, changing nothing', async () => {
    tableHolds(stored({}, 7));
    const error = await refusal({ name: 'New' }, '*');
    expect(error.code).toBe('precondition_required');
    expect(updates()).toHaveLength(0);
  });

  it('refuses a weak ETag of the current version (400 naming If-Match), changing nothing', async () => {
    tableHolds(stored());
    expect(await refusal({ name: 'New' }, 'W/"5"')).toMatchObject({
      code: 'invalid_parameter',
      context: { parameter: 'If-Match' },
    });
    expect(updates()).toHaveLength(0);
  });

  it.each([
    ['an operator editing its fields', { name: 'New', realCost: 5 }, operator],
    ['an operator moving its status', { status: 'CJ_NEW' }, operator],
    ['a user editing its fields', { name: 'New' }, user],
    ['an empty change', {}, user],
    ['a change to the status it has', { status: 'CJ_ARCHIVED' }, operator],
  ] as const)('answers 410 job_archived for an archived job, to %s, writing nothing', async (_what, changes, who) => {
    tableHolds(stored({ status: 'CJ_ARCHIVED' }));
    const error = await refusal(changes, '"5"', who);
    expect(error).toMatchObject({ code: 'job_archived', message: 'The job is archived; it changes no more.' });
    expect(error.context).toEqual({});
    expect(updates()).toHaveLength(0);
  });

  it('answers 410 for an archived job whatever version If-Match names, after 404 and before 412', async () => {
    tableHolds(stored({ status: 'CJ_ARCHIVED' }, 9));
    expect((await refusal({ name: 'New' }, '"5"')).code).toBe('job_archived');
    tableHolds(stored({ status: 'CJ_ARCHIVED', accountId: 2002 }, 9));
    expect((await refusal({ name: 'New' }, '"9"')).code).toBe('job_not_found');
  });

  it.each(['CJ_ACCEPT', 'CJ_REVIEWING', 'CJ_FINISHED'] as const)(
    "refuses a user's edit of a job in %s (409 job_not_editable), before judging its status",
    async (status) => {
      tableHolds(stored({ status }));
      const error = await refusal({ name: 'New', status: 'CJ_ARCHIVED' }, '"5"');
      expect(error.code).toBe('job_not_editable');
      expect(updates()).toHaveLength(0);
    },
  );

  it("lets a user edit a job's fields while it is new or waits for an offer, and an operator always", async () => {
    for (const status of ['CJ_NEW', 'CJ_REQUEST_OFFER'] as const) {
      tableHolds(stored({ status }));
      await expect(update.run(4242, { description: 'Edited' }, '"5"', user)).resolves.toMatchObject({
        job: { description: 'Edited', status },
      });
    }
    tableHolds(stored({ status: 'CJ_REVIEWING' }));
    await expect(update.run(4242, { description: 'Edited' }, '"5"', operator)).resolves.toMatchObject({
      job: { description: 'Edited', status: 'CJ_REVIEWING' },
    });
  });

  it('refuses a move the status table does not allow the role (409 invalid_transition)', async () => {
    tableHolds(stored({ status: 'CJ_NEW' }));
    const error = await refusal({ status: 'CJ_JOB_PAID' }, '"5"');
    expect(error).toMatchObject({
      code: 'invalid_transition',
      context: { parameter: 'status' },
      message: 'The job cannot move from CJ_NEW to CJ_JOB_PAID.',
    });
    // An operator may move a new job to CJ_ACCEPT; a user may not.
    expect((await refusal({ status: 'CJ_ACCEPT' }, '"5"')).code).toBe('invalid_transition');
    await expect(update.run(4242, { status: 'CJ_ACCEPT' }, '"5"', operator)).resolves.toMatchObject({
      job: { status: 'CJ_ACCEPT' },
    });
  });
});

describe('what an update writes', () => {
  it('writes only the fields that change, in one UpdateItem conditioned on the version read', async () => {
    const item = stored();
    tableHolds(item);

    const answer = await update.run(
      4242,
      { name: 'New name', tags: ['a'], description: 'More', status: 'CJ_REQUEST_OFFER' },
      '"5"',
      user,
    );

    expect(updates()).toEqual([
      {
        TableName: 'jobs',
        Key: { pk: 'JOB#4242', sk: 'JOB' },
        UpdateExpression: 'SET #f0 = :v0, #f1 = :v1, #f2 = :v2 ADD #version :one',
        ConditionExpression: '#version = :expected',
        ExpressionAttributeNames: { '#version': 'version', '#f0': 'name', '#f1': 'description', '#f2': 'status' },
        ExpressionAttributeValues: {
          ':expected': 5,
          ':one': 1,
          ':v0': 'New name',
          ':v1': 'More',
          ':v2': 'CJ_REQUEST_OFFER',
        },
        ReturnValues: 'ALL_NEW',
      },
    ]);
    expect(answer.etag).toBe('"6"');
    expect(answer.job).toEqual(
      jobView({ ...item, name: 'New name', description: 'More', status: 'CJ_REQUEST_OFFER', version: 6 }),
    );
  });

  it.each([
    ['CJ_ACCEPT', 'CJ_NEW', 'acceptedDate'],
    ['CJ_JOB_PAID', 'CJ_ACCEPT', 'orderedDate'],
  ] as const)('stamps the date a job enters %s', async (status, from, date) => {
    tableHolds(stored({ status: from }));

    const answer = await update.run(4242, { status }, '"5"', operator);

    expect(updates()[0]?.ExpressionAttributeNames).toEqual({ '#version': 'version', '#f0': 'status', '#f1': date });
    expect(updates()[0]?.ExpressionAttributeValues).toMatchObject({ ':v0': status, ':v1': NOW.toISOString() });
    expect(answer.job[date]).toBe(NOW.toISOString());
  });

  it('stamps no date for a move into another status', async () => {
    tableHolds(stored({ status: 'CJ_NEW' }));
    await update.run(4242, { status: 'CJ_REQUEST_OFFER' }, '"5"', user);
    expect(updates()[0]?.ExpressionAttributeNames).toEqual({ '#version': 'version', '#f0': 'status' });
  });

  it('lets an operator set the cost and the account name', async () => {
    tableHolds(stored({ realCost: 10, accountName: 'Old' }));
    await update.run(4242, { realCost: 99, accountName: 'New' }, '"5"', operator);
    expect(updates()[0]?.ExpressionAttributeNames).toEqual({
      '#version': 'version',
      '#f0': 'realCost',
      '#f1': 'accountName',
    });
  });

  it('writes nothing for a request equal to the job, answering the job at its version', async () => {
    const item = stored({ status: 'CJ_ACCEPT', description: 'Same', tags: ['x', 'y'] });
    tableHolds(item);

    const answer = await update.run(
      4242,
      { name: 'Old name', description: 'Same', tags: ['x', 'y'], status: 'CJ_ACCEPT' },
      '"5"',
      user,
    );

    expect(answer).toEqual({ job: jobView(item), etag: '"5"' });
    expect(updates()).toHaveLength(0);
  });

  it('takes absent stored text as empty and absent stored tags as none', async () => {
    const item = stored({ status: 'CJ_ACCEPT' }) as unknown as Record<string, unknown>;
    delete item.tags;
    delete item.invoiceReference;
    tableHolds(item as unknown as JobItem);

    await expect(update.run(4242, { tags: [], invoiceReference: '' }, '"5"', user)).resolves.toMatchObject({
      etag: '"5"',
    });
    expect(updates()).toHaveLength(0);
    expect((await refusal({ tags: [''] }, '"5"')).code).toBe('job_not_editable');
    expect((await refusal({ invoiceReference: '[]' }, '"5"')).code).toBe('job_not_editable');
  });

  it('reads the job again after losing a race, and then answers 412 for the version that moved on', async () => {
    mock
      .on(GetCommand)
      .resolvesOnce({ Item: stored({}, 5) })
      .resolves({ Item: stored({ name: 'Their name' }, 6) });
    mock.on(UpdateCommand).rejects(named('ConditionalCheckFailedException'));

    const error = await refusal({ name: 'New' }, '"5"');

    expect(error).toMatchObject({
      code: 'precondition_failed',
      headers: { ETag: '"6"' },
      context: { currentVersion: 6 },
    });
    expect(mock.commandCalls(GetCommand)).toHaveLength(2);
    expect(updates()).toHaveLength(1);
  });

  it('answers 503 (DynamoDB) when every attempt loses a race', async () => {
    mock.on(GetCommand).resolves({ Item: stored() });
    const lost = named('ConditionalCheckFailedException');
    mock.on(UpdateCommand).rejects(lost);

    const outcome = update.run(4242, { name: 'New' }, '"5"', user);

    await expect(outcome).rejects.toBeInstanceOf(DependencyUnavailableError);
    await expect(outcome).rejects.toMatchObject({ dependency: 'dynamodb', cause: lost });
    expect(updates()).toHaveLength(10);
  });
});

describe('asking for an offer', () => {
  const invalid = { status: 'invalid', uploadId: 'x', reason: 'Not a picture.', uploadedDate: NOW.toISOString() };

  it('answers a user 409 files_not_ready naming the first file by id whose original is missing or invalid, writing nothing', async () => {
    tableHolds(stored({ status: 'CJ_NEW' }), [
      fileOf(30, readyVariant()),
      fileOf(12, invalid),
      fileOf(20),
      fileOf(3, readyVariant()),
    ]);

    await expect(update.run(4242, { status: 'CJ_REQUEST_OFFER' }, '"5"', user)).rejects.toMatchObject({
      code: 'files_not_ready',
      context: { fileId: 12 },
    });
    expect(updates()).toEqual([]);
  });

  it('reads the files with one consistent Query of the partition, projected to what the gate needs', async () => {
    tableHolds(stored({ status: 'CJ_NEW' }));

    await update.run(4242, { status: 'CJ_REQUEST_OFFER' }, '"5"', user);

    expect(mock.commandCalls(QueryCommand).map((call) => call.args[0].input)).toEqual([
      expect.objectContaining({
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'JOB#4242' },
        ConsistentRead: true,
        ProjectionExpression: '#a0, #a1, #a2',
        ExpressionAttributeNames: { '#a0': 'entity', '#a1': 'id', '#a2': 'original' },
      }),
    ]);
    expect(updates()).toHaveLength(1);
  });

  it('lets a job without files ask for an offer', async () => {
    tableHolds(stored({ status: 'CJ_NEW', files: [] }), []);

    await expect(update.run(4242, { status: 'CJ_REQUEST_OFFER' }, '"5"', user)).resolves.toMatchObject({
      job: { status: 'CJ_REQUEST_OFFER' },
    });
  });

  it('does not gate an operator, nor a user moving to another status, nor a change of fields alone', async () => {
    tableHolds(stored({ status: 'CJ_NEW' }), [fileOf(1)]);
    await expect(update.run(4242, { status: 'CJ_REQUEST_OFFER' }, '"5"', operator)).resolves.toBeDefined();
    tableHolds(stored({ status: 'CJ_NEW' }), [fileOf(1)]);
    await expect(update.run(4242, { status: 'CJ_ARCHIVED' }, '"5"', user)).resolves.toBeDefined();
    tableHolds(stored({ status: 'CJ_REQUEST_OFFER' }), [fileOf(1)]);
    await expect(update.run(4242, { name: 'Renamed', status: 'CJ_REQUEST_OFFER' }, '"5"', user)).resolves.toBeDefined();
    expect(mock.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('answers the rules before it earlier: a stale version is 412 before the files are read', async () => {
    tableHolds(stored({ status: 'CJ_NEW' }), [fileOf(1)]);

    await expect(update.run(4242, { status: 'CJ_REQUEST_OFFER' }, '"4"', user)).rejects.toMatchObject({
      code: 'precondition_failed',
    });
    expect(mock.commandCalls(QueryCommand)).toHaveLength(0);
  });
});

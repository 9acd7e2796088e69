/**
 * POST /search end to end, by property: paging walks every job exactly once, a user never sees another
 * account's job whatever it asks for, and a form body always answers like the same JSON body. Jobs go
 * the whole way: DynamoDB Local → stream → indexer → embedded engine → HTTP.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_STATUSES, type Job, type JobStatus } from '../../functions/jobs/model/model';
import { SEARCH_FIELDS } from '../../functions/search/fields';
import { makeFile, makeJob } from '../support/jobs';
import { type IssuedTokens, type TestResponse, type TestStack, startTestStack } from '../support/local-stack';

const MINE = 4201;
const THEIRS = 4202;

const NAME_WORDS = ['Spring', 'Summer', 'Autumn', 'Winter', 'catalogue', 'lookbook', 'Café', 'shoes', 'menu'];
const FILE_WORDS = ['front', 'back', 'detail', 'cem_test15', 'pack-shot'];
const TAGS = ['studio', 'outdoor', 'sneaker', 'ghost'];
const STATUSES: JobStatus[] = ['CJ_NEW', 'CJ_ACCEPT', 'CJ_REQUEST_OFFER', 'CJ_REVIEWING', 'ERROR'];

/** The i-th job of an account: a deterministic mix of words, statuses and dates, with repeated createdDates. */
const jobOf = (accountId: number, i: number): Job => {
  const word = (list: readonly string[], salt: number): string => list[(i * 7 + salt) % list.length]!;
  const day = 1 + (i % 12);
  return makeJob({
    accountId,
    accountName: accountId === MINE ? 'Mine Photo' : 'Theirs Media',
    name: `${word(NAME_WORDS, 0)} ${word(NAME_WORDS, 3)}`,
    description: i % 3 === 0 ? '' : `${word(NAME_WORDS, 5)} shots`,
    tags: [word(TAGS, 1)],
    invoiceReference: `INV-${accountId}-${i % 4}`,
    status: STATUSES[i % STATUSES.length]!,
    // Every 12 jobs share a day: ties broken by id across page boundaries.
    createdDate: `2016-${String(day).padStart(2, '0')}-15T10:00:00.000Z`,
    deliveredDate: i % 2 === 0 ? `2016-${String(day).padStart(2, '0')}-20T10:00:00.000Z` : null,
    files: [
      makeFile({
        fileName: `${word(FILE_WORDS, 2)}_${i}.jpg`,
        tags: [word(TAGS, 2)],
        remarkToProcessor: word(NAME_WORDS, 4),
      }),
    ],
  });
};

const MY_JOBS = Array.from({ length: 45 }, (_, i) => jobOf(MINE, i));
const THEIR_JOBS = Array.from({ length: 24 }, (_, i) => jobOf(THEIRS, i));

const ordered = (jobs: Job[]): number[] =>
  [...jobs].sort((x, y) => Date.parse(y.createdDate) - Date.parse(x.createdDate) || y.id - x.id).map((job) => job.id);

let stack: TestStack;
let user: IssuedTokens;
let operator: IssuedTokens;

const search = (tokens: IssuedTokens, body: unknown): Promise<TestResponse> =>
  stack.request('/search', { tokens, body });

beforeAll(async () => {
  stack = await startTestStack();
  [user, operator] = await Promise.all([
    stack.issue({ grants: ['search'], role: 'user', accountId: MINE }),
    stack.issue({ grants: ['search'], role: 'operator', accountId: MINE }),
  ]);
  await stack.importJobs([...MY_JOBS, ...THEIR_JOBS]);
  await stack.drained();
});

afterAll(async () => {
  await stack?.stop();
});

describe('POST /search paging', () => {
  it.each([1, 7, 20, 45, 100])('walks every job exactly once, in order, at pageSize %i', async (pageSize) => {
    const seen: number[] = [];
    for (let page = 0; ; page++) {
      const answer = await search(user, { page, pageSize });
      expect(answer.status).toBe(200);
      expect(answer.json.totalJobs).toBe(MY_JOBS.length);
      const ids = answer.json.jobs.map((job: { id: number }) => job.id);
      expect(ids.length).toBeLessThanOrEqual(pageSize);
      if (ids.length === 0) break;
      seen.push(...ids);
    }
    expect(seen).toEqual(ordered(MY_JOBS));
    expect(new Set(seen).size).toBe(MY_JOBS.length);
  });

  it('walks a filtered search exactly once too, with the same total on every page', async () => {
    const criteria = { query: 'spring', statuses: ['CJ_NEW', 'ERROR', 'CJ_ACCEPT'] };
    const all = (await search(user, { ...criteria, pageSize: 100 })).json;
    expect(all.totalJobs).toBeGreaterThan(3);
    const seen: number[] = [];
    for (let page = 0; page * 3 < all.totalJobs + 3; page++) {
      const answer = await search(user, { ...criteria, page, pageSize: 3 });
      expect(answer.json.totalJobs).toBe(all.totalJobs);
      seen.push(...answer.json.jobs.map((job: { id: number }) => job.id));
    }
    expect(seen).toEqual(all.jobs.map((job: { id: number }) => job.id));
  });
});

/** A value a JSON body and a form body can both carry. */
type Portable = string | number | string[];

const vocabulary = [
  ...NAME_WORDS,
  ...FILE_WORDS,
  ...TAGS,
  'spr',
  'cat',
  'cafe',
  'inv',
  'test15',
  'mine',
  'theirs',
  String(MINE),
  String(THEIRS),
  ...THEIR_JOBS.slice(0, 4).flatMap((job) => [String(job.id), job.guid]),
  ...MY_JOBS.slice(0, 4).flatMap((job) => [String(job.id), job.guid.toUpperCase()]),
];
const query = fc.array(fc.constantFrom(...vocabulary), { maxLength: 3 }).map((words) => words.join(' '));
const date = fc.constantFrom(
  '2016-01-01',
  '2016-03-15T10:00:00Z',
  '2016-06-15T12:00:00.5+02:00',
  '2016-09-01',
  '2016-12-31T23:59:59.999999999Z',
);
const userFields = SEARCH_FIELDS.filter((field) => !field.isOperatorOnly).map((field) => field.id);
const sharedFields = SEARCH_FIELDS.filter(
  (field) => !field.isOperatorOnly && !field.isUserOnly && field.id !== 'Global',
);

/** Valid search criteria a user may send. */
const userCriteria = fc.record(
  {
    field: fc.constantFrom(...userFields),
    query,
    page: fc.integer({ min: 0, max: 3 }),
    pageSize: fc.integer({ min: 1, max: 30 }),
    statuses: fc.subarray([...JOB_STATUSES], { minLength: 1 }),
    dateFrom: date,
    deliveredDateTo: date,
  },
  { requiredKeys: [] },
);

describe('POST /search scoping', () => {
  it("never shows a user another account's job, whatever the criteria", async () => {
    await fc.assert(
      fc.asyncProperty(userCriteria, async (criteria) => {
        const answer = await search(user, criteria);
        expect(answer.status, answer.text).toBe(200);
        for (const job of answer.json.jobs) expect(job.accountId).toBe(MINE);
        expect(answer.json.totalJobs).toBeLessThanOrEqual(MY_JOBS.length);
      }),
      { numRuns: 40 },
    );
  });

  it("shows a user exactly the operator's matches of the user's own account", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...sharedFields.map((field) => field.id)),
        query,
        fc.option(fc.subarray([...JOB_STATUSES], { minLength: 1 }), { nil: undefined }),
        fc.option(date, { nil: undefined }),
        async (field, text, statuses, dateFrom) => {
          const criteria = { field, query: text, statuses, dateFrom };
          const mine = await search(user, { ...criteria, pageSize: 100 });
          const everyone = await search(operator, { ...criteria, pageSize: 100 });
          expect(everyone.json.totalJobs).toBe(everyone.json.jobs.length);
          const expected = everyone.json.jobs.filter((job: { accountId: number }) => job.accountId === MINE);
          expect(mine.json.jobs).toEqual(expected);
          expect(mine.json.totalJobs).toBe(expected.length);
        },
      ),
      { numRuns: 30 },
    );
  });
});

/** Encodes a JSON body as a form: lists as repeated keys or as `key[]` keys. */
const formOf = (fields: Record<string, Portable>, brackets: boolean): URLSearchParams => {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (Array.isArray(value)) for (const item of value) form.append(brackets ? `${name}[]` : name, item);
    else form.append(name, String(value));
  }
  return form;
};

/** Criteria as both encodings can carry them, valid or not. */
const portableCriteria: fc.Arbitrary<Record<string, Portable>> = fc.record(
  {
    field: fc.constantFrom(
      'Global',
      'JobName',
      'job name',
      'FILENAME',
      'Guid',
      'JobNumber',
      'AccountNumber',
      'Nope',
      '',
    ),
    query: fc.oneof(query, fc.string({ maxLength: 30 }), fc.constant('x'.repeat(501))),
    page: fc.integer({ min: -2, max: 600 }),
    pageSize: fc.integer({ min: -1, max: 120 }),
    statuses: fc.array(fc.constantFrom(...JOB_STATUSES, 'CJ_LOST', 'cj_new', ''), { minLength: 1, maxLength: 3 }),
    dateFrom: fc.oneof(date, fc.constantFrom('2016-02-30', '2016-01-14T10:00:00', 'soon')),
    dateTo: date,
    deliveredDateFrom: date,
    deliveredDateTo: fc.oneof(date, fc.constantFrom('2016-01-14T24:00:00Z')),
  },
  { requiredKeys: [] },
);

describe('POST /search encodings', () => {
  it('answers a form body exactly like the same JSON body, valid or not', async () => {
    await fc.assert(
      fc.asyncProperty(portableCriteria, fc.boolean(), async (criteria, brackets) => {
        const json = await search(user, criteria);
        const form = await search(user, formOf(criteria, brackets));
        expect(form.status).toBe(json.status);
        const { requestId: _jsonId, ...jsonBody } = json.json;
        const { requestId: _formId, ...formBody } = form.json;
        expect(formBody).toEqual(jsonBody);
      }),
      { numRuns: 60 },
    );
  });

  it('finds the same jobs for a valid form body as for the same JSON body', async () => {
    await fc.assert(
      fc.asyncProperty(userCriteria, fc.boolean(), async (criteria, brackets) => {
        const json = await search(user, criteria);
        const form = await search(user, formOf(criteria, brackets));
        expect(json.status, json.text).toBe(200);
        expect(form.json).toEqual(json.json);
      }),
      { numRuns: 30 },
    );
  });

  it('reads a one-element list the same way from statuses=, statuses[]= and a JSON string', async () => {
    const bodies = [
      { statuses: 'CJ_NEW' },
      { statuses: ['CJ_NEW'] },
      new URLSearchParams('statuses=CJ_NEW'),
      new URLSearchParams('statuses[]=CJ_NEW'),
    ];
    const answers = await Promise.all(bodies.map((body) => search(user, body)));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual(answers[0]!.json);
    }
    expect(answers[0]!.json.totalJobs).toBe(MY_JOBS.filter((job) => job.status === 'CJ_NEW').length);
  });
});

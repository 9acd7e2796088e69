/**
 * POST /search end to end, through the local HTTP server: jobs are imported into DynamoDB Local, reach
 * the embedded search engine through the table's stream and the indexer, and are searched over HTTP.
 * One test per row and bullet of docs/contract.md §4: every search field for the roles that may use it (and
 * 400 for the others), text matching, exact fields, Global, filters, order, the response shape and every
 * validation error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../functions/auth/principal';
import type { Job } from '../../functions/jobs/model/model';
import { SEARCH_FIELDS } from '../../functions/search/fields';
import { makeFile, makeJob } from '../support/jobs';
import { type IssuedTokens, type TestResponse, type TestStack, startTestStack } from '../support/local-stack';

const ACME = 4101;
const BRIGHT = 4102;

const acme = { accountId: ACME, accountName: 'Acme Studios' };
const bright = { accountId: BRIGHT, accountName: 'Bright Media' };

/** Spring catalogue: the job most queries aim at. */
const a1 = makeJob({
  ...acme,
  name: 'Spring catalogue',
  description: 'Café menu shots',
  tags: ['lookbook'],
  invoiceReference: 'INV-7788',
  status: 'CJ_NEW',
  realCost: 120.5,
  createdDate: '2016-01-14T10:00:00.000Z',
  acceptedDate: '2016-01-14T12:30:00+02:00',
  deliveredDate: '2016-01-20T00:00:00.000Z',
  files: [
    makeFile({ fileName: 'cem_test15.jpg', tags: ['sneaker'], remarkToProcessor: 'Remove the shadow' }),
    makeFile({ fileName: 'cem_test16.jpg' }),
  ],
});
/** "Spring" and "catalogue" are here too, but not in the job name. */
const a2 = makeJob({
  ...acme,
  name: 'Menu photography',
  description: 'Spring dishes',
  tags: ['catalogue'],
  invoiceReference: 'PO-1234',
  status: 'CJ_ACCEPT',
  createdDate: '2016-02-01T00:00:00.000Z',
  files: [makeFile({ fileName: 'dish-01.png', remarkToProcessor: 'Brighten the plate' })],
});
const a3 = makeJob({
  ...acme,
  name: 'Shoe lookbook',
  status: 'CJ_REQUEST_OFFER',
  createdDate: '2016-03-01T00:00:00.000Z',
  deliveredDate: '2016-03-05T00:00:00.000Z',
  files: [makeFile({ fileName: 'shoe_front.tif', tags: ['studio'], remarkToProcessor: 'Spring colours' })],
});
/** Two jobs created at the same instant: the higher id comes first. */
const a4 = makeJob({
  ...acme,
  name: 'Twin one',
  status: 'ERROR',
  createdDate: '2016-04-01T00:00:00.000Z',
  files: [makeFile({ fileName: 'twin_one.jpg' })],
});
const a5 = makeJob({
  ...acme,
  name: 'Twin two',
  status: 'ERROR',
  createdDate: '2016-04-01T00:00:00.000Z',
  files: [makeFile({ fileName: 'twin_two.jpg' })],
});
const b1 = makeJob({
  ...bright,
  name: 'Spring collection',
  description: 'Café exterior',
  tags: ['lookbook'],
  invoiceReference: 'INV-7799',
  status: 'CJ_NEW',
  createdDate: '2016-01-15T00:00:00.000Z',
  files: [makeFile({ fileName: 'test15_b.jpg', tags: ['sneaker'] })],
});
const b2 = makeJob({
  ...bright,
  name: 'Acme rival',
  status: 'CJ_FINISHED',
  createdDate: '2016-05-01T00:00:00.000Z',
  files: [makeFile({ fileName: 'rival.png' })],
});

const ALL = [a1, a2, a3, a4, a5, b1, b2];
/** Newest first, then id descending: the contract order. */
const ordered = (jobs: Job[]): number[] =>
  [...jobs].sort((x, y) => Date.parse(y.createdDate) - Date.parse(x.createdDate) || y.id - x.id).map((job) => job.id);
const ACME_JOBS = [a1, a2, a3, a4, a5];
const BRIGHT_JOBS = [b1, b2];

let stack: TestStack;
let user: IssuedTokens;
let operator: IssuedTokens;

const callerOf = (role: Role): IssuedTokens => (role === 'user' ? user : operator);

const search = (tokens: IssuedTokens, body: unknown): Promise<TestResponse> =>
  stack.request('/search', { tokens, body });

/** The ids a search finds (all of them: one page of 100). */
const idsFound = async (tokens: IssuedTokens, body: Record<string, unknown>): Promise<number[]> => {
  const answer = await search(tokens, { pageSize: 100, ...body });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.json.totalJobs).toBe(answer.json.jobs.length);
  return answer.json.jobs.map((job: { id: number }) => job.id);
};

beforeAll(async () => {
  stack = await startTestStack();
  [user, operator] = await Promise.all([
    stack.issue({ grants: ['search'], role: 'user', accountId: ACME }),
    stack.issue({ grants: ['search'], role: 'operator', accountId: ACME }),
  ]);
  await stack.importJobs(ALL);
  await stack.drained();
});

afterAll(async () => {
  await stack?.stop();
});

describe('POST /search end to end', () => {
  describe('the answer', () => {
    it("is 200 with _type, the exact totalJobs and the seed's 13 fields per job, in the seed's order", async () => {
      const answer = await search(user, { field: 'JobName', query: 'spring' });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(answer.json).toEqual({
        _type: 'SearchResponseBody',
        totalJobs: 1,
        jobs: [
          {
            id: a1.id,
            accountId: ACME,
            status: 'CJ_NEW',
            guid: a1.guid,
            name: 'Spring catalogue',
            description: 'Café menu shots',
            acceptedDate: '2016-01-14T10:30:00.000Z',
            createdDate: '2016-01-14T10:00:00.000Z',
            deliveredDate: '2016-01-20T00:00:00.000Z',
            orderedDate: null,
            reviewedDate: null,
            realCost: 120.5,
            fileCount: 2,
          },
        ],
      });
      expect(Object.keys(answer.json.jobs[0])).toEqual([
        'id',
        'accountId',
        'status',
        'guid',
        'name',
        'description',
        'acceptedDate',
        'createdDate',
        'deliveredDate',
        'orderedDate',
        'reviewedDate',
        'realCost',
        'fileCount',
      ]);
    });

    it('gives every datetime in UTC with milliseconds, and null for unset dates', async () => {
      const answer = await search(operator, { pageSize: 100 });
      const utc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
      for (const job of answer.json.jobs) {
        expect(job.createdDate).toMatch(utc);
        for (const name of ['acceptedDate', 'deliveredDate', 'orderedDate', 'reviewedDate']) {
          if (job[name] !== null) expect(job[name]).toMatch(utc);
        }
      }
    });

    it('lists newest first, and jobs created at the same instant by descending id', async () => {
      expect(await idsFound(user, {})).toEqual(ordered(ACME_JOBS));
      expect(ordered([a4, a5])).toEqual([a5.id, a4.id]);
    });

    it('defaults to the first page of 20 of every status, searching Global', async () => {
      const answer = await search(operator, {});
      expect(answer.json.totalJobs).toBe(ALL.length);
      expect(answer.json.jobs.map((job: { id: number }) => job.id)).toEqual(ordered(ALL));
    });

    it('answers a page past the end with no jobs and the true totalJobs', async () => {
      const answer = await search(user, { page: 3, pageSize: 2 });
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ _type: 'SearchResponseBody', totalJobs: ACME_JOBS.length, jobs: [] });
    });

    it('serves the deepest allowed page, (page + 1) × pageSize = 10 000', async () => {
      const answer = await search(user, { page: 499, pageSize: 20 });
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ totalJobs: ACME_JOBS.length, jobs: [] });
    });
  });

  describe('who sees what', () => {
    it("never shows a user another account's job, even by its number or GUID", async () => {
      expect(await idsFound(user, {})).toEqual(ordered(ACME_JOBS));
      expect(await idsFound(user, { field: 'JobNumber', query: String(b1.id) })).toEqual([]);
      expect(await idsFound(user, { field: 'Guid', query: b1.guid })).toEqual([]);
      expect(await idsFound(user, { query: b1.guid })).toEqual([]);
    });

    it('shows an operator every account', async () => {
      expect(await idsFound(operator, {})).toEqual(ordered(ALL));
      expect(await idsFound(operator, { field: 'JobNumber', query: String(b1.id) })).toEqual([b1.id]);
    });
  });

  describe('search fields', () => {
    /** For each field: a query, and what it finds for a user of Acme and for an operator. */
    const cases: Record<string, Array<{ query: string; user?: Job[]; operator?: Job[] }>> = {
      JobName: [
        { query: 'spr cat', user: [a1], operator: [a1] },
        { query: 'spring', user: [a1], operator: [b1, a1] },
        { query: 'SPRING Catalogue', user: [a1], operator: [a1] },
        { query: 'catalogue spring', user: [a1], operator: [a1] },
        { query: 'pring', user: [], operator: [] },
        { query: 'spring zebra', user: [], operator: [] },
      ],
      FileName: [
        { query: 'test15', user: [a1], operator: [b1, a1] },
        { query: 'cem_test15.jpg', user: [a1], operator: [a1] },
        { query: 'cem', user: [a1], operator: [a1] },
        { query: 'shoe front', user: [a3], operator: [a3] },
      ],
      JobInstruction: [
        { query: 'cafe', user: [a1], operator: [b1, a1] },
        { query: 'CAFÉ MENU', user: [a1], operator: [a1] },
        { query: 'spring', user: [a2], operator: [a2] },
      ],
      JobTags: [
        { query: 'lookbook', user: [a1] },
        { query: 'catal', user: [a2] },
      ],
      FileTags: [
        { query: 'sneak', user: [a1] },
        { query: 'studio', user: [a3] },
      ],
      FileInstruction: [
        { query: 'spring', user: [a3], operator: [a3] },
        { query: 'shadow remove', user: [a1], operator: [a1] },
      ],
      InvoiceReference: [
        { query: 'inv', user: [a1], operator: [b1, a1] },
        { query: 'INV-7788', user: [a1], operator: [a1] },
        { query: 'po 1234', user: [a2], operator: [a2] },
      ],
      Guid: [
        { query: a1.guid, user: [a1], operator: [a1] },
        { query: a1.guid.toUpperCase(), user: [a1], operator: [a1] },
        { query: a1.guid.slice(0, 8), user: [], operator: [] },
        { query: b1.guid, user: [], operator: [b1] },
      ],
      JobNumber: [
        { query: String(a2.id), user: [a2], operator: [a2] },
        { query: String(b2.id), user: [], operator: [b2] },
        { query: 'abc', user: [], operator: [] },
        { query: `${a2.id}.5`, user: [], operator: [] },
      ],
      AccountNumber: [
        { query: String(BRIGHT), operator: BRIGHT_JOBS },
        { query: String(ACME), operator: ACME_JOBS },
        { query: 'acme', operator: [] },
      ],
      AccountName: [
        { query: 'brig med', operator: BRIGHT_JOBS },
        { query: 'acme', operator: ACME_JOBS },
      ],
    };

    for (const field of SEARCH_FIELDS.filter((candidate) => candidate.id !== 'Global')) {
      for (const role of ['user', 'operator'] as const) {
        const allowed = role === 'operator' ? !field.isUserOnly : !field.isOperatorOnly;
        if (allowed) {
          it(`lets a ${role} search ${field.id}`, async () => {
            const fieldCases = (cases[field.id] ?? []).filter((c) => c[role] !== undefined);
            expect(fieldCases.length).toBeGreaterThan(0);
            for (const c of fieldCases) {
              const found = await idsFound(callerOf(role), { field: field.id, query: c.query });
              expect(found, `${field.id} "${c.query}"`).toEqual(ordered(c[role]!));
            }
          });
        } else {
          it(`answers 400 invalid_parameter "field" to a ${role} searching ${field.id}`, async () => {
            for (const value of [field.id, field.name]) {
              const answer = await search(callerOf(role), { field: value, query: 'x' });
              expect(answer.status).toBe(400);
              expect(answer.json).toMatchObject({ code: 'invalid_parameter', parameter: 'field' });
            }
          });
        }
      }
    }

    it('accepts a field by its display name, in any case', async () => {
      expect(await idsFound(user, { field: 'job name', query: 'spring' })).toEqual([a1.id]);
      expect(await idsFound(user, { field: 'FILE NAME', query: 'test15' })).toEqual([a1.id]);
      expect(await idsFound(operator, { field: 'account number', query: String(BRIGHT) })).toEqual(
        ordered(BRIGHT_JOBS),
      );
    });

    it('treats search-engine syntax in the query as plain words', async () => {
      for (const query of ['"spr" cat*', 'spr^ (cat)', '{spr} [cat]', 'spr: cat~', '-spr +cat', "spr' cat"]) {
        expect(await idsFound(user, { field: 'JobName', query }), query).toEqual([a1.id]);
      }
      for (const query of ['spring OR zebra', 'spring NOT catalogue', 'NEAR(spring catalogue)', '*', '"']) {
        const answer = await search(user, { field: 'JobName', query });
        expect(answer.status, query).toBe(200);
      }
      expect(await idsFound(user, { field: 'JobName', query: 'spring OR zebra' })).toEqual([]);
      expect(await idsFound(user, { field: 'JobName', query: 'name:spring' })).toEqual([]);
    });

    it('treats a query of only punctuation or spaces as no text condition', async () => {
      expect(await idsFound(user, { field: 'JobName', query: '   ' })).toEqual(ordered(ACME_JOBS));
      expect(await idsFound(user, { field: 'JobName', query: '' })).toEqual(ordered(ACME_JOBS));
      expect(await idsFound(user, { field: 'JobName', query: '"*" -' })).toEqual(ordered(ACME_JOBS));
    });
  });

  describe('Global', () => {
    it("matches every word somewhere in the text fields of the user's role", async () => {
      expect(await idsFound(user, { query: 'spring' })).toEqual(ordered([a1, a2, a3]));
      expect(await idsFound(user, { query: 'lookbook' })).toEqual(ordered([a1, a3]));
      expect(await idsFound(user, { query: 'sneaker' })).toEqual([a1.id]);
    });

    it('lets the words of a query match in different fields', async () => {
      expect(await idsFound(user, { query: 'spring sneaker' })).toEqual([a1.id]);
      expect(await idsFound(user, { query: 'menu 7788 shadow' })).toEqual([a1.id]);
    });

    it("searches an operator's fields: account name but not the user-only tags", async () => {
      expect(await idsFound(operator, { query: 'acme' })).toEqual(ordered([...ACME_JOBS, b2]));
      expect(await idsFound(operator, { query: 'sneaker' })).toEqual([]);
      expect(await idsFound(operator, { query: 'lookbook' })).toEqual([a3.id]);
      expect(await idsFound(user, { query: 'acme' })).toEqual([]);
    });

    it('finds a job by its whole job number or GUID', async () => {
      expect(await idsFound(user, { query: String(a2.id) })).toEqual([a2.id]);
      expect(await idsFound(user, { query: a2.guid })).toEqual([a2.id]);
      expect(await idsFound(operator, { query: b2.guid.toUpperCase() })).toEqual([b2.id]);
    });

    it("finds an account's jobs by its account number for operators only", async () => {
      expect(await idsFound(operator, { query: String(BRIGHT) })).toEqual(ordered(BRIGHT_JOBS));
      expect(await idsFound(user, { query: String(ACME) })).toEqual([]);
    });
  });

  describe('filters', () => {
    it('keeps only the listed statuses', async () => {
      expect(await idsFound(user, { statuses: ['CJ_NEW'] })).toEqual([a1.id]);
      expect(await idsFound(user, { statuses: ['CJ_NEW', 'CJ_ACCEPT'] })).toEqual(ordered([a1, a2]));
      expect(await idsFound(user, { statuses: 'ERROR' })).toEqual(ordered([a4, a5]));
      expect(await idsFound(user, { statuses: ['CJ_ARCHIVED'] })).toEqual([]);
    });

    it('reads an empty status list as every status', async () => {
      expect(await idsFound(user, { statuses: [] })).toEqual(ordered(ACME_JOBS));
    });

    it('combines the text, status and date conditions', async () => {
      expect(await idsFound(user, { query: 'spring', statuses: ['CJ_ACCEPT', 'CJ_REQUEST_OFFER'] })).toEqual(
        ordered([a2, a3]),
      );
      expect(await idsFound(user, { query: 'spring', dateFrom: '2016-02-01' })).toEqual(ordered([a2, a3]));
    });

    it('keeps dateFrom ≤ createdDate < dateTo', async () => {
      expect(await idsFound(user, { dateFrom: a2.createdDate, dateTo: a3.createdDate })).toEqual([a2.id]);
      expect(await idsFound(user, { dateFrom: '2016-02-01T01:00:00+01:00', dateTo: '2016-03-01' })).toEqual([a2.id]);
      expect(await idsFound(user, { dateFrom: '2016-02-01T00:00:00.0000001Z' })).toEqual(ordered([a3, a4, a5]));
      expect(await idsFound(user, { dateTo: '2016-01-14T10:00:00.0000001Z' })).toEqual([a1.id]);
      expect(await idsFound(user, { dateTo: '2016-01-14T10:00:00Z' })).toEqual([]);
    });

    it('matches nothing when dateFrom equals dateTo', async () => {
      expect(await idsFound(user, { dateFrom: a2.createdDate, dateTo: a2.createdDate })).toEqual([]);
    });

    it('keeps deliveredDateFrom ≤ deliveredDate < deliveredDateTo, never matching undelivered jobs', async () => {
      expect(await idsFound(user, { deliveredDateFrom: '2016-01-01' })).toEqual(ordered([a1, a3]));
      expect(await idsFound(user, { deliveredDateTo: '2099-01-01' })).toEqual(ordered([a1, a3]));
      expect(await idsFound(user, { deliveredDateFrom: '2016-01-20', deliveredDateTo: '2016-03-05' })).toEqual([a1.id]);
      expect(await idsFound(user, { deliveredDateFrom: '2016-01-20T00:00:00.001Z' })).toEqual([a3.id]);
    });
  });

  describe('validation', () => {
    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['an unknown field', { field: 'Everything' }, 'field'],
      ['an empty field', { field: '' }, 'field'],
      ['a field that is not a string', { field: 20 }, 'field'],
      ['a query of 501 characters', { query: 'q'.repeat(501) }, 'query'],
      ['a query that is not a string', { query: 7788 }, 'query'],
      ['a negative page', { page: -1 }, 'page'],
      ['a fractional page', { page: 0.5 }, 'page'],
      ['a page as a JSON string', { page: '1' }, 'page'],
      ['a page beyond the 10 000th job', { page: 500, pageSize: 20 }, 'page'],
      ['a page beyond the 10 000th job at the default page size', { page: 500 }, 'page'],
      ['a page beyond the 10 000th job at pageSize 100', { page: 100, pageSize: 100 }, 'page'],
      ['pageSize 0', { pageSize: 0 }, 'pageSize'],
      ['pageSize 101', { pageSize: 101 }, 'pageSize'],
      ['an unknown status', { statuses: ['CJ_NEW', 'CJ_LOST'] }, 'statuses'],
      ['a status in lower case', { statuses: ['cj_new'] }, 'statuses'],
      ['statuses that are not strings', { statuses: [1, 2] }, 'statuses'],
      ['an impossible dateFrom', { dateFrom: '2016-02-30' }, 'dateFrom'],
      ['February 29th of a common year', { dateFrom: '2015-02-29' }, 'dateFrom'],
      ['hour 24', { dateTo: '2016-01-14T24:00:00Z' }, 'dateTo'],
      ['minute 60', { dateTo: '2016-01-14T10:60:00Z' }, 'dateTo'],
      ['a zoneless deliveredDateFrom', { deliveredDateFrom: '2016-01-14T10:00:00' }, 'deliveredDateFrom'],
      ['ten fractional digits', { deliveredDateTo: '2016-01-14T10:00:00.1234567890Z' }, 'deliveredDateTo'],
      ['dateFrom after dateTo', { dateFrom: '2016-02-01', dateTo: '2016-01-01' }, 'dateTo'],
      [
        'deliveredDateFrom after deliveredDateTo',
        { deliveredDateFrom: '2016-02-01T00:00:00.0000001Z', deliveredDateTo: '2016-02-01' },
        'deliveredDateTo',
      ],
      ['several invalid fields (the first in table order is named)', { page: -1, field: 'x', dateTo: 'y' }, 'field'],
    ];

    it.each(invalid)('answers 400 invalid_parameter for %s', async (_, body, parameter) => {
      const answer = await search(user, body);
      expect(answer.status).toBe(400);
      expect(answer.json).toEqual({
        code: 'invalid_parameter',
        message: expect.any(String),
        parameter,
        requestId: answer.headers.get('x-request-id'),
      });
    });

    it.each([
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['page=1&page=2', 'page'],
      ['pageSize=101', 'pageSize'],
      ['field=Nope', 'field'],
      ['field=', 'field'],
      ['statuses=CJ_NEW&statuses=NOPE', 'statuses'],
      ['statuses[]=NOPE', 'statuses'],
      ['statuses=', 'statuses'],
      ['dateFrom=2016-02-30', 'dateFrom'],
      ['dateFrom=2016-02-02&dateTo=2016-02-01', 'dateTo'],
      [`query=${'q'.repeat(501)}`, 'query'],
    ])('answers 400 invalid_parameter for the form body %s', async (body, parameter) => {
      const answer = await stack.request('/search', {
        tokens: user,
        body,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ code: 'invalid_parameter', parameter });
    });

    it('reads JSON null as an absent field', async () => {
      const answer = await search(user, {
        field: null,
        query: null,
        page: null,
        pageSize: null,
        statuses: null,
        dateFrom: null,
        dateTo: null,
        deliveredDateFrom: null,
        deliveredDateTo: null,
      });
      expect(answer.status).toBe(200);
      expect(answer.json.jobs.map((job: { id: number }) => job.id)).toEqual(ordered(ACME_JOBS));
    });

    it('ignores unknown fields', async () => {
      const answer = await search(user, { query: 'spring', sort: 'name', filters: { a: 1 }, Field: 'Nope' });
      expect(answer.status).toBe(200);
      expect(answer.json.totalJobs).toBe(3);
    });

    it('reads an empty body as {}', async () => {
      const answer = await stack.request('/search', { tokens: user, body: '' });
      expect(answer.status).toBe(200);
      expect(answer.json.totalJobs).toBe(ACME_JOBS.length);
    });

    it('answers 400 invalid_parameter "body" for a JSON body that is not an object', async () => {
      for (const body of ['null', '[]', '"spring"', '42']) {
        const answer = await stack.request('/search', { tokens: user, body });
        expect(answer.json, body).toMatchObject({ code: 'invalid_parameter', parameter: 'body' });
      }
    });
  });
});

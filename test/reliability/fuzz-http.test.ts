/**
 * Fuzzing the three endpoints through their deployed handler modules (real middy chain, DynamoDB
 * Local, embedded engine): whatever headers, content types and bodies a client sends, the answer is
 * never a 5xx, always the contract's answer shape, and a caller who may not change anything changes
 * nothing. Seeds are fixed, so a failure replays; `FUZZ_SEED` picks another seed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

import type { Job, JobStatus } from '../../functions/jobs/model/model';
import { makeFile, makeJob } from '../support/jobs';
import { expectSpecAnswer } from './support/answers';
import { ENDPOINTS, type Harness, startHarness, type Tokens, validHeaders } from './support/harness';

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_301);
const OWN_ACCOUNT = 41;
const OTHER_ACCOUNT = 42;

let harness: Harness;
let user: Tokens;
let searchOnly: Tokens;
let fileIds: number[];
let jobIds: number[];
let before: string;

/**
 * Jobs the fuzzing user (of OWN_ACCOUNT) can see but never reject (not in review, archived, or
 * accepted by the customer), and jobs of another account whose files are rejectable — by their owner,
 * not by this user. So no request of this user may change any item.
 */
const seedJobs = (): Job[] => {
  const own = (status: JobStatus, acceptedByUser = false): Job =>
    makeJob({
      accountId: OWN_ACCOUNT,
      status,
      name: `Spring catalogue ${status}`,
      files: [makeFile({ acceptedByUser }), makeFile({ acceptedByUser, fileName: 'cem_test15.jpg' })],
    });
  return [
    own('CJ_NEW'),
    own('CJ_WORK_PROGRESS'),
    own('CJ_ARCHIVED'),
    own('ERROR'),
    own('CJ_REVIEWING', true),
    makeJob({ accountId: OTHER_ACCOUNT, status: 'CJ_REVIEWING', files: [makeFile(), makeFile()] }),
    makeJob({ accountId: OTHER_ACCOUNT, status: 'CJ_FINISHED', files: [makeFile()] }),
  ];
};

beforeAll(async () => {
  harness = await startHarness();
  const jobs = seedJobs();
  await harness.seed(jobs);
  jobIds = jobs.map((job) => job.id);
  fileIds = jobs.flatMap((job) => job.files.map((file) => file.id));
  user = await harness.issue({ accountId: OWN_ACCOUNT });
  searchOnly = await harness.issue({ accountId: OWN_ACCOUNT, grants: ['search'] });
  before = await harness.snapshot();
}, 60_000);

afterAll(async () => {
  await harness?.close();
});

// ---------------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------------

const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ maxLength: 40 }),
);

const acceptValues = fc.oneof(
  { weight: 3, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    'application/json',
    'APPLICATION/JSON; charset=utf-8',
    'application/json;q=0',
    'application/json;q=0.001, text/html',
    '*/*',
    'application/*',
    'text/html, */*;q=0.8',
    '',
    '   ',
    'application/json;q=abc',
    'application/jsonx',
    'application/json;;;',
  ),
  anyText,
);

const contentTypeValues = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('application/json', 'application/x-www-form-urlencoded') },
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'Application/X-WWW-Form-URLencoded',
    'application/x-www-form-urlencoded; charset=latin1',
    'text/plain',
    'multipart/form-data; boundary=xyz',
    'application/json-patch+json',
    '',
    ';',
  ),
  anyText,
);

/** A token header: the real one, absent, blank, garbage, or another caller's. */
const tokenValue = (real: () => string, other: () => string) =>
  fc
    .oneof(
      { weight: 4, arbitrary: fc.constant('real') },
      fc.constant('absent'),
      fc.constantFrom('', ' ', '\t'),
      anyText,
      fc.constant('other'),
    )
    .map((choice) => (choice === 'real' ? real() : choice === 'other' ? other() : choice));

/** Form bodies: keys of either endpoint (with `[]` or not) and random ones, values raw or percent-encoded. */
const formBody = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(
          'field',
          'query',
          'page',
          'pageSize',
          'statuses',
          'statuses[]',
          'dateFrom',
          'dateTo',
          'deliveredDateFrom',
          'deliveredDateTo',
          'fileId',
          'fileId[]',
          'reason',
          'reason[]',
          'customRejection',
          'files',
        ),
        anyText,
      ),
      fc.oneof(
        anyText,
        fc.integer().map(String),
        fc.constantFrom('%', '%zz', '%E9', '%C3%A9', '+', '&', '=', 'CJ_NEW', '2016-02-30', '1e3'),
      ),
      fc.boolean(),
    ),
    { maxLength: 8 },
  )
  .map((pairs) =>
    pairs
      .map(([key, value, encode]) =>
        encode ? `${encodeURIComponent(key)}=${encodeURIComponent(value)}` : `${key}=${value}`,
      )
      .join('&'),
  );

const bodies = fc.oneof(
  fc.constant(null),
  fc.constant(''),
  fc.json({ maxDepth: 3 }),
  anyText,
  formBody,
  fc.constantFrom('{', '{"query": }', '[1,2', 'null', '[]', '"x"', '42', 'true', '{"files":null}', '\u0000'),
);

const headerNames = fc.constantFrom(
  'Accept',
  'accept',
  'ACCEPT',
  'Content-Type',
  'content-type',
  'X-Client-Token',
  'x-session-token',
);

// ---------------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------------

describe('fuzzing every endpoint', () => {
  it('answers arbitrary methods, headers, content types and bodies with the contract answer, never a 5xx, and changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ENDPOINTS.map((endpoint) => endpoint.path)),
        fc.oneof(
          { weight: 6, arbitrary: fc.constant('route') },
          fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'post', 'TRACE'),
        ),
        fc.option(acceptValues, { nil: undefined, freq: 5 }),
        fc.option(contentTypeValues, { nil: undefined, freq: 5 }),
        tokenValue(
          () => user.clientToken,
          () => searchOnly.clientToken,
        ),
        tokenValue(
          () => user.sessionToken,
          () => searchOnly.sessionToken,
        ),
        fc.dictionary(fc.oneof(headerNames, fc.string({ minLength: 1, maxLength: 12 })), anyText, { maxKeys: 3 }),
        bodies,
        fc.boolean(),
        async (path, methodChoice, accept, contentType, clientToken, sessionToken, extra, body, base64) => {
          const routeMethod = ENDPOINTS.find((endpoint) => endpoint.path === path)!.method;
          const method = methodChoice === 'route' ? routeMethod : methodChoice;
          const headers: Record<string, string | string[]> = { ...extra };
          if (accept !== undefined) headers.Accept = accept;
          if (contentType !== undefined) headers['Content-Type'] = contentType;
          if (clientToken !== 'absent') headers['X-Client-Token'] = clientToken;
          if (sessionToken !== 'absent') headers['X-Session-Token'] = sessionToken;
          const encoded = base64 && typeof body === 'string';
          const answer = await harness.invoke(path, {
            method,
            headers,
            body: encoded ? Buffer.from(body as string).toString('base64') : body,
            isBase64Encoded: encoded,
          });
          expectSpecAnswer(answer);
        },
      ),
      { seed: SEED, numRuns: 400 },
    );
    expect(await harness.snapshot()).toBe(before);
  });

  it('answers any body text under valid headers by 200 or 400 invalid_json / invalid_parameter, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/search' as const, '/reject' as const),
        fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8'),
        fc.oneof(
          bodies,
          fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
        ),
        fc.boolean(),
        async (path, contentType, body, base64) => {
          const encoded = base64 && typeof body === 'string';
          const answer = await harness.invoke(path, {
            headers: { ...validHeaders(user), 'Content-Type': contentType },
            body: encoded ? Buffer.from(body as string, 'latin1').toString('base64') : body,
            isBase64Encoded: encoded,
          });
          const code = expectSpecAnswer(answer);
          const allowed = [
            undefined,
            'invalid_json',
            'invalid_parameter',
            'file_not_found',
            'file_not_rejectable',
            'job_archived',
          ];
          expect(allowed, answer.body).toContain(code);
        },
      ),
      { seed: SEED + 2, numRuns: 300 },
    );
    expect(await harness.snapshot()).toBe(before);
  });

  it('answers arbitrary JSON and form bodies with valid headers by 200 or a 4xx naming the parameter, never a 5xx', async () => {
    const searchFields = fc.record(
      {
        field: fc.oneof(
          fc.constantFrom('Global', 'jobname', 'File name', 'AccountNumber', 'Guid', 'JobNumber'),
          anyText,
          fc.jsonValue(),
        ),
        query: fc.oneof(anyText, fc.jsonValue(), fc.string({ minLength: 495, maxLength: 505 })),
        page: fc.oneof(fc.integer({ min: -2, max: 10_001 }), fc.double(), fc.jsonValue()),
        pageSize: fc.oneof(fc.integer({ min: -1, max: 102 }), fc.jsonValue()),
        statuses: fc.oneof(fc.array(fc.constantFrom('CJ_NEW', 'CJ_ARCHIVED', 'ERROR', 'cj_new', '')), fc.jsonValue()),
        dateFrom: fc.oneof(
          fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
          anyText,
          fc.jsonValue(),
        ),
        dateTo: fc.oneof(fc.constantFrom('2016-02-30', '2016-01-14', '2016-01-14T10:00:00+01:00'), anyText),
        deliveredDateFrom: fc.oneof(fc.constantFrom('2016-01-14T14:57:33.8931021+01:00'), anyText),
        deliveredDateTo: anyText,
      },
      { requiredKeys: [] },
    );
    const fileId = fc.oneof(
      fc.constantFrom(...fileIds),
      fc.integer(),
      fc.jsonValue(),
      fc.constantFrom(...jobIds).map(String),
    );
    const rejectFields = fc.record(
      {
        files: fc.oneof(
          fc.array(
            fc.record(
              {
                fileId,
                customRejection: fc.oneof(anyText, fc.jsonValue(), fc.string({ minLength: 995, maxLength: 1005 })),
                rejects: fc.oneof(
                  fc.array(
                    fc.record(
                      {
                        reason: fc.oneof(anyText, fc.jsonValue()),
                        positions: fc.oneof(
                          fc.array(
                            fc.record({
                              xPercent: fc.oneof(fc.double(), fc.jsonValue()),
                              yPercent: fc.oneof(fc.double({ min: 0, max: 1 }), fc.jsonValue()),
                            }),
                            { maxLength: 3 },
                          ),
                          fc.jsonValue(),
                        ),
                      },
                      { requiredKeys: [] },
                    ),
                    { maxLength: 3 },
                  ),
                  fc.jsonValue(),
                ),
              },
              { requiredKeys: [] },
            ),
            { maxLength: 4 },
          ),
          fc.jsonValue(),
        ),
      },
      { requiredKeys: [] },
    );
    const asForm = (fields: Record<string, unknown>): string => {
      const form = new URLSearchParams();
      for (const [key, value] of Object.entries(fields)) {
        if (Array.isArray(value))
          for (const item of value) form.append(key, typeof item === 'string' ? item : JSON.stringify(item));
        else form.append(key, typeof value === 'string' ? value : JSON.stringify(value));
      }
      return form.toString();
    };
    const flatReject = fc.record(
      {
        fileId: fc.array(fileId.map(String), { maxLength: 4 }),
        reason: fc.array(anyText, { maxLength: 3 }),
        customRejection: anyText,
      },
      { requiredKeys: [] },
    );

    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          searchFields.map((fields) => ({ path: '/search' as const, fields })),
          rejectFields.map((fields) => ({ path: '/reject' as const, fields })),
          flatReject.map((fields) => ({ path: '/reject' as const, fields })),
        ),
        fc.boolean(),
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 2 }),
        async ({ path, fields }, form, unknown) => {
          const all = { ...unknown, ...fields };
          const answer = await harness.invoke(path, {
            headers: {
              ...validHeaders(user),
              'Content-Type': form ? 'application/x-www-form-urlencoded' : 'application/json',
            },
            body: form ? asForm(all) : JSON.stringify(all),
          });
          const code = expectSpecAnswer(answer);
          const allowed =
            path === '/search'
              ? [undefined, 'invalid_parameter', 'invalid_json']
              : [
                  undefined,
                  'invalid_parameter',
                  'invalid_json',
                  'file_not_found',
                  'file_not_rejectable',
                  'job_archived',
                ];
          expect(allowed, answer.body).toContain(code);
          if (path === '/reject') expect(code, 'this user can reject nothing').not.toBeUndefined();
        },
      ),
      { seed: SEED + 1, numRuns: 300 },
    );
    expect(await harness.snapshot()).toBe(before);
  });
});

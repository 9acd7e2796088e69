/**
 * Who may do what: every kind of caller (user, operator, other account's user, search-only and
 * reject-only clients, expired, revoked and disabled credentials, a session shown with another
 * client's token, unknown tokens) against every endpoint, through the deployed handler modules on
 * DynamoDB Local; and a property test that no user ever sees or changes another account's job or file,
 * whatever it searches for or names.
 *
 * The auth cache is off here (`AUTH_CACHE_TTL_MS=0`), so a revocation counts at once; its 60 s bound
 * is tested in test/unit/auth/authenticate.test.ts.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

import { type Job, type JobStatus, REVIEWABLE_STATUSES } from '../../functions/jobs/model/model';
import { makeFile, makeJob } from '../support/jobs';
import { expectSpecAnswer } from './support/answers';
import {
  type Answer,
  type EndpointPath,
  type Harness,
  startHarness,
  type Tokens,
  validHeaders,
} from './support/harness';

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_302);
const ACCOUNT = 501;
const OTHER = 502;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ AUTH_CACHE_TTL_MS: '0' });
}, 60_000);

afterAll(async () => {
  await harness?.close();
});

const call = (path: EndpointPath, tokens: Tokens, body?: unknown): Promise<Answer> => {
  const method = path === '/search/fields' ? 'GET' : 'POST';
  return harness.invoke(path, {
    method,
    headers: validHeaders(tokens, method),
    body: body === undefined ? null : JSON.stringify(body),
  });
};

describe('the authorization matrix', () => {
  type Outcome = 200 | 'forbidden' | 'invalid_client' | 'invalid_session' | 'file_not_found';
  type Caller =
    | 'user'
    | 'operator'
    | "another account's user"
    | 'a user of account 0'
    | 'search-only client'
    | 'reject-only client'
    | 'expired session'
    | 'revoked session'
    | 'disabled client'
    | "another client's session"
    | 'unknown client token'
    | 'unknown session token';

  /** Expected outcome per caller: GET /search/fields, POST /search, POST /reject (a file of ACCOUNT in review). */
  const MATRIX: Record<Caller, [Outcome, Outcome, Outcome]> = {
    user: [200, 200, 200],
    operator: [200, 200, 200],
    "another account's user": [200, 200, 'file_not_found'],
    // Account 0 is an account like any other, not "no account": its user sees nothing of ACCOUNT.
    'a user of account 0': [200, 200, 'file_not_found'],
    'search-only client': [200, 200, 'forbidden'],
    'reject-only client': ['forbidden', 'forbidden', 200],
    'expired session': ['invalid_session', 'invalid_session', 'invalid_session'],
    'revoked session': ['invalid_session', 'invalid_session', 'invalid_session'],
    'disabled client': ['invalid_client', 'invalid_client', 'invalid_client'],
    "another client's session": ['invalid_session', 'invalid_session', 'invalid_session'],
    'unknown client token': ['invalid_client', 'invalid_client', 'invalid_client'],
    'unknown session token': ['invalid_session', 'invalid_session', 'invalid_session'],
  };

  const callers = {} as Record<Caller, Tokens>;
  let job: Job;

  beforeAll(async () => {
    job = makeJob({ accountId: ACCOUNT, status: 'CJ_REVIEWING', name: 'Matrix job', files: [makeFile()] });
    await harness.seed([job]);
    callers.user = await harness.issue({ accountId: ACCOUNT });
    callers.operator = await harness.issue({ accountId: 1, role: 'operator' });
    callers["another account's user"] = await harness.issue({ accountId: OTHER });
    callers['a user of account 0'] = await harness.issue({ accountId: 0 });
    callers['search-only client'] = await harness.issue({ accountId: ACCOUNT, grants: ['search'] });
    callers['reject-only client'] = await harness.issue({ accountId: ACCOUNT, grants: ['reject'] });
    callers['expired session'] = await harness.issue({ accountId: ACCOUNT, ttlSeconds: 1 });
    callers['revoked session'] = await harness.issue({ accountId: ACCOUNT });
    const revoked = callers['revoked session'];
    await harness.admin.revokeSessions(
      revoked.clientId ?? '',
      { sessionId: revoked.sessionId ?? '' },
      { via: 'cli', who: 'os-user:test' },
    );
    callers['disabled client'] = await harness.issue({ accountId: ACCOUNT });
    await harness.admin.setClientEnabled(callers['disabled client'].clientId ?? '', false, {
      via: 'cli',
      who: 'os-user:test',
    });
    const mine = await harness.issue({ accountId: ACCOUNT });
    const theirs = await harness.issue({ accountId: ACCOUNT });
    callers["another client's session"] = { clientToken: mine.clientToken, sessionToken: theirs.sessionToken };
    callers['unknown client token'] = { ...callers.user, clientToken: 'A'.repeat(43) };
    callers['unknown session token'] = { ...callers.user, sessionToken: 'B'.repeat(43) };
    // The file is rejected once up front, so every later 200 on /reject is a repeat that changes nothing
    // and every case can compare the table with one baseline.
    const first = await call('/reject', callers.user, rejectBody());
    expect(first.status).toBe(200);
    baseline = await harness.snapshot();
    // The one-second session has expired once its expiry instant is in the past.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
  }, 60_000);

  let baseline: string;
  const rejectBody = () => ({ files: [{ fileId: job.files[0]!.id, customRejection: 'Matrix rejection' }] });

  const cases = Object.entries(MATRIX).flatMap(([caller, outcomes]) =>
    (['/search/fields', '/search', '/reject'] as const).map(
      (path, column) => [caller as Caller, path, outcomes[column] as Outcome] as const,
    ),
  );

  it.each(cases)('%s on %s: %s', async (caller, path, outcome) => {
    const body = path === '/reject' ? rejectBody() : path === '/search' ? { query: String(job.id) } : undefined;
    const answer = await call(path, callers[caller], body);
    expectSpecAnswer(answer);
    if (outcome === 200) {
      expect(answer.status, answer.body).toBe(200);
      if (path === '/search') {
        const visible = caller === "another account's user" || caller === 'a user of account 0' ? 0 : 1;
        expect(answer.json.totalJobs).toBe(visible);
      }
      return;
    }
    expect(answer.json.code, answer.body).toBe(outcome);
    if (path === '/reject') expect(await harness.snapshot()).toBe(baseline);
  });
});

describe('isolation between accounts', () => {
  // Account 0 among them: the smallest account id, and the one a truthiness test would take for "none".
  const ACCOUNTS = [0, 602, 603];
  const users = new Map<number, Tokens>();
  let jobs: Job[];
  let fileOwner: Map<number, number>;
  let operator: Tokens;

  beforeAll(async () => {
    const statuses: JobStatus[] = ['CJ_REVIEWING', 'CJ_FINISHED', 'CJ_REJECT_READY', 'CJ_NEW', 'CJ_ARCHIVED'];
    jobs = ACCOUNTS.flatMap((accountId, a) =>
      statuses.map((status, s) =>
        makeJob({
          accountId,
          status,
          name: `Shared words ${['alpha', 'beta', 'gamma'][a]} ${s}`,
          description: 'common instruction',
          files: [makeFile({ fileName: `shared_${s}.jpg` }), makeFile({ fileName: `shared_${s}b.jpg` })],
        }),
      ),
    );
    await harness.seed(jobs);
    fileOwner = new Map(jobs.flatMap((job) => job.files.map((file) => [file.id, job.accountId] as const)));
    for (const accountId of ACCOUNTS) users.set(accountId, await harness.issue({ accountId }));
    operator = await harness.issue({ accountId: 1, role: 'operator' });
  }, 60_000);

  it('never shows a user, nor lets it change, a job or file of another account', async () => {
    // Built here: the jobs exist only once beforeAll has run.
    const anyJob = () => fc.constantFrom(...jobs);
    const searchAction = fc.record({
      kind: fc.constant('search' as const),
      account: fc.constantFrom(...ACCOUNTS),
      field: fc.constantFrom('Global', 'JobNumber', 'Guid', 'JobName', 'FileName', 'JobInstruction'),
      query: fc.oneof(
        anyJob().map((job) => String(job.id)),
        anyJob().map((job) => job.guid),
        anyJob().map((job) => job.guid.toUpperCase()),
        anyJob().map((job) => job.name),
        fc.constantFrom('shared', 'common', 'alpha', 'beta', 'gamma', ''),
      ),
      statuses: fc.option(fc.subarray(['CJ_REVIEWING', 'CJ_NEW', 'CJ_ARCHIVED']), { nil: undefined }),
    });
    const rejectAction = fc.record({
      kind: fc.constant('reject' as const),
      account: fc.constantFrom(...ACCOUNTS),
      fileIds: fc.uniqueArray(
        fc.oneof(
          { weight: 5, arbitrary: fc.constantFrom(...Array.from({ length: 30 }, (_, i) => i)) },
          fc.integer({ min: 9_000_000, max: 9_000_100 }),
        ),
        { minLength: 1, maxLength: 3 },
      ),
      reason: fc.constantFrom('Cropping', 'Colour', 'Shadow'),
    });
    const allFileIds = jobs.flatMap((job) => job.files.map((file) => file.id));
    const owned = (accountId: number, fileId: number) => fileOwner.get(fileId) === accountId;
    const statusOf = new Map(jobs.flatMap((job) => job.files.map((file) => [file.id, job.status] as const)));
    /** docs/contract.md §5: the first file of the request, in order, that the caller may not reject. */
    const firstRefusal = (accountId: number, fileIds: number[]) => {
      for (const fileId of fileIds) {
        if (!owned(accountId, fileId)) return { code: 'file_not_found', fileId };
        const status = statusOf.get(fileId)!;
        if (status === 'CJ_ARCHIVED') return { code: 'job_archived', fileId };
        if (!REVIEWABLE_STATUSES.includes(status)) return { code: 'file_not_rejectable', fileId };
      }
      return undefined;
    };
    /** Files some user rejected successfully, by account: the only files that may change. */
    const changedBy = new Map<number, number>();
    const filesBefore = JSON.parse(await harness.snapshot()) as Array<{ job: Job }>;

    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(searchAction, rejectAction), { minLength: 1, maxLength: 5 }),
        async (actions) => {
          for (const action of actions) {
            const tokens = users.get(action.account)!;
            if (action.kind === 'search') {
              const answer = await call('/search', tokens, {
                field: action.field,
                query: action.query,
                pageSize: 100,
                ...(action.statuses === undefined ? {} : { statuses: action.statuses }),
              });
              expect(answer.status, answer.body).toBe(200);
              for (const found of answer.json.jobs) expect(found.accountId).toBe(action.account);
              continue;
            }
            const fileIds = action.fileIds.map((position) =>
              position < 30 ? allFileIds[position % allFileIds.length]! : position,
            );
            const answer = await call('/reject', tokens, {
              files: fileIds.map((fileId) => ({ fileId, rejects: [{ reason: action.reason, positions: [] }] })),
            });
            expectSpecAnswer(answer);
            const refusal = firstRefusal(action.account, fileIds);
            if (refusal === undefined) {
              expect(answer.status, answer.body).toBe(200);
              for (const file of answer.json.files) expect(owned(action.account, file.fileId)).toBe(true);
              for (const fileId of fileIds) changedBy.set(fileId, action.account);
              continue;
            }
            expect(answer.json, answer.body).toMatchObject(refusal);
            if (refusal.code === 'file_not_found' && fileOwner.has(refusal.fileId)) {
              // Another account's file is answered exactly as one that does not exist.
              const missing = await call('/reject', tokens, {
                files: [{ fileId: refusal.fileId + 100_000_000, rejects: [{ reason: action.reason, positions: [] }] }],
              });
              const { requestId: _a, fileId: _b, ...hidden } = answer.json;
              const { requestId: _c, fileId: _d, ...absent } = missing.json;
              expect(hidden).toEqual(absent);
              expect(answer.status).toBe(missing.status);
            }
          }
        },
      ),
      { seed: SEED, numRuns: 40 },
    );

    const filesAfter = JSON.parse(await harness.snapshot()) as Array<{ job: Job }>;
    const byFile = (stored: Array<{ job: Job }>) =>
      new Map(stored.flatMap(({ job }) => job.files.map((file) => [file.id, JSON.stringify(file)] as const)));
    const before = byFile(filesBefore);
    for (const [fileId, after] of byFile(filesAfter)) {
      if (after === before.get(fileId)) continue;
      expect(changedBy.get(fileId), `file ${fileId} changed`).toBe(fileOwner.get(fileId));
    }
    const operatorView = await call('/search', operator, { query: 'shared', pageSize: 100 });
    expect(operatorView.json.totalJobs).toBe(jobs.length);
  });
});

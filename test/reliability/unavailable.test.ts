/**
 * Dependencies failing at request time, in every way a network dependency fails: DynamoDB (auth and
 * jobs tables) and the OpenSearch engine behind a proxy that hangs, throttles, answers 429 or 500, or
 * drops the connection. Every endpoint must answer `503 service_unavailable` with `Retry-After` and
 * the contract body — never a 500, never an internal detail, and never later than 10 s (docs/contract.md §1).
 *
 * Two mechanisms bound the answer: each dependency call has a time budget (`DEPENDENCY_TIMEOUT_MS`,
 * 2 s deployed) after which it fails as unavailable, and where a call outlives its budget anyway (the
 * AWS SDK only warns when a DynamoDB request passes its `requestTimeout`), middy answers the early
 * timeout just before the Lambda's deadline (9 s deployed, `API_FUNCTION_TIMEOUT` in lib/), which the error
 * formatter turns into a 503. The tests run both with small budgets (1 s per call, 4 s per invocation)
 * so the suite stays quick; the deployed values only scale them.
 *
 * (`test/e2e/http-unavailable.test.ts` covers DynamoDB Local killed outright, over HTTP.)
 */
import { sharedDynamodbEndpoint } from '../support/dynamo';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

import { makeFile, makeJob } from '../support/jobs';
import { expectSpecAnswer } from './support/answers';
import { type FaultMode, type FaultProxy, startFaultProxy } from './support/fault-proxy';
import {
  type Answer,
  type EndpointPath,
  type Harness,
  startHarness,
  type Tokens,
  validHeaders,
} from './support/harness';

/** The Lambda's time budget in these tests (9 s deployed). */
const INVOCATION_BUDGET_MS = 4_000;

/** The time budget of one dependency call in these tests (2 s deployed). */
const DEPENDENCY_TIMEOUT_MS = '1000';

/** Slack for this test process's own event loop on a loaded machine (not the handler's). */
const SCHEDULING_SLACK_MS = 1_000;

/** No answer may come later than the invocation's deadline. */
const ANSWER_WITHIN_MS = INVOCATION_BUDGET_MS + SCHEDULING_SLACK_MS;

class NoAnswerError extends Error {
  public constructor(path: string) {
    super(`${path} gave no answer within ${ANSWER_WITHIN_MS} ms`);
    this.name = 'NoAnswerError';
  }
}

/** The answer, or a failure if none came within the contract's bound. */
const within = async (path: string, pending: Promise<Answer>): Promise<Answer> => {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswerError(path)), ANSWER_WITHIN_MS);
  });
  try {
    return await Promise.race([pending, deadline]);
  } finally {
    clearTimeout(timer);
  }
};

const expectUnavailable = (answer: Answer): void => {
  expect(answer.status, answer.body).toBe(503);
  expect(answer.json.code).toBe('service_unavailable');
  expect(answer.headers['Retry-After']).toMatch(/^[1-9]\d*$/);
  expectSpecAnswer(answer, { allow5xx: true });
};

const REQUESTS: Array<{ path: EndpointPath; method: string; body?: (fileId: number) => string }> = [
  { path: '/search/fields', method: 'GET' },
  { path: '/search', method: 'POST', body: () => '{"query":"spring"}' },
  { path: '/reject', method: 'POST', body: (fileId) => JSON.stringify({ files: [{ fileId, customRejection: 'x' }] }) },
];

describe('DynamoDB failing at request time', () => {
  let proxy: FaultProxy;
  let harness: Harness;
  let fileId: number;

  beforeAll(async () => {
    proxy = await startFaultProxy(sharedDynamodbEndpoint());
    harness = await startHarness({ DYNAMODB_ENDPOINT: proxy.url, DEPENDENCY_TIMEOUT_MS });
    const job = makeJob({ accountId: 7, status: 'CJ_REVIEWING', files: [makeFile()] });
    await harness.seed([job]);
    fileId = job.files[0]!.id;
  }, 60_000);

  afterAll(async () => {
    proxy.mode = 'pass';
    await harness?.close();
    await proxy?.close();
  });

  const send = (tokens: Tokens, request: (typeof REQUESTS)[number]): Promise<Answer> =>
    within(
      request.path,
      harness.invoke(request.path, {
        method: request.method,
        headers: validHeaders(tokens, request.method),
        body: request.body?.(fileId) ?? null,
        remainingTimeMs: INVOCATION_BUDGET_MS,
      }),
    );

  it.each<FaultMode>(['hang', 'throttle', 'error500', 'reset'])(
    'answers 503 with Retry-After on every endpoint when DynamoDB does %s while authenticating',
    async (mode) => {
      proxy.mode = 'pass';
      const tokens = await harness.issue({ accountId: 7 });
      proxy.mode = mode;
      const answers = await Promise.all(REQUESTS.map((request) => send(tokens, request)));
      for (const answer of answers) expectUnavailable(answer);
      expect(proxy.received[mode]).toBeGreaterThan(0);
    },
    30_000,
  );

  it.each<FaultMode>(['hang', 'throttle', 'error500', 'reset'])(
    'answers 503 to /reject when the jobs table does %s after the caller was authenticated',
    async (mode) => {
      proxy.mode = 'pass';
      const tokens = await harness.issue({ accountId: 7 });
      const warm = await send(tokens, REQUESTS[0]!);
      expect(warm.status).toBe(200);
      const before = proxy.received[mode];
      proxy.mode = mode;
      const answer = await send(tokens, REQUESTS[2]!);
      expectUnavailable(answer);
      expect(proxy.received[mode]).toBeGreaterThan(before);
      proxy.mode = 'pass';
      expect(await harness.snapshot()).toContain('"isRejected":false');
    },
    30_000,
  );

  it('answers normally again once DynamoDB is back', async () => {
    proxy.mode = 'pass';
    const tokens = await harness.issue({ accountId: 7 });
    const answers = await Promise.all(REQUESTS.map((request) => send(tokens, request)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
  });
});

describe('the OpenSearch engine failing at request time', () => {
  let proxy: FaultProxy;
  let harness: Harness;
  let tokens: Tokens;

  beforeAll(async () => {
    proxy = await startFaultProxy();
    harness = await startHarness({ SEARCH_ENGINE: 'opensearch', OPENSEARCH_URL: proxy.url, DEPENDENCY_TIMEOUT_MS });
    tokens = await harness.issue({ accountId: 7 });
  }, 60_000);

  afterAll(async () => {
    await harness?.close();
    await proxy?.close();
  });

  it.each<FaultMode>(['hang', 'tooManyRequests', 'error500', 'reset'])(
    'answers 503 with Retry-After to /search when the engine does %s, and still lists the fields',
    async (mode) => {
      proxy.mode = mode;
      const [search, fields] = await Promise.all([
        within(
          '/search',
          harness.invoke('/search', {
            headers: validHeaders(tokens),
            body: '{"query":"spring"}',
            remainingTimeMs: INVOCATION_BUDGET_MS,
          }),
        ),
        within(
          '/search/fields',
          harness.invoke('/search/fields', {
            method: 'GET',
            headers: validHeaders(tokens, 'GET'),
            remainingTimeMs: INVOCATION_BUDGET_MS,
          }),
        ),
      ]);
      expectUnavailable(search);
      expect(proxy.received[mode]).toBeGreaterThan(0);
      expect(fields.status).toBe(200);
    },
    30_000,
  );
});

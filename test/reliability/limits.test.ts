/**
 * Limits that protect the service, checked where they bite:
 *
 * - the largest reject the contract allows (50 files, each in its own job, some of them repeats) fits in
 *   one DynamoDB transaction (at most 100 items) and succeeds whole; one file more is refused before
 *   anything is read;
 * - over HTTP, headers far beyond Node's limit get the contract error body instead of a dropped connection,
 *   answers never name the software behind them, and the server keeps serving afterwards.
 *
 * (Body size, query length, page depth and the per-field limits are covered in test/e2e and
 * test/unit/jobs/reject-request.test.ts.)
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

import { makeFile, makeJob } from '../support/jobs';
import { startTestStack, type TestStack } from '../support/local-stack';
import { expectSpecAnswer } from './support/answers';
import { type Harness, startHarness, type Tokens, validHeaders } from './support/harness';

/** docs/contract.md §5: 1–50 files per reject. */
const MAX_FILES = 50;

describe('the largest reject', () => {
  let harness: Harness;
  let user: Tokens;

  beforeAll(async () => {
    // A transaction of 100 items on the worker's shared DynamoDB Local, busy with the other worker's files: this
    // tests what fits in one request, not how fast it is, so a request may take a minute (a local endpoint allows
    // up to 120 s).
    harness = await startHarness({ DEPENDENCY_TIMEOUT_MS: '60000' });
    user = await harness.issue({ accountId: 909 });
  }, 60_000);

  afterAll(async () => {
    await harness?.close();
  });

  it(`rejects ${MAX_FILES} files of ${MAX_FILES} jobs, some repeats, in one go`, async () => {
    const jobs = Array.from({ length: MAX_FILES }, () =>
      makeJob({ accountId: 909, status: 'CJ_REVIEWING', files: [makeFile()] }),
    );
    await harness.seed(jobs);
    const files = jobs.map((job) => ({ fileId: job.files[0]!.id, customRejection: 'Too dark' }));
    const repeated = files.slice(0, 20);
    const first = await harness.invoke('/reject', {
      headers: validHeaders(user),
      body: JSON.stringify({ files: repeated }),
    });
    expect(first.status, first.body).toBe(200);

    const answer = await harness.invoke('/reject', { headers: validHeaders(user), body: JSON.stringify({ files }) });

    expect(answer.status, answer.body).toBe(200);
    expect(answer.json.files).toHaveLength(MAX_FILES);
    expect(answer.json.jobs.map((job: { status: string }) => job.status)).toEqual(
      Array(MAX_FILES).fill('CJ_REJECT_READY'),
    );
    for (const job of jobs) {
      const stored = (await harness.repository.getJob(job.id))!;
      expect(stored.job.files[0]!.isRejected).toBe(true);
      expect(stored.job.files[0]!.previousReviews).toEqual([]);
    }
  });

  it(`refuses ${MAX_FILES + 1} files with invalid_parameter "files", reading and writing nothing`, async () => {
    const before = await harness.snapshot();
    const files = Array.from({ length: MAX_FILES + 1 }, (_, index) => ({
      fileId: index + 1,
      customRejection: 'x',
    }));
    const answer = await harness.invoke('/reject', { headers: validHeaders(user), body: JSON.stringify({ files }) });
    expectSpecAnswer(answer);
    expect(answer.json).toMatchObject({ code: 'invalid_parameter', parameter: 'files' });
    expect(await harness.snapshot()).toBe(before);
  });
});

describe('HTTP framing limits', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  /** Sends one raw request (fetch refuses oversized headers itself) and reads the answer. */
  const raw = (headers: Record<string, string>) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
      (resolve, reject) => {
        const url = new URL('/search', stack.baseUrl);
        const request = httpRequest(
          { host: url.hostname, port: url.port, method: 'POST', path: url.pathname, headers },
          (response) => {
            let body = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              body += chunk;
            });
            response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
          },
        );
        request.on('error', reject);
        request.end('{}');
      },
    );

  it('answers headers beyond the server limit with the contract error body, then keeps serving', async () => {
    const answer = await raw({
      Accept: 'application/json',
      'Content-Type': 'application/json',
      'X-Padding': 'p'.repeat(64 * 1024),
    });
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('no-store');
    const body = JSON.parse(answer.body);
    expect(body).toMatchObject({ code: 'invalid_parameter', message: expect.any(String) });
    expect(body.requestId).toBe(answer.headers['x-request-id']);

    const next = await stack.request('/search', { body: {} });
    expect(next.status).toBe(200);
  });

  it('never names the software behind it in an answer', async () => {
    const answers = [
      await stack.request('/search', { body: {} }),
      await stack.request('/search/fields', { method: 'GET' }),
      await stack.request('/nowhere', { body: {} }),
      await stack.request('/search', { body: '{' }),
    ];
    for (const answer of answers) {
      expect(answer.headers.get('x-powered-by')).toBeNull();
      expect(answer.headers.get('server')).toBeNull();
      expect(answer.text).not.toMatch(/node|express|middy|jetty|sqlite/i);
    }
  });
});

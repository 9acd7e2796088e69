/**
 * A job's whole life over real HTTP, as the README tells it: a customer creates a job and asks for an offer,
 * staff accept it, mark it paid and start the work, deliver the edited files, the customer accepts one and
 * rejects the other, staff deliver the reworked file again and the customer accepts it, and the job is
 * `CJ_FINISHED`. After every step the job read back says the new status at once, and search says it once the
 * change has reached the index (the indexing delay), so each status of the loop is seen by both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../../functions/aws/dynamodb';
import { type IssuedTokens, ok, startTestStack, type TestResponse, type TestStack } from '../support/local-stack';
import { readyEdits, readyOriginals } from '../support/pictures';

let stack: TestStack;
let customer: IssuedTokens;
let staff: IssuedTokens;

beforeAll(async () => {
  stack = await startTestStack();
  customer = await stack.issue({ grants: ['search', 'reject', 'jobs'] });
  staff = await stack.issue({ grants: ['search', 'reject', 'jobs'], role: 'operator', accountId: 1 });
});

afterAll(async () => {
  await stack?.stop();
});

describe('the review loop of one job, end to end', () => {
  it('goes from CJ_NEW to CJ_FINISHED, each status read back at once and found by search after the delay', async () => {
    const created = ok(
      await stack.request('/jobs', {
        tokens: customer,
        headers: { 'Idempotency-Key': 'loop-order-1' },
        body: {
          name: 'Spring catalogue',
          description: 'White background, keep the shadows',
          files: [
            { fileName: 'shoe_front.jpg', remarkToProcessor: 'Remove the price tag' },
            { fileName: 'shoe_side.jpg' },
          ],
        },
      }),
      201,
    ).json as { job: { id: number; version: number }; files: Array<{ id: number }> };
    const jobId = created.job.id;
    const [front, side] = created.files.map((file) => file.id) as [number, number];
    let etag = `"${created.job.version}"`;

    /** The job as GET answers it, checked to carry the status a step just set. */
    const readBack = async (status: string) => {
      const answer = ok(await stack.request(`/jobs/${jobId}`, { method: 'GET', tokens: customer }));
      expect(answer.json.job.status).toBe(status);
      expect(answer.headers.get('etag')).toBe(`"${answer.json.job.version}"`);
      etag = answer.headers.get('etag') as string;
      return answer.json.job as { review: { pending: number; rejected: number; accepted: number } } & Record<
        string,
        unknown
      >;
    };

    /** Search by the job's number, once the change reached the index: the status the loop is at. */
    const searched = async (status: string) => {
      await stack.drained();
      const answer = ok(
        await stack.request('/search', { tokens: customer, body: { field: 'JobNumber', query: String(jobId) } }),
      );
      expect(answer.json.totalJobs).toBe(1);
      expect(answer.json.jobs[0]).toMatchObject({ id: jobId, status, fileCount: 2 });
      return answer.json.jobs[0] as Record<string, unknown>;
    };

    /** A PATCH of the status with the current ETag, by the given caller. */
    const move = async (status: string, tokens: IssuedTokens) => {
      const answer = ok(
        await stack.request(`/jobs/${jobId}`, {
          method: 'PATCH',
          tokens,
          headers: { 'Content-Type': 'application/json', 'If-Match': etag },
          body: { status },
        }),
      );
      expect(answer.json.job.status).toBe(status);
      etag = answer.headers.get('etag') as string;
      await readBack(status);
      return searched(status);
    };

    const deliver = async (fileIds: number[] | undefined) => {
      const answer = ok(
        await stack.request(`/jobs/${jobId}/delivery`, {
          tokens: staff,
          body: fileIds === undefined ? {} : { fileIds },
        }),
      );
      expect(answer.json.job.status).toBe('CJ_REVIEWING');
    };

    expect(await readBack('CJ_NEW')).toMatchObject({ review: { pending: 0, rejected: 0, accepted: 0 } });
    await searched('CJ_NEW');

    // Asked for before the pictures are in, an offer is refused, naming the first file by id.
    const early = await stack.request(`/jobs/${jobId}`, {
      method: 'PATCH',
      tokens: customer,
      headers: { 'Content-Type': 'application/json', 'If-Match': etag },
      body: { status: 'CJ_REQUEST_OFFER' },
    });
    expect(early.status, early.text).toBe(409);
    expect(early.json).toMatchObject({ code: 'files_not_ready', fileId: Math.min(front, side) });
    await readBack('CJ_NEW');

    // The customer's originals arrive and are checked; the customer asks for an offer; staff accept the job,
    // mark it paid and start the work.
    await readyOriginals(documentClient(), stack.tables.jobsTable, jobId, [front, side]);
    await move('CJ_REQUEST_OFFER', customer);
    expect((await move('CJ_ACCEPT', staff)).acceptedDate).toEqual(expect.any(String));
    expect((await move('CJ_JOB_PAID', staff)).orderedDate).toEqual(expect.any(String));
    await move('CJ_WORK_PROGRESS', staff);

    // Staff's edited pictures arrive and are checked, then staff deliver every edited file: both wait for the
    // customer's review.
    await readyEdits(documentClient(), stack.tables.jobsTable, jobId, [front, side]);
    await deliver(undefined);
    expect(await readBack('CJ_REVIEWING')).toMatchObject({ review: { pending: 2, rejected: 0, accepted: 0 } });
    expect((await searched('CJ_REVIEWING')).deliveredDate).toEqual(expect.any(String));

    // The customer accepts the front view and rejects the side view.
    ok(await stack.request('/accept', { tokens: customer, body: { fileIds: [front] } }));
    expect(await readBack('CJ_REVIEWING')).toMatchObject({ review: { pending: 1, rejected: 0, accepted: 1 } });
    const rejected = ok(
      await stack.request('/reject', {
        tokens: customer,
        body: { files: [{ fileId: side, rejects: [{ reason: 'Cropping' }] }] },
      }),
    );
    expect(rejected.json.jobs).toEqual([{ id: jobId, status: 'CJ_REJECT_READY' }]);
    expect(await readBack('CJ_REJECT_READY')).toMatchObject({ review: { pending: 0, rejected: 1, accepted: 1 } });
    expect((await searched('CJ_REJECT_READY')).reviewedDate).toEqual(expect.any(String));

    // Staff rework the side view and deliver it again; its rejection moves to its previous reviews.
    await deliver([side]);
    expect(await readBack('CJ_REVIEWING')).toMatchObject({ review: { pending: 1, rejected: 0, accepted: 1 } });
    await searched('CJ_REVIEWING');
    const pending = ok(await stack.request(`/jobs/${jobId}/files?review=pending`, { method: 'GET', tokens: customer }));
    expect(pending.json.files.map((file: { id: number }) => file.id)).toEqual([side]);
    expect(pending.json.files[0].previousReviews).toHaveLength(1);

    // The customer accepts the rest: the job is finished.
    const accepted = ok(await stack.request('/accept', { tokens: customer, body: { fileIds: [side] } }));
    expect(accepted.json.jobs).toEqual([{ id: jobId, status: 'CJ_FINISHED' }]);
    expect(await readBack('CJ_FINISHED')).toMatchObject({ review: { pending: 0, rejected: 0, accepted: 2 } });
    await searched('CJ_FINISHED');
  });

  it('answers 409 for a file no delivery has named yet, to /accept and /reject, changing nothing', async () => {
    const created = ok(
      await stack.request('/jobs', {
        tokens: customer,
        body: { name: 'Half delivered', files: [{ fileName: 'front.jpg' }, { fileName: 'back.jpg' }] },
      }),
      201,
    ).json as { job: { id: number; version: number }; files: Array<{ id: number }> };
    const jobId = created.job.id;
    const [front, back] = created.files.map((file) => file.id) as [number, number];
    let etag = `"${created.job.version}"`;
    const move = async (status: string, tokens: IssuedTokens) => {
      const answer = ok(
        await stack.request(`/jobs/${jobId}`, {
          method: 'PATCH',
          tokens,
          headers: { 'Content-Type': 'application/json', 'If-Match': etag },
          body: { status },
        }),
      );
      etag = answer.headers.get('etag') as string;
    };
    await readyOriginals(documentClient(), stack.tables.jobsTable, jobId, [front, back]);
    await move('CJ_REQUEST_OFFER', customer);
    await move('CJ_ACCEPT', staff);
    await move('CJ_JOB_PAID', staff);
    await move('CJ_WORK_PROGRESS', staff);
    await readyEdits(documentClient(), stack.tables.jobsTable, jobId, [front]);
    // Staff deliver the front view only: the job is in review, the back view was never delivered.
    ok(await stack.request(`/jobs/${jobId}/delivery`, { tokens: staff, body: { fileIds: [front] } }));
    const before = ok(await stack.request(`/jobs/${jobId}`, { method: 'GET', tokens: customer })).json.job;
    expect(before).toMatchObject({ status: 'CJ_REVIEWING', review: { pending: 1, rejected: 0, accepted: 0 } });

    const refusal = (answer: TestResponse, code: string) => {
      expect(answer.status, answer.text).toBe(409);
      expect(answer.json).toEqual({
        code,
        message: expect.any(String),
        fileId: back,
        requestId: answer.headers.get('x-request-id'),
      });
    };
    // All or nothing: the delivered front view named first is not accepted or rejected either.
    refusal(
      await stack.request('/accept', { tokens: customer, body: { fileIds: [front, back] } }),
      'file_not_acceptable',
    );
    refusal(
      await stack.request('/reject', {
        tokens: customer,
        body: { files: [front, back].map((fileId) => ({ fileId, rejects: [{ reason: 'Cropping' }] })) },
      }),
      'file_not_rejectable',
    );
    refusal(await stack.request('/accept', { tokens: staff, body: { fileIds: [back] } }), 'file_not_acceptable');
    const after = ok(await stack.request(`/jobs/${jobId}`, { method: 'GET', tokens: customer })).json.job;
    expect(after).toEqual(before);

    // Accepting the delivered file alone does not finish the job while the other waits for its delivery.
    const accepted = ok(await stack.request('/accept', { tokens: customer, body: { fileIds: [front] } }));
    expect(accepted.json.jobs).toEqual([{ id: jobId, status: 'CJ_REVIEWING' }]);
  });
});

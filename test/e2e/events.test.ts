/**
 * Events on the local stack (docs/contract.md §6c): a job's life over real HTTP — created, asked for an offer,
 * accepted, paid, in work, delivered, half accepted and half rejected, delivered again, finished — and an import,
 * each change an event, from the jobs table's stream, in version order, each valid against asyncapi.yaml.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../../functions/aws/dynamodb';
import type { JobsEvent } from '../../functions/events/cloud-event';
import { expectDescribedEvents } from '../support/asyncapi';
import { makeJob } from '../support/jobs';
import { type IssuedTokens, ok, startTestStack, type TestStack } from '../support/local-stack';
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

/** The events of one job published so far, once every change written has been through the stream. */
const eventsOf = async (jobId: number): Promise<JobsEvent[]> => {
  await stack.drained();
  return (await stack.stack.events()).filter((event) => event.data.jobId === jobId);
};

describe('events of the local stack', () => {
  it('publishes every change of a job through its life, in version order, once each, each described', async () => {
    const created = ok(
      await stack.request('/jobs', {
        tokens: customer,
        body: { name: 'Autumn catalogue', files: [{ fileName: 'coat.jpg' }, { fileName: 'scarf.jpg' }] },
      }),
      201,
    ).json as { job: { id: number; version: number }; files: Array<{ id: number }> };
    const jobId = created.job.id;
    const [coat, scarf] = created.files.map((file) => file.id) as [number, number];
    let etag = `"${created.job.version}"`;
    const move = async (status: string, tokens: IssuedTokens, extra: object = {}) => {
      const answer = ok(
        await stack.request(`/jobs/${jobId}`, {
          method: 'PATCH',
          tokens,
          headers: { 'Content-Type': 'application/json', 'If-Match': etag },
          body: { status, ...extra },
        }),
      );
      etag = answer.headers.get('etag') as string;
    };
    // The pictures arrive (no job version of their own: their events carry the job's version as read, so the
    // test lets them through before the next change).
    await readyOriginals(documentClient(), stack.tables.jobsTable, jobId, [coat, scarf]);
    await stack.drained();
    await move('CJ_REQUEST_OFFER', customer, { name: 'Autumn catalogue, final' });
    await move('CJ_ACCEPT', staff);
    await move('CJ_JOB_PAID', staff);
    await move('CJ_WORK_PROGRESS', staff);
    await readyEdits(documentClient(), stack.tables.jobsTable, jobId, [coat, scarf]);
    await stack.drained();
    ok(await stack.request(`/jobs/${jobId}/delivery`, { tokens: staff, body: {} }));
    ok(await stack.request('/accept', { tokens: customer, body: { fileIds: [coat] } }));
    ok(
      await stack.request('/reject', {
        tokens: customer,
        body: { files: [{ fileId: scarf, rejects: [{ reason: 'Colour cast' }] }] },
      }),
    );
    ok(await stack.request(`/jobs/${jobId}/delivery`, { tokens: staff, body: { fileIds: [scarf] } }));
    ok(await stack.request('/accept', { tokens: customer, body: { fileIds: [scarf] } }));

    const events = await eventsOf(jobId);
    expectDescribedEvents(events);
    const statusMoves = events
      .filter((event) => event.type === 'job.status_changed')
      .map((event) => `${String(event.data.from)}>${String(event.data.to)}`);
    expect(statusMoves).toEqual([
      'CJ_NEW>CJ_REQUEST_OFFER',
      'CJ_REQUEST_OFFER>CJ_ACCEPT',
      'CJ_ACCEPT>CJ_JOB_PAID',
      'CJ_JOB_PAID>CJ_WORK_PROGRESS',
      'CJ_WORK_PROGRESS>CJ_REVIEWING',
      'CJ_REVIEWING>CJ_REJECT_READY',
      'CJ_REJECT_READY>CJ_REVIEWING',
      'CJ_REVIEWING>CJ_FINISHED',
    ]);
    expect(events[0]).toMatchObject({
      type: 'job.created',
      subject: `jobs/${jobId}`,
      source: stack.stack.baseUrl,
      data: { jobId, version: created.job.version, job: { name: 'Autumn catalogue', fileCount: 2 } },
    });
    expect(events.filter((event) => event.type === 'job.updated')[0]?.data).toMatchObject({
      changes: { name: { from: 'Autumn catalogue', to: 'Autumn catalogue, final' } },
    });
    expect(events.filter((event) => event.type === 'job.files_delivered')).toHaveLength(2);
    expect(
      events
        .filter((event) => event.type === 'file.accepted' || event.type === 'file.rejected')
        .map((event) => [event.type, (event.data as { fileId: number }).fileId]),
    ).toEqual([
      ['file.accepted', coat],
      ['file.rejected', scarf],
      ['file.accepted', scarf],
    ]);
    // Each file's pictures in the order they were recorded; two files' uploads of one step may arrive either way.
    const ready = events
      .filter((event) => event.type === 'file.image_ready')
      .map((event) => event.data as { variant: string; fileId: number });
    for (const fileId of [coat, scarf]) {
      expect(ready.filter((data) => data.fileId === fileId).map((data) => data.variant)).toEqual([
        'original',
        'edited',
      ]);
    }
    expect(ready.slice(0, 2).map((data) => data.variant)).toEqual(['original', 'original']);
    expect(ready).toHaveLength(4);
    const versions = events.map((event) => event.data.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
  });

  it('publishes job.created for an imported job', async () => {
    const job = makeJob({ accountId: 1001, status: 'CJ_WORK_PROGRESS' });
    await stack.importJobs([job]);
    const events = await eventsOf(job.id);
    expectDescribedEvents(events);
    expect(events.map((event) => [event.type, event.data.status])).toEqual([['job.created', 'CJ_WORK_PROGRESS']]);
  });
});

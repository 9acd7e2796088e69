/**
 * Events on the local stack (docs/contract.md §6c): a job's life over real HTTP — created, asked for an offer,
 * accepted, paid, in work, delivered, half accepted and half rejected, delivered again, finished — and an import,
 * each change an event, from the jobs table's stream, in version order, each valid against asyncapi.yaml.
 *
 * The same stack delivers webhooks (`ALLOW_LOCAL_WEBHOOKS=1`, retry delays and the window compressed to
 * milliseconds): the customer's client receives its account's events, signed, in version order; another client of
 * another account receives none of them; a receiver failing three times gets every attempt, and one that never
 * answers is listed failed once the window is over.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { documentClient } from '../../functions/aws/dynamodb';
import { resetConfig } from '../../functions/config';
import type { JobsEvent } from '../../functions/events/cloud-event';
import { EVENT_TYPES } from '../../functions/events/cloud-event';
import { expectDescribedEvents } from '../support/asyncapi';
import { makeJob } from '../support/jobs';
import { type IssuedTokens, ok, startTestStack, type TestStack } from '../support/local-stack';
import { readyEdits, readyOriginals } from '../support/pictures';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

let stack: TestStack;
let customer: IssuedTokens;
let staff: IssuedTokens;
let other: IssuedTokens;
let receiver: WebhookReceiver;
/** The customer's webhook for every event type, and its signing secret. */
let customerHook: { id: string; secret: string };
/** The job the life-cycle test followed. */
let followedJobId: number | undefined;

/** A request of a client's backend: its token and secret, no session. */
const asBackend = (tokens: IssuedTokens, method: string, path: string, body?: unknown) =>
  stack.request(path, {
    method,
    tokens,
    headers: { 'X-Session-Token': undefined, 'X-Client-Secret': tokens.clientSecret },
    ...(body === undefined ? {} : { body }),
  });

const register = async (tokens: IssuedTokens, path: string, events: readonly string[]) =>
  ok(await asBackend(tokens, 'POST', '/webhooks', { url: `${receiver.url}${path}`, events }), 201).json as {
    id: string;
    secret: string;
  };

beforeAll(async () => {
  vi.stubEnv('ALLOW_LOCAL_WEBHOOKS', '1');
  vi.stubEnv('WEBHOOK_RETRY_DELAYS_MS', '50,100,150,200,250,300,300');
  vi.stubEnv('WEBHOOK_RETRY_WINDOW_MS', '2500');
  vi.stubEnv('WEBHOOK_TIMEOUT_MS', '300');
  resetConfig();
  receiver = await startWebhookReceiver();
  stack = await startTestStack();
  customer = await stack.issue({ grants: ['search', 'reject', 'jobs', 'webhooks'], accounts: [1001] });
  staff = await stack.issue({ grants: ['search', 'reject', 'jobs'], role: 'operator', accountId: 1 });
  other = await stack.issue({ grants: ['webhooks'], accounts: [2002], accountId: 2002 });
  customerHook = await register(customer, '/customer', EVENT_TYPES);
  await register(other, '/other', EVENT_TYPES);
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.stop();
  vi.unstubAllEnvs();
  resetConfig();
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
    followedJobId = jobId;
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

/** Every delivery so far has been attempted, its retries included. */
const settled = async (): Promise<void> => {
  await stack.drained();
  await stack.stack.webhooksSettled();
};

describe('webhooks of the local stack', () => {
  it("delivers each event of the client's account once, signed, in version order, each described", async () => {
    expect(followedJobId).toBeDefined();
    await settled();
    const published = (await stack.stack.events()).filter((event) => event.data.jobId === followedJobId);
    const verifier = new Webhook(customerHook.secret);
    const delivered = receiver
      .received('/customer')
      .map((request) => verifier.verify(request.body, request.headers) as JobsEvent)
      .filter((event) => event.data.jobId === followedJobId);
    expectDescribedEvents(delivered);
    expect(delivered.map((event) => event.id)).toEqual(published.map((event) => event.id));
    const versions = delivered.map((event) => event.data.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    for (const request of receiver.received('/customer')) {
      expect(request.headers['webhook-id']).toBe((JSON.parse(request.body) as JobsEvent).id);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    }
    const listed = ok(await asBackend(customer, 'GET', `/webhooks/${customerHook.id}/deliveries`)).json as {
      deliveries: { status: string }[];
    };
    expect(listed.deliveries.length).toBeGreaterThan(0);
    expect(listed.deliveries.every((attempt) => attempt.status === 'delivered')).toBe(true);
  });

  it("never delivers one client's events to another client's webhook", async () => {
    await settled();
    expect(receiver.received('/customer').length).toBeGreaterThan(0);
    expect(receiver.received('/other')).toEqual([]);
    // Each client lists only its own webhooks, never a secret, and cannot read the other's deliveries.
    const listed = (tokens: IssuedTokens) =>
      asBackend(tokens, 'GET', '/webhooks').then(
        (answer) => (ok(answer).json as { webhooks: { id: string; url: string }[] }).webhooks,
      );
    expect((await listed(customer)).map((webhook) => webhook.id)).toEqual([customerHook.id]);
    expect((await listed(other)).map((webhook) => webhook.url)).toEqual([`${receiver.url}/other`]);
    const peek = await asBackend(other, 'GET', `/webhooks/${customerHook.id}/deliveries`);
    expect(peek.status).toBe(404);
    expect(peek.json).toMatchObject({ code: 'webhook_not_found' });
  });

  it('tries a receiver that answers 500 three times again until it answers 200, and lists each attempt', async () => {
    receiver.answer('/flaky', [500, 500, 500, 200]);
    const hook = await register(customer, '/flaky', ['job.created']);
    const job = makeJob({ accountId: 1001 });
    await stack.importJobs([job]);
    await settled();
    const received = receiver.received('/flaky');
    expect(received).toHaveLength(4);
    expect(new Set(received.map((request) => request.headers['webhook-id']))).toEqual(
      new Set([`jobs/${job.id}/v${(JSON.parse(received[0]!.body) as JobsEvent).data.version}/job.created`]),
    );
    const listed = ok(await asBackend(customer, 'GET', `/webhooks/${hook.id}/deliveries`)).json as {
      deliveries: { attempt: number; status: string; statusCode: number | null }[];
    };
    expect(listed.deliveries.map((attempt) => [attempt.attempt, attempt.status, attempt.statusCode])).toEqual([
      [4, 'delivered', 200],
      [3, 'retrying', 500],
      [2, 'retrying', 500],
      [1, 'retrying', 500],
    ]);
    ok(await asBackend(customer, 'DELETE', `/webhooks/${hook.id}`));
  });

  it('lists a receiver that never answers as failed once the retry window is over', async () => {
    receiver.answer('/silent', 'never');
    const hook = await register(customer, '/silent', ['job.created']);
    await stack.importJobs([makeJob({ accountId: 1001 })]);
    await settled();
    const listed = ok(await asBackend(customer, 'GET', `/webhooks/${hook.id}/deliveries`)).json as {
      deliveries: { attempt: number; status: string; error: string | null }[];
    };
    const [last, ...earlier] = listed.deliveries;
    expect(last).toMatchObject({ status: 'failed', error: expect.stringContaining('no answer') });
    expect(last!.attempt).toBeGreaterThan(1);
    expect(earlier.every((attempt) => attempt.status === 'retrying')).toBe(true);
    expect(receiver.received('/silent')).toHaveLength(last!.attempt);
    ok(await asBackend(customer, 'DELETE', `/webhooks/${hook.id}`));
    expect((await asBackend(customer, 'GET', `/webhooks/${hook.id}/deliveries`)).status).toBe(404);
  });

  it('refuses the metadata address always, and a name resolving to 127.0.0.1 without ALLOW_LOCAL_WEBHOOKS', async () => {
    const refused = async (url: string) => {
      const answer = await asBackend(customer, 'POST', '/webhooks', { url, events: ['job.created'] });
      expect(answer.status, url).toBe(400);
      expect(answer.json).toMatchObject({ code: 'invalid_parameter', parameter: 'url' });
    };
    await refused('http://169.254.169.254/latest/meta-data/');
    vi.stubEnv('ALLOW_LOCAL_WEBHOOKS', '0');
    resetConfig();
    try {
      await refused('http://169.254.169.254/');
      await refused('https://localhost/hooks');
      await refused(`${receiver.url}/customer`);
    } finally {
      vi.stubEnv('ALLOW_LOCAL_WEBHOOKS', '1');
      resetConfig();
    }
  });
});

/**
 * Webhook delivery without AWS (functions/webhooks/delivery.ts, retry-policy.ts): which webhooks an event is
 * routed to, who may receive it, and when a failed attempt is tried again or dropped.
 */
import { describe, expect, it } from 'vitest';
import type { ClientRecord } from '../../../functions/auth/records';
import type { JobsEvent } from '../../../functions/events/cloud-event';
import {
  attemptDelivery,
  type Delivery,
  type DeliveryDependencies,
  routeEvents,
} from '../../../functions/webhooks/delivery';
import type { AttemptRecord, WebhookRecord } from '../../../functions/webhooks/records';
import { nextRetryDelay } from '../../../functions/webhooks/retry-policy';
import type { AttemptResult } from '../../../functions/webhooks/send';
import { clientRecord } from '../../support/auth-records';

const HOUR = 3_600_000;
const POLICY = {
  retryDelaysMs: [5_000, 300_000, 1_800_000, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR],
  retryWindowMs: 24 * HOUR,
};

const event = (accountId = 1001, type: JobsEvent['type'] = 'job.created'): JobsEvent =>
  ({
    specversion: '1.0',
    id: `jobs/7/v1/${type}`,
    source: 'urn:test',
    type,
    time: '2026-03-01T00:00:00.000Z',
    subject: 'jobs/7',
    datacontenttype: 'application/json',
    data: { accountId, jobId: 7, version: 1, status: 'CJ_NEW' },
  }) as JobsEvent;

const webhook = (overrides: Partial<WebhookRecord> = {}): WebhookRecord => ({
  webhookId: 'wh_1',
  clientId: 'c1',
  clientKey: 'CLIENT#h1',
  url: 'https://93.184.216.34/hooks',
  events: ['job.created'],
  secret: 'whsec_x',
  createdAt: '2026-01-01T00:00:00.000Z',
  enabled: true,
  attemptCount: 0,
  ...overrides,
});

const setup = (options: {
  hook?: WebhookRecord;
  client?: ClientRecord;
  result?: Partial<AttemptResult>;
  now?: number;
}) => {
  const recorded: AttemptRecord[] = [];
  const sent: string[] = [];
  const deps: DeliveryDependencies = {
    store: {
      registry: async () => [],
      get: async () => options.hook ?? webhook(),
      recordAttempt: async (_id, attempt) => {
        recorded.push(attempt);
        return options.hook ?? webhook();
      },
    },
    readClient: async () => options.client ?? clientRecord({ grants: ['webhooks'] }),
    send: async (sendOptions) => {
      sent.push(sendOptions.body);
      return { delivered: false, at: new Date(options.now ?? 0).toISOString(), durationMs: 1, ...options.result };
    },
    policy: POLICY,
    disableAfterMs: 5 * 24 * HOUR,
    allowLocal: false,
    now: () => options.now ?? 0,
  };
  return { deps, recorded, sent };
};

const delivery = (accountId?: number): Delivery => ({ webhookId: 'wh_1', event: event(accountId) });

describe('the retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then tries once more at the end of the 24 hours and drops it', () => {
    let now = 0;
    const waits: number[] = [];
    for (let attempt = 1; attempt < 20; attempt++) {
      const wait = nextRetryDelay(POLICY, attempt, 0, now);
      if (wait === undefined) break;
      waits.push(wait);
      now += wait;
    }
    expect(waits.slice(0, 6)).toEqual([5_000, 300_000, 1_800_000, 2 * HOUR, 5 * HOUR, 10 * HOUR]);
    expect(now).toBe(24 * HOUR);
    expect(waits).toHaveLength(7);
  });
});

describe('routing events', () => {
  it('puts a delivery on the queue for each webhook that asked for the type, none for the others', async () => {
    const queued: Delivery[] = [];
    const store = {
      registry: async () => [
        { webhookId: 'wh_a', clientId: 'a', events: ['job.created' as const] },
        { webhookId: 'wh_b', clientId: 'b', events: ['file.rejected' as const] },
      ],
    };
    await routeEvents([event(), event(1001, 'job.updated')], store, { enqueue: async (d) => void queued.push(...d) });
    expect(queued.map((d) => [d.webhookId, d.event.type])).toEqual([['wh_a', 'job.created']]);
  });
});

describe('one attempt', () => {
  it('sends the event whole and records it delivered on a 2xx', async () => {
    const { deps, recorded, sent } = setup({ result: { delivered: true, statusCode: 204 } });
    expect(await attemptDelivery(delivery(), { attempt: 1, firstAttemptAtMs: 0 }, deps)).toEqual({
      retry: false,
      failed: false,
    });
    expect(JSON.parse(sent[0]!)).toEqual(event());
    expect(recorded).toEqual([expect.objectContaining({ status: 'delivered', statusCode: 204, attempt: 1 })]);
  });

  it('asks the queue to offer a failed attempt again after the next delay, recording it retrying', async () => {
    const { deps, recorded } = setup({ result: { statusCode: 500, error: 'answered 500' }, now: 10_000 });
    expect(await attemptDelivery(delivery(), { attempt: 2, firstAttemptAtMs: 0 }, deps)).toEqual({
      retry: true,
      delayMs: 300_000,
    });
    expect(recorded[0]).toMatchObject({ status: 'retrying', nextAttemptAt: new Date(310_000).toISOString() });
  });

  it('records the last attempt of the window failed and drops the event as failed', async () => {
    const { deps, recorded } = setup({ result: { error: 'no answer' }, now: 24 * HOUR });
    expect(await attemptDelivery(delivery(), { attempt: 7, firstAttemptAtMs: 0 }, deps)).toEqual({
      retry: false,
      failed: true,
    });
    expect(recorded[0]).toMatchObject({ status: 'failed', nextAttemptAt: null });
  });

  it.each([
    ['of another account', clientRecord({ grants: ['webhooks'], accounts: [2002] })],
    ['that is disabled', clientRecord({ grants: ['webhooks'], enabled: false })],
    ['that lost the grant', clientRecord({ grants: ['search'] })],
    ['that is another client', clientRecord({ grants: ['webhooks'], clientId: 'c2' })],
  ])('sends nothing to a client %s', async (_name, client) => {
    const { deps, sent, recorded } = setup({ client });
    expect(await attemptDelivery(delivery(1001), { attempt: 1, firstAttemptAtMs: 0 }, deps)).toEqual({
      retry: false,
      failed: false,
    });
    expect(sent).toEqual([]);
    expect(recorded).toEqual([]);
  });

  it('sends nothing to a webhook disabled for failing, and gives up as failed once an attempt disables it', async () => {
    const disabled = setup({ hook: webhook({ enabled: false }) });
    expect(await attemptDelivery(delivery(), { attempt: 1, firstAttemptAtMs: 0 }, disabled.deps)).toEqual({
      retry: false,
      failed: false,
    });
    expect(disabled.sent).toEqual([]);
    const failing = setup({ result: { statusCode: 500 } });
    failing.deps.store.recordAttempt = async () => webhook({ enabled: false, disabledAt: '2026-03-06T00:00:00.000Z' });
    expect(await attemptDelivery(delivery(), { attempt: 1, firstAttemptAtMs: 0 }, failing.deps)).toEqual({
      retry: false,
      failed: true,
    });
  });
});

/**
 * The webhook items of the auth table on DynamoDB Local (functions/webhooks/store.ts): registrations, the
 * per-client cap under concurrent requests, the registry delivery reads, removal by the owner only, and the
 * attempts ring with the disabling of an endpoint that keeps failing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../functions/aws/dynamodb';
import type { AttemptRecord } from '../../functions/webhooks/records';
import {
  ATTEMPT_SLOTS,
  MAX_WEBHOOKS_PER_CLIENT,
  WebhookLimitError,
  WebhookStore,
} from '../../functions/webhooks/store';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let store: WebhookStore;
const BUDGET_MS = 9_000;

const register = (clientId: string, url = 'https://93.184.216.34/hooks') =>
  store.create({ clientId, clientKey: `CLIENT#${clientId}`, url, events: ['job.created', 'file.accepted'] });

const attempt = (status: AttemptRecord['status'], at: string, n = 1): AttemptRecord => ({
  eventId: `event-${at}`,
  eventType: 'job.created',
  attempt: n,
  status,
  statusCode: status === 'delivered' ? 204 : 500,
  error: status === 'delivered' ? null : 'answered 500',
  at,
  durationMs: 4,
  nextAttemptAt: null,
});

beforeAll(async () => {
  tables = await createTestTables();
  store = new WebhookStore(
    createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: tables.endpoint, dependencyTimeoutMs: BUDGET_MS }),
    tables.authTable,
    { timeoutMs: BUDGET_MS },
  );
});

describe('WebhookStore on DynamoDB Local', () => {
  it("lists a client's webhooks the moment they are registered, and the registry holds each with its types", async () => {
    const first = await register('list-a');
    const second = await register('list-a');
    await register('list-b');
    expect((await store.list('list-a')).map((webhook) => webhook.webhookId)).toEqual([
      first.webhookId,
      second.webhookId,
    ]);
    expect((await store.list('list-a'))[0]?.secret).toBe(first.secret);
    const registry = await store.registry();
    expect(registry).toContainEqual({
      webhookId: first.webhookId,
      clientId: 'list-a',
      events: ['job.created', 'file.accepted'],
    });
  });

  it('keeps a client to its cap even when it registers concurrently', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: MAX_WEBHOOKS_PER_CLIENT + 4 }, () => register('cap-client')),
    );
    const made = results.filter((result) => result.status === 'fulfilled').length;
    const refused = results.filter(
      (result) => result.status === 'rejected' && result.reason instanceof WebhookLimitError,
    ).length;
    // Transactions on the same list item may also conflict; none of them may pass the cap.
    expect(made).toBeLessThanOrEqual(MAX_WEBHOOKS_PER_CLIENT);
    expect((await store.list('cap-client')).length).toBe(made);
    while ((await store.list('cap-client')).length < MAX_WEBHOOKS_PER_CLIENT) await register('cap-client');
    await expect(register('cap-client')).rejects.toBeInstanceOf(WebhookLimitError);
    expect(refused + made).toBeLessThanOrEqual(MAX_WEBHOOKS_PER_CLIENT + 4);
  });

  it('removes a webhook for its owner only, from the list and the registry alike', async () => {
    const webhook = await register('owner');
    expect(await store.delete('intruder', webhook.webhookId)).toBe(false);
    expect(await store.get(webhook.webhookId)).toBeDefined();
    expect(await store.delete('owner', webhook.webhookId)).toBe(true);
    expect(await store.get(webhook.webhookId)).toBeUndefined();
    expect(await store.list('owner')).toEqual([]);
    expect((await store.registry()).some((entry) => entry.webhookId === webhook.webhookId)).toBe(false);
    expect(await store.delete('owner', webhook.webhookId)).toBe(false);
  });

  it('keeps the most recent attempts in a ring, newest first, and records nothing for a removed webhook', async () => {
    const webhook = await register('ring');
    const start = Date.now() - 3_600_000;
    for (let n = 0; n < ATTEMPT_SLOTS + 3; n++) {
      await store.recordAttempt(
        webhook.webhookId,
        attempt('delivered', new Date(start + n * 1000).toISOString()),
        1e12,
      );
    }
    const listed = await store.attempts(webhook.webhookId);
    expect(listed).toHaveLength(ATTEMPT_SLOTS);
    expect(listed[0]?.at).toBe(new Date(start + (ATTEMPT_SLOTS + 2) * 1000).toISOString());
    expect(listed.at(-1)?.at).toBe(new Date(start + 3 * 1000).toISOString());
    await store.delete('ring', webhook.webhookId);
    expect(await store.recordAttempt(webhook.webhookId, attempt('failed', '2026-03-02T00:00:00.000Z'), 1e12)).toBe(
      undefined,
    );
  });

  it('disables an endpoint that failed without a success for the disabling period, and a success resets it', async () => {
    const webhook = await register('failing');
    const day = 24 * 3600 * 1000;
    const after = (ms: number) => new Date(Date.parse('2026-03-01T00:00:00.000Z') + ms).toISOString();
    const disableAfter = 5 * day;
    await store.recordAttempt(webhook.webhookId, attempt('retrying', after(0)), disableAfter);
    await store.recordAttempt(webhook.webhookId, attempt('delivered', after(3 * day)), disableAfter);
    expect((await store.get(webhook.webhookId))?.failingSince).toBeUndefined();
    await store.recordAttempt(webhook.webhookId, attempt('retrying', after(4 * day)), disableAfter);
    const early = await store.recordAttempt(webhook.webhookId, attempt('failed', after(8 * day)), disableAfter);
    expect(early?.enabled).toBe(true);
    const late = await store.recordAttempt(webhook.webhookId, attempt('failed', after(9 * day)), disableAfter);
    expect(late?.enabled).toBe(false);
    const stored = await store.get(webhook.webhookId);
    expect(stored).toMatchObject({ enabled: false, failingSince: after(4 * day) });
    expect(stored?.disabledAt).toEqual(expect.any(String));
  });
});

/**
 * Webhook delivery (docs/contract.md §6c), with no AWS in it: the deployed sender (an SQS queue fed by the stage
 * bus's rule) and the local stack (an in-process delay queue fed by the events poller) run these same two steps
 * behind a {@link DeliveryQueue}.
 *
 * 1. {@link routeEvents}: the webhooks that asked for an event's type — one read of the registry, never a Scan —
 *    each get a delivery of it on the queue.
 * 2. {@link attemptDelivery}: one attempt of one delivery. The webhook is read again (removed or disabled: nothing
 *    to do) and so is its client, so an event goes only to a client that is enabled, still holds the grant
 *    `webhooks` and serves the event's account (`accounts`, or every account for `*`). The event is signed and sent
 *    (`send.ts`), the attempt recorded (`store.ts`), and the outcome says whether the queue should offer it again
 *    and when (`retry-policy.ts`). Failing for the disabling period disables the webhook.
 */
import type { ClientRecord } from '../auth/records';
import type { JobsEvent } from '../events/cloud-event';
import type { AttemptRecord } from './records';
import { nextRetryDelay, type RetryPolicy } from './retry-policy';
import type { AttemptResult, SendOptions } from './send';
import type { WebhookStore } from './store';

/** One event to deliver to one webhook. */
export interface Delivery {
  webhookId: string;
  event: JobsEvent;
}

/** Where deliveries wait for their attempts: an SQS queue in AWS, a delay queue in the local stack. */
export interface DeliveryQueue {
  /** Queues deliveries for their first attempt, as soon as may be. */
  enqueue(deliveries: readonly Delivery[]): Promise<void>;
}

/** The metric (EMF) of a delivery given up on, counted by the sender; the stack alarms on it. */
export const WEBHOOK_DELIVERIES_FAILED_METRIC = 'WebhookDeliveriesFailed';

/**
 * What the queue does with a delivery after an attempt: forget it, or offer it again after a delay. A delivery
 * forgotten because it `failed` was attempted and given up on — its retry window is over, or this attempt's
 * failure disabled the webhook — which the sender counts for the failed deliveries' alarm; one delivered, or not
 * attempted at all (the webhook or the client no longer wants it), did not.
 */
export type AttemptOutcome = { retry: false; failed: boolean } | { retry: true; delayMs: number };

/** Which attempt this is, as the queue counts it. */
export interface AttemptNumber {
  /** 1 for the first attempt of the delivery. */
  attempt: number;
  /** When the first attempt was due (epoch milliseconds): the retry window counts from here. */
  firstAttemptAtMs: number;
}

export interface DeliveryDependencies {
  store: Pick<WebhookStore, 'registry' | 'get' | 'recordAttempt'>;
  /** The client of a webhook, by the key of its item; `undefined` when it is gone. */
  readClient: (clientKey: string) => Promise<ClientRecord | undefined>;
  send: (options: SendOptions) => Promise<AttemptResult>;
  policy: RetryPolicy;
  disableAfterMs: number;
  /** Whether `http://localhost` receivers are allowed (the local stack's `ALLOW_LOCAL_WEBHOOKS=1`). */
  allowLocal: boolean;
  /** The time an endpoint has to answer (10 s; less in tests). */
  timeoutMs?: number;
  now?: () => number;
}

/** Puts a delivery of each event on the queue for every webhook that asked for its type. */
export const routeEvents = async (
  events: readonly JobsEvent[],
  store: Pick<WebhookStore, 'registry'>,
  queue: DeliveryQueue,
): Promise<number> => {
  if (events.length === 0) return 0;
  const registry = await store.registry();
  const deliveries = events.flatMap((event) =>
    registry
      .filter((entry) => entry.events.includes(event.type))
      .map((entry) => ({ webhookId: entry.webhookId, event })),
  );
  if (deliveries.length > 0) await queue.enqueue(deliveries);
  return deliveries.length;
};

/** Whether a client may receive an event of an account. */
export const clientServes = (client: ClientRecord, accountId: number): boolean =>
  client.enabled &&
  client.grants.includes('webhooks') &&
  (client.accounts === '*' || client.accounts.includes(accountId));

const DONE: AttemptOutcome = { retry: false, failed: false };

/** Makes one attempt of a delivery; never throws for the endpoint's failures (a DynamoDB failure it does). */
export const attemptDelivery = async (
  delivery: Delivery,
  number: AttemptNumber,
  deps: DeliveryDependencies,
): Promise<AttemptOutcome> => {
  const now = deps.now ?? Date.now;
  const { event } = delivery;
  const webhook = await deps.store.get(delivery.webhookId);
  if (webhook === undefined || !webhook.enabled || !webhook.events.includes(event.type)) return DONE;
  const client = await deps.readClient(webhook.clientKey);
  if (client === undefined || client.clientId !== webhook.clientId || !clientServes(client, event.data.accountId)) {
    return DONE;
  }
  const result = await deps.send({
    url: webhook.url,
    secret: webhook.secret,
    messageId: event.id,
    body: JSON.stringify(event),
    allowLocal: deps.allowLocal,
    ...(deps.timeoutMs === undefined ? {} : { timeoutMs: deps.timeoutMs }),
  });
  const delayMs = result.delivered
    ? undefined
    : nextRetryDelay(deps.policy, number.attempt, number.firstAttemptAtMs, now());
  const attempt: AttemptRecord = {
    eventId: event.id,
    eventType: event.type,
    attempt: number.attempt,
    status: result.delivered ? 'delivered' : delayMs === undefined ? 'failed' : 'retrying',
    statusCode: result.statusCode ?? null,
    error: result.error ?? null,
    at: result.at,
    durationMs: result.durationMs,
    nextAttemptAt: delayMs === undefined ? null : new Date(now() + delayMs).toISOString(),
  };
  const after = await deps.store.recordAttempt(delivery.webhookId, attempt, deps.disableAfterMs);
  if (result.delivered || after === undefined) return DONE;
  if (!after.enabled || delayMs === undefined) return { retry: false, failed: true };
  return { retry: true, delayMs };
};

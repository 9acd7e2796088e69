/**
 * The local stack's webhook delivery (docs/contract.md §6c): what the stage bus's rule, the queue and the sender
 * function are in AWS, in-process. Events the local events poller publishes are routed to the webhooks that asked
 * for them (`functions/webhooks/delivery.ts`, the deployed modules), and each delivery is attempted by an
 * in-process delay queue: first attempts one after another per webhook, in the order the events came (so a
 * receiver sees a job's events in version order while it answers), a failed attempt offered again after the retry
 * policy's delay, as the queue's visibility does in AWS. The delays come from the configuration, so tests compress
 * them (`WEBHOOK_RETRY_DELAYS_MS`, `WEBHOOK_RETRY_WINDOW_MS`).
 */
import { AuthStore } from '../../functions/auth/store';
import { documentClient } from '../../functions/aws/dynamodb';
import { config } from '../../functions/config';
import type { JobsEvent } from '../../functions/events/cloud-event';
import { authKeys } from '../../functions/tables';
import {
  type AttemptNumber,
  attemptDelivery,
  type Delivery,
  type DeliveryDependencies,
  type DeliveryQueue,
  routeEvents,
} from '../../functions/webhooks/delivery';
import { sendWebhook } from '../../functions/webhooks/send';
import { WebhookStore } from '../../functions/webhooks/store';

/** The local delivery of a running stack. */
export interface LocalWebhooks {
  /** Routes published events to the webhooks that asked for them. */
  publish(events: readonly JobsEvent[]): Promise<void>;
  /** Resolves once no attempt is running or waiting (retries included). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/** The dependencies of the deployed modules, over the configured auth table. */
const dependencies = (): DeliveryDependencies => {
  const settings = config();
  const client = documentClient();
  const auth = new AuthStore(client, settings.authTable, { timeoutMs: settings.dependencyTimeoutMs });
  return {
    store: new WebhookStore(client, settings.authTable, { timeoutMs: settings.dependencyTimeoutMs }),
    readClient: (clientKey) => auth.getClient(clientKey.slice(authKeys.clientPrefix.length)),
    send: sendWebhook,
    policy: settings.webhooks,
    disableAfterMs: settings.webhooks.disableAfterMs,
    allowLocal: settings.webhooks.allowLocal,
    timeoutMs: settings.webhooks.timeoutMs,
  };
};

/**
 * Starts the local delivery. `log` hears of attempts that could not be made (DynamoDB unreachable): the delivery
 * is offered again after the policy's first delay.
 */
export const startLocalWebhooks = (log: (message: string) => void = () => undefined): LocalWebhooks => {
  const timers = new Set<NodeJS.Timeout>();
  /** The first attempts of each webhook, one after another. */
  const lanes = new Map<string, Promise<void>>();
  let pending = 0;
  let idle: (() => void)[] = [];
  let stopped = false;

  const finished = (): void => {
    pending -= 1;
    if (pending === 0) {
      const waiting = idle;
      idle = [];
      for (const resolve of waiting) resolve();
    }
  };

  const attempt = async (delivery: Delivery, number: AttemptNumber): Promise<void> => {
    if (stopped) return;
    let delayMs: number | undefined;
    try {
      const outcome = await attemptDelivery(delivery, number, dependencies());
      if (outcome.retry) delayMs = outcome.delayMs;
    } catch (error) {
      log(`Webhook ${delivery.webhookId}: attempt of ${delivery.event.id} not made (${(error as Error).message})`);
      delayMs = config().webhooks.retryDelaysMs[0];
    }
    if (delayMs === undefined || stopped) return;
    pending += 1;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void attempt(delivery, { attempt: number.attempt + 1, firstAttemptAtMs: number.firstAttemptAtMs }).finally(
        finished,
      );
    }, delayMs);
    timers.add(timer);
  };

  const queue: DeliveryQueue = {
    enqueue: async (deliveries) => {
      for (const delivery of deliveries) {
        pending += 1;
        const lane = (lanes.get(delivery.webhookId) ?? Promise.resolve())
          .then(() => attempt(delivery, { attempt: 1, firstAttemptAtMs: Date.now() }))
          .finally(finished);
        lanes.set(delivery.webhookId, lane);
      }
    },
  };

  return {
    publish: async (events) => {
      if (stopped) return;
      try {
        await routeEvents(events, dependencies().store, queue);
      } catch (error) {
        log(`Webhooks: ${events.length} events not routed (${(error as Error).message})`);
      }
    },
    settled: () => (pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve))),
    stop: async () => {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...lanes.values()]);
    },
  };
};

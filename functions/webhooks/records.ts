/**
 * The webhook items of the auth table as the code reads them (`functions/tables.ts`, `webhookKeys`): a webhook
 * endpoint a client registered, and one delivery attempt of an event to it. Each reader returns `undefined` for
 * an item that is not of its kind, so a damaged or foreign item is never taken for one.
 */
import { EVENT_TYPES, type EventType } from '../events/cloud-event';

/** A webhook id: `wh_` and 32 hex digits (128 random bits). */
export const WEBHOOK_ID_PATTERN = /^wh_[0-9a-f]{32}$/;

/** A registered webhook endpoint, as stored. */
export interface WebhookRecord {
  webhookId: string;
  clientId: string;
  /** The key of the client's item, so delivery can read the client's accounts and whether it is enabled. */
  clientKey: string;
  url: string;
  events: EventType[];
  /** The Standard Webhooks signing secret (`whsec_…`); kept to sign, shown once when registered. */
  secret: string;
  createdAt: string;
  /** `false` once it failed for the disabling period without a success. */
  enabled: boolean;
  disabledAt?: string;
  /** When the current run of failed attempts began; absent after a success. */
  failingSince?: string;
  /** How many attempts were recorded (the next attempt's slot in the ring). */
  attemptCount: number;
}

/** What became of one attempt. */
export type AttemptStatus = 'delivered' | 'retrying' | 'failed';

/** One delivery attempt of an event to a webhook, as listed by `GET /webhooks/{id}/deliveries`. */
export interface AttemptRecord {
  eventId: string;
  eventType: EventType;
  /** 1 for the first attempt of the event, 2 for its first retry, … */
  attempt: number;
  /** `delivered`, `retrying` (failed, another attempt follows) or `failed` (the last; the event is dropped). */
  status: AttemptStatus;
  /** The endpoint's answer, when it answered. */
  statusCode: number | null;
  /** Why it failed, when it did. */
  error: string | null;
  /** When the attempt started (ISO 8601 UTC). */
  at: string;
  durationMs: number;
  /** When the next attempt is due, while `retrying`. */
  nextAttemptAt: string | null;
}

type Item = Record<string, unknown> | undefined;

export const isEventType = (value: unknown): value is EventType => (EVENT_TYPES as readonly unknown[]).includes(value);

const asStrings = (value: unknown): unknown[] =>
  value instanceof Set || Array.isArray(value) ? [...(value as Iterable<unknown>)] : [];

/** A webhook item, or `undefined` for anything else. */
export const asWebhook = (item: Item): WebhookRecord | undefined => {
  if (item?.type !== 'webhook') return undefined;
  const { webhookId, clientId, clientKey, url, secret, createdAt } = item;
  if (
    typeof webhookId !== 'string' ||
    typeof clientId !== 'string' ||
    typeof clientKey !== 'string' ||
    typeof url !== 'string' ||
    typeof secret !== 'string' ||
    typeof createdAt !== 'string'
  ) {
    return undefined;
  }
  return {
    webhookId,
    clientId,
    clientKey,
    url,
    secret,
    createdAt,
    events: asStrings(item.events).filter(isEventType),
    enabled: item.enabled !== false,
    ...(typeof item.disabledAt === 'string' ? { disabledAt: item.disabledAt } : {}),
    ...(typeof item.failingSince === 'string' ? { failingSince: item.failingSince } : {}),
    attemptCount: typeof item.attemptCount === 'number' ? item.attemptCount : 0,
  };
};

const STATUSES: readonly AttemptStatus[] = ['delivered', 'retrying', 'failed'];

/** An attempt item, or `undefined` for anything else. */
export const asAttempt = (item: Item): AttemptRecord | undefined => {
  if (item?.type !== 'webhook-attempt') return undefined;
  const { eventId, eventType, attempt, status, at, durationMs } = item;
  if (
    typeof eventId !== 'string' ||
    !isEventType(eventType) ||
    typeof attempt !== 'number' ||
    !(STATUSES as readonly unknown[]).includes(status) ||
    typeof at !== 'string' ||
    typeof durationMs !== 'number'
  ) {
    return undefined;
  }
  return {
    eventId,
    eventType,
    attempt,
    status: status as AttemptStatus,
    statusCode: typeof item.statusCode === 'number' ? item.statusCode : null,
    error: typeof item.error === 'string' ? item.error : null,
    at,
    durationMs,
    nextAttemptAt: typeof item.nextAttemptAt === 'string' ? item.nextAttemptAt : null,
  };
};

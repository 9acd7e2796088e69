/**
 * The body of `POST /webhooks` (docs/contract.md §6c), JSON or form: `url` (1–2,048 characters) and `events`
 * (1–8 known event types, none twice; a form repeats the key). The generated `WebhookRequest` validator checks
 * each field in that order; whether the URL may be called (https, a public address once resolved) needs DNS and
 * is checked by the handler, still as `400 invalid_parameter` naming `url`.
 */
import type { EventType } from '../events/cloud-event';
import { invalidParameter } from './errors';
import { validateWebhookRequest, webhookRequestFields } from './generated/request-validators';
import type { RequestBody } from './request';
import { coerceFields, invalidParameterOf } from './schema-validation';

/** A webhook registration, its fields checked. */
export interface WebhookRequest {
  url: string;
  events: EventType[];
}

/** The endpoint's `parse` step: the checked request, or `400 invalid_parameter` naming the first bad field. */
export const parseWebhookRequest = (body: RequestBody): WebhookRequest => {
  const fields = coerceFields(body, webhookRequestFields);
  if (!validateWebhookRequest(fields)) throw invalidParameterOf(validateWebhookRequest.errors, 'top');
  const { url, events } = fields as unknown as WebhookRequest;
  if (new Set(events).size !== events.length) throw invalidParameter('events', 'events lists a type twice.');
  return { url, events };
};

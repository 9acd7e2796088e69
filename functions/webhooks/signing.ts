/**
 * Standard Webhooks signing (docs/contract.md §6c), through the `standardwebhooks` library — the same one a
 * receiver verifies with — never hand-written HMAC: a signing secret is `whsec_` and the base64 of 32 random
 * bytes, and each delivery carries `webhook-id` (the event's id, the same on every attempt), `webhook-timestamp`
 * (epoch seconds of the attempt) and `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body`).
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** The prefix of a signing secret, as Standard Webhooks spells it. */
export const SIGNING_SECRET_PREFIX = 'whsec_';

/** A new signing secret: 256 random bits. */
export const newSigningSecret = (): string => `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/** The headers of one delivery attempt. */
export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Signs one attempt of a message (the body exactly as sent). */
export const signatureHeaders = (secret: string, messageId: string, body: string, at: Date): SignatureHeaders => ({
  'webhook-id': messageId,
  'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
  'webhook-signature': new Webhook(secret).sign(messageId, at, body),
});

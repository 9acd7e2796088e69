import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, signatureHeaders } from '../../../functions/webhooks/signing';

describe('webhook signing', () => {
  it('makes secrets of whsec_ and 256 random bits, a new one each time', () => {
    const [a, b] = [newSigningSecret(), newSigningSecret()];
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it('signs so that a receiver verifies with the Standard Webhooks library, and a changed body fails', () => {
    const secret = newSigningSecret();
    const body = JSON.stringify({ id: 'jobs/7/v2/job.updated', type: 'job.updated' });
    const headers = signatureHeaders(secret, 'jobs/7/v2/job.updated', body, new Date());
    expect(headers['webhook-id']).toBe('jobs/7/v2/job.updated');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(`${body} `, { ...headers })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(newSigningSecret()).verify(body, { ...headers })).toThrow(WebhookVerificationError);
  });

  it('stamps the attempt time in epoch seconds, which the receiver holds to its tolerance', () => {
    const secret = newSigningSecret();
    const old = new Date(Date.now() - 10 * 60 * 1000);
    const headers = signatureHeaders(secret, 'm1', '{}', old);
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(old.getTime() / 1000)));
    expect(() => new Webhook(secret).verify('{}', { ...headers })).toThrow(WebhookVerificationError);
  });
});

/**
 * One delivery attempt of an event to a webhook endpoint (docs/contract.md §6c): the URL checked again
 * (`url-check.ts`, after DNS resolution) and the connection made to an address that check passed, the event's
 * JSON `POST`ed with its Standard Webhooks signature (`signing.ts`), and the answer judged: a 2xx within the time
 * limit (10 s) is delivered; anything else — another status (redirects are not followed), a refused URL, a
 * connection error, the time limit — is a failed attempt, for the queue to retry with growing delays.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { signatureHeaders } from './signing';
import { checkWebhookUrl, type Resolve, type ResolvedAddress } from './url-check';

/** The time an endpoint has to answer, in milliseconds. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** The most of an answer's body read (and kept for the deliveries listing). */
const MAX_ANSWER_BYTES = 1024;

export interface SendOptions {
  url: string;
  secret: string;
  /** The message id: the event's id, the same on every attempt. */
  messageId: string;
  /** The body, exactly as signed and sent. */
  body: string;
  allowLocal?: boolean;
  resolve?: Resolve;
  timeoutMs?: number;
  now?: () => Date;
}

/** What one attempt came to. */
export interface AttemptResult {
  delivered: boolean;
  /** The endpoint's status, when it answered. */
  statusCode?: number;
  /** Why the attempt failed, when it did. */
  error?: string;
  /** When the attempt started (ISO 8601). */
  at: string;
  durationMs: number;
}

/** A lookup that answers the checked address, whatever the name resolves to now. */
const pinnedLookup =
  (address: ResolvedAddress): LookupFunction =>
  (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all === true) {
      (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: address.address, family: address.family },
      ]);
      return;
    }
    callback(null, address.address, address.family);
  };

/** Sends one attempt. Never throws. */
export const sendWebhook = async (options: SendOptions): Promise<AttemptResult> => {
  const started = (options.now ?? (() => new Date()))();
  const result = (fields: Omit<AttemptResult, 'at' | 'durationMs'>): AttemptResult => ({
    ...fields,
    at: started.toISOString(),
    durationMs: Date.now() - started.getTime(),
  });
  const checked = await checkWebhookUrl(options.url, {
    ...(options.allowLocal === undefined ? {} : { allowLocal: options.allowLocal }),
    ...(options.resolve === undefined ? {} : { resolve: options.resolve }),
  });
  if (!checked.ok) return result({ delivered: false, error: `refused: ${checked.reason}` });
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'jobs-api-webhooks/1',
    ...signatureHeaders(options.secret, options.messageId, options.body, started),
  };
  const send = checked.url.protocol === 'https:' ? httpsRequest : httpRequest;
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const settle = (value: AttemptResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const req = send(
      checked.url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(options.body)) },
        lookup: pinnedLookup(checked.addresses[0] as ResolvedAddress),
      },
      (response: IncomingMessage) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        const done = (): void => {
          const statusCode = response.statusCode ?? 0;
          const delivered = statusCode >= 200 && statusCode < 300;
          settle(
            result(delivered ? { delivered, statusCode } : { delivered, statusCode, error: `answered ${statusCode}` }),
          );
        };
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      settle(result({ delivered: false, error: `no answer within ${timeoutMs} ms` }));
      req.destroy();
    }, timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      settle(result({ delivered: false, error: `connection failed: ${error.code ?? error.message}` }));
    });
    req.end(options.body);
  });
};

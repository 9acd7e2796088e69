import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { sendWebhook } from '../../../functions/webhooks/send';
import { newSigningSecret } from '../../../functions/webhooks/signing';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server | undefined;

/** A receiver on the loopback address that answers as the test says and keeps what it received. */
const receiver = async (answer: (response: ServerResponse) => void): Promise<{ url: string; received: Received[] }> => {
  const received: Received[] = [];
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      answer(response);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { url: `http://localhost:${(server.address() as AddressInfo).port}/hook`, received };
};

/** Stops the receiver, when one runs. */
const stopReceiver = async (): Promise<void> => {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
};

afterEach(stopReceiver);

const event = { id: 'jobs/7/v2/job.updated', type: 'job.updated', data: { jobId: 7 } };
const body = JSON.stringify(event);

describe('one webhook delivery attempt', () => {
  it('posts the event signed so the receiver verifies it with the Standard Webhooks library; a 2xx is delivered', async () => {
    const { url, received } = await receiver((response) => response.writeHead(204).end());
    const secret = newSigningSecret();
    const result = await sendWebhook({ url, secret, messageId: event.id, body, allowLocal: true });
    expect(result).toMatchObject({ delivered: true, statusCode: 204 });
    expect(received).toHaveLength(1);
    const [{ headers, body: got }] = received as [Received];
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-id']).toBe(event.id);
    expect(new Webhook(secret).verify(got, headers as Record<string, string>)).toEqual(event);
  });

  it('fails an attempt the endpoint answers with another status, a redirect included, naming it', async () => {
    for (const status of [500, 302, 404]) {
      const { url } = await receiver((response) =>
        response.writeHead(status, { location: 'https://x.test/' }).end('no'),
      );
      const result = await sendWebhook({ url, secret: newSigningSecret(), messageId: 'm', body, allowLocal: true });
      expect(result).toMatchObject({ delivered: false, statusCode: status, error: `answered ${status}` });
      await stopReceiver();
    }
  });

  it('fails an attempt the endpoint does not answer in time', async () => {
    const { url } = await receiver(() => undefined);
    const result = await sendWebhook({
      url,
      secret: newSigningSecret(),
      messageId: 'm',
      body,
      allowLocal: true,
      timeoutMs: 200,
    });
    expect(result).toMatchObject({ delivered: false, error: 'no answer within 200 ms' });
  });

  it('sends nothing to a URL the check refuses: a loopback receiver where local webhooks are not allowed', async () => {
    const { url, received } = await receiver((response) => response.writeHead(200).end());
    const result = await sendWebhook({ url, secret: newSigningSecret(), messageId: 'm', body });
    expect(result).toMatchObject({ delivered: false, error: 'refused: the URL must use https' });
    const pinned = await sendWebhook({
      url: 'https://rebinding.example.test/hook',
      secret: newSigningSecret(),
      messageId: 'm',
      body,
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(pinned.error).toMatch(/^refused: /);
    expect(received).toEqual([]);
  });

  it('fails an attempt whose connection fails', async () => {
    const { url } = await receiver((response) => response.end());
    await stopReceiver();
    const result = await sendWebhook({ url, secret: newSigningSecret(), messageId: 'm', body, allowLocal: true });
    expect(result).toMatchObject({ delivered: false, error: expect.stringMatching(/^connection failed: /) });
  });
});

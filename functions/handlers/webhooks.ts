/**
 * Lambda entry of the `/webhooks` endpoints (docs/contract.md §6c): a client's backend registers, lists and
 * removes the endpoints that receive its events, and reads their recent delivery attempts. Every endpoint is
 * server to server, authenticated as `POST /sessions` is — the client token and one of the client's secrets,
 * read consistently, never cached — and needs the grant `webhooks`. A client only ever sees its own webhooks:
 * another client's id is answered `404 webhook_not_found`, as an unknown one, and nothing of it is read out.
 *
 * - `POST /webhooks` checks the fields, then the URL after DNS resolution (`https`, public addresses only;
 *   `http://localhost` too where the local stack allows it; a host that does not resolve yet is taken, and judged
 *   at every delivery), and answers `201` with the signing secret, once.
 * - `GET /webhooks`, `DELETE /webhooks/{webhookId}`, `GET /webhooks/{webhookId}/deliveries`.
 */
import { lookup } from 'node:dns/promises';
import { authKeys } from '../tables';
import { hashToken } from '../auth/tokens';
import type { ClientRecord } from '../auth/records';
import { documentClient } from '../aws/dynamodb';
import { config } from '../config';
import type { EventType } from '../events/cloud-event';
import { httpEndpoint, routedHandler } from '../http/endpoint';
import { ApiError, invalidParameter } from '../http/errors';
import { lastHeaderValue } from '../http/headers';
import { CLIENT_TOKEN_HEADER } from '../http/middlewares/required-headers';
import { noInput } from '../http/middlewares/validation';
import { pathParameter } from '../http/path-parameters';
import { parseWebhookRequest, type WebhookRequest } from '../http/webhook-request';
import type { AttemptRecord, WebhookRecord } from '../webhooks/records';
import { WebhookLimitError, WebhookStore } from '../webhooks/store';
import { checkWebhookUrl, type Resolve } from '../webhooks/url-check';

/** A webhook as its client sees it: never its secret. */
export interface WebhookView {
  id: string;
  url: string;
  events: EventType[];
  enabled: boolean;
  createdAt: string;
  disabledAt: string | null;
}

export interface WebhookCreatedResponseBody extends WebhookView {
  _type: 'WebhookCreatedResponseBody';
  /** The signing secret, shown only here. */
  secret: string;
}

export interface WebhooksResponseBody {
  _type: 'WebhooksResponseBody';
  webhooks: WebhookView[];
}

export interface WebhookDeletedResponseBody {
  _type: 'WebhookDeletedResponseBody';
  id: string;
}

export interface WebhookDeliveriesResponseBody {
  _type: 'WebhookDeliveriesResponseBody';
  webhookId: string;
  deliveries: AttemptRecord[];
}

/** How long resolving a webhook's host may take before the URL is refused as not resolving. */
const RESOLVE_TIMEOUT_MS = 3_000;

/** The system resolver, as connections use it, given up after {@link RESOLVE_TIMEOUT_MS}. */
const resolveInTime: Resolve = async (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  try {
    const found = await Promise.race([
      lookup(hostname, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('DNS lookup timed out')), RESOLVE_TIMEOUT_MS);
      }),
    ]);
    return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  } finally {
    clearTimeout(timer);
  }
};

const store = (): WebhookStore => {
  const settings = config();
  return new WebhookStore(documentClient(), settings.authTable, { timeoutMs: settings.dependencyTimeoutMs });
};

const viewOf = (webhook: WebhookRecord): WebhookView => ({
  id: webhook.webhookId,
  url: webhook.url,
  events: webhook.events,
  enabled: webhook.enabled,
  createdAt: webhook.createdAt,
  disabledAt: webhook.disabledAt ?? null,
});

const notFound = (): ApiError => new ApiError('webhook_not_found');

const register = httpEndpoint<WebhookRequest, WebhookCreatedResponseBody, ClientRecord>(
  { path: '/webhooks', method: 'POST', parse: parseWebhookRequest, status: 201 },
  async ({ input, principal: client, event }) => {
    const checked = await checkWebhookUrl(input.url, {
      allowLocal: config().webhooks.allowLocal,
      resolve: resolveInTime,
    });
    // A host that does not resolve now cannot be judged, and is no danger: it is taken, and every delivery checks
    // it again after resolution (an attempt to a name that resolves nowhere, or somewhere private, fails).
    if (!checked.ok && checked.unresolved !== true) {
      throw invalidParameter('url', `The url is refused: ${checked.reason}.`);
    }
    // The client's item is keyed by the hash of its token: delivery reads it for the client's accounts.
    const clientKey = authKeys.client(hashToken(lastHeaderValue(event, CLIENT_TOKEN_HEADER)?.trim() ?? ''));
    try {
      const webhook = await store().create({
        clientId: client.clientId,
        clientKey,
        url: input.url,
        events: input.events,
      });
      return { _type: 'WebhookCreatedResponseBody', ...viewOf(webhook), secret: webhook.secret };
    } catch (error) {
      if (error instanceof WebhookLimitError) {
        throw new ApiError('webhook_limit_reached', {}, { message: error.message, cause: error });
      }
      throw error;
    }
  },
);

const list = httpEndpoint<undefined, WebhooksResponseBody, ClientRecord>(
  { path: '/webhooks', method: 'GET', parse: noInput },
  async ({ principal: client }) => ({
    _type: 'WebhooksResponseBody',
    webhooks: (await store().list(client.clientId)).map(viewOf),
  }),
);

const remove = httpEndpoint<undefined, WebhookDeletedResponseBody, ClientRecord>(
  { path: '/webhooks/{webhookId}', method: 'DELETE', parse: noInput },
  async ({ principal: client, params }) => {
    const webhookId = pathParameter(params, 'webhookId');
    if (!(await store().delete(client.clientId, webhookId))) throw notFound();
    return { _type: 'WebhookDeletedResponseBody', id: webhookId };
  },
);

const deliveries = httpEndpoint<undefined, WebhookDeliveriesResponseBody, ClientRecord>(
  { path: '/webhooks/{webhookId}/deliveries', method: 'GET', parse: noInput },
  async ({ principal: client, params }) => {
    const webhookId = pathParameter(params, 'webhookId');
    const webhooks = store();
    if ((await webhooks.getOwn(client.clientId, webhookId)) === undefined) throw notFound();
    return { _type: 'WebhookDeliveriesResponseBody', webhookId, deliveries: await webhooks.attempts(webhookId) };
  },
);

/** The function's handler: the endpoint of the path and method API Gateway matched. */
export const handler = routedHandler([register, list, remove, deliveries]);

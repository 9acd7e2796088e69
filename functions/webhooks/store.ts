/**
 * WebhookStore: the webhook endpoints clients register, and their delivery attempts, in the auth table under
 * `WEBHOOK#` keys (`functions/tables.ts`, `webhookKeys`), so a function's IAM grant can be confined to them.
 *
 * - A registration is one transaction of three writes: the webhook item (with its signing secret; the table is
 *   encrypted at rest), the client's list of its webhooks (whose size caps them at
 *   {@link MAX_WEBHOOKS_PER_CLIENT}, under a condition, so concurrent registrations cannot pass the cap), and the
 *   registry entry delivery reads. A removal undoes the three in one transaction, only for the client that owns
 *   the webhook.
 * - A client's webhooks are listed from its list item and read by key, strongly consistent: a webhook shows the
 *   moment its `201` has answered, with no index lag.
 * - Delivery finds the webhooks of an event in the one registry item (`WEBHOOK#REGISTRY`: one attribute per
 *   webhook, its client and event types), one GetItem, never a Scan.
 * - Each attempt is written to a ring of {@link ATTEMPT_SLOTS} slots per webhook that expire by TTL after
 *   {@link ATTEMPT_RETENTION_SECONDS}; the webhook item counts attempts and records since when it has been
 *   failing, which is what disables it.
 */
import { randomBytes } from 'node:crypto';
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { cancellationCodes } from '../aws/failures';
import type { EventType } from '../events/cloud-event';
import { byClientEntries, webhookKeys } from '../tables';
import { newSigningSecret } from './signing';
import {
  type AttemptRecord,
  asAttempt,
  asWebhook,
  isEventType,
  WEBHOOK_ID_PATTERN,
  type WebhookRecord,
} from './records';

/** The most webhooks one client may have registered at once. */
export const MAX_WEBHOOKS_PER_CLIENT = 10;

/** How many recent attempts of a webhook are kept (and listed). */
export const ATTEMPT_SLOTS = 50;

/** How long an attempt is kept, in seconds (7 days): longer than the 5 days that disable a failing endpoint. */
export const ATTEMPT_RETENTION_SECONDS = 7 * 24 * 3600;

/** A client's webhook registrations would pass {@link MAX_WEBHOOKS_PER_CLIENT}. */
export class WebhookLimitError extends Error {
  public constructor(message = `A client may have at most ${MAX_WEBHOOKS_PER_CLIENT} webhooks.`) {
    super(message);
    this.name = 'WebhookLimitError';
  }
}

/** One webhook as delivery finds it in the registry. */
export interface RegistryEntry {
  webhookId: string;
  clientId: string;
  events: EventType[];
}

export interface NewWebhook {
  clientId: string;
  clientKey: string;
  url: string;
  events: readonly EventType[];
}

export interface WebhookStoreOptions {
  /** Budget of one DynamoDB call, in milliseconds. */
  timeoutMs?: number;
  now?: () => Date;
}

/** A new webhook id: `wh_` and 128 random bits in hex. */
export const newWebhookId = (): string => `wh_${randomBytes(16).toString('hex')}`;

/** Webhooks and their attempts in the auth table. */
export class WebhookStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #timeoutMs: number | undefined;
  readonly #now: () => Date;

  public constructor(client: DynamoDBDocumentClient, tableName: string, options: WebhookStoreOptions = {}) {
    this.#client = client;
    this.#table = tableName;
    this.#timeoutMs = options.timeoutMs;
    this.#now = options.now ?? (() => new Date());
  }

  #options(): { abortSignal?: AbortSignal } {
    return this.#timeoutMs === undefined ? {} : { abortSignal: AbortSignal.timeout(this.#timeoutMs) };
  }

  async #get(pk: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.#client.send(
      new GetCommand({ TableName: this.#table, Key: { pk }, ConsistentRead: true }),
      this.#options(),
    );
    return Item;
  }

  /** The items of some keys, read consistently (keys left unprocessed are asked for again, a few times). */
  async #batchGet(keys: readonly string[]): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    for (let start = 0; start < keys.length; start += 100) {
      let pending: Record<string, unknown>[] = keys.slice(start, start + 100).map((pk) => ({ pk }));
      for (let round = 0; pending.length > 0; round++) {
        if (round === 5) throw new Error('BatchGetItem left keys unprocessed');
        const { Responses, UnprocessedKeys } = await this.#client.send(
          new BatchGetCommand({ RequestItems: { [this.#table]: { Keys: pending, ConsistentRead: true } } }),
          this.#options(),
        );
        items.push(...(Responses?.[this.#table] ?? []));
        pending = UnprocessedKeys?.[this.#table]?.Keys ?? [];
      }
    }
    return items;
  }

  /**
   * Registers a webhook: its item, the client's list and the registry entry, in one transaction.
   *
   * @returns the webhook, its signing secret included (to be shown once).
   * @throws {@link WebhookLimitError} when the client has {@link MAX_WEBHOOKS_PER_CLIENT} webhooks already, or the
   *   registry has no room left.
   */
  public async create(input: NewWebhook): Promise<WebhookRecord> {
    const webhookId = newWebhookId();
    const createdAt = this.#now().toISOString();
    const record: WebhookRecord = {
      webhookId,
      clientId: input.clientId,
      clientKey: input.clientKey,
      url: input.url,
      events: [...input.events],
      secret: newSigningSecret(),
      createdAt,
      enabled: true,
      attemptCount: 0,
    };
    try {
      await this.#client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.#table,
                Item: {
                  pk: webhookKeys.webhook(webhookId),
                  type: 'webhook',
                  clientEntry: byClientEntries.webhook(webhookId),
                  ...record,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Update: {
                TableName: this.#table,
                Key: { pk: webhookKeys.clientList(input.clientId) },
                UpdateExpression: 'ADD webhookIds :id SET #type = :type',
                ConditionExpression: 'attribute_not_exists(webhookIds) OR size(webhookIds) < :max',
                ExpressionAttributeNames: { '#type': 'type' },
                ExpressionAttributeValues: {
                  ':id': new Set([webhookId]),
                  ':type': 'webhook-list',
                  ':max': MAX_WEBHOOKS_PER_CLIENT,
                },
              },
            },
            {
              Update: {
                TableName: this.#table,
                Key: { pk: webhookKeys.registry },
                UpdateExpression: 'SET #id = :entry',
                ExpressionAttributeNames: { '#id': webhookId },
                ExpressionAttributeValues: { ':entry': { c: input.clientId, e: [...input.events] } },
              },
            },
          ],
        }),
        this.#options(),
      );
    } catch (error) {
      const codes = cancellationCodes(error);
      if (codes[1] === 'ConditionalCheckFailed') throw new WebhookLimitError();
      // The registry item is full (DynamoDB's 400 KB): no more webhooks fit in this stage.
      if (codes[2] === 'ValidationError') {
        throw new WebhookLimitError('No more webhooks can be registered in this deployment.');
      }
      throw error;
    }
    return record;
  }

  /** A webhook by id, or `undefined` when there is none (an id of another form included). */
  public async get(webhookId: string): Promise<WebhookRecord | undefined> {
    if (!WEBHOOK_ID_PATTERN.test(webhookId)) return undefined;
    return asWebhook(await this.#get(webhookKeys.webhook(webhookId)));
  }

  /** A client's webhook, or `undefined` when there is none or it is another client's. */
  public async getOwn(clientId: string, webhookId: string): Promise<WebhookRecord | undefined> {
    const found = await this.get(webhookId);
    return found?.clientId === clientId ? found : undefined;
  }

  /** A client's webhooks, oldest first. */
  public async list(clientId: string): Promise<WebhookRecord[]> {
    const list = await this.#get(webhookKeys.clientList(clientId));
    const ids = list?.webhookIds instanceof Set ? [...(list.webhookIds as Set<unknown>)] : [];
    const keys = ids
      .filter((id): id is string => typeof id === 'string' && WEBHOOK_ID_PATTERN.test(id))
      .map(webhookKeys.webhook);
    return (await this.#batchGet(keys))
      .map(asWebhook)
      .filter((found): found is WebhookRecord => found?.clientId === clientId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.webhookId.localeCompare(b.webhookId));
  }

  /**
   * Removes a client's webhook: its item, its place in the client's list and its registry entry, in one
   * transaction (its attempts expire by TTL).
   *
   * @returns whether there was such a webhook of that client.
   */
  public async delete(clientId: string, webhookId: string): Promise<boolean> {
    if (!WEBHOOK_ID_PATTERN.test(webhookId)) return false;
    try {
      await this.#client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.#table,
                Key: { pk: webhookKeys.webhook(webhookId) },
                ConditionExpression: 'clientId = :clientId',
                ExpressionAttributeValues: { ':clientId': clientId },
              },
            },
            {
              Update: {
                TableName: this.#table,
                Key: { pk: webhookKeys.clientList(clientId) },
                UpdateExpression: 'DELETE webhookIds :id',
                ExpressionAttributeValues: { ':id': new Set([webhookId]) },
              },
            },
            {
              Update: {
                TableName: this.#table,
                Key: { pk: webhookKeys.registry },
                UpdateExpression: 'REMOVE #id',
                ExpressionAttributeNames: { '#id': webhookId },
              },
            },
          ],
        }),
        this.#options(),
      );
      return true;
    } catch (error) {
      if (cancellationCodes(error)[0] === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  /** Every registered webhook with its client and event types (one read of the registry item). */
  public async registry(): Promise<RegistryEntry[]> {
    const item = await this.#get(webhookKeys.registry);
    const entries: RegistryEntry[] = [];
    for (const [webhookId, value] of Object.entries(item ?? {})) {
      if (!WEBHOOK_ID_PATTERN.test(webhookId) || typeof value !== 'object' || value === null) continue;
      const { c, e } = value as { c?: unknown; e?: unknown };
      if (typeof c !== 'string' || !Array.isArray(e)) continue;
      entries.push({ webhookId, clientId: c, events: e.filter(isEventType) });
    }
    return entries;
  }

  /**
   * Records one attempt: counts it on the webhook, keeps or clears since when the webhook has been failing, and
   * disables it when that has lasted `disableAfterMs`; then writes the attempt to its slot of the ring.
   *
   * @returns the webhook as it stands after the attempt, or `undefined` when it was removed meanwhile (nothing
   *   is recorded then).
   */
  public async recordAttempt(
    webhookId: string,
    attempt: AttemptRecord,
    disableAfterMs: number,
  ): Promise<WebhookRecord | undefined> {
    const delivered = attempt.status === 'delivered';
    let updated: WebhookRecord | undefined;
    try {
      const { Attributes } = await this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { pk: webhookKeys.webhook(webhookId) },
          UpdateExpression: delivered
            ? 'ADD attemptCount :one REMOVE failingSince'
            : 'ADD attemptCount :one SET failingSince = if_not_exists(failingSince, :at)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1, ...(delivered ? {} : { ':at': attempt.at }) },
          ReturnValues: 'ALL_NEW',
        }),
        this.#options(),
      );
      updated = asWebhook(Attributes);
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
      throw error;
    }
    if (updated === undefined) return undefined;
    const slot = (updated.attemptCount - 1) % ATTEMPT_SLOTS;
    await this.#client.send(
      new PutCommand({
        TableName: this.#table,
        Item: {
          pk: webhookKeys.attempt(webhookId, slot),
          type: 'webhook-attempt',
          webhookId,
          ...attempt,
          ttl: Math.floor(Date.parse(attempt.at) / 1000) + ATTEMPT_RETENTION_SECONDS,
        },
      }),
      this.#options(),
    );
    const failingFor =
      updated.failingSince === undefined ? 0 : Date.parse(attempt.at) - Date.parse(updated.failingSince);
    if (updated.enabled && !delivered && failingFor >= disableAfterMs) {
      const disabledAt = this.#now().toISOString();
      await this.#client.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { pk: webhookKeys.webhook(webhookId) },
          UpdateExpression: 'SET enabled = :false, disabledAt = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':false': false, ':at': disabledAt },
        }),
        this.#options(),
      );
      updated = { ...updated, enabled: false, disabledAt };
    }
    return updated;
  }

  /** A webhook's recent attempts still kept, newest first. */
  public async attempts(webhookId: string): Promise<AttemptRecord[]> {
    if (!WEBHOOK_ID_PATTERN.test(webhookId)) return [];
    const nowSeconds = this.#now().getTime() / 1000;
    const keys = Array.from({ length: ATTEMPT_SLOTS }, (_, slot) => webhookKeys.attempt(webhookId, slot));
    return (await this.#batchGet(keys))
      .filter((item) => typeof item.ttl !== 'number' || item.ttl > nowSeconds)
      .map(asAttempt)
      .filter((found): found is AttemptRecord => found !== undefined)
      .sort((a, b) => b.at.localeCompare(a.at) || b.attempt - a.attempt);
  }
}

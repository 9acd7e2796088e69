/**
 * What operators do to clients, secrets and sessions they know by id, never by token (the CLI): disable or
 * enable a client, rotate or revoke its secrets, list and revoke its sessions. Everything is found through
 * the auth table's sparse `byClient` index (`functions/tables.ts`), one Query per listing, never a Scan, and
 * changed by the item's own key under a condition that it still belongs to the client. Every change writes
 * one audit line; a listing never returns a token or a hash.
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  type NativeAttributeValue,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { AUTH_TABLE, byClientEntries } from '../tables';
import { type AuditSink, type AuditSource, noAudit } from './audit';
import { asClient, asSecret, asSession, type ClientRecord, isLive, type SessionRecord } from './records';
import { AuthStore, type IssuedSecret } from './store';

/** The index operators find a client's items by. */
export const BY_CLIENT_INDEX = AUTH_TABLE.globalSecondaryIndexes[0].indexName;

/** How long the previous secrets keep working after a rotation, by default: 24 hours. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 60 * 60;

/** No client has this id. */
export class ClientNotFoundError extends Error {
  public constructor(clientId: string) {
    super(`No client has the id ${clientId}`);
    this.name = 'ClientNotFoundError';
  }
}

/** The client has no secret of this id. */
export class SecretNotFoundError extends Error {
  public constructor(secretId: string) {
    super(`The client has no secret with the id ${secretId}`);
    this.name = 'SecretNotFoundError';
  }
}

export interface AuthAdministrationOptions {
  timeoutMs?: number;
  now?: () => Date;
  audit?: AuditSink;
}

/** A client found by id, with the key of its item. */
export interface FoundClient {
  pk: string;
  client: ClientRecord;
}

type Item = Record<string, NativeAttributeValue>;

/** Operators' view of the auth table. */
export class AuthAdministration {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #options: AuthAdministrationOptions;
  readonly #audit: AuditSink;
  readonly #store: AuthStore;

  public constructor(client: DynamoDBDocumentClient, tableName: string, options: AuthAdministrationOptions = {}) {
    this.#client = client;
    this.#tableName = tableName;
    this.#options = options;
    this.#audit = options.audit ?? noAudit;
    this.#store = new AuthStore(client, tableName, options);
  }

  #sendOptions(): { abortSignal?: AbortSignal } {
    const { timeoutMs } = this.#options;
    return timeoutMs === undefined ? {} : { abortSignal: AbortSignal.timeout(timeoutMs) };
  }

  #nowMs(): number {
    return (this.#options.now?.() ?? new Date()).getTime();
  }

  /** Every item of a client whose index entry is `entry` (exactly) or begins with `prefix`. */
  async #query(clientId: string, match: { entry: string } | { prefix: string }): Promise<Item[]> {
    const items: Item[] = [];
    let ExclusiveStartKey: Item | undefined;
    do {
      const page = await this.#client.send(
        new QueryCommand({
          TableName: this.#tableName,
          IndexName: BY_CLIENT_INDEX,
          KeyConditionExpression:
            'entry' in match
              ? 'clientId = :clientId AND clientEntry = :entry'
              : 'clientId = :clientId AND begins_with(clientEntry, :entry)',
          ExpressionAttributeValues: { ':clientId': clientId, ':entry': 'entry' in match ? match.entry : match.prefix },
          ExclusiveStartKey,
        }),
        this.#sendOptions(),
      );
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey !== undefined);
    return items;
  }

  /** The client of an id, with its item's key. @throws {@link ClientNotFoundError} */
  public async findClient(clientId: string): Promise<FoundClient> {
    const [item] = await this.#query(clientId, { entry: byClientEntries.client });
    const client = asClient(item);
    if (item === undefined || client === undefined) throw new ClientNotFoundError(clientId);
    return { pk: String(item.pk), client };
  }

  /** Enables or disables a client; its sessions and secrets stay as they are. */
  public async setClientEnabled(clientId: string, enabled: boolean, source: AuditSource): Promise<void> {
    const { pk } = await this.findClient(clientId);
    await this.#client.send(
      new UpdateCommand({
        TableName: this.#tableName,
        Key: { pk },
        UpdateExpression: 'SET enabled = :enabled',
        ConditionExpression: 'clientId = :clientId',
        ExpressionAttributeValues: { ':enabled': enabled, ':clientId': clientId },
      }),
      this.#sendOptions(),
    );
    this.#audit({ action: enabled ? 'client.enabled' : 'client.disabled', clientId, source });
  }

  /**
   * Issues a new secret and gives every other working secret of the client an end `overlapSeconds` from
   * now (one that ends sooner keeps its end), so the application can switch without an outage.
   */
  public async rotateSecret(clientId: string, overlapSeconds: number, source: AuditSource): Promise<IssuedSecret> {
    await this.findClient(clientId);
    const previous = await this.#query(clientId, { prefix: byClientEntries.secretPrefix });
    const issued = await this.#store.issueSecret(clientId, source);
    const endMs = this.#nowMs() + overlapSeconds * 1000;
    const expiresAt = new Date(endMs).toISOString();
    for (const item of previous) {
      const secret = asSecret(item);
      if (secret === undefined || !isLive(secret.expiresAt, this.#nowMs())) continue;
      if (secret.expiresAt !== undefined && Date.parse(secret.expiresAt) <= endMs) continue;
      await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: { pk: item.pk },
          UpdateExpression: 'SET expiresAt = :expiresAt, #ttl = :ttl',
          ConditionExpression: 'clientId = :clientId',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':expiresAt': expiresAt,
            ':ttl': Math.ceil(endMs / 1000),
            ':clientId': clientId,
          },
        }),
        this.#sendOptions(),
      );
      this.#audit({ action: 'secret.revoked', clientId, secretId: secret.secretId, expiresAt, source });
    }
    return issued;
  }

  /** Ends one secret of a client now. @throws {@link SecretNotFoundError} */
  public async revokeSecret(clientId: string, secretId: string, source: AuditSource): Promise<void> {
    const [item] = await this.#query(clientId, { entry: byClientEntries.secret(secretId) });
    if (item === undefined || asSecret(item) === undefined) throw new SecretNotFoundError(secretId);
    await this.#deleteOwned(item, clientId);
    this.#audit({ action: 'secret.revoked', clientId, secretId, source });
  }

  /** The client's live sessions, or one user's (ids, user, account, role, created, expires; never a token). */
  public async listSessions(clientId: string, userId?: string): Promise<SessionRecord[]> {
    return (await this.#liveSessionItems(clientId, userId)).map(({ session }) => session);
  }

  /**
   * Revokes one session of a client by its id, or every session of one of its users; returns how many were
   * revoked. The containers that cached a revoked session stop accepting it within 60 s.
   */
  public async revokeSessions(
    clientId: string,
    which: { sessionId: string } | { userId: string },
    source: AuditSource,
  ): Promise<number> {
    const found = await this.#liveSessionItems(clientId, 'userId' in which ? which.userId : undefined);
    const targets = 'sessionId' in which ? found.filter(({ session }) => session.sessionId === which.sessionId) : found;
    let revoked = 0;
    for (const { item, session } of targets) {
      if (!(await this.#deleteOwned(item, clientId))) continue;
      revoked += 1;
      const { sessionId, userId, accountId, role, expiresAt } = session;
      this.#audit({ action: 'session.revoked', clientId, sessionId, userId, accountId, role, expiresAt, source });
    }
    return revoked;
  }

  async #liveSessionItems(clientId: string, userId?: string): Promise<{ item: Item; session: SessionRecord }[]> {
    const now = this.#nowMs();
    return (await this.#query(clientId, { prefix: byClientEntries.sessionPrefix(userId) }))
      .map((item) => ({ item, session: asSession(item) }))
      .filter((found): found is { item: Item; session: SessionRecord } => found.session !== undefined)
      .filter(({ session }) => isLive(session.expiresAt, now));
  }

  /** Deletes an item found through the index if it still belongs to the client; whether it did. */
  async #deleteOwned(item: Item, clientId: string): Promise<boolean> {
    try {
      await this.#client.send(
        new DeleteCommand({
          TableName: this.#tableName,
          Key: { pk: item.pk },
          ConditionExpression: 'clientId = :clientId',
          ExpressionAttributeValues: { ':clientId': clientId },
        }),
        this.#sendOptions(),
      );
      return true;
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }
}

/**
 * What operators do to clients, secrets and sessions they know by id, never by token (the CLI): disable or
 * enable a client, rotate or revoke its secrets, list and revoke its sessions. A client's items are found
 * through the auth table's sparse `byClient` index (`functions/tables.ts`), one Query per listing, never a
 * Scan, and changed by the item's own key under a condition that it still belongs to the client.
 *
 * The index lags its table, so nothing that must be exact is taken from it: the client item itself is read
 * consistently, it keeps its secrets' ids and ends, and it carries what ends sessions the index may not show
 * yet — the session generation (`disable-client`, `revoke-session --all`) and the revoked secrets (every
 * session records the secret that opened it). The index only finds the items to delete, so the table stays
 * tidy and the command can say how many it ended. Every change writes one audit record; a listing never
 * returns a token or a hash. The requests on a client's items are `client-items.ts`'s.
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { byClientEntries } from '../tables';
import type { AuditSource } from './audit';
import { type AuthAdministrationOptions, ClientItems, isConditionFailure } from './client-items';
import {
  asClient,
  asSecret,
  type ClientRecord,
  endedByClient,
  isLive,
  type SecretEntry,
  type SessionRecord,
} from './records';
import { type ClientSummary, listClients } from './client-listing';
import { ClientNotFoundError, SecretNotFoundError } from './errors';
import { type IssuedSecret, newSecret } from './secrets';

export { ClientNotFoundError, SecretNotFoundError } from './errors';
export { type AuthAdministrationOptions, BY_CLIENT_INDEX, INDEX_CATCH_UP_MS } from './client-items';

/** How long the previous secrets keep working after a rotation, by default: 24 hours. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 60 * 60;

/** A client found by id, with the key of its item. */
export interface FoundClient {
  pk: string;
  client: ClientRecord;
}

/** Which sessions of a client to revoke: one by id, every one of a user, or all of them. */
export type SessionSelection = { sessionId: string } | { userId: string } | { all: true };

/** Operators' view of the auth table. */
export class AuthAdministration {
  readonly #items: ClientItems;

  public constructor(client: DynamoDBDocumentClient, tableName: string, options: AuthAdministrationOptions = {}) {
    this.#items = new ClientItems(client, tableName, options);
  }

  /**
   * The client of an id, read consistently from its own item (the index only gives its key).
   *
   * @throws {@link ClientNotFoundError}
   */
  public async findClient(clientId: string): Promise<FoundClient> {
    const [entry] = await this.#items.query(clientId, { entry: byClientEntries.client });
    if (entry === undefined) throw new ClientNotFoundError(clientId);
    const { Item } = await this.#items.client.send(
      new GetCommand({ TableName: this.#items.tableName, Key: { pk: entry.pk }, ConsistentRead: true }),
      this.#items.sendOptions(),
    );
    const client = asClient(Item);
    if (client === undefined || client.clientId !== clientId) throw new ClientNotFoundError(clientId);
    return { pk: String(entry.pk), client };
  }

  /**
   * Enables or disables a client. Disabling also ends every session of the client for good: its session
   * generation moves on (so enabling it again brings none back, nor one the index has not shown yet), and
   * the sessions the index shows are deleted.
   */
  public async setClientEnabled(clientId: string, enabled: boolean, source: AuditSource): Promise<void> {
    const { pk } = await this.findClient(clientId);
    if (enabled) {
      await this.#items.update(pk, clientId, { update: 'SET enabled = :enabled', values: { ':enabled': true } });
      await this.#items.record({ action: 'client.enabled', clientId }, source);
      return;
    }
    const generation = await this.#items.nextGeneration(pk, clientId, { enabled: false });
    await this.#items.record({ action: 'client.disabled', clientId }, source);
    await this.#endGeneration(clientId, generation, 'client.disabled', source);
  }

  /**
   * Deletes and records every session opened under a generation before `generation` (the one the command
   * just moved the client to), once the index shows that move; how many it ended.
   */
  async #endGeneration(
    clientId: string,
    generation: number | undefined,
    cause: 'client.disabled' | 'all',
    source: AuditSource,
  ): Promise<number> {
    const current = generation ?? Number.MAX_SAFE_INTEGER;
    await this.#items.awaitIndex(clientId, (shown) => shown.sessionGeneration >= current);
    const older = (await this.#items.liveSessions(clientId)).filter(({ session }) => session.generation < current);
    return this.#items.endSessions(clientId, older, cause, source);
  }

  /** The client's secrets as the client item knows them; for a client stored before, as their items say. */
  public async secretsOf(found: FoundClient): Promise<Record<string, SecretEntry>> {
    if (found.client.secrets !== undefined) return { ...found.client.secrets };
    const entries: Record<string, SecretEntry> = {};
    for (const item of await this.#items.query(found.client.clientId, { prefix: byClientEntries.secretPrefix })) {
      const secret = asSecret(item);
      if (secret === undefined || found.client.revokedSecretIds.includes(secret.secretId)) continue;
      entries[secret.secretId] = {
        key: String(item.pk),
        createdAt: secret.createdAt,
        ...(secret.expiresAt === undefined ? {} : { expiresAt: secret.expiresAt }),
      };
    }
    return entries;
  }

  /**
   * Issues a new secret and gives every other working secret of the client an end `overlapSeconds` from
   * now (one that ends sooner keeps its end), so the application can switch without an outage. The client
   * item is written in the same transaction as the new secret, and says which secrets there are.
   */
  public async rotateSecret(clientId: string, overlapSeconds: number, source: AuditSource): Promise<IssuedSecret> {
    const found = await this.findClient(clientId);
    const now = this.#items.now();
    const endMs = now.getTime() + overlapSeconds * 1000;
    const expiresAt = new Date(endMs).toISOString();
    const previous = await this.secretsOf(found);
    const next: Record<string, SecretEntry> = {};
    const ending: [string, SecretEntry][] = [];
    const dropped: string[] = [];
    for (const [secretId, entry] of Object.entries(previous)) {
      if (!isLive(entry.expiresAt, now.getTime())) {
        dropped.push(secretId);
        continue;
      }
      if (entry.expiresAt !== undefined && Date.parse(entry.expiresAt) <= endMs) {
        next[secretId] = entry;
        continue;
      }
      next[secretId] = { ...entry, expiresAt };
      ending.push([secretId, entry]);
    }
    const issued = newSecret(clientId, now);
    next[issued.secretId] = issued.entry;
    const legacy = found.client.secrets === undefined;
    await this.#items.client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: this.#items.tableName,
              Item: issued.item,
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: this.#items.updateInput(found.pk, {
              clientId,
              // An ended secret leaves `secrets` for `retiredSecretIds`: revoke-secret still ends its sessions.
              update: `SET secrets = :secrets${dropped.length === 0 ? '' : ' ADD retiredSecretIds :dropped'}`,
              // Written over what was read: a rotation racing this one makes one of them fail, never lose a secret.
              condition: legacy ? 'attribute_not_exists(secrets)' : 'secrets = :previous',
              values: {
                ':secrets': next,
                ...(legacy ? {} : { ':previous': found.client.secrets }),
                ...(dropped.length === 0 ? {} : { ':dropped': new Set(dropped) }),
              },
            }),
          },
        ],
      }),
      this.#items.sendOptions(),
    );
    await this.#items.record({ action: 'secret.issued', clientId, secretId: issued.secretId }, source);
    for (const [secretId, entry] of ending) {
      // The item's own end only lets TTL delete it; the client item already says when it stops working.
      await this.#items.client
        .send(
          new UpdateCommand(
            this.#items.updateInput(entry.key, {
              clientId,
              update: 'SET expiresAt = :expiresAt, #ttl = :ttl',
              names: { '#ttl': 'ttl' },
              values: { ':expiresAt': expiresAt, ':ttl': Math.ceil(endMs / 1000) },
            }),
          ),
          this.#items.sendOptions(),
        )
        .catch((error: unknown) => {
          if (!isConditionFailure(error)) throw error;
        });
      await this.#items.record({ action: 'secret.revoked', clientId, secretId, expiresAt }, source);
    }
    return { secretId: issued.secretId, secret: issued.secret };
  }

  /**
   * Ends one secret of a client now, and every session it opened; returns how many sessions it ended. The
   * client item records the secret as revoked (for a working secret, in the same transaction that deletes
   * it), so a session the index has not shown yet ends too. A secret no longer stored — ended by a rotation
   * after its overlap, or revoked before — is recorded as revoked all the same and its sessions end: the
   * sessions outlive the secret that opened them. @throws {@link SecretNotFoundError} for an id the client
   * never had, and changes nothing.
   */
  public async revokeSecret(clientId: string, secretId: string, source: AuditSource): Promise<number> {
    const found = await this.findClient(clientId);
    const entry = (await this.secretsOf(found))[secretId];
    if (entry === undefined) await this.#revokeEndedSecret(found, secretId);
    else {
      const legacy = found.client.secrets === undefined;
      await this.#items.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: this.#items.updateInput(found.pk, {
                clientId,
                update: legacy ? 'ADD revokedSecretIds :ids' : 'REMOVE secrets.#secretId ADD revokedSecretIds :ids',
                ...(legacy
                  ? {}
                  : { names: { '#secretId': secretId }, condition: 'attribute_exists(secrets.#secretId)' }),
                values: { ':ids': new Set([secretId]) },
              }),
            },
            { Delete: { TableName: this.#items.tableName, Key: { pk: entry.key } } },
          ],
        }),
        this.#items.sendOptions(),
      );
    }
    await this.#items.record({ action: 'secret.revoked', clientId, secretId }, source);
    await this.#items.awaitIndex(clientId, (shown) => shown.revokedSecretIds.includes(secretId));
    const opened = (await this.#items.liveSessions(clientId)).filter(({ session }) => session.secretId === secretId);
    return this.#items.endSessions(clientId, opened, 'secret', source);
  }

  /**
   * Records as revoked a secret the client item no longer lists, once it is sure the client had it: the
   * client item names it (ended by a rotation, or revoked), or — for what was dropped before the client item
   * kept ended secrets — the index still shows its item or a session it opened. Its item, if TTL has not
   * deleted it yet, goes now.
   */
  async #revokeEndedSecret(found: FoundClient, secretId: string): Promise<void> {
    const { clientId, retiredSecretIds, revokedSecretIds } = found.client;
    const items = await this.#items.query(clientId, { entry: byClientEntries.secret(secretId) });
    const known =
      retiredSecretIds.includes(secretId) ||
      revokedSecretIds.includes(secretId) ||
      items.length > 0 ||
      (await this.#items.liveSessions(clientId)).some(({ session }) => session.secretId === secretId);
    if (!known) throw new SecretNotFoundError(secretId);
    await this.#items.update(found.pk, clientId, {
      update: 'ADD revokedSecretIds :ids',
      values: { ':ids': new Set([secretId]) },
    });
    for (const item of items) {
      await this.#items.client
        .send(
          new DeleteCommand({
            TableName: this.#items.tableName,
            Key: { pk: item.pk },
            ConditionExpression: 'clientId = :clientId AND secretId = :secretId',
            ExpressionAttributeValues: { ':clientId': clientId, ':secretId': secretId },
          }),
          this.#items.sendOptions(),
        )
        .catch((error: unknown) => {
          if (!isConditionFailure(error)) throw error;
        });
    }
  }

  /** Every client, oldest first, with the ids and ends of its live secrets (`list-clients`). */
  public listClients(): Promise<ClientSummary[]> {
    return listClients(this.#items.client, this.#items.tableName, this);
  }

  /** The client's live sessions, or one user's (ids, user, account, role, created, expires; never a token). */
  public async listSessions(clientId: string, userId?: string): Promise<SessionRecord[]> {
    const { client } = await this.findClient(clientId);
    return (await this.#items.liveSessions(clientId, userId))
      .filter(({ session }) => !endedByClient(session, client))
      .map(({ session }) => session);
  }

  /**
   * Revokes one session of a client by its id, every session of one of its users, or all of them; returns
   * how many live sessions were revoked. `all` moves the client's session generation on first, so a session
   * the index has not shown yet ends too; it then waits for the index to show that move, deletes and records
   * every session opened before it (one `session.revoked` each), and writes one record of its own with the
   * count. The containers that cached a revoked session stop accepting it within 60 s.
   */
  public async revokeSessions(clientId: string, which: SessionSelection, source: AuditSource): Promise<number> {
    const { pk, client } = await this.findClient(clientId);
    if ('all' in which) {
      const generation = await this.#items.nextGeneration(pk, clientId);
      const count = await this.#endGeneration(clientId, generation, 'all', source);
      await this.#items.record({ action: 'session.revoked', clientId, cause: 'all', count }, source);
      return count;
    }
    const found = (await this.#items.liveSessions(clientId, 'userId' in which ? which.userId : undefined)).filter(
      ({ session }) => !endedByClient(session, client),
    );
    const targets = 'sessionId' in which ? found.filter(({ session }) => session.sessionId === which.sessionId) : found;
    return this.#items.endSessions(clientId, targets, 'sessionId' in which ? 'session' : 'user', source);
  }
}

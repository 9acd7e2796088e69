/**
 * A client's items in the auth table as the operator commands (`administration.ts`) reach them: found
 * through the sparse `byClient` index, one Query per listing, and changed by the item's own key under a
 * condition that it still belongs to the client; the wait for the index to show the command's own write;
 * and the deletion, with its audit record, of the sessions found that way.
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  type NativeAttributeValue,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { sleep } from '../async';
import { AUTH_TABLE, byClientEntries } from '../tables';
import { type AuditEntry, type AuditSink, type AuditSource, auditRecord, noAudit } from './audit';
import { asClient, asSession, type ClientRecord, isLive, type SessionRecord } from './records';

/** The index operators find a client's items by. */
export const BY_CLIENT_INDEX = AUTH_TABLE.globalSecondaryIndexes[0].indexName;

/** How the operator commands reach the world: request timeout, clock, audit sink and index catch-up bound. */
export interface AuthAdministrationOptions {
  timeoutMs?: number;
  now?: () => Date;
  audit?: AuditSink;
  /**
   * How long a command that ends sessions through the client item waits for the `byClient` index to show
   * that write before it lists the sessions to delete and record (default {@link INDEX_CATCH_UP_MS}).
   */
  indexCatchUpMs?: number;
}

/**
 * How long a command waits for the `byClient` index to show its own write to the client item: the index
 * normally follows within a second; past this bound the command ends what the index shows by then (the rest
 * still answer `invalid_session`, by the client item).
 */
export const INDEX_CATCH_UP_MS = 10_000;

/** An item of the auth table as the document client returns it. */
export type Item = Record<string, NativeAttributeValue>;

/** A session found through the index, with the item it was read from. */
export interface FoundSession {
  item: Item;
  session: SessionRecord;
}

/** An UpdateItem on a client's item, conditional on the item still belonging to `clientId`. */
export interface UpdateParts {
  clientId: string;
  update: string;
  condition?: string;
  names?: Record<string, string>;
  values: Record<string, NativeAttributeValue>;
}

/** Whether a request failed on its condition (the item is gone, or no longer the client's). */
export const isConditionFailure = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** The auth table's items of clients, for the operator commands. */
export class ClientItems {
  public readonly client: DynamoDBDocumentClient;
  public readonly tableName: string;
  readonly #options: AuthAdministrationOptions;
  readonly #audit: AuditSink;

  public constructor(client: DynamoDBDocumentClient, tableName: string, options: AuthAdministrationOptions) {
    this.client = client;
    this.tableName = tableName;
    this.#options = options;
    this.#audit = options.audit ?? noAudit;
  }

  public sendOptions(): { abortSignal?: AbortSignal } {
    const { timeoutMs } = this.#options;
    return timeoutMs === undefined ? {} : { abortSignal: AbortSignal.timeout(timeoutMs) };
  }

  public now(): Date {
    return this.#options.now?.() ?? new Date();
  }

  public async record(entry: AuditEntry, source: AuditSource): Promise<void> {
    await this.#audit(auditRecord(entry, source, this.now()));
  }

  /** Every item of a client whose index entry is `entry` (exactly) or begins with `prefix`. */
  public async query(clientId: string, match: { entry: string } | { prefix: string }): Promise<Item[]> {
    const items: Item[] = [];
    let ExclusiveStartKey: Item | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: BY_CLIENT_INDEX,
          KeyConditionExpression:
            'entry' in match
              ? 'clientId = :clientId AND clientEntry = :entry'
              : 'clientId = :clientId AND begins_with(clientEntry, :entry)',
          ExpressionAttributeValues: { ':clientId': clientId, ':entry': 'entry' in match ? match.entry : match.prefix },
          ExclusiveStartKey,
        }),
        this.sendOptions(),
      );
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey !== undefined);
    return items;
  }

  public async update(pk: unknown, clientId: string, expression: Omit<UpdateParts, 'clientId'>): Promise<void> {
    await this.client.send(new UpdateCommand(this.updateInput(pk, { ...expression, clientId })), this.sendOptions());
  }

  /** Moves the client's session generation on (and sets `set`, if any); the generation it moved to. */
  public async nextGeneration(pk: unknown, clientId: string, set?: { enabled: boolean }): Promise<number | undefined> {
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        ...this.updateInput(pk, {
          clientId,
          update: `${set === undefined ? '' : 'SET enabled = :enabled '}ADD sessionGeneration :one`,
          values: { ':one': 1, ...(set === undefined ? {} : { ':enabled': set.enabled }) },
        }),
        ReturnValues: 'UPDATED_NEW',
      }),
      this.sendOptions(),
    );
    const generation: unknown = Attributes?.sessionGeneration;
    return Number.isSafeInteger(generation) ? (generation as number) : undefined;
  }

  /**
   * Waits until the `byClient` index shows the client item as the command just wrote it (`caughtUp`), so that
   * the sessions written before that write are in the index too when the command lists them; at most
   * `indexCatchUpMs`. The index is propagated asynchronously, a few hundred milliseconds behind its table.
   */
  public async awaitIndex(clientId: string, caughtUp: (client: ClientRecord) => boolean): Promise<void> {
    const deadline = Date.now() + (this.#options.indexCatchUpMs ?? INDEX_CATCH_UP_MS);
    for (let pause = 25; ; pause = Math.min(pause * 2, 500)) {
      const [entry] = await this.query(clientId, { entry: byClientEntries.client });
      const shown = asClient(entry);
      if (shown !== undefined && caughtUp(shown)) return;
      if (Date.now() + pause > deadline) return;
      await sleep(pause);
    }
  }

  public updateInput(pk: unknown, parts: UpdateParts) {
    return {
      TableName: this.tableName,
      Key: { pk },
      UpdateExpression: parts.update,
      ConditionExpression: ['clientId = :clientId', ...(parts.condition === undefined ? [] : [parts.condition])].join(
        ' AND ',
      ),
      ...(parts.names === undefined ? {} : { ExpressionAttributeNames: parts.names }),
      ExpressionAttributeValues: { ':clientId': parts.clientId, ...parts.values },
    };
  }

  public async liveSessions(clientId: string, userId?: string): Promise<FoundSession[]> {
    const now = this.now().getTime();
    return (await this.query(clientId, { prefix: byClientEntries.sessionPrefix(userId) }))
      .map((item) => ({ item, session: asSession(item) }))
      .filter((found): found is FoundSession => found.session !== undefined)
      .filter(({ session }) => isLive(session.expiresAt, now));
  }

  /** Deletes sessions found through the index that still belong to the client; how many it did. */
  public async endSessions(
    clientId: string,
    sessions: readonly FoundSession[],
    cause: NonNullable<AuditEntry['cause']>,
    source: AuditSource,
  ): Promise<number> {
    let ended = 0;
    for (const { item, session } of sessions) {
      try {
        await this.client.send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: { pk: item.pk },
            ConditionExpression: 'clientId = :clientId',
            ExpressionAttributeValues: { ':clientId': clientId },
          }),
          this.sendOptions(),
        );
      } catch (error) {
        if (isConditionFailure(error)) continue;
        throw error;
      }
      ended += 1;
      const { sessionId, userId, accountId, role, expiresAt } = session;
      await this.record(
        { action: 'session.revoked', clientId, sessionId, userId, accountId, role, expiresAt, cause },
        source,
      );
    }
    return ended;
  }
}

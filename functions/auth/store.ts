/**
 * AuthStore: clients, client secrets and sessions in the auth table, keyed by the SHA-256 of their token or
 * secret (see `functions/tables.ts`). Tokens and secrets are returned once, when created, and never stored;
 * a secret is found by the hash of what the caller presents, never compared as a string. Every credential
 * issued or ended writes one audit record ({@link AuditSink}).
 *
 * A client is created in one transaction with its first secret, so no failure can leave a client without
 * one; the client item keeps its secrets' ids and ends (exact, where the `byClient` index lags), and a session
 * records the secret that opened it and the client's session generation, so ending a client's sessions or a
 * secret's never depends on the index having seen them.
 */
import { randomUUID } from 'node:crypto';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { authKeys, byClientEntries } from '../tables';
import { type AuditEntry, type AuditSink, type AuditSource, auditRecord, localOperator, noAudit } from './audit';
import { checkSession, validateClient } from './checks';
import { UnknownClientError } from './errors';
import type { Grant, Role } from './principal';
import {
  asClient,
  asSecret,
  asSession,
  type ClientAccounts,
  type ClientRecord,
  type SecretRecord,
  type SessionRecord,
} from './records';
import { newSecret } from './secrets';
import { DEFAULT_SESSION_ROLES } from './session-limits';
import { generateToken, hashToken } from './tokens';

export type { ClientAccounts, ClientRecord, SecretRecord, SessionRecord } from './records';
export {
  AccountNotAllowedError,
  InvalidAuthInputError,
  SessionRoleNotAllowedError,
  UnknownClientError,
} from './errors';
export { type IssuedSecret, newSecret } from './secrets';

export interface CreateClientInput {
  name: string;
  grants: readonly Grant[];
  /**
   * The accounts its sessions may belong to: account ids, or `*` for every account. Default `*` for code
   * (tests, the load bench); the CLI's `create-client` always asks which.
   */
  accounts?: ClientAccounts;
  /** Default `true`. */
  enabled?: boolean;
  /** The roles it may open sessions for; default `["user"]`. */
  sessionRoles?: readonly Role[];
  /** Its own cap on session lifetimes, in seconds. */
  maxSessionTtlSeconds?: number;
}

export interface CreatedClient {
  clientId: string;
  /** The client token: shown once, stored only as its hash. */
  token: string;
  /** The id of the client's first secret. */
  secretId: string;
  /** The client's first secret: shown once, stored only as its hash. */
  secret: string;
}

export interface OpenSessionInput {
  /** The client the session is issued to, as read from the table. */
  client: ClientRecord;
  accountId: number;
  /** The signed-in person; defaults to the session id (an anonymous person). */
  userId?: string;
  role: Role;
  /** Lifetime in seconds; default 24 hours, shortened to the caps (`session-limits.ts`). */
  ttlSeconds?: number;
  /** The shortest lifetime accepted: 60 s through the API, 1 s from the CLI (tests). */
  minTtlSeconds?: number;
  /** The secret the client presented (`POST /sessions`); the session records it. */
  secretId?: string;
}

export interface CreateSessionInput extends Omit<OpenSessionInput, 'client' | 'minTtlSeconds' | 'secretId'> {
  /** The token of the client the session is issued to. */
  clientToken: string;
}

export interface CreatedSession {
  sessionId: string;
  /** The session token: shown once, stored only as its hash. */
  token: string;
  /** ISO 8601 UTC. */
  expiresAt: string;
}

export interface AuthStoreOptions {
  /** Budget of one DynamoDB call, retries included, in milliseconds. */
  timeoutMs?: number;
  /** The clock (tests). */
  now?: () => Date;
  /** Where audit records go (default: nowhere, for stores that only read). */
  audit?: AuditSink;
  /** Who acts when a call names no one (the CLI's operator); default the OS user. */
  source?: AuditSource;
}

const isConditionFailure = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** Clients, secrets and sessions in the auth table. */
export class AuthStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #timeoutMs: number | undefined;
  readonly #now: () => Date;
  readonly #audit: AuditSink;
  readonly #source: AuditSource | undefined;

  public constructor(client: DynamoDBDocumentClient, tableName: string, options: AuthStoreOptions = {}) {
    this.#source = options.source;
    this.#client = client;
    this.#tableName = tableName;
    this.#timeoutMs = options.timeoutMs;
    this.#now = options.now ?? (() => new Date());
    this.#audit = options.audit ?? noAudit;
  }

  #sendOptions(): { abortSignal?: AbortSignal } {
    return this.#timeoutMs === undefined ? {} : { abortSignal: AbortSignal.timeout(this.#timeoutMs) };
  }

  async #get(pk: string, consistent = true): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.#client.send(
      new GetCommand({ TableName: this.#tableName, Key: { pk }, ConsistentRead: consistent }),
      this.#sendOptions(),
    );
    return Item;
  }

  async #putNew(item: Record<string, unknown>): Promise<void> {
    await this.#client.send(
      new PutCommand({ TableName: this.#tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
      this.#sendOptions(),
    );
  }

  async #record(entry: AuditEntry, source: AuditSource): Promise<void> {
    await this.#audit(auditRecord(entry, source, this.#now()));
  }

  /**
   * Registers a client and its first secret in one transaction; returns its id, token and secret (neither
   * stored).
   */
  public async createClient(
    input: CreateClientInput,
    source: AuditSource = this.#source ?? localOperator(),
  ): Promise<CreatedClient> {
    validateClient(input);
    const token = generateToken();
    const clientId = randomUUID();
    const now = this.#now();
    const first = newSecret(clientId, now);
    const name = input.name.trim();
    const grants = [...new Set(input.grants)];
    const sessionRoles = [...new Set(input.sessionRoles ?? DEFAULT_SESSION_ROLES)];
    const accounts = input.accounts === undefined || input.accounts === '*' ? '*' : [...new Set(input.accounts)];
    await this.#client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: this.#tableName,
              Item: {
                pk: authKeys.client(hashToken(token)),
                type: 'client',
                clientId,
                clientEntry: byClientEntries.client,
                name,
                grants,
                enabled: input.enabled ?? true,
                sessionRoles,
                accounts,
                ...(input.maxSessionTtlSeconds === undefined
                  ? {}
                  : { maxSessionTtlSeconds: input.maxSessionTtlSeconds }),
                secrets: { [first.secretId]: first.entry },
                sessionGeneration: 0,
                createdAt: now.toISOString(),
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          { Put: { TableName: this.#tableName, Item: first.item, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
      this.#sendOptions(),
    );
    await this.#record(
      {
        action: 'client.created',
        clientId,
        name,
        grants,
        sessionRoles,
        accounts,
        ...(input.maxSessionTtlSeconds === undefined ? {} : { maxSessionTtlSeconds: input.maxSessionTtlSeconds }),
      },
      source,
    );
    await this.#record({ action: 'secret.issued', clientId, secretId: first.secretId }, source);
    return { clientId, token, secretId: first.secretId, secret: first.secret };
  }

  /**
   * Opens a session for a person of an account, issued to a client already read and judged by the caller.
   *
   * @throws {@link InvalidAuthInputError} for a bad account, user, role or lifetime (over a cap included).
   * @throws {@link SessionRoleNotAllowedError} when the client may not open sessions of that role.
   * @throws {@link AccountNotAllowedError} when the account is not one of the client's `accounts`.
   */
  public async openSession(input: OpenSessionInput, source: AuditSource): Promise<CreatedSession> {
    const ttlSeconds = checkSession(input);
    const token = generateToken();
    const sessionId = randomUUID();
    const userId = input.userId ?? sessionId;
    const now = this.#now();
    const expiresAtMs = now.getTime() + ttlSeconds * 1000;
    const expiresAt = new Date(expiresAtMs).toISOString();
    const { clientId, sessionGeneration } = input.client;
    await this.#putNew({
      pk: authKeys.session(hashToken(token)),
      type: 'session',
      sessionId,
      clientId,
      clientEntry: byClientEntries.session(userId, sessionId),
      accountId: input.accountId,
      userId,
      role: input.role,
      createdAt: now.toISOString(),
      expiresAt,
      ttl: Math.ceil(expiresAtMs / 1000),
      generation: sessionGeneration,
      ...(input.secretId === undefined ? {} : { secretId: input.secretId }),
    });
    await this.#record(
      {
        action: 'session.opened',
        clientId,
        sessionId,
        userId,
        accountId: input.accountId,
        role: input.role,
        expiresAt,
        ...(input.secretId === undefined ? {} : { secretId: input.secretId }),
      },
      source,
    );
    return { sessionId, token, expiresAt };
  }

  /**
   * Opens a session for the client whose token is given (the CLI's `--client-token`).
   *
   * @throws {@link UnknownClientError} when the client token is unknown or the client disabled.
   */
  public async createSession(
    input: CreateSessionInput,
    source: AuditSource = this.#source ?? localOperator(),
  ): Promise<CreatedSession> {
    const { clientToken, ...session } = input;
    const client = await this.getClient(hashToken(clientToken));
    if (client === undefined || !client.enabled) throw new UnknownClientError();
    return this.openSession({ ...session, client }, source);
  }

  /**
   * The client whose token hashes to `tokenHash`, if any (disabled clients included). A consistent read
   * unless `consistent: false` (authenticating a session, whose answer is cached for a minute anyway).
   */
  public async getClient(tokenHash: string, options: { consistent?: boolean } = {}): Promise<ClientRecord | undefined> {
    return asClient(await this.#get(authKeys.client(tokenHash), options.consistent ?? true));
  }

  /** The secret hashing to `secretHash`, if any (expired ones included until TTL deletes them); consistent. */
  public async getSecret(secretHash: string): Promise<SecretRecord | undefined> {
    return asSecret(await this.#get(authKeys.secret(secretHash)));
  }

  /**
   * The session whose token hashes to `tokenHash`, if any (expired sessions included until TTL deletes them).
   * A consistent read, so a session works on the very next request after it was opened.
   */
  public async getSession(tokenHash: string): Promise<SessionRecord | undefined> {
    return asSession(await this.#get(authKeys.session(tokenHash)));
  }

  /**
   * Ends (deletes) the session whose token hashes to `tokenHash`, if it belongs to `clientId`; returns the
   * session ended, or `undefined` when there was none of that client's (already ended, or another's).
   */
  public async endSession(
    tokenHash: string,
    clientId: string,
    source: AuditSource,
  ): Promise<SessionRecord | undefined> {
    let ended: SessionRecord | undefined;
    try {
      const { Attributes } = await this.#client.send(
        new DeleteCommand({
          TableName: this.#tableName,
          Key: { pk: authKeys.session(tokenHash) },
          ConditionExpression: 'clientId = :clientId',
          ExpressionAttributeValues: { ':clientId': clientId },
          ReturnValues: 'ALL_OLD',
        }),
        this.#sendOptions(),
      );
      ended = asSession(Attributes);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
    if (ended !== undefined) {
      const { sessionId, userId, accountId, role, expiresAt } = ended;
      await this.#record({ action: 'session.ended', clientId, sessionId, userId, accountId, role, expiresAt }, source);
    }
    return ended;
  }
}

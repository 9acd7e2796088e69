/**
 * AuthStore: clients, client secrets and sessions in the auth table, keyed by the SHA-256 of their token or
 * secret (see `functions/tables.ts`). Tokens and secrets are returned once, when created, and never stored;
 * a secret is found by the hash of what the caller presents, never compared as a string. Every credential
 * issued or ended writes one audit line ({@link AuditSink}).
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { authKeys, byClientEntries } from '../tables';
import { type AuditSink, type AuditSource, noAudit } from './audit';
import { type Grant, ROLES, type Role } from './principal';
import {
  asClient,
  asSecret,
  asSession,
  type ClientRecord,
  isGrant,
  isRole,
  type SecretRecord,
  type SessionRecord,
} from './records';
import { DEFAULT_SESSION_ROLES, defaultSessionTtl, sessionTtlCap, USER_ID_PATTERN } from './session-limits';
import { generateSecret, generateToken, hashToken } from './tokens';

export type { ClientRecord, SecretRecord, SessionRecord } from './records';

export interface CreateClientInput {
  name: string;
  grants: readonly Grant[];
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

export interface IssuedSecret {
  secretId: string;
  /** Shown once, stored only as its hash. */
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
}

export interface CreateSessionInput extends Omit<OpenSessionInput, 'client' | 'minTtlSeconds'> {
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

/** A request the store refuses (blank name, unknown grant or role, bad account, user or lifetime). */
export class InvalidAuthInputError extends Error {
  /** The input field at fault. */
  public readonly field: string;

  public constructor(field: string, message: string) {
    super(message);
    this.name = 'InvalidAuthInputError';
    this.field = field;
  }
}

/** A session was asked for a role the client may not open sessions for. */
export class SessionRoleNotAllowedError extends Error {
  public constructor(role: Role) {
    super(`The client may not open ${role} sessions`);
    this.name = 'SessionRoleNotAllowedError';
  }
}

/** A session was requested for a client token that is unknown or disabled. */
export class UnknownClientError extends Error {
  public constructor() {
    super('The client is unknown or disabled');
    this.name = 'UnknownClientError';
  }
}

export interface AuthStoreOptions {
  /** Budget of one DynamoDB call, retries included, in milliseconds. */
  timeoutMs?: number;
  /** The clock (tests). */
  now?: () => Date;
  /** Where audit lines go (default: nowhere, for stores that only read). */
  audit?: AuditSink;
}

const positiveInteger = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) > 0;

const validateClient = (input: CreateClientInput): void => {
  if (typeof input.name !== 'string' || input.name.trim() === '') {
    throw new InvalidAuthInputError('name', 'A client needs a non-blank name');
  }
  for (const grant of input.grants) {
    if (!isGrant(grant)) throw new InvalidAuthInputError('grants', `Unknown grant "${String(grant)}"`);
  }
  for (const role of input.sessionRoles ?? []) {
    if (!isRole(role)) throw new InvalidAuthInputError('sessionRoles', `Unknown role "${String(role)}"`);
  }
  if (input.maxSessionTtlSeconds !== undefined && !positiveInteger(input.maxSessionTtlSeconds)) {
    throw new InvalidAuthInputError('maxSessionTtlSeconds', 'maxSessionTtlSeconds must be a positive integer');
  }
};

/** The lifetime of a session to open, checked against every cap; then the role against the client's. */
const checkSession = (input: OpenSessionInput): number => {
  const { client, role } = input;
  if (!Number.isSafeInteger(input.accountId) || input.accountId < 0) {
    throw new InvalidAuthInputError('accountId', 'accountId must be a non-negative integer');
  }
  if (!isRole(role)) throw new InvalidAuthInputError('role', `role must be one of ${ROLES.join(', ')}`);
  if (input.userId !== undefined && !USER_ID_PATTERN.test(input.userId)) {
    throw new InvalidAuthInputError('userId', 'userId must be 1 to 128 letters, digits or ._@:-');
  }
  const ttlSeconds = input.ttlSeconds ?? defaultSessionTtl(role, client);
  const min = input.minTtlSeconds ?? 1;
  const max = sessionTtlCap(role, client);
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < min || ttlSeconds > max) {
    throw new InvalidAuthInputError('ttlSeconds', `ttlSeconds must be an integer from ${min} to ${max} for this role`);
  }
  if (!client.sessionRoles.includes(role)) throw new SessionRoleNotAllowedError(role);
  return ttlSeconds;
};

const isConditionFailure = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** Clients, secrets and sessions in the auth table. */
export class AuthStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #timeoutMs: number | undefined;
  readonly #now: () => Date;
  readonly #audit: AuditSink;

  public constructor(client: DynamoDBDocumentClient, tableName: string, options: AuthStoreOptions = {}) {
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

  /** Registers a client and issues its first secret; returns its id, token and secret (neither stored). */
  public async createClient(input: CreateClientInput, source: AuditSource = { via: 'cli' }): Promise<CreatedClient> {
    validateClient(input);
    const token = generateToken();
    const clientId = randomUUID();
    await this.#putNew({
      pk: authKeys.client(hashToken(token)),
      type: 'client',
      clientId,
      clientEntry: byClientEntries.client,
      name: input.name.trim(),
      grants: [...new Set(input.grants)],
      enabled: input.enabled ?? true,
      sessionRoles: [...new Set(input.sessionRoles ?? DEFAULT_SESSION_ROLES)],
      ...(input.maxSessionTtlSeconds === undefined ? {} : { maxSessionTtlSeconds: input.maxSessionTtlSeconds }),
      createdAt: this.#now().toISOString(),
    });
    const { secretId, secret } = await this.issueSecret(clientId, source);
    return { clientId, token, secretId, secret };
  }

  /** Issues a new secret to a client (its other secrets are untouched); the secret is shown once. */
  public async issueSecret(clientId: string, source: AuditSource): Promise<IssuedSecret> {
    const secret = generateSecret();
    const secretId = randomUUID();
    await this.#putNew({
      pk: authKeys.secret(hashToken(secret)),
      type: 'secret',
      secretId,
      clientId,
      clientEntry: byClientEntries.secret(secretId),
      createdAt: this.#now().toISOString(),
    });
    this.#audit({ action: 'secret.issued', clientId, secretId, source });
    return { secretId, secret };
  }

  /**
   * Opens a session for a person of an account, issued to a client already read and judged by the caller.
   *
   * @throws {@link InvalidAuthInputError} for a bad account, user, role or lifetime (over a cap included).
   * @throws {@link SessionRoleNotAllowedError} when the client may not open sessions of that role.
   */
  public async openSession(input: OpenSessionInput, source: AuditSource): Promise<CreatedSession> {
    const ttlSeconds = checkSession(input);
    const token = generateToken();
    const sessionId = randomUUID();
    const userId = input.userId ?? sessionId;
    const now = this.#now();
    const expiresAtMs = now.getTime() + ttlSeconds * 1000;
    const expiresAt = new Date(expiresAtMs).toISOString();
    const { clientId } = input.client;
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
    });
    this.#audit({
      action: 'session.opened',
      clientId,
      sessionId,
      userId,
      accountId: input.accountId,
      role: input.role,
      expiresAt,
      source,
    });
    return { sessionId, token, expiresAt };
  }

  /**
   * Opens a session for the client whose token is given (the CLI's `--client-token`).
   *
   * @throws {@link UnknownClientError} when the client token is unknown or the client disabled.
   */
  public async createSession(input: CreateSessionInput, source: AuditSource = { via: 'cli' }): Promise<CreatedSession> {
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
      this.#audit({ action: 'session.ended', clientId, sessionId, userId, accountId, role, expiresAt, source });
    }
    return ended;
  }
}

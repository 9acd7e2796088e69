/**
 * AuthStore: clients and sessions in the auth table, keyed by the SHA-256 of their tokens (see
 * `functions/tables.ts`). Tokens are returned once, when created, and never stored.
 */
import { randomUUID } from 'node:crypto';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { authKeys } from '../tables';
import { GRANTS, type Grant, ROLES, type Role } from './principal';
import { generateToken, hashToken } from './tokens';

/** A client as stored. */
export interface ClientRecord {
  clientId: string;
  name: string;
  grants: Grant[];
  enabled: boolean;
  createdAt: string;
}

/** A session as stored. */
export interface SessionRecord {
  sessionId: string;
  clientId: string;
  accountId: number;
  userId: string;
  role: Role;
  createdAt: string;
  /** ISO 8601 UTC. */
  expiresAt: string;
}

export interface CreateClientInput {
  name: string;
  grants: readonly Grant[];
  /** Default `true`. */
  enabled?: boolean;
}

export interface CreatedClient {
  clientId: string;
  /** The client token: shown once, stored only as its hash. */
  token: string;
}

export interface CreateSessionInput {
  /** The token of the client the session is issued to. */
  clientToken: string;
  accountId: number;
  /** The signed-in person; defaults to the session id (an anonymous person). */
  userId?: string;
  role: Role;
  /** Lifetime in seconds, 1 to {@link MAX_SESSION_TTL_SECONDS}. */
  ttlSeconds: number;
}

export interface CreatedSession {
  sessionId: string;
  /** The session token: shown once, stored only as its hash. */
  token: string;
  /** ISO 8601 UTC. */
  expiresAt: string;
}

/** The longest session lifetime: 365 days. */
export const MAX_SESSION_TTL_SECONDS = 365 * 24 * 60 * 60;

/** A create request the store refuses (blank name, unknown grant or role, bad account or lifetime). */
export class InvalidAuthInputError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'InvalidAuthInputError';
  }
}

/** A session was requested for a client token that is unknown or disabled. */
export class UnknownClientError extends Error {
  public constructor() {
    super('The client token is unknown or the client is disabled');
    this.name = 'UnknownClientError';
  }
}

export interface AuthStoreOptions {
  /** Budget of one DynamoDB call, retries included, in milliseconds. */
  timeoutMs?: number;
  /** The clock (tests). */
  now?: () => Date;
}

const isGrant = (value: unknown): value is Grant => (GRANTS as readonly unknown[]).includes(value);
const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);

const validateClient = (input: CreateClientInput): void => {
  if (typeof input.name !== 'string' || input.name.trim() === '') {
    throw new InvalidAuthInputError('A client needs a non-blank name');
  }
  for (const grant of input.grants) {
    if (!isGrant(grant))
      throw new InvalidAuthInputError(`Unknown grant "${String(grant)}" (known: ${GRANTS.join(', ')})`);
  }
};

const validateSession = (input: CreateSessionInput): void => {
  if (!Number.isSafeInteger(input.accountId) || input.accountId < 0) {
    throw new InvalidAuthInputError('accountId must be a non-negative integer');
  }
  if (!isRole(input.role))
    throw new InvalidAuthInputError(`Unknown role "${String(input.role)}" (known: ${ROLES.join(', ')})`);
  if (!Number.isInteger(input.ttlSeconds) || input.ttlSeconds < 1 || input.ttlSeconds > MAX_SESSION_TTL_SECONDS) {
    throw new InvalidAuthInputError(`ttlSeconds must be an integer from 1 to ${MAX_SESSION_TTL_SECONDS}`);
  }
  if (input.userId !== undefined && input.userId.trim() === '') {
    throw new InvalidAuthInputError('userId must not be blank');
  }
};

const asClient = (item: Record<string, unknown> | undefined): ClientRecord | undefined => {
  if (item === undefined || item.type !== 'client') return undefined;
  return {
    clientId: String(item.clientId),
    name: String(item.name),
    grants: Array.isArray(item.grants) ? item.grants.filter(isGrant) : [],
    enabled: item.enabled === true,
    createdAt: String(item.createdAt),
  };
};

const asSession = (item: Record<string, unknown> | undefined): SessionRecord | undefined => {
  if (item === undefined || item.type !== 'session' || !isRole(item.role)) return undefined;
  return {
    sessionId: String(item.sessionId),
    clientId: String(item.clientId),
    accountId: Number(item.accountId),
    userId: String(item.userId),
    role: item.role,
    createdAt: String(item.createdAt),
    expiresAt: String(item.expiresAt),
  };
};

/** Clients and sessions in the auth table. */
export class AuthStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #timeoutMs: number | undefined;
  readonly #now: () => Date;

  public constructor(client: DynamoDBDocumentClient, tableName: string, options: AuthStoreOptions = {}) {
    this.#client = client;
    this.#tableName = tableName;
    this.#timeoutMs = options.timeoutMs;
    this.#now = options.now ?? (() => new Date());
  }

  #sendOptions(): { abortSignal?: AbortSignal } {
    return this.#timeoutMs === undefined ? {} : { abortSignal: AbortSignal.timeout(this.#timeoutMs) };
  }

  /** Registers a client; returns its id and its token (the token is not stored). */
  public async createClient(input: CreateClientInput): Promise<CreatedClient> {
    validateClient(input);
    const token = generateToken();
    const clientId = randomUUID();
    await this.#client.send(
      new PutCommand({
        TableName: this.#tableName,
        Item: {
          pk: authKeys.client(hashToken(token)),
          type: 'client',
          clientId,
          name: input.name.trim(),
          grants: [...new Set(input.grants)],
          enabled: input.enabled ?? true,
          createdAt: this.#now().toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
      this.#sendOptions(),
    );
    return { clientId, token };
  }

  /**
   * Opens a session for a person of an account, issued to the client whose token is given.
   *
   * @throws {@link UnknownClientError} when the client token is unknown or the client disabled.
   */
  public async createSession(input: CreateSessionInput): Promise<CreatedSession> {
    validateSession(input);
    const client = await this.getClient(hashToken(input.clientToken));
    if (client === undefined || !client.enabled) throw new UnknownClientError();
    const token = generateToken();
    const sessionId = randomUUID();
    const now = this.#now();
    const expiresAtMs = now.getTime() + input.ttlSeconds * 1000;
    const expiresAt = new Date(expiresAtMs).toISOString();
    await this.#client.send(
      new PutCommand({
        TableName: this.#tableName,
        Item: {
          pk: authKeys.session(hashToken(token)),
          type: 'session',
          sessionId,
          clientId: client.clientId,
          accountId: input.accountId,
          userId: input.userId?.trim() ?? sessionId,
          role: input.role,
          createdAt: now.toISOString(),
          expiresAt,
          ttl: Math.ceil(expiresAtMs / 1000),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
      this.#sendOptions(),
    );
    return { sessionId, token, expiresAt };
  }

  /** The client whose token hashes to `tokenHash`, if any (disabled clients included). */
  public async getClient(tokenHash: string): Promise<ClientRecord | undefined> {
    const { Item } = await this.#client.send(
      new GetCommand({ TableName: this.#tableName, Key: { pk: authKeys.client(tokenHash) } }),
      this.#sendOptions(),
    );
    return asClient(Item);
  }

  /** The session whose token hashes to `tokenHash`, if any (expired sessions included until TTL deletes them). */
  public async getSession(tokenHash: string): Promise<SessionRecord | undefined> {
    const { Item } = await this.#client.send(
      new GetCommand({ TableName: this.#tableName, Key: { pk: authKeys.session(tokenHash) } }),
      this.#sendOptions(),
    );
    return asSession(Item);
  }

  /** Disables a client by its token; returns whether the client existed. */
  public async disableClient(clientToken: string): Promise<boolean> {
    try {
      await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: { pk: authKeys.client(hashToken(clientToken)) },
          UpdateExpression: 'SET enabled = :false',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':false': false },
        }),
        this.#sendOptions(),
      );
      return true;
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  /** Revokes (deletes) a session by its token; returns whether the session existed. */
  public async revokeSession(sessionToken: string): Promise<boolean> {
    const { Attributes } = await this.#client.send(
      new DeleteCommand({
        TableName: this.#tableName,
        Key: { pk: authKeys.session(hashToken(sessionToken)) },
        ReturnValues: 'ALL_OLD',
      }),
      this.#sendOptions(),
    );
    return Attributes !== undefined;
  }
}

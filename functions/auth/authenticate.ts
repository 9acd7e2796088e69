/**
 * Authentication: turns the two request tokens into a {@link Principal}, or refuses with
 * `401 invalid_client` / `401 invalid_session`. Lookups are cached in the container for at most
 * `min(AUTH_CACHE_TTL_MS, 60 s)`, so a disabled client or a revoked session stops working within a
 * minute; expiry is checked against the clock on every request, cached or not.
 *
 * A client authenticating with its secret (`POST /sessions`) is read consistently and never from the cache,
 * so disabling a client or revoking a secret stops new sessions at once. The client and the secret are read
 * together whatever either turns out to be, so an unknown client token and a wrong secret cost the same work
 * and take the same time. Session lookups on a miss are consistent reads, so a session works in every
 * container the moment it has been opened; a session the client item says was ended (its generation passed,
 * or the secret that opened it revoked) is refused like an unknown one.
 *
 * Abuse resistance: the client is looked up first and the session only for a known, enabled client,
 * so a request with a made-up client token costs one read, not two; unknown tokens are remembered in
 * a smaller cache of their own, so random tokens cannot push real clients and sessions out.
 */
import { documentClient } from '../aws/dynamodb';
import { config } from '../config';
import { ApiError } from '../errors';
import type { Principal } from './principal';
import { LookupCache } from './cache';
import { endedByClient, isLive, secretWorks } from './records';
import { AuthStore, type ClientRecord, type SessionRecord } from './store';
import { hashToken } from './tokens';

/** The longest time an authentication lookup may be served from the cache (docs/contract.md §2). */
export const MAX_AUTH_CACHE_TTL_MS = 60_000;

/** The most found clients (and, apart, found sessions) a container remembers. */
export const AUTH_CACHE_MAX_ENTRIES = 10_000;

/** The most unknown client tokens (and, apart, unknown session tokens) a container remembers. */
export const AUTH_NEGATIVE_CACHE_MAX_ENTRIES = 1_000;

/** A client that presented one of its working secrets (`POST /sessions`): the session records the secret. */
export interface SignedInClient extends ClientRecord {
  secretId: string;
}

/**
 * Why a client's backend was refused, for the audit (never for the answer, which is `invalid_client` whatever
 * was wrong): the client's id when its token was known.
 */
export class ClientRefusedError extends Error {
  public readonly clientId: string | undefined;

  public constructor(clientId: string | undefined) {
    super('The client token and secret were refused');
    this.name = 'ClientRefusedError';
    this.clientId = clientId;
  }
}

/** Where the authenticator reads clients and sessions. */
export type AuthLookup = Pick<AuthStore, 'getClient' | 'getSecret' | 'getSession'>;

export interface AuthenticatorOptions {
  lookup: AuthLookup;
  /** Cache lifetime in milliseconds; clamped to {@link MAX_AUTH_CACHE_TTL_MS}; 0 disables the cache. */
  cacheTtlMs: number;
  /** Most cached found records per kind. */
  maxEntries?: number;
  /** Most cached unknown tokens per kind. */
  maxNegativeEntries?: number;
  /** The clock, in epoch milliseconds. */
  now?: () => number;
}

/** Authenticates requests from their tokens. */
export class Authenticator {
  readonly #lookup: AuthLookup;
  readonly #now: () => number;
  readonly #clients: LookupCache<ClientRecord>;
  readonly #sessions: LookupCache<SessionRecord>;

  public constructor(options: AuthenticatorOptions) {
    this.#lookup = options.lookup;
    this.#now = options.now ?? Date.now;
    const cacheOptions = {
      ttlMs: Math.max(0, Math.min(options.cacheTtlMs, MAX_AUTH_CACHE_TTL_MS)),
      maxEntries: options.maxEntries ?? AUTH_CACHE_MAX_ENTRIES,
      maxNegativeEntries: options.maxNegativeEntries ?? AUTH_NEGATIVE_CACHE_MAX_ENTRIES,
      now: this.#now,
    };
    this.#clients = new LookupCache(cacheOptions);
    this.#sessions = new LookupCache(cacheOptions);
  }

  /**
   * The principal of a request. The client is looked up and judged first; the session is looked up
   * only for a known, enabled client.
   *
   * @throws {@link ApiError} `invalid_client` when the client token is unknown or the client disabled;
   *   `invalid_session` when the session token is unknown, expired or issued to another client.
   */
  public async authenticate(clientToken: string, sessionToken: string): Promise<Principal> {
    const clientHash = hashToken(clientToken);
    const client = await this.#clients.getOrLoad(clientHash, () =>
      this.#lookup.getClient(clientHash, { consistent: false }),
    );
    if (client === undefined || !client.enabled) throw new ApiError('invalid_client');
    const sessionHash = hashToken(sessionToken);
    const session = await this.#sessions.getOrLoad(sessionHash, () => this.#lookup.getSession(sessionHash));
    if (
      session === undefined ||
      session.clientId !== client.clientId ||
      !isLive(session.expiresAt, this.#now()) ||
      endedByClient(session, client)
    ) {
      throw new ApiError('invalid_session');
    }
    return {
      clientId: client.clientId,
      clientName: client.name,
      grants: [...client.grants],
      sessionId: session.sessionId,
      userId: session.userId,
      accountId: session.accountId,
      role: session.role,
    };
  }

  /**
   * The client of a backend presenting its token and one of its secrets, read consistently and never from
   * the cache, both at once whatever either turns out to be (equal work for every wrong answer). The answer
   * never says which part was wrong.
   *
   * @throws {@link ApiError} `invalid_client` when the client is unknown or disabled, or the secret is
   *   unknown, revoked, expired or another client's; its cause, a {@link ClientRefusedError}, names the
   *   client for the audit when the token was known.
   */
  public async authenticateClient(clientToken: string, secret: string): Promise<SignedInClient> {
    const [client, found] = await Promise.all([
      this.#lookup.getClient(hashToken(clientToken)),
      this.#lookup.getSecret(hashToken(secret)),
    ]);
    if (client === undefined || !client.enabled || found === undefined || !secretWorks(client, found, this.#now())) {
      throw new ApiError('invalid_client', {}, { cause: new ClientRefusedError(client?.clientId) });
    }
    return { ...client, secretId: found.secretId };
  }

  /** Forgets a session this container has just ended, so its token stops working here at once. */
  public forgetSession(sessionToken: string): void {
    this.#sessions.delete(hashToken(sessionToken));
  }

  /** Forgets every cached lookup. */
  public clearCache(): void {
    this.#clients.clear();
    this.#sessions.clear();
  }
}

let containerAuthenticator:
  { authenticator: Authenticator; table: string; client: ReturnType<typeof documentClient> } | undefined;

/**
 * The container's authenticator over the configured auth table, created on first use (and again should the
 * configuration name another table or the container another client: the local runtime may start a stack after
 * another in one process, and a lookup in the first stack's table would refuse every client of the second).
 */
export const defaultAuthenticator = (): Authenticator => {
  const settings = config();
  const client = documentClient();
  if (containerAuthenticator?.table !== settings.authTable || containerAuthenticator.client !== client) {
    containerAuthenticator = {
      authenticator: new Authenticator({
        lookup: new AuthStore(client, settings.authTable, { timeoutMs: settings.dependencyTimeoutMs }),
        cacheTtlMs: settings.authCacheTtlMs,
      }),
      table: settings.authTable,
      client,
    };
  }
  return containerAuthenticator.authenticator;
};

/** Forgets the container's authenticator and its cache (tests and the local runtime). */
export const resetDefaultAuthenticator = (): void => {
  containerAuthenticator = undefined;
};

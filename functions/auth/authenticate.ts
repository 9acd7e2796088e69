/**
 * Authentication: turns the two request tokens into a {@link Principal}, or refuses with
 * `401 invalid_client` / `401 invalid_session`. Lookups are cached in the container for at most
 * `min(AUTH_CACHE_TTL_MS, 60 s)`, so a disabled client or a revoked session stops working within a
 * minute; expiry is checked against the clock on every request, cached or not.
 *
 * A client authenticating with its secret (`POST /sessions`) is read consistently and never from the cache,
 * so disabling a client or revoking a secret stops new sessions at once. Session lookups on a miss are
 * consistent reads, so a session works in every container the moment it has been opened.
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
import { isLive } from './records';
import { AuthStore, type ClientRecord, type SessionRecord } from './store';
import { hashToken } from './tokens';

/** The longest time an authentication lookup may be served from the cache (docs/contract.md §2). */
export const MAX_AUTH_CACHE_TTL_MS = 60_000;

/** The most found clients (and, apart, found sessions) a container remembers. */
export const AUTH_CACHE_MAX_ENTRIES = 10_000;

/** The most unknown client tokens (and, apart, unknown session tokens) a container remembers. */
export const AUTH_NEGATIVE_CACHE_MAX_ENTRIES = 1_000;

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
    if (session === undefined || session.clientId !== client.clientId || !isLive(session.expiresAt, this.#now())) {
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
   * the cache. The answer never says which part was wrong.
   *
   * @throws {@link ApiError} `invalid_client` when the client is unknown or disabled, or the secret is
   *   unknown, revoked, expired or another client's.
   */
  public async authenticateClient(clientToken: string, secret: string): Promise<ClientRecord> {
    const client = await this.#lookup.getClient(hashToken(clientToken));
    if (client === undefined || !client.enabled) throw new ApiError('invalid_client');
    const found = await this.#lookup.getSecret(hashToken(secret));
    if (found === undefined || found.clientId !== client.clientId || !isLive(found.expiresAt, this.#now())) {
      throw new ApiError('invalid_client');
    }
    return client;
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

let containerAuthenticator: Authenticator | undefined;

/** The container's authenticator over the configured auth table, created on first use. */
export const defaultAuthenticator = (): Authenticator => {
  if (containerAuthenticator === undefined) {
    const settings = config();
    containerAuthenticator = new Authenticator({
      lookup: new AuthStore(documentClient(), settings.authTable, { timeoutMs: settings.dependencyTimeoutMs }),
      cacheTtlMs: settings.authCacheTtlMs,
    });
  }
  return containerAuthenticator;
};

/** Forgets the container's authenticator and its cache (tests and the local runtime). */
export const resetDefaultAuthenticator = (): void => {
  containerAuthenticator = undefined;
};

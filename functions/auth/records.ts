/**
 * The items of the auth table as the code reads them (`functions/tables.ts` describes their keys): a client,
 * a client secret and a session. Each reader returns `undefined` for an item of another kind, so a hash
 * looked up under the wrong prefix can never be taken for a credential of another kind.
 */
import { GRANTS, type Grant, ROLES, type Role } from './principal';
import { DEFAULT_SESSION_ROLES } from './session-limits';

/** The accounts a client's sessions may belong to: a list of account ids, or `*` (every account). */
export type ClientAccounts = readonly number[] | '*';

/** What the client item keeps of one of its secrets: exact, unlike the lagging `byClient` index. */
export interface SecretEntry {
  /** The secret item's key, so a command can end the item itself without the index. */
  key: string;
  createdAt: string;
  /** ISO 8601 UTC; absent while the secret has no end. */
  expiresAt?: string;
}

/** A client as stored. */
export interface ClientRecord {
  clientId: string;
  name: string;
  grants: Grant[];
  enabled: boolean;
  /** The roles the client may open sessions for. */
  sessionRoles: Role[];
  /** The accounts its sessions may belong to; `*` for a client stored before clients had accounts. */
  accounts: ClientAccounts;
  /** The client's own cap on session lifetimes, in seconds, when it has one. */
  maxSessionTtlSeconds?: number;
  createdAt: string;
  /**
   * The client's unrevoked secrets by id, kept on the client item so that no command depends on the index
   * to know them; `undefined` for a client stored before, whose secrets only their own items describe.
   */
  secrets?: Readonly<Record<string, SecretEntry>>;
  /** Ids of the secrets revoked: the sessions they opened are ended with them. */
  revokedSecretIds: readonly string[];
  /**
   * Ids of the secrets a rotation dropped from `secrets` once their overlap was over: they no longer work,
   * but the sessions they opened live on until revoked, so `revoke-secret` still knows them.
   */
  retiredSecretIds: readonly string[];
  /**
   * Raised by `disable-client` and `revoke-session --all`: a session opened under an earlier generation is
   * ended, whether or not the index has shown it yet (0 for a client that never had it raised).
   */
  sessionGeneration: number;
}

/** A client secret as stored: which client it belongs to and until when it works. */
export interface SecretRecord {
  secretId: string;
  clientId: string;
  createdAt: string;
  /** ISO 8601 UTC; absent while the secret has no end (until a rotation gives it one). */
  expiresAt?: string;
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
  /** The secret that opened it (`POST /sessions`); absent for a session the CLI opened. */
  secretId?: string;
  /** The client's session generation when it was opened (0 when absent). */
  generation: number;
}

export const isGrant = (value: unknown): value is Grant => (GRANTS as readonly unknown[]).includes(value);
export const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);

type Item = Record<string, unknown> | undefined;

const isAccountId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** One entry of a stored account list: a number, or the text of one (an item written by hand); nothing else. */
const asAccountId = (entry: unknown): number | undefined => {
  const value = typeof entry === 'string' && /^\d+$/.test(entry) ? Number(entry) : entry;
  return isAccountId(value) ? value : undefined;
};

/**
 * A client's accounts: every account only when the item says so (`*`) or predates the attribute (absent);
 * a list (or a number set) keeps its account ids; anything else serves no account, so a damaged item never
 * widens what a client may reach.
 */
const asAccounts = (value: unknown): ClientAccounts => {
  if (value === undefined || value === '*') return '*';
  if (!Array.isArray(value) && !(value instanceof Set)) return [];
  return [...(value as Iterable<unknown>)].map(asAccountId).filter((id) => id !== undefined);
};

const asStringMap = <V>(value: unknown, read: (entry: unknown) => V | undefined): Record<string, V> => {
  const map: Record<string, V> = {};
  if (typeof value !== 'object' || value === null) return map;
  for (const [key, entry] of Object.entries(value)) {
    const found = read(entry);
    if (found !== undefined) map[key] = found;
  }
  return map;
};

/** A string set as the document client reads it (a `Set`), or a list. */
const asStrings = (value: unknown): string[] =>
  value instanceof Set || Array.isArray(value) ? [...(value as Iterable<unknown>)].map(String) : [];

const asSecretEntry = (value: unknown): SecretEntry | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const entry = value as Record<string, unknown>;
  if (typeof entry.key !== 'string') return undefined;
  return {
    key: entry.key,
    createdAt: String(entry.createdAt),
    ...(typeof entry.expiresAt === 'string' ? { expiresAt: entry.expiresAt } : {}),
  };
};

/** Whether a client may open sessions for an account. */
export const servesAccount = (client: Pick<ClientRecord, 'accounts'>, accountId: number): boolean =>
  client.accounts === '*' || client.accounts.includes(accountId);

export const asClient = (item: Item): ClientRecord | undefined => {
  if (item === undefined || item.type !== 'client') return undefined;
  return {
    clientId: String(item.clientId),
    name: String(item.name),
    grants: Array.isArray(item.grants) ? item.grants.filter(isGrant) : [],
    enabled: item.enabled === true,
    sessionRoles: Array.isArray(item.sessionRoles) ? item.sessionRoles.filter(isRole) : [...DEFAULT_SESSION_ROLES],
    accounts: asAccounts(item.accounts),
    ...(typeof item.maxSessionTtlSeconds === 'number' ? { maxSessionTtlSeconds: item.maxSessionTtlSeconds } : {}),
    createdAt: String(item.createdAt),
    ...(item.secrets === undefined ? {} : { secrets: asStringMap(item.secrets, asSecretEntry) }),
    revokedSecretIds: asStrings(item.revokedSecretIds),
    retiredSecretIds: asStrings(item.retiredSecretIds),
    sessionGeneration: Number.isSafeInteger(item.sessionGeneration) ? (item.sessionGeneration as number) : 0,
  };
};

export const asSecret = (item: Item): SecretRecord | undefined => {
  if (item === undefined || item.type !== 'secret') return undefined;
  return {
    secretId: String(item.secretId),
    clientId: String(item.clientId),
    createdAt: String(item.createdAt),
    ...(typeof item.expiresAt === 'string' ? { expiresAt: item.expiresAt } : {}),
  };
};

export const asSession = (item: Item): SessionRecord | undefined => {
  if (item === undefined || item.type !== 'session' || !isRole(item.role)) return undefined;
  return {
    sessionId: String(item.sessionId),
    clientId: String(item.clientId),
    accountId: Number(item.accountId),
    userId: String(item.userId),
    role: item.role,
    createdAt: String(item.createdAt),
    expiresAt: String(item.expiresAt),
    ...(typeof item.secretId === 'string' ? { secretId: item.secretId } : {}),
    generation: Number.isSafeInteger(item.generation) ? (item.generation as number) : 0,
  };
};

/**
 * Whether a session has been ended through its client: the client's session generation moved past it
 * (`disable-client`, `revoke-session --all`) or the secret that opened it was revoked. Read from the client
 * item, never from the index, so nothing written just before the command escapes it.
 */
export const endedByClient = (
  session: Pick<SessionRecord, 'generation' | 'secretId'>,
  client: Pick<ClientRecord, 'sessionGeneration' | 'revokedSecretIds'>,
): boolean =>
  session.generation < client.sessionGeneration ||
  (session.secretId !== undefined && client.revokedSecretIds.includes(session.secretId));

/**
 * Whether a secret presented by a client works: it is the client's, not revoked, and unexpired — by the
 * client item's own record of it, or, for a client stored before clients kept one, by the secret's item.
 */
export const secretWorks = (client: ClientRecord, secret: SecretRecord, nowMs: number): boolean => {
  if (secret.clientId !== client.clientId || client.revokedSecretIds.includes(secret.secretId)) return false;
  if (client.secrets === undefined) return isLive(secret.expiresAt, nowMs);
  const entry = client.secrets[secret.secretId];
  return entry !== undefined && isLive(entry.expiresAt, nowMs);
};

/** Whether an ISO expiry is still in the future (an absent one never ends). */
export const isLive = (expiresAt: string | undefined, nowMs: number): boolean => {
  if (expiresAt === undefined) return true;
  const end = Date.parse(expiresAt);
  return Number.isFinite(end) && end > nowMs;
};

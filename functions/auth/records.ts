/**
 * The items of the auth table as the code reads them (`functions/tables.ts` describes their keys): a client,
 * a client secret and a session. Each reader returns `undefined` for an item of another kind, so a hash
 * looked up under the wrong prefix can never be taken for a credential of another kind.
 */
import { GRANTS, type Grant, ROLES, type Role } from './principal';
import { DEFAULT_SESSION_ROLES } from './session-limits';

/** A client as stored. */
export interface ClientRecord {
  clientId: string;
  name: string;
  grants: Grant[];
  enabled: boolean;
  /** The roles the client may open sessions for. */
  sessionRoles: Role[];
  /** The client's own cap on session lifetimes, in seconds, when it has one. */
  maxSessionTtlSeconds?: number;
  createdAt: string;
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
}

export const isGrant = (value: unknown): value is Grant => (GRANTS as readonly unknown[]).includes(value);
export const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);

type Item = Record<string, unknown> | undefined;

export const asClient = (item: Item): ClientRecord | undefined => {
  if (item === undefined || item.type !== 'client') return undefined;
  return {
    clientId: String(item.clientId),
    name: String(item.name),
    grants: Array.isArray(item.grants) ? item.grants.filter(isGrant) : [],
    enabled: item.enabled === true,
    sessionRoles: Array.isArray(item.sessionRoles) ? item.sessionRoles.filter(isRole) : [...DEFAULT_SESSION_ROLES],
    ...(typeof item.maxSessionTtlSeconds === 'number' ? { maxSessionTtlSeconds: item.maxSessionTtlSeconds } : {}),
    createdAt: String(item.createdAt),
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
  };
};

/** Whether an ISO expiry is still in the future (an absent one never ends). */
export const isLive = (expiresAt: string | undefined, nowMs: number): boolean => {
  if (expiresAt === undefined) return true;
  const end = Date.parse(expiresAt);
  return Number.isFinite(end) && end > nowMs;
};

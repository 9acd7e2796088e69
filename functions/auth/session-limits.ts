/**
 * How long a session may last and who it may be for (docs/contract.md §2a): a user session at most 30 days,
 * an operator session at most 12 hours, either at most the client's own `maxSessionTtlSeconds`; by default
 * 24 hours, shortened to the caps. A userId is 1–128 characters of letters, digits and `._@:-`, so it can
 * never carry a control character, a separator of the auth table's index keys (`#`) or markup into a log.
 */
import type { Role } from './principal';

/** The longest user session: 30 days. */
export const MAX_USER_SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;

/** The longest operator session: 12 hours. */
export const MAX_OPERATOR_SESSION_TTL_SECONDS = 12 * 60 * 60;

/** The lifetime of a session when none is asked for: 24 hours (or the cap, when that is shorter). */
export const DEFAULT_SESSION_TTL_SECONDS = 24 * 60 * 60;

/** The shortest session `POST /sessions` opens; the CLI opens sessions of any length from 1 s (tests). */
export const MIN_API_SESSION_TTL_SECONDS = 60;

/** What a userId may be. */
export const USER_ID_PATTERN = /^[A-Za-z0-9._@:-]{1,128}$/;

/** The roles a client may open sessions for when nothing else was said. */
export const DEFAULT_SESSION_ROLES: readonly Role[] = ['user'];

/** The longest session of a role, before the client's own cap. */
export const roleSessionTtlCap = (role: Role): number =>
  role === 'operator' ? MAX_OPERATOR_SESSION_TTL_SECONDS : MAX_USER_SESSION_TTL_SECONDS;

/** The longest session a client may open for a role. */
export const sessionTtlCap = (role: Role, client: { maxSessionTtlSeconds?: number }): number =>
  Math.min(roleSessionTtlCap(role), client.maxSessionTtlSeconds ?? Number.POSITIVE_INFINITY);

/** The lifetime of a session opened without one: the default, or the cap when that is shorter. */
export const defaultSessionTtl = (role: Role, client: { maxSessionTtlSeconds?: number }): number =>
  Math.min(DEFAULT_SESSION_TTL_SECONDS, sessionTtlCap(role, client));

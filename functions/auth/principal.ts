/**
 * Who is calling: the authenticated client and the signed-in person's session.
 */

export type Role = 'user' | 'operator';

export const ROLES: readonly Role[] = ['user', 'operator'];

/**
 * An operation a client may be granted. `search` covers both search endpoints, `reject` covers the
 * customer's review (`/reject` and `/accept`), `jobs` every `/jobs` path, `sessions` lets the client's
 * backend open sessions with its secret (`POST /sessions`), `webhooks` lets it register and manage webhook
 * endpoints with its secret (every `/webhooks` path).
 */
export type Grant = 'search' | 'reject' | 'jobs' | 'sessions' | 'webhooks';

export const GRANTS: readonly Grant[] = ['search', 'reject', 'jobs', 'sessions', 'webhooks'];

/** The caller of a request, once authenticated. */
export interface Principal {
  clientId: string;
  clientName: string;
  grants: Grant[];
  sessionId: string;
  userId: string;
  accountId: number;
  role: Role;
}

/**
 * The account a principal is confined to: a user sees only its own account, an operator all of them
 * (`undefined`).
 */
export const accountScope = (principal: Pick<Principal, 'role' | 'accountId'>): number | undefined =>
  principal.role === 'operator' ? undefined : principal.accountId;

/**
 * The body of `POST /sessions` (docs/contract.md §2a), JSON or form: `userId` (1–128 letters, digits and
 * `._@:-`), `accountId` (a job-id-range integer), `role` (`user` by default, or `operator`) and `ttlSeconds`
 * (60 to the caps of the role and of the calling client; by default 24 hours shortened to those caps). The
 * generated `SessionRequest` validator checks each field in that order; the caps that depend on the role and
 * the client are checked here. Whether the client may open sessions of the role is not a field check: the
 * handler answers it with `403 forbidden`, after every field.
 */
import type { Role } from '../auth/principal';
import type { ClientRecord } from '../auth/records';
import { defaultSessionTtl, sessionTtlCap } from '../auth/session-limits';
import { invalidParameter } from './errors';
import { sessionRequestFields, validateSessionRequest } from './generated/request-validators';
import type { RequestBody } from './request';
import { coerceFields, invalidParameterOf } from './schema-validation';

/** A session request, checked. */
export interface SessionRequest {
  userId: string;
  accountId: number;
  role: Role;
  ttlSeconds: number;
}

interface SessionBody {
  userId: string;
  accountId: number;
  role?: Role;
  ttlSeconds?: number;
}

/** The endpoint's `parse` step: the checked request, or `400 invalid_parameter` naming the first bad field. */
export const parseSessionRequest = (body: RequestBody, client: ClientRecord): SessionRequest => {
  const fields = coerceFields(body, sessionRequestFields);
  if (!validateSessionRequest(fields)) throw invalidParameterOf(validateSessionRequest.errors, 'top');
  const { userId, accountId, role = 'user', ttlSeconds } = fields as unknown as SessionBody;
  const cap = sessionTtlCap(role, client);
  if (ttlSeconds !== undefined && ttlSeconds > cap) {
    throw invalidParameter('ttlSeconds', `ttlSeconds may be at most ${cap} for a ${role} session of this client.`);
  }
  return { userId, accountId, role, ttlSeconds: ttlSeconds ?? defaultSessionTtl(role, client) };
};

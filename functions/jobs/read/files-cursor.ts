/**
 * The cursor of `GET /jobs/{id}/files` (docs/contract.md §6a): opaque to the caller, tamper-evident and
 * bound to the job, the review filter and the caller. It carries the last file id of the page it follows
 * (`<payload>.<mac>`, both base64url); the MAC is an HMAC-SHA256 under the stack's cursor key over the
 * payload and the caller's binding, so a cursor changed in any byte, or presented for another job, filter
 * or caller, fails the check. The binding is not in the payload: a cursor reveals nothing of who made it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../../auth/principal';
import { isId } from '../model/ids';
import type { ReviewFilter } from '../model/review';

/** Where a page of files continues, and what it lists. */
export interface CursorPosition {
  jobId: number;
  /** The review filter; `undefined` for every file. */
  review: ReviewFilter | undefined;
  /** The last file id of the previous page; the next page starts after it. */
  afterFileId: number;
}

/** The cursor does not belong to this request (another job, filter or caller), or was changed. */
export class InvalidCursorError extends Error {
  public constructor() {
    super('The cursor is not one this request can continue from');
    this.name = 'InvalidCursorError';
  }
}

/** Who a cursor is bound to: the client, the role and the account of the session that paged. */
export const cursorBinding = (principal: Pick<Principal, 'clientId' | 'role' | 'accountId'>): string =>
  `${principal.clientId}\u0000${principal.role}\u0000${principal.accountId}`;

const VERSION = 1;

const mac = (payload: string, binding: string, key: string): Buffer =>
  createHmac('sha256', key).update(payload).update('\u0000').update(binding).digest();

/** The cursor of a position for a caller. */
export const encodeCursor = (position: CursorPosition, binding: string, key: string): string => {
  const payload = Buffer.from(
    JSON.stringify([VERSION, position.jobId, position.review ?? null, position.afterFileId]),
  ).toString('base64url');
  return `${payload}.${mac(payload, binding, key).toString('base64url')}`;
};

/**
 * The last file id a cursor continues after, when it was made by this stack for this job, filter and
 * caller; throws {@link InvalidCursorError} otherwise.
 */
export const decodeCursor = (
  cursor: string,
  expected: Omit<CursorPosition, 'afterFileId'>,
  binding: string,
  key: string,
): number => {
  const [payload, signature, ...rest] = cursor.split('.');
  if (payload === undefined || signature === undefined || rest.length > 0 || payload === '') {
    throw new InvalidCursorError();
  }
  const given = Buffer.from(signature, 'base64url');
  const wanted = mac(payload, binding, key);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw new InvalidCursorError();
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (!Array.isArray(fields) || fields.length !== 4) throw new InvalidCursorError();
  const [version, jobId, review, afterFileId] = fields as unknown[];
  if (version !== VERSION || jobId !== expected.jobId || review !== (expected.review ?? null) || !isId(afterFileId)) {
    throw new InvalidCursorError();
  }
  return afterFileId;
};

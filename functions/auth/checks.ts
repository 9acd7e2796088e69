/**
 * The checks of what the store is asked to create: a client (name, grants, roles, accounts, lifetime cap)
 * and a session (account, role, user, lifetime against every cap, then the role and the account against the
 * client's — both `403` through the API, checked last).
 */
import { ROLES } from './principal';
import { isGrant, isRole, servesAccount } from './records';
import { defaultSessionTtl, sessionTtlCap, USER_ID_PATTERN } from './session-limits';
import { AccountNotAllowedError, InvalidAuthInputError, SessionRoleNotAllowedError } from './errors';
import type { CreateClientInput, OpenSessionInput } from './store';

const positiveInteger = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) > 0;

const validateAccounts = (input: CreateClientInput): void => {
  const { accounts = '*' } = input;
  if (accounts === '*') return;
  if (!Array.isArray(accounts) || accounts.length === 0 || !accounts.every(positiveInteger)) {
    throw new InvalidAuthInputError('accounts', 'accounts must be "*" or a non-empty list of account ids');
  }
  if ((input.sessionRoles ?? []).includes('operator')) {
    throw new InvalidAuthInputError(
      'sessionRoles',
      'A client limited to a list of accounts may not open operator sessions (an operator sees every account)',
    );
  }
};

export const validateClient = (input: CreateClientInput): void => {
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
  validateAccounts(input);
};

/**
 * The lifetime of a session to open, checked against every cap; then the role against the client's, then the
 * account against its `accounts` (both `403` through the API, last).
 */
export const checkSession = (input: OpenSessionInput): number => {
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
  if (!servesAccount(client, input.accountId)) throw new AccountNotAllowedError(input.accountId);
  return ttlSeconds;
};

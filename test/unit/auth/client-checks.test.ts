/**
 * What the store refuses before it writes anything (functions/auth/checks.ts): a client's name, grants, roles,
 * lifetime cap and accounts; a session's account, role, user, lifetime against every cap, and then the role and
 * the account against the client's. Each refusal names its field and says what is wanted, which is what the CLI
 * prints and `POST /sessions` answers with.
 */
import { describe, expect, it } from 'vitest';
import { checkSession, validateClient } from '../../../functions/auth/checks';
import {
  AccountNotAllowedError,
  InvalidAuthInputError,
  SessionRoleNotAllowedError,
  UnknownClientError,
} from '../../../functions/auth/errors';
import type { Role } from '../../../functions/auth/principal';
import type { ClientRecord } from '../../../functions/auth/records';
import {
  DEFAULT_SESSION_TTL_SECONDS,
  MAX_OPERATOR_SESSION_TTL_SECONDS,
  MAX_USER_SESSION_TTL_SECONDS,
} from '../../../functions/auth/session-limits';
import type { CreateClientInput, OpenSessionInput } from '../../../functions/auth/store';
import { clientRecord } from '../../support/auth-records';

/** The refusal a check throws, as the CLI and the API see it. */
const refusal = (check: () => unknown): { name: string; field?: string; message: string } => {
  try {
    check();
  } catch (error) {
    const { name, message } = error as Error;
    return { name, message, ...(error instanceof InvalidAuthInputError ? { field: error.field } : {}) };
  }
  throw new Error('the check accepted the input');
};

describe('validateClient', () => {
  const valid: CreateClientInput = { name: 'Portal', grants: ['search', 'reject'] };

  it('accepts a named client with known grants, roles, a positive cap and "*" or a list of accounts', () => {
    for (const input of [
      valid,
      { ...valid, grants: [] },
      { ...valid, sessionRoles: ['user', 'operator'] as Role[], maxSessionTtlSeconds: 1 },
      { ...valid, accounts: '*' as const, sessionRoles: ['operator'] as Role[] },
      { ...valid, accounts: [1, 2, Number.MAX_SAFE_INTEGER] },
    ]) {
      expect(() => validateClient(input)).not.toThrow();
    }
  });

  const refusals: Array<readonly [string, Record<string, unknown>, string, string]> = [
    ['a blank name', { name: '  \t' }, 'name', 'A client needs a non-blank name'],
    ['an empty name', { name: '' }, 'name', 'A client needs a non-blank name'],
    ['a name that is not text', { name: 42 }, 'name', 'A client needs a non-blank name'],
    ['an unknown grant', { grants: ['search', 'delete'] }, 'grants', 'Unknown grant "delete"'],
    ['an unknown role', { sessionRoles: ['user', 'admin'] }, 'sessionRoles', 'Unknown role "admin"'],
    ...[0, -5, 1.5, Number.NaN].map(
      (cap) =>
        [
          `a lifetime cap of ${cap}`,
          { maxSessionTtlSeconds: cap },
          'maxSessionTtlSeconds',
          'maxSessionTtlSeconds must be a positive integer',
        ] as const,
    ),
    ...[[], [0], [3, -1], [2.5], 'some'].map(
      (accounts) =>
        [
          `accounts ${JSON.stringify(accounts)}`,
          { accounts },
          'accounts',
          'accounts must be "*" or a non-empty list of account ids',
        ] as const,
    ),
    [
      'operator sessions for a client of listed accounts',
      { accounts: [7], sessionRoles: ['user', 'operator'] },
      'sessionRoles',
      'A client limited to a list of accounts may not open operator sessions (an operator sees every account)',
    ],
  ];
  it.each(refusals)('refuses %s, naming the field', (_case, change, field, message) => {
    expect(refusal(() => validateClient({ ...valid, ...change } as CreateClientInput))).toEqual({
      name: 'InvalidAuthInputError',
      field,
      message,
    });
  });
});

describe('checkSession', () => {
  const client = clientRecord({ sessionRoles: ['user', 'operator'] });
  const open = (change: Partial<OpenSessionInput> = {}): number =>
    checkSession({ client, accountId: 7, role: 'user', ...change });

  it('gives a session 24 hours when none is asked for, or the cap when that is shorter', () => {
    expect(open()).toBe(DEFAULT_SESSION_TTL_SECONDS);
    expect(open({ role: 'operator' })).toBe(MAX_OPERATOR_SESSION_TTL_SECONDS);
    expect(open({ client: { ...client, maxSessionTtlSeconds: 90 } })).toBe(90);
  });

  it('accepts account 0 and every lifetime from the minimum to the cap, both included', () => {
    expect(open({ accountId: 0, ttlSeconds: 60 })).toBe(60);
    expect(open({ ttlSeconds: 1 })).toBe(1);
    expect(open({ ttlSeconds: 60, minTtlSeconds: 60 })).toBe(60);
    expect(open({ ttlSeconds: MAX_USER_SESSION_TTL_SECONDS })).toBe(MAX_USER_SESSION_TTL_SECONDS);
    expect(open({ role: 'operator', ttlSeconds: MAX_OPERATOR_SESSION_TTL_SECONDS })).toBe(
      MAX_OPERATOR_SESSION_TTL_SECONDS,
    );
    expect(open({ client: { ...client, maxSessionTtlSeconds: 90 }, ttlSeconds: 90 })).toBe(90);
  });

  it.each([
    ['a negative account', { accountId: -1 }, 'accountId', 'accountId must be a non-negative integer'],
    ['a fractional account', { accountId: 1.5 }, 'accountId', 'accountId must be a non-negative integer'],
    ['an unknown role', { role: 'admin' as Role }, 'role', 'role must be one of user, operator'],
    ['a user id with a #', { userId: 'a#b' }, 'userId', 'userId must be 1 to 128 letters, digits or ._@:-'],
    ['an empty user id', { userId: '' }, 'userId', 'userId must be 1 to 128 letters, digits or ._@:-'],
    [
      'a lifetime of 0',
      { ttlSeconds: 0 },
      'ttlSeconds',
      'ttlSeconds must be an integer from 1 to 2592000 for this role',
    ],
    [
      'a lifetime under the minimum',
      { ttlSeconds: 59, minTtlSeconds: 60 },
      'ttlSeconds',
      'ttlSeconds must be an integer from 60 to 2592000 for this role',
    ],
    [
      'a user lifetime over 30 days',
      { ttlSeconds: MAX_USER_SESSION_TTL_SECONDS + 1 },
      'ttlSeconds',
      'ttlSeconds must be an integer from 1 to 2592000 for this role',
    ],
    [
      'an operator lifetime over 12 hours',
      { role: 'operator' as Role, ttlSeconds: MAX_OPERATOR_SESSION_TTL_SECONDS + 1 },
      'ttlSeconds',
      'ttlSeconds must be an integer from 1 to 43200 for this role',
    ],
    [
      "a lifetime over the client's own cap",
      { client: { ...client, maxSessionTtlSeconds: 90 }, ttlSeconds: 91 },
      'ttlSeconds',
      'ttlSeconds must be an integer from 1 to 90 for this role',
    ],
    [
      'a fractional lifetime',
      { ttlSeconds: 60.5 },
      'ttlSeconds',
      'ttlSeconds must be an integer from 1 to 2592000 for this role',
    ],
  ])('refuses %s, naming the field', (_case, change, field, message) => {
    expect(refusal(() => open(change))).toEqual({ name: 'InvalidAuthInputError', field, message });
  });

  it('checks the role and then the account against the client last, after every input check', () => {
    const limited: ClientRecord = { ...client, sessionRoles: ['user'], accounts: [5] };
    expect(refusal(() => open({ client: limited, role: 'operator' }))).toEqual({
      name: 'SessionRoleNotAllowedError',
      message: 'The client may not open operator sessions',
    });
    expect(refusal(() => open({ client: limited }))).toEqual({
      name: 'AccountNotAllowedError',
      message: 'The client may not open sessions for account 7',
    });
    // A bad lifetime is named before a role or an account the client does not allow.
    expect(refusal(() => open({ client: limited, role: 'operator', ttlSeconds: 0 }))).toMatchObject({
      field: 'ttlSeconds',
    });
    expect(open({ client: limited, accountId: 5 })).toBe(DEFAULT_SESSION_TTL_SECONDS);
  });
});

describe('the errors of clients and sessions', () => {
  it('carry their names and messages', () => {
    expect(
      refusal(() => {
        throw new UnknownClientError();
      }),
    ).toEqual({
      name: 'UnknownClientError',
      message: 'The client is unknown or disabled',
    });
    expect(new SessionRoleNotAllowedError('user')).toBeInstanceOf(Error);
    expect(new AccountNotAllowedError(3).message).toBe('The client may not open sessions for account 3');
  });
});

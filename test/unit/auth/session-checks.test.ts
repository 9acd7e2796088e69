/**
 * The session checks of functions/auth/checks.ts at the bounds of a user id (functions/auth/session-limits.ts):
 * 1 to 128 characters of letters, digits and `._@:-`.
 */
import { describe, expect, it } from 'vitest';
import { checkSession } from '../../../functions/auth/checks';
import { InvalidAuthInputError } from '../../../functions/auth/errors';
import { clientRecord } from '../../support/auth-records';

const client = clientRecord();

const open = (userId: string): number => checkSession({ client, accountId: 7, role: 'user', userId, ttlSeconds: 60 });

describe('checkSession: the user id', () => {
  it.each([
    ['one character', 'a'],
    ['128 characters', 'u'.repeat(128)],
    ['every punctuation it allows', 'Anna.B_9@example.com:x-1'],
  ])('opens a session for a user id of %s', (_name, userId) => {
    expect(open(userId)).toBe(60);
  });

  it.each([
    ['no character', ''],
    ['129 characters', 'u'.repeat(129)],
    ['a space', 'anna b'],
  ])('refuses a user id of %s, naming the field', (_name, userId) => {
    expect(() => open(userId)).toThrow(InvalidAuthInputError);
    expect(() => open(userId)).toThrow('userId must be 1 to 128 letters, digits or ._@:-');
  });
});

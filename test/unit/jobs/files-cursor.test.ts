/**
 * The cursor of `GET /jobs/{id}/files` (functions/jobs/read/files-cursor.ts): it continues after the file it names
 * only for the job, filter, caller and key it was made for, and any change to it is refused.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cursorBinding,
  decodeCursor,
  encodeCursor,
  InvalidCursorError,
} from '../../../functions/jobs/read/files-cursor';

const KEY = 'cursor-key';
const BINDING = cursorBinding({ clientId: 'c1', role: 'user', accountId: 7 });
const position = { jobId: 12, review: 'pending' as const, afterFileId: 345 };
const cursor = encodeCursor(position, BINDING, KEY);
const expected = { jobId: 12, review: 'pending' as const };

/** The MAC the stack puts on a payload: how a test signs a payload of its own. */
const macOf = (payload: string, binding = BINDING, key = KEY): string =>
  createHmac('sha256', key).update(payload).update('\u0000').update(binding).digest().toString('base64url');

describe('files cursor', () => {
  it('binds a cursor to the client, role and account of the caller', () => {
    expect(cursorBinding({ clientId: 'c1', role: 'operator', accountId: 0 })).toBe('c1\u0000operator\u00000');
  });

  it('is a base64url payload and its HMAC-SHA256 over the payload and the binding', () => {
    const [payload, mac, ...rest] = cursor.split('.');
    expect(rest).toEqual([]);
    expect(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8'))).toEqual([1, 12, 'pending', 345]);
    expect(mac).toBe(macOf(payload ?? ''));
  });

  it('writes the filter of every file as null', () => {
    const all = encodeCursor({ jobId: 12, review: undefined, afterFileId: 1 }, BINDING, KEY);
    const [payload] = all.split('.');
    expect(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8'))).toEqual([1, 12, null, 1]);
    expect(decodeCursor(all, { jobId: 12, review: undefined }, BINDING, KEY)).toBe(1);
  });

  it('continues after the file it names, for the request it was made for', () => {
    expect(decodeCursor(cursor, expected, BINDING, KEY)).toBe(345);
  });

  it('refuses a cursor for another job, filter, caller or key', () => {
    const refusals = [
      () => decodeCursor(cursor, { jobId: 13, review: 'pending' }, BINDING, KEY),
      () => decodeCursor(cursor, { jobId: 12, review: 'rejected' }, BINDING, KEY),
      () => decodeCursor(cursor, { jobId: 12, review: undefined }, BINDING, KEY),
      () => decodeCursor(cursor, expected, cursorBinding({ clientId: 'c2', role: 'user', accountId: 7 }), KEY),
      () => decodeCursor(cursor, expected, cursorBinding({ clientId: 'c1', role: 'operator', accountId: 7 }), KEY),
      () => decodeCursor(cursor, expected, cursorBinding({ clientId: 'c1', role: 'user', accountId: 8 }), KEY),
      () => decodeCursor(cursor, expected, BINDING, 'another-key'),
    ];
    for (const refusal of refusals) expect(refusal).toThrow(InvalidCursorError);
  });

  it('refuses a cursor changed in its payload or its MAC, or not of two parts', () => {
    const [payload = '', mac = ''] = cursor.split('.');
    const flip = (text: string, at: number): string =>
      `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
    for (const changed of [
      `${flip(payload, 2)}.${mac}`,
      `${payload}.${flip(mac, 5)}`,
      `${payload}.${mac.slice(0, -2)}`,
      `${payload}`,
      `${payload}.${mac}.x`,
      `.${mac}`,
      '',
    ]) {
      expect(() => decodeCursor(changed, expected, BINDING, KEY)).toThrow(InvalidCursorError);
    }
  });

  it('refuses a signed payload that is not the cursor of a file id (an attacker without the key cannot sign one)', () => {
    const bad = (fields: unknown): void => {
      const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
      expect(() => decodeCursor(`${payload}.${macOf(payload)}`, expected, BINDING, KEY)).toThrow(InvalidCursorError);
    };
    bad([2, 12, 'pending', 345]);
    bad([1, 12, 'pending', 0]);
    bad([1, 12, 'pending', '345']);
    bad([1, 12, 'pending']);
    bad([1, 12, 'pending', 345, 0]);
    bad({ 0: 1, 1: 12, 2: 'pending', 3: 345, length: 4 });
    const notJson = Buffer.from('[1, 12,').toString('base64url');
    expect(() => decodeCursor(`${notJson}.${macOf(notJson)}`, expected, BINDING, KEY)).toThrow(InvalidCursorError);
    const good = Buffer.from(JSON.stringify([1, 12, 'pending', 345])).toString('base64url');
    expect(decodeCursor(`${good}.${macOf(good)}`, expected, BINDING, KEY)).toBe(345);
  });

  it('says why in its error', () => {
    const error = new InvalidCursorError();
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('InvalidCursorError');
    expect(error.message).toBe('The cursor is not one this request can continue from');
  });
});

import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../../functions/http/errors';
import {
  base64ByteLength,
  bodyByteLength,
  bodySize,
  MAX_BODY_BYTES,
} from '../../../../functions/http/middlewares/body-size';
import { expectApiError } from '../expect-api-error';
import { requestFor, runBefore } from './harness';

const post = (body: string, isBase64Encoded = false) =>
  requestFor({ method: 'POST', path: '/search', body, isBase64Encoded });

describe('body size middleware', () => {
  it('lets a body of exactly 1 MiB through', async () => {
    await expect(runBefore(bodySize(), post('a'.repeat(MAX_BODY_BYTES)))).resolves.toBeUndefined();
  });

  it('answers 413 to a body one byte over 1 MiB', async () => {
    const error = await expectApiError(
      () => runBefore(bodySize(), post('a'.repeat(MAX_BODY_BYTES + 1))),
      'payload_too_large',
    );
    expect(ERROR_STATUS[error.code]).toBe(413);
  });

  it('counts UTF-8 bytes, not characters', async () => {
    const text = 'é'.repeat(MAX_BODY_BYTES / 2);
    await expect(runBefore(bodySize(), post(text))).resolves.toBeUndefined();
    await expectApiError(() => runBefore(bodySize(), post(`${text}a`)), 'payload_too_large');
  });

  it('counts the decoded bytes of a base64 body', async () => {
    const exact = Buffer.alloc(MAX_BODY_BYTES, 1).toString('base64');
    await expect(runBefore(bodySize(), post(exact, true))).resolves.toBeUndefined();
    const over = Buffer.alloc(MAX_BODY_BYTES + 1, 1).toString('base64');
    await expectApiError(() => runBefore(bodySize(), post(over, true)), 'payload_too_large');
  });

  it('lets a missing body through', async () => {
    await expect(runBefore(bodySize(), requestFor({ method: 'POST', path: '/search' }))).resolves.toBeUndefined();
    const request = requestFor({ method: 'POST', path: '/search' });
    request.event.body = null;
    await expect(runBefore(bodySize(), request)).resolves.toBeUndefined();
    request.event.body = undefined as never;
    await expect(runBefore(bodySize({ maxBytes: 0 }), request)).resolves.toBeUndefined();
  });

  it('sizes base64 like Buffer does', () => {
    for (const length of [0, 1, 2, 3, 4, 5, 100, 101, 102]) {
      const bytes = Buffer.alloc(length, 7);
      expect(base64ByteLength(bytes.toString('base64'))).toBe(length);
      expect(bodyByteLength(bytes.toString('base64'), true)).toBe(length);
    }
    expect(base64ByteLength('YWJj\nZGVm')).toBe(6);
    // Four of each kind of whitespace, so counting any kind as data would change the size.
    for (const space of [' ', '\t', '\n', '\r']) {
      expect(base64ByteLength(`YWJj${space.repeat(4)}ZGVm`)).toBe(6);
    }
    expect(bodyByteLength(null, false)).toBe(0);
  });
});

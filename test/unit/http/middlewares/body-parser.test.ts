import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../../functions/http/errors';
import { bodyParser } from '../../../../functions/http/middlewares/body-parser';
import { expectApiError } from '../expect-api-error';
import { requestFor, runBefore } from './harness';

const post = (body: string | null, contentType = 'application/json', isBase64Encoded = false) =>
  requestFor({ method: 'POST', path: '/search', body, isBase64Encoded, headers: { 'Content-Type': contentType } });

const decoded = async (request: ReturnType<typeof post>) => {
  await runBefore(bodyParser(), request);
  return request.internal.decodedBody;
};

describe('body parser middleware', () => {
  it('parses a JSON body', async () => {
    expect(await decoded(post('{"query":"x","page":1}'))).toEqual({ encoding: 'json', value: { query: 'x', page: 1 } });
  });

  it('reads an empty or missing body as {}', async () => {
    expect(await decoded(post(''))).toEqual({ encoding: 'json', value: {} });
    expect(await decoded(post(null))).toEqual({ encoding: 'json', value: {} });
    expect(await decoded(post(' \n'))).toEqual({ encoding: 'json', value: {} });
    expect(await decoded(post('', 'application/x-www-form-urlencoded'))).toEqual({ encoding: 'form', value: {} });
  });

  it('keeps a JSON top-level non-object for validation to refuse', async () => {
    expect(await decoded(post('null'))).toEqual({ encoding: 'json', value: null });
    expect(await decoded(post('[1]'))).toEqual({ encoding: 'json', value: [1] });
  });

  it('parses a form body whatever the Content-Type parameters', async () => {
    expect(await decoded(post('a=1&s[]=X', 'Application/X-WWW-Form-Urlencoded; charset=utf-8'))).toEqual({
      encoding: 'form',
      value: { a: '1', s: ['X'] },
    });
  });

  it('decodes a base64 body', async () => {
    const body = Buffer.from('{"query":"café"}').toString('base64');
    expect(await decoded(post(body, 'application/json', true))).toEqual({
      encoding: 'json',
      value: { query: 'café' },
    });
  });

  it('ignores a leading byte-order mark', async () => {
    expect(await decoded(post('\uFEFF{"a":1}'))).toEqual({ encoding: 'json', value: { a: 1 } });
  });

  it.each([
    ['broken JSON', post('{"query":')],
    ['JSON with a trailing comma', post('{"a":1,}')],
    ['a malformed percent-encoding', post('q=%E0%A4%A', 'application/x-www-form-urlencoded')],
    ['a percent-encoding that is not UTF-8', post('q=%FF%FE', 'application/x-www-form-urlencoded')],
    [
      'a form of 1,001 fields',
      post(Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join('&'), 'application/x-www-form-urlencoded'),
    ],
    [
      'a base64 body that is not UTF-8',
      post(Buffer.from([0xff, 0xfe, 0x7b]).toString('base64'), 'application/json', true),
    ],
  ])('answers 400 invalid_json to %s', async (_name, request) => {
    const error = await expectApiError(() => runBefore(bodyParser(), request), 'invalid_json');
    expect(ERROR_STATUS[error.code]).toBe(400);
  });

  it('drops a __proto__ or constructor.prototype key as an unknown field, keeping the rest', async () => {
    const value = (await decoded(post('{"__proto__":{"polluted":1},"query":"x","nested":{"__proto__":2,"a":1}}')))
      ?.value as Record<string, unknown>;
    expect(value).toEqual({ query: 'x', nested: { a: 1 } });
    expect(Object.hasOwn(value, '__proto__')).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await decoded(post('{"constructor":{"prototype":{"x":1}},"page":2}')))?.value).toEqual({ page: 2 });
  });

  it('keeps a constructor key that is no prototype holder, beside a dropped __proto__', async () => {
    expect(
      (await decoded(post('{"__proto__":1,"constructor":"kept","c":{"constructor":{"a":1}},"p":{"prototype":1}}')))
        ?.value,
    ).toEqual({
      constructor: 'kept',
      c: { constructor: { a: 1 } },
      p: { prototype: 1 },
    });
  });

  it('reads a form body without the whitespace around it', async () => {
    expect(await decoded(post(' \n name=x&page=2 \r\n', 'application/x-www-form-urlencoded'))).toEqual({
      encoding: 'form',
      value: { name: 'x', page: '2' },
    });
  });

  it('reads the body of a PATCH as well as a POST', async () => {
    const request = requestFor({
      method: 'PATCH',
      path: '/jobs/1',
      body: '{"name":"x"}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(await decoded(request)).toEqual({ encoding: 'json', value: { name: 'x' } });
  });

  it('keeps a form of exactly 1,000 fields', async () => {
    const body = Array.from({ length: 1000 }, (_, i) => `f${i}=${i}`).join('&');
    const value = (await decoded(post(body, 'application/x-www-form-urlencoded')))?.value as Record<string, string>;
    expect(Object.keys(value)).toHaveLength(1000);
    expect(value.f999).toBe('999');
  });

  it('does not read the body of a GET', async () => {
    const request = requestFor({ method: 'GET', body: '{broken' });
    expect(await decoded(request)).toEqual({ encoding: 'json', value: {} });
  });
});

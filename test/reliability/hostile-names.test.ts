/**
 * Header and query names are data, never object keys: names drawn from `Object.prototype` and friends
 * (`constructor`, `__proto__`, `hasOwnProperty`, …), in the query string, as headers, and as body fields,
 * through real HTTP on the local stack. No answer is a 5xx; a name that happens to be a property of every
 * object changes nothing about the request. Before the names were collected in a Map, `?constructor=1`
 * answered 500.
 */
import fc from 'fast-check';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IssuedTokens, startTestStack, type TestStack } from '../support/local-stack';

const PROTOTYPE_NAMES = [
  ...Object.getOwnPropertyNames(Object.prototype),
  ...Object.getOwnPropertyNames(Function.prototype),
  ...Object.getOwnPropertyNames(Array.prototype),
  'prototype',
  '__proto__',
].filter((name, index, all) => all.indexOf(name) === index && /^[A-Za-z_$][\w$]*$/.test(name));

let stack: TestStack;
let tokens: IssuedTokens;

beforeAll(async () => {
  stack = await startTestStack();
  tokens = await stack.issue();
});

afterAll(async () => {
  await stack?.stop();
});

/** One raw request (node:http keeps header names as given, `__proto__` included). */
const send = (method: string, path: string, headers: [string, string][], body = ''): Promise<number> =>
  new Promise((resolve, reject) => {
    const url = new URL(path, stack.baseUrl);
    const outgoing = request(
      {
        method,
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        headers: [['Host', url.host], ...headers, ['Content-Length', String(Buffer.byteLength(body))]].flat() as never,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });

const authorized = (): [string, string][] => [
  ['Accept', 'application/json'],
  ['X-Client-Token', tokens.clientToken],
  ['X-Session-Token', tokens.sessionToken],
];

describe('hostile names', { timeout: 120_000 }, () => {
  it('answers GET /search/fields?constructor=1 and friends as if the name were any other', async () => {
    for (const name of PROTOTYPE_NAMES) {
      expect(await send('GET', `/search/fields?${encodeURIComponent(name)}=1`, authorized()), name).toBe(200);
      expect(
        await send('GET', `/search/fields?${encodeURIComponent(name)}=1&${encodeURIComponent(name)}=2`, authorized()),
        name,
      ).toBe(200);
    }
  });

  it('answers requests carrying headers with those names, never a 5xx', async () => {
    for (const name of PROTOTYPE_NAMES) {
      expect(await send('GET', '/search/fields', [...authorized(), [name, 'x']]), name).toBe(200);
      const body = JSON.stringify({ query: 'spring', [name]: 1 });
      expect(
        await send(
          'POST',
          '/search',
          [...authorized(), ['Content-Type', 'application/json'], [name, 'x'], [name, 'y']],
          body,
        ),
        name,
      ).toBe(200);
    }
  });

  it('never answers 5xx to random mixes of such names in query, headers and form bodies', async () => {
    const name = fc.constantFrom(...PROTOTYPE_NAMES);
    await fc.assert(
      fc.asyncProperty(
        fc.array(name, { maxLength: 4 }),
        fc.array(name, { maxLength: 4 }),
        fc.array(name, { maxLength: 4 }),
        async (queryNames, headerNames, fieldNames) => {
          const query = queryNames.map((each) => `${encodeURIComponent(each)}=v`).join('&');
          const form = fieldNames.map((each) => `${encodeURIComponent(each)}=1`).join('&');
          const status = await send(
            'POST',
            `/search?${query}`,
            [
              ...authorized(),
              ['Content-Type', 'application/x-www-form-urlencoded'],
              ...headerNames.map((each): [string, string] => [each, 'v']),
            ],
            form,
          );
          expect(status).toBeLessThan(500);
        },
      ),
      { numRuns: 60, seed: 19 },
    );
  });
});

/**
 * An unavailable dependency through real HTTP: with DynamoDB gone, the API answers
 * `503 service_unavailable` with `Retry-After` and the contract body, never a 500, a hang or a leak.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthStore } from '../../functions/auth/store';
import { documentClient } from '../../functions/aws/dynamodb';
import { type LocalStack, startLocalStack } from '../../local/stack/runtime';
import { fetchMatchingOpenApi } from '../support/openapi';

let stack: LocalStack;
let tokens: { clientToken: string; sessionToken: string };

beforeAll(async () => {
  stack = await startLocalStack({
    port: 0,
    dynamodbPort: 0,
    s3Port: 0,
    dataDir: ':memory:',
    seedDemo: false,
    log: () => {},
  });
  const store = new AuthStore(documentClient(), stack.tables.authTable);
  const client = await store.createClient({ name: 'unavailable test', grants: ['search', 'reject'] });
  const session = await store.createSession({ clientToken: client.token, accountId: 1, role: 'user', ttlSeconds: 600 });
  tokens = { clientToken: client.token, sessionToken: session.token };
  process.kill(stack.dynamodbPid as number, 'SIGKILL');
}, 300_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

const send = (path: string, method: string, body?: string) =>
  fetchMatchingOpenApi(`${stack.baseUrl}${path}`, {
    method,
    headers: {
      Accept: 'application/json',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      'X-Client-Token': tokens.clientToken,
      'X-Session-Token': tokens.sessionToken,
    },
    ...(body === undefined ? {} : { body }),
  });

describe('DynamoDB unavailable', () => {
  it.each([
    ['GET', '/search/fields', undefined],
    ['POST', '/search', '{}'],
    ['POST', '/reject', '{"files":[{"fileId":1,"customRejection":"x"}]}'],
  ])('answers 503 service_unavailable with Retry-After to %s %s', async (method, path, body) => {
    const response = await send(path, method, body);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      code: 'service_unavailable',
      message: expect.any(String),
      requestId: response.headers.get('x-request-id'),
    });
    expect(text).not.toMatch(/ECONNREFUSED|DynamoDB|at \S+ \(|Error:/);
  });
});

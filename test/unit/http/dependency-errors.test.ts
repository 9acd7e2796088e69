import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { isDependencyFailure, retryAfterSeconds } from '../../../functions/http/dependency-errors';
import { ApiError, DependencyUnavailableError } from '../../../functions/http/errors';
import { SearchUnavailableError } from '../../../functions/search/search-index';

const named = (name: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`${name} happened`), { name, ...extra });

describe('dependency failure recognition', () => {
  it.each([
    ['our DependencyUnavailableError', new DependencyUnavailableError('DynamoDB')],
    ['a SearchUnavailableError', new SearchUnavailableError('engine down')],
    [
      'a DynamoDB throughput error',
      new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: { httpStatusCode: 400 } }),
    ],
    ['a ThrottlingException', named('ThrottlingException')],
    ['a RequestLimitExceeded', named('RequestLimitExceeded')],
    ['an SDK TimeoutError', named('TimeoutError')],
    ['an AbortError', named('AbortError')],
    ['a refused connection', named('Error', { code: 'ECONNREFUSED' })],
    ['a reset connection', named('Error', { code: 'ECONNRESET' })],
    ['a timed-out socket', named('Error', { code: 'ETIMEDOUT' })],
    ['an AWS 5xx', named('InternalFailure', { $metadata: { httpStatusCode: 503 } })],
    ['a throttling flagged retryable', named('Whatever', { $retryable: { throttling: true } })],
    [
      'a cause two levels down',
      new Error('outer', { cause: new Error('mid', { cause: named('E', { code: 'ECONNRESET' }) }) }),
    ],
  ])('recognises %s', (_name, error) => {
    expect(isDependencyFailure(error)).toBe(true);
  });

  it.each([
    ['a TypeError', new TypeError('x is undefined')],
    ['an AWS 4xx', named('ValidationException', { $metadata: { httpStatusCode: 400 } })],
    ['a conditional check failure', named('ConditionalCheckFailedException', { $metadata: { httpStatusCode: 400 } })],
    ['an ApiError', new ApiError('forbidden')],
    ['a string', 'ECONNRESET'],
    ['null', null],
  ])('does not mistake %s for one', (_name, error) => {
    expect(isDependencyFailure(error)).toBe(false);
  });

  it('finds its own unavailability errors up to five causes down, and no deeper', () => {
    const wrapped = (error: unknown, links: number): unknown =>
      links === 0 ? error : wrapped(new Error(`wrapper ${links}`, { cause: error }), links - 1);
    for (const unavailable of [new DependencyUnavailableError('DynamoDB'), new SearchUnavailableError('down')]) {
      expect(isDependencyFailure(wrapped(unavailable, 5))).toBe(true);
      expect(isDependencyFailure(wrapped(unavailable, 6))).toBe(false);
    }
  });

  it('stops on circular causes', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });
    expect(isDependencyFailure(a)).toBe(false);
  });

  it('takes Retry-After from a DependencyUnavailableError, else the fallback', () => {
    expect(retryAfterSeconds(new DependencyUnavailableError('x', undefined, 5))).toBe(5);
    expect(retryAfterSeconds(new DependencyUnavailableError('x', undefined, 0.2))).toBe(1);
    expect(retryAfterSeconds(named('TimeoutError'), 2)).toBe(2);
  });
});

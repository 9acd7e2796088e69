/**
 * `npm run cli` with no local stack where it looks: the message names the endpoint it tried and the settings
 * that chose it (DYNAMODB_ENDPOINT, DYNAMODB_PORT, DATA_DIR) and the way to a deployed stack (`--stack`),
 * instead of a bare `connect ECONNREFUSED 127.0.0.1:8000`.
 */
import { describe, expect, it } from 'vitest';
import { isConnectionRefused, unreachableLocalStack } from '../../../local/operations/cli/unreachable';

/** A refused connection as the SDK reports it: Node's error as the cause, or aggregated (IPv4 and IPv6). */
const refused = (): Error => {
  const inner = Object.assign(new Error('connect ECONNREFUSED ::1:8000'), { code: 'ECONNREFUSED' });
  const aggregate = Object.assign(new AggregateError([inner], ''), { code: 'ECONNREFUSED' });
  return new Error('dynamodb is unavailable', { cause: aggregate });
};

describe('npm run cli when nothing answers where it looks for DynamoDB', () => {
  it('names the endpoint it tried, DYNAMODB_PORT and DATA_DIR as set, and --stack', () => {
    const text = unreachableLocalStack(
      refused(),
      'http://localhost:8123',
      { DYNAMODB_PORT: '8123', DATA_DIR: '/tmp/mine' },
      undefined,
    );
    expect(text).toContain('http://localhost:8123');
    expect(text).toContain('DYNAMODB_PORT=8123');
    expect(text).toContain('DATA_DIR=/tmp/mine');
    expect(text).toContain('--stack <name>');
    expect(text).toContain('npm start');
  });

  it('says which defaults chose the endpoint when nothing is set', () => {
    const text = unreachableLocalStack(refused(), 'http://localhost:8000', {}, undefined);
    expect(text).toContain('DYNAMODB_PORT unset: 8000');
    expect(text).toContain('DATA_DIR unset: .data');
  });

  it('names DYNAMODB_ENDPOINT when it chose the endpoint', () => {
    const text = unreachableLocalStack(
      refused(),
      'http://127.0.0.1:9000',
      { DYNAMODB_ENDPOINT: 'http://127.0.0.1:9000' },
      undefined,
    );
    expect(text).toContain('DYNAMODB_ENDPOINT=http://127.0.0.1:9000 chose it');
  });

  it('finds a refusal in causes and aggregated errors, and nothing in other failures', () => {
    expect(isConnectionRefused(refused())).toBe(true);
    expect(isConnectionRefused(new Error('connect ECONNREFUSED 127.0.0.1:8000'))).toBe(true);
    expect(isConnectionRefused(new Error('ResourceNotFoundException'))).toBe(false);
    expect(isConnectionRefused(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBe(false);
  });

  it('leaves other failures, and a deployed stack, to the general message', () => {
    expect(unreachableLocalStack(new Error('ValidationException'), 'http://localhost:8000', {}, undefined)).toBe(
      undefined,
    );
    expect(unreachableLocalStack(refused(), undefined, {}, 'JobsApi-prod')).toBe(undefined);
  });
});

import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it, vi } from 'vitest';
import { generateSecret, generateToken, hashToken } from '../../../functions/auth/tokens';
import { isSecretKey, REDACTED, redactSecrets, redactValue, SERVICE_NAME } from '../../../functions/observability';

describe('log redaction', () => {
  it.each([
    'X-Client-Token',
    'x-session-token',
    'X-SESSION-TOKEN',
    'clientToken',
    'token',
    'session_token',
    'Authorization',
  ])('treats %s as a secret', (key) => {
    expect(isSecretKey(key)).toBe(true);
  });

  it.each(['tokenHash', 'secretHash', 'hash', 'secret', 'clientSecret', 'X-Client-Secret'])(
    'treats %s (a secret or a hash) as a secret',
    (key) => {
      expect(isSecretKey(key)).toBe(true);
    },
  );

  it.each(['accept', 'requestId', 'X-Request-Id', 'tokens', 'secretId', 'sessionId'])('leaves %s readable', (key) => {
    expect(isSecretKey(key)).toBe(false);
  });

  it('redacts a credential by its value, whatever key holds it', () => {
    const token = generateToken();
    const secret = generateSecret();
    const hash = hashToken(token);
    const item = {
      note: `client sent ${secret} then ${token}`,
      key: `SESSION#${hash}`,
      other: `CLIENT#${hashToken(secret)} and SECRET#${hash}`,
      digest: hash,
      list: [token],
    };
    const text = JSON.stringify(item, redactSecrets);
    for (const credential of [token, secret, hash, hashToken(secret)]) expect(text).not.toContain(credential);
    expect(text).not.toMatch(/jsk_|CLIENT#|SECRET#|SESSION#/);
    expect(JSON.parse(text).note).toBe(`client sent ${REDACTED} then ${REDACTED}`);
  });

  it.each([
    ['a request id', 'c0ffee00-1234-4abc-8def-0123456789ab'],
    ['a userId', 'anna@example.com'],
    ['a 42-character word', 'a'.repeat(42)],
    ['a 44-character word', 'a'.repeat(44)],
  ])('leaves %s readable', (_name, value) => {
    expect(redactValue(value)).toBe(value);
  });

  it('never prints a token, however deep in a log item', () => {
    const lines: string[] = [];
    const logger = new Logger({ serviceName: 'redaction-test', jsonReplacerFn: redactSecrets });
    vi.spyOn(console, 'info').mockImplementation((line: string) => {
      lines.push(line);
    });
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      logger.info('event', {
        event: {
          headers: {
            'X-Client-Token': 'secret-client',
            'x-session-token': 'secret-session',
            Accept: 'application/json',
          },
          multiValueHeaders: { 'X-Client-Token': ['secret-client'] },
        },
        created: { token: 'secret-created' },
      });
    } finally {
      spy.mockRestore();
      vi.restoreAllMocks();
    }
    const output = lines.join('\n');
    expect(output).toContain('application/json');
    expect(output).toContain(REDACTED);
    expect(output).not.toMatch(/secret-(client|session|created)/);
  });

  it('names the service jobs-api unless POWERTOOLS_SERVICE_NAME says otherwise', () => {
    expect(SERVICE_NAME).toBe(process.env.POWERTOOLS_SERVICE_NAME?.trim() || 'jobs-api');
  });
});

import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it, vi } from 'vitest';
import { generateSecret, generateToken, hashToken } from '../../../functions/auth/tokens';
import { auditLine, auditRecord } from '../../../functions/auth/audit';
import { isSecretKey, REDACTED, redactSecrets, redactValue, SERVICE_NAME } from '../../../functions/observability';
import { newSigningSecret } from '../../../functions/webhooks/signing';

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

  it('hides a webhook signing secret wherever it stands', () => {
    const signing = newSigningSecret();
    const text = JSON.stringify(
      { message: `registered with ${signing} for /hooks`, url: 'https://x/hooks' },
      redactSecrets,
    );
    expect(text).not.toContain(signing.slice('whsec_'.length, 20));
    expect(JSON.parse(text).message).toBe(`registered with ${REDACTED} for /hooks`);
  });

  it.each([
    ['a request id', 'c0ffee00-1234-4abc-8def-0123456789ab'],
    ['a userId', 'anna@example.com'],
    ['a 42-character word', 'a'.repeat(42)],
    ['a 44-character word', 'a'.repeat(44)],
  ])('leaves %s readable', (_name, value) => {
    expect(redactValue(value)).toBe(value);
  });

  it.each([
    ['43 base64url characters', 'Abcdefghij_klmnopqrst-uvwxyz0123456789ABCDE'],
    ['64 hex digits', 'c0ffee'.repeat(10) + 'beef'],
    ['a hex run behind a kind word', 'SESSION-cafe'],
  ])('leaves a userId of %s readable in a log line and an audit record', (_name, userId) => {
    const line = JSON.stringify({ userId, message: `session opened for ${userId}` }, redactSecrets);
    expect(JSON.parse(line)).toEqual({ userId, message: `session opened for ${userId}` });
    const record = auditRecord(
      { action: 'session.opened', clientId: 'c1', sessionId: 's1', userId, accountId: 7, role: 'user' },
      { via: 'cli', who: 'os-user:test' },
    );
    expect(JSON.parse(auditLine(record))).toMatchObject({ userId });
  });

  it('leaves the byClient entry of a user whose id is hex readable, and still hides an auth-table key', () => {
    const hash = hashToken(generateToken());
    const text = JSON.stringify({ entry: 'SESSION#cafe#s1', key: `SESSION#${hash}` }, redactSecrets);
    expect(JSON.parse(text)).toEqual({ entry: 'SESSION#cafe#s1', key: REDACTED });
  });

  it('hides a token it never made once a log item carries it under a credential key, wherever else it stands', () => {
    const token = 'Zq9'.repeat(14) + 'x';
    const text = JSON.stringify(
      {
        event: {
          headers: { 'X-Session-Token': token },
          body: `{"note":"my token is ${token}"}`,
          path: `/search/${token}-and-more`,
        },
      },
      redactSecrets,
    );
    expect(text).not.toContain(token);
    expect(JSON.parse(text).event.body).toBe(`{"note":"my token is ${REDACTED}"}`);
    expect(JSON.parse(text).event.path).toBe(`/search/${REDACTED}-and-more`);
  });

  it('hides a token the process hashed (a presented one) in a later log line under any key', () => {
    const presented = 'presented-' + 'Q'.repeat(33);
    hashToken(presented);
    const text = JSON.stringify({ note: `sent ${presented}`, digest: hashToken(presented) }, redactSecrets);
    expect(JSON.parse(text)).toEqual({ note: `sent ${REDACTED}`, digest: REDACTED });
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

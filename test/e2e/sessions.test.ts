/**
 * docs/contract.md §2a through real HTTP: a backend opens sessions with its client token and secret, people
 * log out, and every attack on either endpoint answers its contract status and changes nothing; a client
 * bound to its accounts signs no one into another; a leaked secret or client is ended with everything it
 * opened. The log lines written meanwhile are captured, the audit records land in an `audit.ndjson` as the
 * local stack writes it, and neither may contain any of the tokens, secrets or hashes the tests made.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthAdministration } from '../../functions/auth/administration';
import type { AuditRecord, AuditSource } from '../../functions/auth/audit';
import { useAuditSink } from '../../functions/auth/audit-sink';
import { resetDefaultAuthenticator } from '../../functions/auth/authenticate';
import { AuthStore } from '../../functions/auth/store';
import { fileAuditSink } from '../../local/logs/audit-file';
import { MAX_OPERATOR_SESSION_TTL_SECONDS, MAX_USER_SESSION_TTL_SECONDS } from '../../functions/auth/session-limits';
import { hashToken } from '../../functions/auth/tokens';
import { documentClient } from '../../functions/aws/dynamodb';
import {
  type IssuedTokens,
  type IssueOptions,
  startTestStack,
  type TestResponse,
  type TestStack,
} from '../support/local-stack';

const CLI_SOURCE: AuditSource = { via: 'cli', who: 'os-user:test' };

let stack: TestStack;
let admin: AuthAdministration;
/** A store that writes audit records, as the CLI's does. */
let auditedStore: AuthStore;
let auditDirectory: string;
let auditFile: string;
let backend: IssuedTokens;
/** Every token and secret the tests made, to look for in the logs. */
const credentials = new Set<string>();
const logged: string[] = [];

beforeAll(async () => {
  const capture = (chunk: string | Uint8Array): boolean => {
    logged.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  stack = await startTestStack();
  auditDirectory = mkdtempSync(join(tmpdir(), 'sessions-audit-'));
  auditFile = join(auditDirectory, 'audit.ndjson');
  useAuditSink(fileAuditSink(auditFile));
  admin = new AuthAdministration(documentClient(), stack.tables.authTable, { audit: fileAuditSink(auditFile) });
  auditedStore = new AuthStore(documentClient(), stack.tables.authTable, {
    audit: fileAuditSink(auditFile),
    source: CLI_SOURCE,
  });
  backend = await issue({ grants: ['search', 'sessions'] });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  useAuditSink(undefined);
  vi.restoreAllMocks();
  if (auditDirectory !== undefined) rmSync(auditDirectory, { recursive: true, force: true });
});

/** The audit records written so far. */
const auditRecords = (): AuditRecord[] =>
  readFileSync(auditFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditRecord);

/** A client (and a session of it), its credentials remembered for the log scan. */
const issue = async (options: IssueOptions = {}): Promise<IssuedTokens> => {
  const issued = await stack.issue(options);
  for (const value of [issued.clientToken, issued.clientSecret, issued.sessionToken]) credentials.add(value);
  return issued;
};

const remember = (response: TestResponse): TestResponse => {
  if (typeof response.json?.token === 'string') credentials.add(response.json.token);
  return response;
};

/** `POST /sessions` with a backend's client token and secret. */
const openSession = async (
  caller: Pick<IssuedTokens, 'clientToken' | 'clientSecret'>,
  body: unknown,
  headers: Record<string, string | undefined> = {},
): Promise<TestResponse> =>
  remember(
    await stack.request('/sessions', {
      body,
      headers: {
        'X-Client-Token': caller.clientToken,
        'X-Session-Token': undefined,
        'X-Client-Secret': caller.clientSecret,
        ...headers,
      },
    }),
  );

const logout = (tokens: Pick<IssuedTokens, 'clientToken' | 'sessionToken'>): Promise<TestResponse> =>
  stack.request('/sessions/current', { method: 'DELETE', tokens });

const fields = (tokens: Pick<IssuedTokens, 'clientToken' | 'sessionToken'>): Promise<TestResponse> =>
  stack.request('/search/fields', { method: 'GET', tokens });

const expectError = (response: TestResponse, status: number, code: string, context: Record<string, unknown> = {}) => {
  expect({ status: response.status, code: response.json?.code }).toEqual({ status, code });
  expect(response.json).toMatchObject(context);
};

/** The live sessions of a client, as operators see them. */
const sessionsOf = (clientId: string) => admin.listSessions(clientId);

describe('POST /sessions', () => {
  it('answers 201 with a session that works on the very next request, in this container and a fresh one', async () => {
    const response = await openSession(backend, { userId: 'anna@example.com', accountId: 4242, ttlSeconds: 600 });
    expect(response.status).toBe(201);
    expect(response.json).toEqual({
      _type: 'SessionResponseBody',
      sessionId: expect.any(String),
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expiresAt: expect.any(String),
    });
    const tokens = { clientToken: backend.clientToken, sessionToken: response.json.token as string };
    expect((await fields(tokens)).status).toBe(200);
    resetDefaultAuthenticator();
    expect((await fields(tokens)).status).toBe(200);
    expect(await sessionsOf(backend.clientId)).toContainEqual(
      expect.objectContaining({ sessionId: response.json.sessionId, userId: 'anna@example.com', accountId: 4242 }),
    );
  });

  it('reads a form body, opens a user session by default and lasts 24 hours by default', async () => {
    const before = Date.now();
    const response = await openSession(backend, new URLSearchParams({ userId: 'ben', accountId: '7' }));
    expect(response.status).toBe(201);
    const lifetime = Date.parse(response.json.expiresAt) - before;
    expect(lifetime).toBeGreaterThan(24 * 3600 * 1000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(24 * 3600 * 1000 + 60_000);
    const [session] = (await sessionsOf(backend.clientId)).filter((s) => s.sessionId === response.json.sessionId);
    expect(session?.role).toBe('user');
  });

  it('answers 400 missing_header naming X-Client-Secret when it is missing or blank', async () => {
    expectError(
      await openSession(backend, { userId: 'a', accountId: 1 }, { 'X-Client-Secret': undefined }),
      400,
      'missing_header',
      {
        headerName: 'X-Client-Secret',
      },
    );
    expectError(
      await openSession(backend, { userId: 'a', accountId: 1 }, { 'X-Client-Secret': ' ' }),
      400,
      'missing_header',
      {
        headerName: 'X-Client-Secret',
      },
    );
  });

  it('answers 415 before looking at credentials, and 406 before that', async () => {
    expectError(
      await openSession(backend, 'userId=a', { 'Content-Type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    expectError(await openSession(backend, {}, { Accept: '*/*', 'Content-Type': 'text/plain' }), 406, 'not_acceptable');
  });

  describe('refuses an attacker and changes nothing', () => {
    const attempt = async (
      caller: IssuedTokens,
      body: unknown,
      expected: [number, string, Record<string, unknown>?],
      headers: Record<string, string | undefined> = {},
    ) => {
      const before = await sessionsOf(caller.clientId);
      expectError(await openSession(caller, body, headers), ...expected);
      expect(await sessionsOf(caller.clientId)).toEqual(before);
    };
    const user = { userId: 'mallory', accountId: 1 };

    it('answers 401 invalid_client for a wrong secret', async () => {
      await attempt(backend, user, [401, 'invalid_client'], { 'X-Client-Secret': `jsk_${'A'.repeat(43)}` });
    });

    it('answers 401 invalid_client for the client token sent as the secret', async () => {
      await attempt(backend, user, [401, 'invalid_client'], { 'X-Client-Secret': backend.clientToken });
    });

    it('answers 401 invalid_client for a secret of another client', async () => {
      const other = await issue({ grants: ['sessions'] });
      await attempt(backend, user, [401, 'invalid_client'], { 'X-Client-Secret': other.clientSecret });
    });

    it('answers 401 invalid_client for a revoked secret, at once', async () => {
      const client = await issue({ grants: ['sessions'] });
      const rotated = await admin.rotateSecret(client.clientId, 3600, CLI_SOURCE);
      credentials.add(rotated.secret);
      expect((await openSession(client, user)).status).toBe(201);
      await admin.revokeSecret(client.clientId, client.clientSecretId, CLI_SOURCE);
      await attempt(client, user, [401, 'invalid_client']);
      const withNew = await openSession({ ...client, clientSecret: rotated.secret }, user);
      expect(withNew.status).toBe(201);
    });

    it('answers 401 invalid_client for a secret past its rotation overlap', async () => {
      const client = await issue({ grants: ['sessions'] });
      const rotated = await admin.rotateSecret(client.clientId, 0, CLI_SOURCE);
      credentials.add(rotated.secret);
      await attempt(client, user, [401, 'invalid_client']);
      expect((await openSession({ ...client, clientSecret: rotated.secret }, user)).status).toBe(201);
    });

    it('answers 401 invalid_client for a disabled client, at once, and 201 again once enabled', async () => {
      const client = await issue({ grants: ['sessions'] });
      expect((await openSession(client, user)).status).toBe(201);
      await admin.setClientEnabled(client.clientId, false, CLI_SOURCE);
      await attempt(client, user, [401, 'invalid_client']);
      await admin.setClientEnabled(client.clientId, true, CLI_SOURCE);
      expect((await openSession(client, user)).status).toBe(201);
    });

    it('answers 403 forbidden for a client without the sessions grant', async () => {
      const client = await issue({ grants: ['search', 'reject'] });
      await attempt(client, user, [403, 'forbidden']);
    });

    it('answers 403 forbidden for a role outside the client’s sessionRoles, after every field', async () => {
      const client = await issue({ grants: ['sessions'], sessionRoles: ['user'] });
      await attempt(client, { ...user, role: 'operator' }, [403, 'forbidden']);
      await attempt(client, { role: 'operator' }, [400, 'invalid_parameter', { parameter: 'userId' }]);
    });

    it.each([
      ['a user session over 30 days', { ttlSeconds: MAX_USER_SESSION_TTL_SECONDS + 1 }],
      ['an operator session over 12 hours', { role: 'operator', ttlSeconds: MAX_OPERATOR_SESSION_TTL_SECONDS + 1 }],
      ['a session under a minute', { ttlSeconds: 59 }],
    ])('answers 400 invalid_parameter ttlSeconds for %s', async (_name, override) => {
      await attempt(backend, { ...user, ...override }, [400, 'invalid_parameter', { parameter: 'ttlSeconds' }]);
    });

    it('answers 400 invalid_parameter ttlSeconds over the client’s own cap', async () => {
      const client = await issue({ grants: ['sessions'], maxSessionTtlSeconds: 3600 });
      await attempt(client, { ...user, ttlSeconds: 3601 }, [400, 'invalid_parameter', { parameter: 'ttlSeconds' }]);
      expect((await openSession(client, { ...user, ttlSeconds: 3600 })).status).toBe(201);
    });

    it.each([
      ['a control character', 'anna\u0000'],
      ['a line break', 'anna\nforged log line'],
      ['the index key separator', 'anna#x'],
      ['129 characters', 'a'.repeat(129)],
      ['nothing', ''],
    ])('answers 400 invalid_parameter userId for a userId with %s', async (_name, userId) => {
      await attempt(backend, { userId, accountId: 1 }, [400, 'invalid_parameter', { parameter: 'userId' }]);
    });

    it('answers 400 invalid_parameter accountId for an account out of range', async () => {
      await attempt(backend, { userId: 'a', accountId: 0 }, [400, 'invalid_parameter', { parameter: 'accountId' }]);
    });
  });
});

describe('a client bound to its accounts', () => {
  let bound: { clientId: string; clientToken: string; clientSecret: string };

  beforeAll(async () => {
    const created = await auditedStore.createClient({
      name: 'One customer’s integration',
      grants: ['search', 'sessions'],
      accounts: [1001],
    });
    credentials.add(created.token).add(created.secret);
    bound = { clientId: created.clientId, clientToken: created.token, clientSecret: created.secret };
  });

  it('signs people into its own account', async () => {
    expect((await openSession(bound, { userId: 'ann', accountId: 1001 })).status).toBe(201);
  });

  it('answers 403 forbidden for another account, after every field, and opens nothing', async () => {
    const before = (await sessionsOf(bound.clientId)).length;
    expectError(await openSession(bound, { userId: 'mallory', accountId: 1002 }), 403, 'forbidden');
    expectError(
      await openSession(bound, { userId: 'mallory', accountId: 1002, ttlSeconds: 59 }),
      400,
      'invalid_parameter',
      {
        parameter: 'ttlSeconds',
      },
    );
    expect(await sessionsOf(bound.clientId)).toHaveLength(before);
  });

  it('answers 403 forbidden for an operator session, even in its own account', async () => {
    expectError(await openSession(bound, { userId: 'mallory', accountId: 1001, role: 'operator' }), 403, 'forbidden');
  });

  it('says which account or role the client may not serve in its 403, naming no grant (it holds sessions)', async () => {
    const account = await openSession(bound, { userId: 'mallory', accountId: 1002 });
    expect(account.json).toEqual({
      code: 'forbidden',
      message: 'The client may not open sessions for account 1002.',
      requestId: expect.any(String),
    });
    const role = await openSession(bound, { userId: 'mallory', accountId: 1001, role: 'operator' });
    expect(role.json).toEqual({
      code: 'forbidden',
      message: 'The client may not open operator sessions.',
      requestId: expect.any(String),
    });
  });
});

describe('ending what a leaked credential touched', () => {
  const user = { userId: 'leaky', accountId: 1001 };
  const sessionOf = (client: IssuedTokens, response: TestResponse) => ({
    clientToken: client.clientToken,
    sessionToken: response.json.token as string,
  });

  it('revoke-secret ends every session that secret opened, and none another secret opened', async () => {
    const client = await issue({ grants: ['search', 'sessions'] });
    const rotated = await admin.rotateSecret(client.clientId, 3600, CLI_SOURCE);
    credentials.add(rotated.secret);
    const leaked = sessionOf(client, await openSession(client, user));
    const kept = sessionOf(client, await openSession({ ...client, clientSecret: rotated.secret }, user));
    expect((await fields(leaked)).status).toBe(200);
    await admin.revokeSecret(client.clientId, client.clientSecretId, CLI_SOURCE);
    resetDefaultAuthenticator(); // the 60-second cache bound, passed
    expectError(await fields(leaked), 401, 'invalid_session');
    expect((await fields(kept)).status).toBe(200);
    expect((await fields(client)).status).toBe(200); // opened by the CLI, with no secret
  });

  it('disable-client ends every session for good: enable-client brings none back', async () => {
    const client = await issue({ grants: ['search', 'sessions'] });
    const opened = sessionOf(client, await openSession(client, user));
    await admin.setClientEnabled(client.clientId, false, CLI_SOURCE);
    await admin.setClientEnabled(client.clientId, true, CLI_SOURCE);
    resetDefaultAuthenticator();
    expectError(await fields(opened), 401, 'invalid_session');
    expectError(await fields(client), 401, 'invalid_session');
    expect(await sessionsOf(client.clientId)).toEqual([]);
    const fresh = sessionOf(client, await openSession(client, user));
    expect((await fields(fresh)).status).toBe(200);
  });

  it('revoke-session --all ends every session of the client and says how many', async () => {
    const client = await issue({ grants: ['search', 'sessions'] });
    const opened = sessionOf(client, await openSession(client, user));
    await expect(admin.revokeSessions(client.clientId, { all: true }, CLI_SOURCE)).resolves.toBe(2);
    resetDefaultAuthenticator();
    expectError(await fields(opened), 401, 'invalid_session');
    expectError(await fields(client), 401, 'invalid_session');
    expect((await openSession(client, user)).status).toBe(201);
  });
});

describe('DELETE /sessions/current', () => {
  it('ends the calling session: 200 with its id, then the session answers 401 and a replay 401', async () => {
    const opened = await openSession(backend, { userId: 'carla', accountId: 9 });
    const tokens = { clientToken: backend.clientToken, sessionToken: opened.json.token as string };
    expect((await fields(tokens)).status).toBe(200);
    const ended = await logout(tokens);
    expect(ended.status).toBe(200);
    expect(ended.json).toEqual({ _type: 'SessionEndedResponseBody', sessionId: opened.json.sessionId });
    expectError(await fields(tokens), 401, 'invalid_session');
    expectError(await logout(tokens), 401, 'invalid_session');
    expect((await sessionsOf(backend.clientId)).map((s) => s.sessionId)).not.toContain(opened.json.sessionId);
  });

  it('answers 401 invalid_session for another client’s session and leaves it working', async () => {
    const victim = await issue();
    const attacker = await issue();
    expectError(
      await logout({ clientToken: attacker.clientToken, sessionToken: victim.sessionToken }),
      401,
      'invalid_session',
    );
    expect((await fields(victim)).status).toBe(200);
  });

  it('needs no grant and no Content-Type, but both token headers', async () => {
    const searchOnly = await issue({ grants: ['search'] });
    expectError(
      await stack.request('/sessions/current', {
        method: 'DELETE',
        tokens: searchOnly,
        headers: { 'X-Session-Token': undefined },
      }),
      400,
      'missing_header',
      { headerName: 'X-Session-Token' },
    );
    expect((await logout(searchOnly)).status).toBe(200);
  });

  it('answers 405 with Allow: DELETE for another method', async () => {
    const response = await stack.request('/sessions/current', { method: 'GET' });
    expectError(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe('DELETE');
  });
});

describe('the logs and the audit of every path above', () => {
  it('contain no token, secret or hash the tests made', () => {
    const text = `${logged.join('')}\n${readFileSync(auditFile, 'utf8')}`;
    expect(credentials.size).toBeGreaterThan(10);
    for (const credential of credentials) {
      expect(text.includes(credential)).toBe(false);
      expect(text.includes(hashToken(credential))).toBe(false);
    }
  });

  it('hold one record per act, each saying when and who', () => {
    const records = auditRecords();
    for (const record of records) {
      expect(record).toMatchObject({ at: expect.any(String), who: expect.any(String), via: expect.any(String) });
      expect(record.who).not.toBe('');
    }
    const api = { via: 'api', requestId: expect.any(String), who: expect.stringMatching(/^[0-9a-f.:]+$/) };
    expect(records).toContainEqual(
      expect.objectContaining({
        action: 'client.created',
        grants: ['search', 'sessions'],
        accounts: [1001],
        ...CLI_SOURCE,
      }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({ action: 'session.opened', accountId: 1001, secretId: expect.any(String), ...api }),
    );
    expect(records).toContainEqual(expect.objectContaining({ action: 'session.ended', ...api }));
    expect(records).toContainEqual(
      expect.objectContaining({
        action: 'session.refused',
        clientId: backend.clientId,
        reason: { code: 'invalid_client', message: expect.any(String) },
        ...api,
      }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({
        action: 'session.refused',
        accountId: 1002,
        reason: expect.objectContaining({ code: 'forbidden' }),
      }),
    );
    expect(records).toContainEqual(
      expect.objectContaining({
        action: 'session.refused',
        reason: expect.objectContaining({ code: 'missing_header', headerName: 'X-Client-Secret' }),
      }),
    );
    for (const action of ['client.disabled', 'client.enabled', 'secret.issued', 'secret.revoked']) {
      expect(records).toContainEqual(expect.objectContaining({ action, ...CLI_SOURCE }));
    }
    expect(records).toContainEqual(expect.objectContaining({ action: 'session.revoked', cause: 'secret' }));
    expect(records).toContainEqual(expect.objectContaining({ action: 'session.revoked', cause: 'client.disabled' }));
    expect(records).toContainEqual(expect.objectContaining({ action: 'session.revoked', cause: 'all' }));
  });
});

import { describe, expect, it, vi } from 'vitest';
import {
  AUTH_CACHE_MAX_ENTRIES,
  AUTH_NEGATIVE_CACHE_MAX_ENTRIES,
  type AuthLookup,
  Authenticator,
  MAX_AUTH_CACHE_TTL_MS,
} from '../../../functions/auth/authenticate';
import type { ClientRecord, SecretRecord, SessionRecord } from '../../../functions/auth/store';
import { hashToken } from '../../../functions/auth/tokens';
import { expectApiError } from '../http/expect-api-error';
import { clientRecord } from '../../support/auth-records';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');

const client = (overrides: Partial<ClientRecord> = {}): ClientRecord =>
  clientRecord({ createdAt: '2024-01-01T00:00:00.000Z', ...overrides });

const session = (overrides: Partial<SessionRecord> = {}): SessionRecord => ({
  sessionId: 's1',
  clientId: 'c1',
  accountId: 42,
  userId: 'u1',
  role: 'user',
  createdAt: '2024-12-31T00:00:00.000Z',
  expiresAt: new Date(T0 + 3_600_000).toISOString(),
  generation: 0,
  ...overrides,
});

/** A lookup over mutable records keyed by token, counting reads. */
const table = (records: { clients?: Record<string, ClientRecord>; sessions?: Record<string, SessionRecord> }) => {
  const clients = new Map(Object.entries(records.clients ?? {}).map(([token, record]) => [hashToken(token), record]));
  const sessions = new Map(Object.entries(records.sessions ?? {}).map(([token, record]) => [hashToken(token), record]));
  const lookup = {
    getClient: vi.fn(async (hash: string) => clients.get(hash)),
    getSession: vi.fn(async (hash: string) => sessions.get(hash)),
    getSecret: vi.fn(async (_hash: string): Promise<SecretRecord | undefined> => undefined),
  } satisfies AuthLookup;
  return { lookup, clients, sessions };
};

const setup = (cacheTtlMs = 60_000) => {
  let now = T0;
  const db = table({ clients: { ct: client() }, sessions: { st: session() } });
  const authenticator = new Authenticator({ lookup: db.lookup, cacheTtlMs, now: () => now });
  return { db, authenticator, advance: (ms: number) => (now += ms) };
};

describe('authenticator', () => {
  it('builds the principal from the client and the session', async () => {
    const { authenticator } = setup();
    await expect(authenticator.authenticate('ct', 'st')).resolves.toEqual({
      clientId: 'c1',
      clientName: 'Portal',
      grants: ['search'],
      sessionId: 's1',
      userId: 'u1',
      accountId: 42,
      role: 'user',
    });
  });

  it('looks tokens up by their SHA-256 only', async () => {
    const { authenticator, db } = setup();
    await authenticator.authenticate('ct', 'st');
    expect(db.lookup.getClient).toHaveBeenCalledWith(hashToken('ct'), { consistent: false });
    expect(db.lookup.getSession).toHaveBeenCalledWith(hashToken('st'));
  });

  describe('a backend with its client secret', () => {
    const secret = (overrides: Partial<SecretRecord> = {}): SecretRecord => ({
      secretId: 'k1',
      clientId: 'c1',
      createdAt: '2024-01-01T00:00:00.000Z',
      ...overrides,
    });
    const withSecrets = (secrets: Record<string, SecretRecord>, clientOverrides: Partial<ClientRecord> = {}) => {
      const db = table({ clients: { ct: client(clientOverrides), other: client({ clientId: 'c2' }) } });
      const byHash = new Map(Object.entries(secrets).map(([value, record]) => [hashToken(value), record]));
      db.lookup.getSecret.mockImplementation(async (hash: string) => byHash.get(hash));
      return { db, authenticator: new Authenticator({ lookup: db.lookup, cacheTtlMs: 60_000, now: () => T0 }) };
    };

    it('authenticates the client by its token and one of its live secrets, read by hash and consistently', async () => {
      const { db, authenticator } = withSecrets({ jsk_1: secret() });
      await expect(authenticator.authenticateClient('ct', 'jsk_1')).resolves.toMatchObject({ clientId: 'c1' });
      expect(db.lookup.getClient).toHaveBeenCalledWith(hashToken('ct'));
      expect(db.lookup.getSecret).toHaveBeenCalledWith(hashToken('jsk_1'));
    });

    it('never caches: a second request reads the client and the secret again', async () => {
      const { db, authenticator } = withSecrets({ jsk_1: secret() });
      await authenticator.authenticateClient('ct', 'jsk_1');
      await authenticator.authenticateClient('ct', 'jsk_1');
      expect(db.lookup.getClient).toHaveBeenCalledTimes(2);
      expect(db.lookup.getSecret).toHaveBeenCalledTimes(2);
    });

    it.each([
      ['an unknown secret', 'ct', 'jsk_nope', {}],
      ['another client’s secret', 'other', 'jsk_1', {}],
      ['an expired secret', 'ct', 'jsk_old', {}],
      ['a disabled client', 'ct', 'jsk_1', { enabled: false }],
      ['an unknown client', 'nope', 'jsk_1', {}],
    ])('answers invalid_client for %s', async (_name, clientToken, presented, overrides) => {
      const { authenticator } = withSecrets(
        { jsk_1: secret(), jsk_old: secret({ expiresAt: new Date(T0).toISOString() }) },
        overrides,
      );
      await expectApiError(() => authenticator.authenticateClient(clientToken, presented), 'invalid_client');
    });

    it('does the same work for an unknown client token as for a wrong secret: one read of each', async () => {
      const unknown = withSecrets({ jsk_1: secret() });
      await expectApiError(() => unknown.authenticator.authenticateClient('nope', 'jsk_1'), 'invalid_client');
      const wrong = withSecrets({ jsk_1: secret() });
      await expectApiError(() => wrong.authenticator.authenticateClient('ct', 'jsk_nope'), 'invalid_client');
      for (const { db } of [unknown, wrong]) {
        expect(db.lookup.getClient).toHaveBeenCalledTimes(1);
        expect(db.lookup.getSecret).toHaveBeenCalledTimes(1);
      }
    });

    it('names the client of a refused secret to the audit, never in the answer', async () => {
      const { authenticator } = withSecrets({ jsk_1: secret() });
      const refusal = await authenticator.authenticateClient('ct', 'jsk_nope').catch((error: unknown) => error);
      expect((refusal as Error).cause).toMatchObject({ name: 'ClientRefusedError', clientId: 'c1' });
      expect((refusal as Error).message).not.toContain('c1');
    });

    it.each([
      ['a secret the client item does not list', { secrets: {} }],
      [
        'a secret the client item lists as ended',
        { secrets: { k1: { key: 'SECRET#x', createdAt: 'x', expiresAt: new Date(T0).toISOString() } } },
      ],
      ['a revoked secret, though its item is still found', { revokedSecretIds: ['k1'] }],
    ])('answers invalid_client for %s (the client item decides)', async (_name, overrides) => {
      const { authenticator } = withSecrets({ jsk_1: secret() }, overrides);
      await expectApiError(() => authenticator.authenticateClient('ct', 'jsk_1'), 'invalid_client');
    });

    it('hands on the id of the secret that signed the client in', async () => {
      const { authenticator } = withSecrets(
        { jsk_1: secret() },
        { secrets: { k1: { key: 'SECRET#x', createdAt: 'x' } } },
      );
      await expect(authenticator.authenticateClient('ct', 'jsk_1')).resolves.toMatchObject({ secretId: 'k1' });
    });
  });

  it.each([
    ['opened before the client was disabled or all its sessions revoked', { generation: 0 }, { sessionGeneration: 1 }],
    ['opened by a secret since revoked', { secretId: 'k1' }, { revokedSecretIds: ['k1'] }],
  ])(
    'answers invalid_session for a session %s, still in the table',
    async (_name, sessionOverrides, clientOverrides) => {
      const db = table({ clients: { ct: client(clientOverrides) }, sessions: { st: session(sessionOverrides) } });
      const authenticator = new Authenticator({ lookup: db.lookup, cacheTtlMs: 0, now: () => T0 });
      await expectApiError(() => authenticator.authenticate('ct', 'st'), 'invalid_session');
    },
  );

  it('forgets a session ended in this container at once', async () => {
    const { authenticator, db } = setup();
    await authenticator.authenticate('ct', 'st');
    db.sessions.delete(hashToken('st'));
    authenticator.forgetSession('st');
    await expectApiError(() => authenticator.authenticate('ct', 'st'), 'invalid_session');
  });

  it('refuses an unknown client with invalid_client', async () => {
    const { authenticator } = setup();
    await expectApiError(() => authenticator.authenticate('nope', 'st'), 'invalid_client');
  });

  it('refuses a disabled client with invalid_client', async () => {
    const { authenticator, db } = setup();
    db.clients.set(hashToken('ct'), client({ enabled: false }));
    await expectApiError(() => authenticator.authenticate('ct', 'st'), 'invalid_client');
  });

  it('judges the client before the session', async () => {
    const { authenticator } = setup();
    await expectApiError(() => authenticator.authenticate('nope', 'nope'), 'invalid_client');
  });

  it('never looks a session up for an unknown or a disabled client', async () => {
    const { authenticator, db } = setup();
    await expectApiError(() => authenticator.authenticate('nope', 'st'), 'invalid_client');
    db.clients.set(hashToken('ct'), client({ enabled: false }));
    await expectApiError(() => authenticator.authenticate('ct', 'st'), 'invalid_client');
    expect(db.lookup.getSession).not.toHaveBeenCalled();
  });

  it('cannot be made to forget a real client or session by a flood of unknown tokens', async () => {
    let now = T0;
    const db = table({ clients: { ct: client() }, sessions: { st: session() } });
    const authenticator = new Authenticator({ lookup: db.lookup, cacheTtlMs: 60_000, maxEntries: 4, now: () => now });
    await authenticator.authenticate('ct', 'st');
    for (let i = 0; i < 50; i += 1) {
      await expectApiError(() => authenticator.authenticate(`random-client-${i}`, 'st'), 'invalid_client');
      await expectApiError(() => authenticator.authenticate('ct', `random-session-${i}`), 'invalid_session');
    }
    now += 1_000;
    await authenticator.authenticate('ct', 'st');
    expect(db.lookup.getClient.mock.calls.filter(([hash]) => hash === hashToken('ct'))).toHaveLength(1);
    expect(db.lookup.getSession.mock.calls.filter(([hash]) => hash === hashToken('st'))).toHaveLength(1);
  });

  it('remembers unknown tokens in a smaller cache of their own', async () => {
    const db = table({ clients: { ct: client() }, sessions: { st: session() } });
    const authenticator = new Authenticator({
      lookup: db.lookup,
      cacheTtlMs: 60_000,
      maxEntries: 10,
      maxNegativeEntries: 2,
      now: () => T0,
    });
    for (const token of ['u1', 'u2', 'u1', 'u2']) {
      await expectApiError(() => authenticator.authenticate(token, 'st'), 'invalid_client');
    }
    expect(db.lookup.getClient).toHaveBeenCalledTimes(2);
    await expectApiError(() => authenticator.authenticate('u3', 'st'), 'invalid_client');
    await expectApiError(() => authenticator.authenticate('u1', 'st'), 'invalid_client');
    expect(db.lookup.getClient).toHaveBeenCalledTimes(4);
  });

  it('keeps the negative cache smaller than the positive one by default', () => {
    expect(AUTH_NEGATIVE_CACHE_MAX_ENTRIES).toBeLessThan(AUTH_CACHE_MAX_ENTRIES);
  });

  it('refuses an unknown session with invalid_session', async () => {
    const { authenticator } = setup();
    await expectApiError(() => authenticator.authenticate('ct', 'nope'), 'invalid_session');
  });

  it('refuses a session issued to another client with invalid_session', async () => {
    const { authenticator, db } = setup();
    db.sessions.set(hashToken('st'), session({ clientId: 'c2' }));
    await expectApiError(() => authenticator.authenticate('ct', 'st'), 'invalid_session');
  });

  it('refuses a session the moment it expires, even when cached', async () => {
    const { authenticator, advance } = setup();
    await authenticator.authenticate('ct', 'st');
    advance(3_600_000 - 1);
    await expect(authenticator.authenticate('ct', 'st')).resolves.toMatchObject({ sessionId: 's1' });
    advance(1);
    await expectApiError(() => authenticator.authenticate('ct', 'st'), 'invalid_session');
  });

  it('serves lookups from the cache within its lifetime', async () => {
    const { authenticator, db, advance } = setup(30_000);
    await authenticator.authenticate('ct', 'st');
    advance(29_999);
    await authenticator.authenticate('ct', 'st');
    expect(db.lookup.getClient).toHaveBeenCalledTimes(1);
    expect(db.lookup.getSession).toHaveBeenCalledTimes(1);
  });

  it('notices a disabled client once the cache entry is older than the TTL', async () => {
    const { authenticator, db, advance } = setup(30_000);
    await authenticator.authenticate('ct', 'st');
    db.clients.set(hashToken('ct'), client({ enabled: false }));
    advance(30_000);
    await expectApiError(() => authenticator.authenticate('ct', 'st'), 'invalid_client');
  });

  it('never caches for longer than 60 s, whatever it is configured with', async () => {
    const { db } = setup();
    let now = T0;
    const authenticator = new Authenticator({ lookup: db.lookup, cacheTtlMs: 3_600_000, now: () => now });
    await authenticator.authenticate('ct', 'st');
    db.sessions.delete(hashToken('st'));
    now += MAX_AUTH_CACHE_TTL_MS - 1;
    await expect(authenticator.authenticate('ct', 'st')).resolves.toMatchObject({ sessionId: 's1' });
    now += 1;
    await expectApiError(() => authenticator.authenticate('ct', 'st'), 'invalid_session');
  });

  it('accepts a token created after a negative answer once that answer ages out', async () => {
    const { authenticator, db, advance } = setup(60_000);
    await expectApiError(() => authenticator.authenticate('ct', 'later'), 'invalid_session');
    db.sessions.set(hashToken('later'), session({ sessionId: 's-later' }));
    await expectApiError(() => authenticator.authenticate('ct', 'later'), 'invalid_session');
    advance(60_000);
    await expect(authenticator.authenticate('ct', 'later')).resolves.toMatchObject({ sessionId: 's-later' });
  });

  it('reads the table on every request when the cache is off', async () => {
    const { authenticator, db } = setup(0);
    await authenticator.authenticate('ct', 'st');
    await authenticator.authenticate('ct', 'st');
    expect(db.lookup.getClient).toHaveBeenCalledTimes(2);
  });

  it('lets lookup failures through uncached', async () => {
    const { authenticator, db } = setup();
    db.lookup.getSession.mockRejectedValueOnce(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    await expect(authenticator.authenticate('ct', 'st')).rejects.toThrow('throttled');
    await expect(authenticator.authenticate('ct', 'st')).resolves.toMatchObject({ sessionId: 's1' });
  });

  it('forgets cached lookups on clearCache, clients and sessions alike', async () => {
    const { authenticator, db } = setup();
    await authenticator.authenticate('ct', 'st');
    authenticator.clearCache();
    await authenticator.authenticate('ct', 'st');
    expect(db.lookup.getClient).toHaveBeenCalledTimes(2);
    expect(db.lookup.getSession).toHaveBeenCalledTimes(2);
  });

  it('hands out a copy of the grants', async () => {
    const { authenticator, db } = setup();
    const principal = await authenticator.authenticate('ct', 'st');
    principal.grants.push('reject');
    expect(db.clients.get(hashToken('ct'))?.grants).toEqual(['search']);
  });
});

import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CreateClientInput, CreateSessionInput } from '../../../functions/auth/store';
import {
  createDemoAuth,
  type DemoAuthStore,
  DemoTokensFileError,
  demoCommands,
  demoSessionsExpiring,
  demoSessionTtlSeconds,
  loadDemoTokens,
  renewDemoSessions,
  saveDemoTokens,
  shellQuote,
} from '../../../local/demo/auth';

/** An in-memory auth store recording what was asked of it. */
const fakeStore = () => {
  const clients: CreateClientInput[] = [];
  const sessions: CreateSessionInput[] = [];
  const store: DemoAuthStore = {
    createClient: async (input) => {
      clients.push(input);
      const n = clients.length;
      return {
        clientId: `client-${n}`,
        token: `client-token-${n}`,
        secretId: `secret-${n}`,
        secret: `jsk_secret-${n}`,
      };
    },
    createSession: async (input) => {
      sessions.push(input);
      return {
        sessionId: `session-${sessions.length}`,
        token: `session-token-${sessions.length}`,
        expiresAt: new Date(Date.now() + (input.ttlSeconds ?? 0) * 1000).toISOString(),
      };
    },
  };
  return { store, clients, sessions };
};

const directories: string[] = [];
afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

describe('demo credentials', () => {
  it('creates a search-and-reject client, a search-only client and sessions for two accounts and an operator', async () => {
    const { store, clients, sessions } = fakeStore();
    const tokens = await createDemoAuth(store, { first: 1001, other: 1002 });
    expect(clients).toEqual([
      {
        name: 'Demo app',
        grants: ['search', 'reject', 'jobs', 'sessions'],
        sessionRoles: ['user', 'operator'],
        accounts: '*',
      },
      { name: 'Search-only app', grants: ['search'], sessionRoles: ['user'], accounts: [1001] },
    ]);
    expect(sessions.map((session) => session.ttlSeconds)).toEqual(
      sessions.map((session) => demoSessionTtlSeconds(session.role)),
    );
    expect(tokens.clients.demoApp.clientSecret).toBe('jsk_secret-1');
    expect(tokens.sessions.user).toMatchObject({ accountId: 1001, role: 'user', clientToken: 'client-token-1' });
    expect(tokens.sessions.otherAccountUser).toMatchObject({ accountId: 1002, role: 'user' });
    expect(tokens.sessions.operator).toMatchObject({ role: 'operator', clientToken: 'client-token-1' });
    expect(tokens.sessions.searchOnlyUser).toMatchObject({ accountId: 1001, clientToken: 'client-token-2' });
  });

  it('saves the tokens readable by the owner only and reads them back', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'demo-auth-'));
    directories.push(directory);
    const path = join(directory, 'nested', 'demo-tokens.json');
    const tokens = await createDemoAuth(fakeStore().store, { first: 1, other: 2 });
    await saveDemoTokens(path, tokens);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await loadDemoTokens(path)).toEqual(tokens);
  });

  it('reads nothing when no tokens were saved, and refuses a file of another shape', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'demo-auth-'));
    directories.push(directory);
    expect(await loadDemoTokens(join(directory, 'missing.json'))).toBeUndefined();
    const path = join(directory, 'demo-tokens.json');
    await writeFile(path, '{"clients": {}}');
    await expect(loadDemoTokens(path)).rejects.toThrow(DemoTokensFileError);
    await writeFile(path, 'not json');
    await expect(loadDemoTokens(path)).rejects.toThrow(DemoTokensFileError);
    expect(await readFile(path, 'utf8')).toBe('not json');
  });

  it('renews sessions that expire within their margin, keeping the clients and accounts', async () => {
    const { store } = fakeStore();
    const tokens = await createDemoAuth(store, { first: 5, other: 6 });
    expect(demoSessionsExpiring(tokens)).toBe(false);
    const later = Date.now() + (demoSessionTtlSeconds('operator') - 1800) * 1000;
    expect(demoSessionsExpiring(tokens, later)).toBe(true);
    const renewed = await renewDemoSessions(store, tokens);
    expect(renewed.clients).toEqual(tokens.clients);
    expect(renewed.sessions.user.sessionToken).not.toBe(tokens.sessions.user.sessionToken);
    expect(renewed.sessions.otherAccountUser.accountId).toBe(6);
  });
});

describe('demo curl commands', () => {
  it('quotes words for a POSIX shell', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it('prints fields, JSON and form searches and a rejection with the demo tokens', async () => {
    const tokens = await createDemoAuth(fakeStore().store, { first: 1, other: 2 });
    const commands = demoCommands(tokens, {
      baseUrl: 'http://localhost:3000',
      query: 'spring',
      rejectable: { fileId: 42, session: 'user' },
    });
    const text = commands.map((command) => command.command).join('\n');
    expect(commands.map((command) => command.title)).toHaveLength(6);
    expect(text).toContain(`'http://localhost:3000/search/fields'`);
    expect(text).toContain(`'Content-Type: application/x-www-form-urlencoded' -H`);
    expect(text).toContain(`--data-raw 'query=spring&pageSize=5'`);
    expect(text).toContain('"fileId":42');
    expect(text).toContain(`'X-Session-Token: ${tokens.sessions.user.sessionToken}'`);
    expect(commands.every((command) => command.command.includes("'Accept: application/json'"))).toBe(true);
  });

  it('leaves the rejection out when there is no rejectable file', async () => {
    const tokens = await createDemoAuth(fakeStore().store, { first: 1, other: 2 });
    const commands = demoCommands(tokens, { baseUrl: 'http://localhost:3000', query: 'x' });
    expect(commands.some((command) => command.command.includes('/reject'))).toBe(false);
  });
});

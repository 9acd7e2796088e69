/**
 * The readers of the auth table's items (functions/auth/records.ts): what they make of an item of their kind,
 * however leniently written (an older writer's, or one edited by hand), and that they take no item of another
 * kind for theirs.
 */
import { describe, expect, it } from 'vitest';
import { asClient, asSecret, asSession } from '../../../functions/auth/records';

const CREATED = '2025-03-01T12:00:00.000Z';
const ENDS = '2025-03-02T12:00:00.000Z';

const clientItem = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  pk: 'CLIENT#hash',
  type: 'client',
  clientId: 'c1',
  name: 'Portal',
  grants: ['search'],
  enabled: true,
  sessionRoles: ['user', 'operator'],
  accounts: [7],
  createdAt: CREATED,
  secrets: {},
  revokedSecretIds: new Set(['s0']),
  sessionGeneration: 2,
  ...fields,
});

const sessionItem = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  pk: 'SESSION#hash',
  type: 'session',
  sessionId: 'sess-1',
  clientId: 'c1',
  accountId: 7,
  userId: 'u1',
  role: 'user',
  createdAt: CREATED,
  expiresAt: ENDS,
  secretId: 's1',
  generation: 2,
  ...fields,
});

describe('asClient', () => {
  it('reads a client item whole', () => {
    expect(asClient(clientItem())).toEqual({
      clientId: 'c1',
      name: 'Portal',
      grants: ['search'],
      enabled: true,
      sessionRoles: ['user', 'operator'],
      accounts: [7],
      createdAt: CREATED,
      secrets: {},
      revokedSecretIds: ['s0'],
      retiredSecretIds: [],
      sessionGeneration: 2,
    });
  });

  it('keeps only the known grants of a list, and reads no grant from anything else', () => {
    expect(asClient(clientItem({ grants: ['search', 'admin', 'jobs', 5] }))?.grants).toEqual(['search', 'jobs']);
    expect(asClient(clientItem({ grants: new Set(['search']) }))?.grants).toEqual([]);
    expect(asClient(clientItem({ grants: undefined }))?.grants).toEqual([]);
  });

  it('keeps of the accounts only non-negative whole numbers, numeric text read as its number', () => {
    const accounts = [3, '7', '42', 0, -1, 1.5, 'x', Number.MAX_SAFE_INTEGER + 1, Number.MAX_SAFE_INTEGER];
    expect(asClient(clientItem({ accounts }))?.accounts).toEqual([3, 7, 42, 0, Number.MAX_SAFE_INTEGER]);
    expect(asClient(clientItem({ accounts: new Set([4, 9]) }))?.accounts).toEqual([4, 9]);
  });

  it('never reads an empty or non-numeric entry as account 0', () => {
    const accounts = [null, '', ' ', false, true, [], {}, '0x10', '1e3', 5];
    expect(asClient(clientItem({ accounts }))?.accounts).toEqual([5]);
  });

  it('takes a client without the attribute, or with `*`, for one serving every account', () => {
    expect(asClient(clientItem({ accounts: undefined }))?.accounts).toBe('*');
    expect(asClient(clientItem({ accounts: '*' }))?.accounts).toBe('*');
  });

  it('takes an attribute that is neither `*` nor a list for one serving no account', () => {
    for (const accounts of [7, 'all', null, { 7: true }]) {
      expect(asClient(clientItem({ accounts }))?.accounts, JSON.stringify(accounts)).toEqual([]);
    }
  });

  it('reads the revoked secret ids from a string set or a list, as text, and none from anything else', () => {
    expect(asClient(clientItem({ revokedSecretIds: new Set(['a', 'b']) }))?.revokedSecretIds).toEqual(['a', 'b']);
    expect(asClient(clientItem({ revokedSecretIds: ['a', 5] }))?.revokedSecretIds).toEqual(['a', '5']);
    expect(asClient(clientItem({ revokedSecretIds: 'a' }))?.revokedSecretIds).toEqual([]);
    expect(asClient(clientItem({ revokedSecretIds: undefined }))?.revokedSecretIds).toEqual([]);
  });

  it('gives a client stored without session roles the default ones, and keeps only known roles of a list', () => {
    expect(asClient(clientItem({ sessionRoles: undefined }))?.sessionRoles).toEqual(['user']);
    expect(asClient(clientItem({ sessionRoles: ['operator', 'admin', 3] }))?.sessionRoles).toEqual(['operator']);
    expect(asClient(clientItem({ sessionRoles: [] }))?.sessionRoles).toEqual([]);
  });

  it('keeps the secret entries that are objects with a key, and drops the others', () => {
    const secrets = {
      open: { key: 'SECRET#open', createdAt: CREATED },
      ending: { key: 'SECRET#ending', createdAt: CREATED, expiresAt: ENDS },
      oddEnd: { key: 'SECRET#odd', createdAt: CREATED, expiresAt: 5 },
      noKey: { createdAt: CREATED },
      numericKey: { key: 5, createdAt: CREATED },
      text: 'SECRET#text',
      number: 7,
      nothing: null,
    };
    expect(asClient(clientItem({ secrets }))?.secrets).toEqual({
      open: { key: 'SECRET#open', createdAt: CREATED },
      ending: { key: 'SECRET#ending', createdAt: CREATED, expiresAt: ENDS },
      oddEnd: { key: 'SECRET#odd', createdAt: CREATED },
    });
  });

  it('reads secrets that are no map as none, and a client stored before secrets as one without them', () => {
    expect(asClient(clientItem({ secrets: 'x' }))?.secrets).toEqual({});
    expect(asClient(clientItem({ secrets: null }))?.secrets).toEqual({});
    const legacy = asClient(clientItem({ secrets: undefined }));
    expect(legacy).toBeDefined();
    expect(legacy).not.toHaveProperty('secrets');
  });

  it('takes no item of another type for a client', () => {
    expect(asClient(undefined)).toBeUndefined();
    expect(asClient(clientItem({ type: 'session' }))).toBeUndefined();
    expect(asClient(clientItem({ type: undefined }))).toBeUndefined();
  });
});

describe('asSecret', () => {
  it('reads a secret item, with its end only when it is text', () => {
    const item = { pk: 'SECRET#hash', type: 'secret', secretId: 's1', clientId: 'c1', createdAt: CREATED };
    expect(asSecret({ ...item, expiresAt: ENDS })).toEqual({
      secretId: 's1',
      clientId: 'c1',
      createdAt: CREATED,
      expiresAt: ENDS,
    });
    expect(asSecret({ ...item, expiresAt: 5 })).toEqual({ secretId: 's1', clientId: 'c1', createdAt: CREATED });
    expect(asSecret({ ...item, type: 'client' })).toBeUndefined();
    expect(asSecret(undefined)).toBeUndefined();
  });
});

describe('asSession', () => {
  it('reads a session item whole', () => {
    expect(asSession(sessionItem())).toEqual({
      sessionId: 'sess-1',
      clientId: 'c1',
      accountId: 7,
      userId: 'u1',
      role: 'user',
      createdAt: CREATED,
      expiresAt: ENDS,
      secretId: 's1',
      generation: 2,
    });
  });

  it('reads a session without a secret or a generation as one the CLI opened, of generation 0', () => {
    const session = asSession(sessionItem({ secretId: undefined, generation: undefined }));
    expect(session).not.toHaveProperty('secretId');
    expect(session?.generation).toBe(0);
    expect(asSession(sessionItem({ secretId: 5, generation: 1.5 }))).toMatchObject({ generation: 0 });
    expect(asSession(sessionItem({ secretId: 5 }))).not.toHaveProperty('secretId');
  });

  it('takes no item of another type, nor one whose role is no role, for a session', () => {
    expect(asSession(undefined)).toBeUndefined();
    expect(asSession(sessionItem({ type: 'client' }))).toBeUndefined();
    expect(asSession(sessionItem({ type: 'secret' }))).toBeUndefined();
    expect(asSession(sessionItem({ role: 'admin' }))).toBeUndefined();
    expect(asSession(sessionItem({ role: undefined }))).toBeUndefined();
    expect(asSession(sessionItem({ role: 'operator' }))?.role).toBe('operator');
  });
});

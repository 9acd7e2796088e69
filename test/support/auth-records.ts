/**
 * Records of the auth store as the unit tests of `functions/auth/` start from: a search client of every
 * account that opens sessions for users, changed field by field as a test needs.
 */
import type { ClientRecord } from '../../functions/auth/records';

/** A client record (`c1`, "Portal"); `overrides` replace its fields. */
export const clientRecord = (overrides: Partial<ClientRecord> = {}): ClientRecord => ({
  clientId: 'c1',
  name: 'Portal',
  grants: ['search'],
  enabled: true,
  sessionRoles: ['user'],
  accounts: '*',
  createdAt: '2025-03-01T12:00:00.000Z',
  revokedSecretIds: [],
  retiredSecretIds: [],
  sessionGeneration: 0,
  ...overrides,
});

/**
 * `create-client` and `create-session`: credentials for the local stack or a deployed one. Tokens are
 * printed once; only their hashes are stored.
 */
import { GRANTS, type Grant, ROLES, type Role } from '../../../functions/auth/principal';
import { type CliCommand, parseInteger, printJson, requiredOption, stringOption, UsageError } from './command';
import { authStore } from './target';

const DEFAULT_SESSION_TTL_SECONDS = 24 * 60 * 60;

const parseGrants = (text: string): Grant[] => {
  const grants = text
    .split(',')
    .map((grant) => grant.trim())
    .filter((grant) => grant !== '');
  for (const grant of grants) {
    if (!(GRANTS as readonly string[]).includes(grant)) {
      throw new UsageError(`Unknown grant "${grant}" (known: ${GRANTS.join(', ')})`);
    }
  }
  if (grants.length === 0) throw new UsageError('--grants needs at least one grant');
  return grants as Grant[];
};

const parseRole = (text: string | undefined): Role => {
  const role = text || 'user';
  if (!(ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return role as Role;
};

export const createClientCommand: CliCommand = {
  name: 'create-client',
  usage: `create-client --name <name> --grants <search,reject>
      Registers a client; prints {"clientId","token"}.`,
  options: { name: { type: 'string' }, grants: { type: 'string' } },
  run: async ({ values }) => {
    const created = await authStore().createClient({
      name: requiredOption(values, 'name'),
      grants: parseGrants(requiredOption(values, 'grants')),
    });
    printJson({ clientId: created.clientId, token: created.token });
    return 0;
  },
};

export const createSessionCommand: CliCommand = {
  name: 'create-session',
  usage: `create-session --client-token <token> --account <id> [--role user|operator] [--ttl <seconds>] [--user <id>]
      Opens a session for the client (role user, 24 hours by default); prints {"sessionId","token","expiresAt"}.`,
  options: {
    'client-token': { type: 'string' },
    account: { type: 'string' },
    role: { type: 'string' },
    ttl: { type: 'string' },
    user: { type: 'string' },
  },
  dashValues: ['--client-token'],
  run: async ({ values }) => {
    const ttl = stringOption(values, 'ttl');
    const user = values.user;
    const created = await authStore().createSession({
      clientToken: requiredOption(values, 'client-token'),
      accountId: parseInteger(requiredOption(values, 'account'), 'account', 0),
      role: parseRole(stringOption(values, 'role')),
      ttlSeconds: ttl === undefined ? DEFAULT_SESSION_TTL_SECONDS : parseInteger(ttl, 'ttl', 1),
      ...(typeof user === 'string' ? { userId: user } : {}),
    });
    printJson({ sessionId: created.sessionId, token: created.token, expiresAt: created.expiresAt });
    return 0;
  },
};

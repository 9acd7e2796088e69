/**
 * `create-client` and `create-session`: credentials for the local stack or a deployed one. Tokens and secrets
 * are printed once; only their hashes are stored. A client is bound to the accounts it serves: `create-client`
 * needs `--accounts <id,…>` or `--all-accounts`, and refuses to guess. A client token is never required on the command line:
 * `create-session` finds the client by `--client-id`, or reads its token from `JOBS_API_CLIENT_TOKEN`
 * (`--client-token` stays for existing scripts).
 */
import { GRANTS, type Grant, ROLES, type Role } from '../../../functions/auth/principal';
import { type ClientAccounts, UnknownClientError } from '../../../functions/auth/store';
import {
  type CliCommand,
  type OptionValues,
  parseInteger,
  printJson,
  requiredOption,
  stringOption,
  UsageError,
} from './command';
import { authAdministration, authStore, operatorSource } from './target';

/** The environment variable the CLI reads a client token from. */
export const CLIENT_TOKEN_VARIABLE = 'JOBS_API_CLIENT_TOKEN';

/** A comma-separated list of known words (`search,reject`). */
const parseList = <T extends string>(text: string, option: string, known: readonly T[]): T[] => {
  const words = text
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  for (const word of words) {
    if (!(known as readonly string[]).includes(word)) {
      throw new UsageError(`Unknown ${option} "${word}" (known: ${known.join(', ')})`);
    }
  }
  if (words.length === 0) throw new UsageError(`--${option} needs at least one value`);
  return words as T[];
};

/** `--accounts 1001,1002` or `--all-accounts`: exactly one of them. */
const parseAccounts = (values: OptionValues): ClientAccounts => {
  const listed = stringOption(values, 'accounts');
  const all = values['all-accounts'] === true;
  if (listed !== undefined && all) throw new UsageError('Give --accounts or --all-accounts, not both');
  if (all) return '*';
  if (listed === undefined) {
    throw new UsageError(
      'create-client needs --accounts <id,…> (the accounts its sessions may belong to) or --all-accounts ' +
        '(every account, as a platform’s own portal)',
    );
  }
  const ids = listed
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  if (ids.length === 0) throw new UsageError('--accounts needs at least one account id');
  return [...new Set(ids.map((id) => parseInteger(id, 'accounts', 1)))];
};

const parseRole = (text: string | undefined): Role => {
  const role = text || 'user';
  if (!(ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return role as Role;
};

export const createClientCommand: CliCommand = {
  name: 'create-client',
  usage: `create-client --name <name> --grants <search,reject[,jobs][,sessions][,webhooks]> (--accounts <id,…> | --all-accounts) [--session-roles user,operator] [--max-session-ttl <s>]
      Registers a client and issues its first secret; prints {"clientId","token","secret"} (shown only now).
      Its sessions may belong only to the listed accounts (a client limited so may not open operator
      sessions), or to every account with --all-accounts.
      Keep the secret on the application's backend: it opens sessions with POST /sessions (grant sessions)
      and registers webhook endpoints with POST /webhooks (grant webhooks).`,
  options: {
    name: { type: 'string' },
    grants: { type: 'string' },
    accounts: { type: 'string' },
    'all-accounts': { type: 'boolean' },
    'session-roles': { type: 'string' },
    'max-session-ttl': { type: 'string' },
  },
  run: async ({ values }) => {
    const roles = stringOption(values, 'session-roles');
    const maxTtl = stringOption(values, 'max-session-ttl');
    const input = {
      name: requiredOption(values, 'name'),
      grants: parseList<Grant>(requiredOption(values, 'grants'), 'grants', GRANTS),
      accounts: parseAccounts(values),
      ...(roles === undefined ? {} : { sessionRoles: parseList<Role>(roles, 'session-roles', ROLES) }),
      ...(maxTtl === undefined ? {} : { maxSessionTtlSeconds: parseInteger(maxTtl, 'max-session-ttl', 1) }),
    };
    const created = await (await authStore()).createClient(input);
    printJson({ clientId: created.clientId, token: created.token, secret: created.secret });
    return 0;
  },
};

export const createSessionCommand: CliCommand = {
  name: 'create-session',
  usage: `create-session (--client-id <id> | --client-token <token>) --account <id> [--role user|operator] [--ttl <seconds>] [--user <id>]
      Opens a session (role user; 24 hours by default, at most 30 days for a user and 12 hours for an operator,
      and the client's own cap); prints {"sessionId","token","expiresAt"}. Without either option the client
      token is read from $${CLIENT_TOKEN_VARIABLE}.`,
  options: {
    'client-id': { type: 'string' },
    'client-token': { type: 'string' },
    account: { type: 'string' },
    role: { type: 'string' },
    ttl: { type: 'string' },
    user: { type: 'string' },
  },
  dashValues: ['--client-token'],
  run: async ({ values }) => {
    const clientId = stringOption(values, 'client-id');
    const flagToken = stringOption(values, 'client-token');
    if (clientId !== undefined && flagToken !== undefined) {
      throw new UsageError('Give --client-id or --client-token, not both');
    }
    const ttl = stringOption(values, 'ttl');
    const user = stringOption(values, 'user');
    const session = {
      accountId: parseInteger(requiredOption(values, 'account'), 'account', 0),
      role: parseRole(stringOption(values, 'role')),
      ...(ttl === undefined ? {} : { ttlSeconds: parseInteger(ttl, 'ttl', 1) }),
      ...(user === undefined ? {} : { userId: user }),
    };
    let created;
    if (clientId) {
      const { client } = await authAdministration().findClient(clientId);
      if (!client.enabled) throw new UnknownClientError();
      created = await (await authStore()).openSession({ ...session, client }, await operatorSource());
    } else {
      const clientToken = flagToken || process.env[CLIENT_TOKEN_VARIABLE]?.trim();
      if (!clientToken) throw new UsageError(`--client-id, --client-token or $${CLIENT_TOKEN_VARIABLE} is required`);
      created = await (await authStore()).createSession({ ...session, clientToken });
    }
    printJson({ sessionId: created.sessionId, token: created.token, expiresAt: created.expiresAt });
    return 0;
  },
};

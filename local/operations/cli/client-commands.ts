/**
 * What operators do to clients they know by id: `list-clients` (every client, its grants, roles, accounts and
 * live secrets' ids), `disable-client` (no new sessions at once; every session it has ends for good, within
 * the functions' 60-second cache) and `enable-client` (new sessions again, none of the old ones),
 * `rotate-secret` (a new secret, printed once; the others stop working after the overlap) and `revoke-secret`
 * (one secret ends now, with every session it opened, also when a rotation or a revocation ended it before).
 * None of them takes or prints a token, a secret it did not just issue, or a hash.
 */
import { DEFAULT_SECRET_OVERLAP_SECONDS } from '../../../functions/auth/administration';
import {
  type CliCommand,
  message,
  noPositionals,
  parseInteger,
  printJson,
  requiredOption,
  stringOption,
} from './command';
import { authAdministration, operatorSource } from './target';

export const listClientsCommand: CliCommand = {
  name: 'list-clients',
  usage: `list-clients
      Prints every client: [{"clientId","name","enabled","grants","sessionRoles","accounts","createdAt","secrets"}],
      accounts a list of ids or "*" (every account; also a client created before clients had accounts), secrets
      the ids and ends of its live secrets. Never a token, a secret or a hash.`,
  options: {},
  run: async ({ positionals }) => {
    noPositionals('list-clients', positionals);
    printJson(await authAdministration().listClients());
    return 0;
  },
};

const setEnabled =
  (enabled: boolean): CliCommand['run'] =>
  async ({ values }) => {
    const clientId = requiredOption(values, 'client-id');
    await authAdministration().setClientEnabled(clientId, enabled, await operatorSource());
    message(`Client ${clientId} is ${enabled ? 'enabled' : 'disabled'}.`);
    return 0;
  };

export const disableClientCommand: CliCommand = {
  name: 'disable-client',
  usage: `disable-client --client-id <id>
      Disables a client: no new sessions at once, and every session it has is ended for good (they answer 401
      within 60 s; enable-client brings none of them back).`,
  options: { 'client-id': { type: 'string' } },
  run: setEnabled(false),
};

export const enableClientCommand: CliCommand = {
  name: 'enable-client',
  usage: `enable-client --client-id <id>
      Enables a disabled client again.`,
  options: { 'client-id': { type: 'string' } },
  run: setEnabled(true),
};

export const rotateSecretCommand: CliCommand = {
  name: 'rotate-secret',
  usage: `rotate-secret --client-id <id> [--overlap <seconds>]
      Issues a new secret and ends the client's other secrets after the overlap (default 24 hours; 0 ends them
      now); prints {"secretId","secret"} (shown only now).`,
  options: { 'client-id': { type: 'string' }, overlap: { type: 'string' } },
  run: async ({ values }) => {
    const overlap = stringOption(values, 'overlap');
    const issued = await authAdministration().rotateSecret(
      requiredOption(values, 'client-id'),
      overlap === undefined ? DEFAULT_SECRET_OVERLAP_SECONDS : parseInteger(overlap, 'overlap', 0),
      await operatorSource(),
    );
    printJson({ secretId: issued.secretId, secret: issued.secret });
    return 0;
  },
};

export const revokeSecretCommand: CliCommand = {
  name: 'revoke-secret',
  usage: `revoke-secret --client-id <id> --secret-id <id>
      Ends one secret of the client now, and every session that secret opened — also of a secret a rotation
      already ended, or one revoked before. An id the client never had is an error (exit 1), nothing changed.`,
  options: { 'client-id': { type: 'string' }, 'secret-id': { type: 'string' } },
  run: async ({ values }) => {
    const secretId = requiredOption(values, 'secret-id');
    const ended = await authAdministration().revokeSecret(
      requiredOption(values, 'client-id'),
      secretId,
      await operatorSource(),
    );
    message(
      `Secret ${secretId} is revoked, and every session it opened has ended ` +
        `(${ended} ${ended === 1 ? 'session' : 'sessions'} it opened ended now).`,
    );
    return 0;
  },
};

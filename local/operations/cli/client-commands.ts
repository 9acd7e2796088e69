/**
 * What operators do to a client they know by id: `disable-client` and `enable-client` (its sessions stop or
 * resume answering within the functions' 60-second cache; new sessions stop at once), `rotate-secret` (a new
 * secret, printed once; the others stop working after the overlap) and `revoke-secret` (one secret ends now).
 * None of them takes or prints a token, a secret it did not just issue, or a hash.
 */
import { DEFAULT_SECRET_OVERLAP_SECONDS } from '../../../functions/auth/administration';
import { CLI_SOURCE } from '../../../functions/auth/audit';
import { type CliCommand, message, parseInteger, printJson, requiredOption, stringOption } from './command';
import { authAdministration } from './target';

const setEnabled =
  (enabled: boolean): CliCommand['run'] =>
  async ({ values }) => {
    const clientId = requiredOption(values, 'client-id');
    await authAdministration().setClientEnabled(clientId, enabled, CLI_SOURCE);
    message(`Client ${clientId} is ${enabled ? 'enabled' : 'disabled'}.`);
    return 0;
  };

export const disableClientCommand: CliCommand = {
  name: 'disable-client',
  usage: `disable-client --client-id <id>
      Disables a client: no new sessions at once, its sessions answer 401 invalid_client within 60 s.`,
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
      CLI_SOURCE,
    );
    printJson({ secretId: issued.secretId, secret: issued.secret });
    return 0;
  },
};

export const revokeSecretCommand: CliCommand = {
  name: 'revoke-secret',
  usage: `revoke-secret --client-id <id> --secret-id <id>
      Ends one secret of the client now.`,
  options: { 'client-id': { type: 'string' }, 'secret-id': { type: 'string' } },
  run: async ({ values }) => {
    const secretId = requiredOption(values, 'secret-id');
    await authAdministration().revokeSecret(requiredOption(values, 'client-id'), secretId, CLI_SOURCE);
    message(`Secret ${secretId} is revoked.`);
    return 0;
  },
};

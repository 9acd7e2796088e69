/**
 * `list-sessions` and `revoke-session`: a client's live sessions, found by the client's id (and a user's id)
 * through the auth table's `byClient` index, never a Scan. A listing shows ids, user, account, role and
 * times, never a token or a hash; a revocation needs no token: an operator can cut off a leaked one by the
 * session's id, or every session of a user. A revoked session stops answering within the functions'
 * 60-second cache.
 */
import { CLI_SOURCE } from '../../../functions/auth/audit';
import { type CliCommand, printJson, requiredOption, stringOption, UsageError } from './command';
import { authAdministration } from './target';

export const listSessionsCommand: CliCommand = {
  name: 'list-sessions',
  usage: `list-sessions --client-id <id> [--user <id>]
      Prints the client's live sessions (or one user's): [{"sessionId","userId","accountId","role","createdAt","expiresAt"}].`,
  options: { 'client-id': { type: 'string' }, user: { type: 'string' } },
  run: async ({ values }) => {
    const clientId = requiredOption(values, 'client-id');
    await authAdministration().findClient(clientId);
    const sessions = await authAdministration().listSessions(clientId, stringOption(values, 'user'));
    printJson(
      sessions.map(({ sessionId, userId, accountId, role, createdAt, expiresAt }) => ({
        sessionId,
        userId,
        accountId,
        role,
        createdAt,
        expiresAt,
      })),
    );
    return 0;
  },
};

export const revokeSessionCommand: CliCommand = {
  name: 'revoke-session',
  usage: `revoke-session --client-id <id> (--session-id <id> | --user <id>)
      Revokes one session of the client, or every session of one of its users; prints {"revoked": <count>}.`,
  options: { 'client-id': { type: 'string' }, 'session-id': { type: 'string' }, user: { type: 'string' } },
  run: async ({ values }) => {
    const clientId = requiredOption(values, 'client-id');
    const sessionId = stringOption(values, 'session-id');
    const userId = stringOption(values, 'user');
    if ((sessionId === undefined) === (userId === undefined)) {
      throw new UsageError('Give exactly one of --session-id and --user');
    }
    await authAdministration().findClient(clientId);
    const revoked = await authAdministration().revokeSessions(
      clientId,
      sessionId === undefined ? { userId: userId as string } : { sessionId },
      CLI_SOURCE,
    );
    printJson({ revoked });
    return 0;
  },
};

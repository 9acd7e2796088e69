/**
 * `list-sessions` and `revoke-session`: a client's live sessions, found by the client's id (and a user's id)
 * through the auth table's `byClient` index, never a Scan. A listing shows ids, user, account, role and
 * times, never a token or a hash; a revocation needs no token: an operator can cut off a leaked one by the
 * session's id, every session of a user, or every session of the client (`--all`, which also ends one the
 * index has not shown yet). A revoked session stops answering within the functions' 60-second cache.
 */
import type { SessionSelection } from '../../../functions/auth/administration';
import { type CliCommand, printJson, requiredOption, stringOption, UsageError } from './command';
import { authAdministration, operatorSource } from './target';

export const listSessionsCommand: CliCommand = {
  name: 'list-sessions',
  usage: `list-sessions --client-id <id> [--user <id>]
      Prints the client's live sessions (or one user's): [{"sessionId","userId","accountId","role","createdAt","expiresAt"}].`,
  options: { 'client-id': { type: 'string' }, user: { type: 'string' } },
  run: async ({ values }) => {
    const clientId = requiredOption(values, 'client-id');
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
  usage: `revoke-session --client-id <id> (--session-id <id> | --user <id> | --all)
      Revokes one session of the client, every session of one of its users, or every session it has (--all,
      which also ends, counts and records one opened a moment before, and writes one audit record of its own
      with the count); prints {"revoked": <count>}.`,
  options: {
    'client-id': { type: 'string' },
    'session-id': { type: 'string' },
    user: { type: 'string' },
    all: { type: 'boolean' },
  },
  run: async ({ values }) => {
    const clientId = requiredOption(values, 'client-id');
    const sessionId = stringOption(values, 'session-id');
    const userId = stringOption(values, 'user');
    const all = values.all === true;
    const given = [sessionId !== undefined, userId !== undefined, all].filter(Boolean).length;
    if (given !== 1) throw new UsageError('Give exactly one of --session-id, --user and --all');
    const which: SessionSelection = all
      ? { all: true }
      : sessionId === undefined
        ? { userId: userId as string }
        : { sessionId };
    const revoked = await authAdministration().revokeSessions(clientId, which, await operatorSource());
    printJson({ revoked });
    return 0;
  },
};

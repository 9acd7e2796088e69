/**
 * Lambda entry of `POST /sessions` and `DELETE /sessions/current` (docs/contract.md §2a): the sessions
 * function, the only one that writes the auth table. Both endpoints run the shared HTTP chain; API Gateway
 * sends both paths here and the event's `resource` says which one was asked.
 *
 * - `POST /sessions`: the chain authenticates the client by its secret (read consistently, never cached)
 *   and checks the grant and the fields; the handler checks the role against the client's `sessionRoles`
 *   and the account against its `accounts` (`403 forbidden`), and opens the session (`201`), which records
 *   the secret that opened it. Every refusal writes a `session.refused` audit record.
 * - `DELETE /sessions/current`: the chain authenticates the session; the handler deletes it if it belongs to
 *   the calling client, then makes this container forget it (`200`); a session already ended is
 *   `401 invalid_session`.
 *
 * Audit records go to the container's sink (`functions/auth/audit-sink.ts`): the stack's audit log group.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { AuditSource } from '../auth/audit';
import { containerAuditSink } from '../auth/audit-sink';
import { defaultAuthenticator, type SignedInClient } from '../auth/authenticate';
import type { ClientRecord } from '../auth/records';
import { AccountNotAllowedError, AuthStore, InvalidAuthInputError, SessionRoleNotAllowedError } from '../auth/store';
import { hashToken } from '../auth/tokens';
import { documentClient } from '../aws/dynamodb';
import { config } from '../config';
import { httpEndpoint, routedHandler } from '../http/endpoint';
import { ApiError, invalidParameter } from '../http/errors';
import { lastHeaderValue } from '../http/headers';
import { SESSION_TOKEN_HEADER } from '../http/middlewares/required-headers';
import { signInAudit } from '../http/middlewares/sign-in-audit';
import { noInput } from '../http/middlewares/validation';
import { parseSessionRequest, type SessionRequest } from '../http/session-request';

/** The answer of `POST /sessions`. */
export interface SessionResponseBody {
  _type: 'SessionResponseBody';
  sessionId: string;
  token: string;
  expiresAt: string;
}

/** The answer of `DELETE /sessions/current`. */
export interface SessionEndedResponseBody {
  _type: 'SessionEndedResponseBody';
  sessionId: string;
}

/** The store over the container's client and table, writing audit records to the container's sink. */
const authStore = (): AuthStore => {
  const settings = config();
  return new AuthStore(documentClient(), settings.authTable, {
    timeoutMs: settings.dependencyTimeoutMs,
    audit: containerAuditSink(),
  });
};

/** Who a request came from, for the audit record: its id and the caller's address. */
const sourceOf = (requestId: string, event: APIGatewayProxyEvent | undefined): AuditSource => {
  const sourceIp = event?.requestContext?.identity?.sourceIp;
  return { via: 'api', requestId, who: typeof sourceIp === 'string' && sourceIp !== '' ? sourceIp : 'unknown' };
};

const openSession = httpEndpoint<SessionRequest, SessionResponseBody, ClientRecord>(
  { path: '/sessions', method: 'POST', parse: parseSessionRequest, status: 201 },
  async ({ input, principal: client, requestId, event }) => {
    try {
      const { secretId } = client as SignedInClient;
      const session = await authStore().openSession({ ...input, client, secretId }, sourceOf(requestId, event));
      return { _type: 'SessionResponseBody', ...session };
    } catch (error) {
      if (error instanceof SessionRoleNotAllowedError || error instanceof AccountNotAllowedError) {
        // The caller is the client's own backend: it is told which role or account its client may not serve.
        throw new ApiError('forbidden', {}, { message: `${error.message}.`, cause: error });
      }
      if (error instanceof InvalidAuthInputError) throw invalidParameter(error.field, error.message);
      throw error;
    }
  },
);
openSession.use(
  signInAudit({
    sink: containerAuditSink,
    source: (request) => sourceOf(request.internal?.requestId ?? 'unknown', request.event),
  }),
);

const endSession = httpEndpoint<undefined, SessionEndedResponseBody>(
  { path: '/sessions/current', method: 'DELETE', parse: noInput },
  async ({ principal, requestId, event }) => {
    const token = lastHeaderValue(event, SESSION_TOKEN_HEADER)?.trim() ?? '';
    // Deleted first, forgotten after: a failed delete leaves the session working everywhere, this container
    // included, rather than refused here and alive in every other.
    const ended = await authStore().endSession(hashToken(token), principal.clientId, sourceOf(requestId, event));
    defaultAuthenticator().forgetSession(token);
    if (ended === undefined) throw new ApiError('invalid_session');
    return { _type: 'SessionEndedResponseBody', sessionId: ended.sessionId };
  },
);

/** The function's handler: the endpoint of the path API Gateway matched. */
export const handler = routedHandler([openSession, endSession]);

/**
 * Lambda entry of `POST /sessions` and `DELETE /sessions/current` (docs/contract.md §2a): the sessions
 * function, the only one that writes the auth table. Both endpoints run the shared HTTP chain; API Gateway
 * sends both paths here and the event's `resource` says which one was asked.
 *
 * - `POST /sessions`: the chain authenticates the client by its secret (read consistently, never cached)
 *   and checks the grant and the fields; the handler checks the role against the client's `sessionRoles`
 *   (`403 forbidden`) and opens the session (`201`).
 * - `DELETE /sessions/current`: the chain authenticates the session; the handler deletes it if it belongs to
 *   the calling client and makes this container forget it at once (`200`); a session already ended is
 *   `401 invalid_session`.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type AuditSource, loggerAuditSink } from '../auth/audit';
import { defaultAuthenticator } from '../auth/authenticate';
import type { ClientRecord } from '../auth/records';
import { AuthStore, InvalidAuthInputError, SessionRoleNotAllowedError } from '../auth/store';
import { hashToken } from '../auth/tokens';
import { documentClient } from '../aws/dynamodb';
import { config } from '../config';
import { httpEndpoint, routedHandler } from '../http/endpoint';
import { ApiError, invalidParameter } from '../http/errors';
import { lastHeaderValue } from '../http/headers';
import { SESSION_TOKEN_HEADER } from '../http/middlewares/required-headers';
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

/** The store over the container's client and table, writing audit lines to the function's log. */
const authStore = (): AuthStore => {
  const settings = config();
  return new AuthStore(documentClient(), settings.authTable, {
    timeoutMs: settings.dependencyTimeoutMs,
    audit: loggerAuditSink,
  });
};

/** Where a request came from, for the audit line: its id and the caller's address. */
const sourceOf = (requestId: string, event: APIGatewayProxyEvent): AuditSource => {
  const sourceIp = event.requestContext?.identity?.sourceIp;
  return { via: 'api', requestId, ...(typeof sourceIp === 'string' && sourceIp !== '' ? { sourceIp } : {}) };
};

const openSession = httpEndpoint<SessionRequest, SessionResponseBody, ClientRecord>(
  { path: '/sessions', method: 'POST', parse: parseSessionRequest, status: 201 },
  async ({ input, principal: client, requestId, event }) => {
    try {
      const session = await authStore().openSession({ ...input, client }, sourceOf(requestId, event));
      return { _type: 'SessionResponseBody', ...session };
    } catch (error) {
      if (error instanceof SessionRoleNotAllowedError) throw new ApiError('forbidden');
      if (error instanceof InvalidAuthInputError) throw invalidParameter(error.field, error.message);
      throw error;
    }
  },
);

const endSession = httpEndpoint<undefined, SessionEndedResponseBody>(
  { path: '/sessions/current', method: 'DELETE', parse: noInput },
  async ({ principal, requestId, event }) => {
    const token = lastHeaderValue(event, SESSION_TOKEN_HEADER)?.trim() ?? '';
    defaultAuthenticator().forgetSession(token);
    const ended = await authStore().endSession(hashToken(token), principal.clientId, sourceOf(requestId, event));
    if (ended === undefined) throw new ApiError('invalid_session');
    return { _type: 'SessionEndedResponseBody', sessionId: ended.sessionId };
  },
);

/** The function's handler: the endpoint of the path API Gateway matched. */
export const handler = routedHandler([openSession, endSession]);

/**
 * Checks 5 and 6 of docs/contract.md §1: the client token is known and its client enabled
 * (`401 invalid_client`), and the session token is known, unexpired and issued to that client
 * (`401 invalid_session`). The principal is kept for the checks and the handler that follow.
 *
 * On `POST /sessions` (§2a) the caller is the client's backend: the client token and one of the client's
 * unrevoked, unexpired secrets, read consistently and never from the cache (`401 invalid_client`, whichever
 * part was wrong); the client is kept instead of a principal.
 */
import { type Authenticator, defaultAuthenticator } from '../../auth/authenticate';
import { lastHeaderValue } from '../headers';
import type { Credentials } from '../routes';
import { CLIENT_SECRET_HEADER, CLIENT_TOKEN_HEADER, SESSION_TOKEN_HEADER } from './required-headers';
import type { HttpMiddleware, HttpRequest } from './types';

export interface AuthenticationOptions {
  /** The authenticator of sessions; default the container's (over the configured auth table). */
  authenticator: () => Pick<Authenticator, 'authenticate'>;
  /** The authenticator of client secrets; default the container's. */
  clientAuthenticator: () => Pick<Authenticator, 'authenticateClient'>;
  /** What the route's callers present; default a session. */
  credentials: Credentials;
}

const defaults: AuthenticationOptions = {
  authenticator: defaultAuthenticator,
  clientAuthenticator: defaultAuthenticator,
  credentials: 'session',
};

/** Middleware factory: authentication. Runs after {@link requiredHeaders}, which guarantees both credentials. */
export const authentication = (opts: Partial<AuthenticationOptions> = {}): HttpMiddleware => {
  const options: AuthenticationOptions = { ...defaults, ...opts };
  const header = (request: HttpRequest, name: string): string => lastHeaderValue(request.event, name)?.trim() ?? '';

  const authenticationBefore = async (request: HttpRequest): Promise<void> => {
    const clientToken = header(request, CLIENT_TOKEN_HEADER);
    if (options.credentials === 'secret') {
      const secret = header(request, CLIENT_SECRET_HEADER);
      request.internal.client = await options.clientAuthenticator().authenticateClient(clientToken, secret);
      return;
    }
    const sessionToken = header(request, SESSION_TOKEN_HEADER);
    request.internal.principal = await options.authenticator().authenticate(clientToken, sessionToken);
  };

  return { name: 'authentication', before: authenticationBefore };
};

/**
 * Checks 5 and 6 of docs/contract.md §1: the client token is known and its client enabled
 * (`401 invalid_client`), and the session token is known, unexpired and issued to that client
 * (`401 invalid_session`). The principal is kept for the checks and the handler that follow.
 */
import { type Authenticator, defaultAuthenticator } from '../../auth/authenticate';
import { lastHeaderValue } from '../headers';
import { CLIENT_TOKEN_HEADER, SESSION_TOKEN_HEADER } from './required-headers';
import type { HttpMiddleware, HttpRequest } from './types';

export interface AuthenticationOptions {
  /** The authenticator; default the container's (over the configured auth table). */
  authenticator: () => Pick<Authenticator, 'authenticate'>;
}

const defaults: AuthenticationOptions = { authenticator: defaultAuthenticator };

/** Middleware factory: authentication. Runs after {@link requiredHeaders}, which guarantees both tokens. */
export const authentication = (opts: Partial<AuthenticationOptions> = {}): HttpMiddleware => {
  const options: AuthenticationOptions = { ...defaults, ...opts };

  const authenticationBefore = async (request: HttpRequest): Promise<void> => {
    const clientToken = lastHeaderValue(request.event, CLIENT_TOKEN_HEADER)?.trim() ?? '';
    const sessionToken = lastHeaderValue(request.event, SESSION_TOKEN_HEADER)?.trim() ?? '';
    request.internal.principal = await options.authenticator().authenticate(clientToken, sessionToken);
  };

  return { name: 'authentication', before: authenticationBefore };
};

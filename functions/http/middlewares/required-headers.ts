/**
 * Check 4 of docs/contract.md §1: `X-Client-Token`, then `X-Session-Token`, are present and not blank,
 * else `400 missing_header` naming the first one missing. `POST /sessions` (§2a) requires `X-Client-Token`
 * then `X-Client-Secret` instead: {@link CREDENTIAL_HEADERS}.
 */
import { ApiError } from '../errors';
import { lastHeaderValue } from '../headers';
import type { Credentials } from '../routes';
import type { HttpMiddleware, HttpRequest } from './types';

/** The authentication headers, in the order they are checked. */
export const CLIENT_TOKEN_HEADER = 'X-Client-Token';
export const SESSION_TOKEN_HEADER = 'X-Session-Token';
export const CLIENT_SECRET_HEADER = 'X-Client-Secret';

/** The headers each kind of credentials is presented in, in the order they are checked. */
export const CREDENTIAL_HEADERS = {
  session: [CLIENT_TOKEN_HEADER, SESSION_TOKEN_HEADER],
  secret: [CLIENT_TOKEN_HEADER, CLIENT_SECRET_HEADER],
} as const satisfies Record<Credentials, readonly string[]>;

/**
 * The `WWW-Authenticate` challenge a `401` carries (RFC 9110 §11.6.1), for each kind of credentials. The
 * tokens travel in headers of their own rather than in `Authorization`, so the scheme is this API's own and
 * names what it expects: `ClientSession` (a client token and a session token) or `ClientSecret` (a client token
 * and one of the client's secrets, `POST /sessions`), with the headers that carry them.
 */
export const AUTHENTICATION_CHALLENGES = {
  session: `ClientSession realm="jobs-api", headers="${CLIENT_TOKEN_HEADER} ${SESSION_TOKEN_HEADER}"`,
  secret: `ClientSecret realm="jobs-api", headers="${CLIENT_TOKEN_HEADER} ${CLIENT_SECRET_HEADER}"`,
} as const satisfies Record<Credentials, string>;

export interface RequiredHeadersOptions {
  /** Header names (as the error names them), checked in order. */
  headers: readonly string[];
}

const defaults: RequiredHeadersOptions = { headers: CREDENTIAL_HEADERS.session };

/** Middleware factory: required headers check. */
export const requiredHeaders = (opts: Partial<RequiredHeadersOptions> = {}): HttpMiddleware => {
  const options: RequiredHeadersOptions = { ...defaults, ...opts };

  const requiredHeadersBefore = (request: HttpRequest): void => {
    for (const headerName of options.headers) {
      const value = lastHeaderValue(request.event, headerName);
      if (value === undefined || value.trim() === '') throw new ApiError('missing_header', { headerName });
    }
  };

  return { name: 'requiredHeaders', before: requiredHeadersBefore };
};

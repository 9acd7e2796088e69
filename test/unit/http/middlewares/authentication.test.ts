import { describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../../../functions/auth/principal';
import { ApiError, ERROR_STATUS } from '../../../../functions/http/errors';
import { authentication } from '../../../../functions/http/middlewares/authentication';
import { authorization } from '../../../../functions/http/middlewares/authorization';
import { CREDENTIAL_HEADERS } from '../../../../functions/http/middlewares/required-headers';
import { expectApiError } from '../expect-api-error';
import { requestFor, runBefore } from './harness';

const principal: Principal = {
  clientId: 'c1',
  clientName: 'Client',
  grants: ['search'],
  sessionId: 's1',
  userId: 'u1',
  accountId: 42,
  role: 'user',
};

const withTokens = () => requestFor({ headers: { 'X-Client-Token': ' client ', 'X-Session-Token': 'session' } });

describe('authentication middleware', () => {
  it('authenticates with the trimmed tokens and keeps the principal', async () => {
    const authenticate = vi.fn(async () => principal);
    const request = withTokens();
    await runBefore(authentication({ authenticator: () => ({ authenticate }) }), request);
    expect(authenticate).toHaveBeenCalledWith('client', 'session');
    expect(request.internal.principal).toEqual(principal);
  });

  it.each(['invalid_client', 'invalid_session'] as const)('passes on a %s refusal', async (code) => {
    const authenticate = vi.fn(async () => {
      throw new ApiError(code);
    });
    const error = await expectApiError(
      () => runBefore(authentication({ authenticator: () => ({ authenticate }) }), withTokens()),
      code,
    );
    expect(ERROR_STATUS[error.code]).toBe(401);
  });
});

describe('authentication middleware on POST /sessions (a client secret)', () => {
  it('authenticates the client token with the trimmed X-Client-Secret and keeps the client, not a principal', async () => {
    const client = { clientId: 'c1' };
    const authenticateClient = vi.fn(async () => client);
    const authenticate = vi.fn(async () => principal);
    const request = requestFor({
      headers: { 'X-Client-Token': ' client ', 'X-Client-Secret': ' jsk_secret ', 'X-Session-Token': 'session' },
    });
    await runBefore(
      authentication({
        credentials: 'secret',
        clientAuthenticator: () => ({ authenticateClient }) as never,
        authenticator: () => ({ authenticate }),
      }),
      request,
    );
    expect(authenticateClient).toHaveBeenCalledWith('client', 'jsk_secret');
    expect(authenticate).not.toHaveBeenCalled();
    expect(request.internal.client).toBe(client);
    expect(request.internal.principal).toBeUndefined();
  });

  it('requires the client token and then the client secret on such a route', () => {
    expect(CREDENTIAL_HEADERS.secret).toEqual(['X-Client-Token', 'X-Client-Secret']);
    expect(CREDENTIAL_HEADERS.session).toEqual(['X-Client-Token', 'X-Session-Token']);
  });
});

describe('authorization middleware', () => {
  it('lets a client with the grant through', async () => {
    const request = withTokens();
    request.internal.principal = principal;
    await expect(runBefore(authorization({ grant: 'search' }), request)).resolves.toBeUndefined();
  });

  it('answers 403 forbidden naming the grant the client lacks', async () => {
    const request = withTokens();
    request.internal.principal = principal;
    const error = await expectApiError(() => runBefore(authorization({ grant: 'reject' }), request), 'forbidden');
    expect(ERROR_STATUS[error.code]).toBe(403);
    expect(error.context).toEqual({ grant: 'reject' });
    expect(error.message).toBe('This operation needs the grant reject, which the client lacks.');
  });

  it('refuses to run before authentication', async () => {
    await expect(runBefore(authorization({ grant: 'search' }), withTokens())).rejects.toThrow(/not been authenticated/);
  });
});

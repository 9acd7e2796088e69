/**
 * The audit of refused sign-ins (functions/http/middlewares/sign-in-audit.ts): a `POST /sessions` answered with
 * a client error writes one `session.refused` record with the client, the account and role asked for and the
 * contract's reason; a dependency failure or another method writes none, and a sink that fails is logged.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuditRecord, AuditSink } from '../../../../functions/auth/audit';
import { ClientRefusedError } from '../../../../functions/auth/authenticate';
import type { ClientRecord } from '../../../../functions/auth/records';
import { ApiError, DependencyUnavailableError, invalidParameter } from '../../../../functions/http/errors';
import { signInAudit } from '../../../../functions/http/middlewares/sign-in-audit';
import type { HttpRequest } from '../../../../functions/http/middlewares/types';
import { requestFor } from './harness';
import { captureJsonLogLines } from '../../../support/json-log-lines';

const SOURCE = { via: 'api', requestId: 'r-1', who: '203.0.113.9' } as const;

let records: AuditRecord[];
const sink: AuditSink = (record) => {
  records.push(record);
  return Promise.resolve();
};

/** Runs the middleware's `onError` on a POST /sessions (or another method) that failed with `error`. */
const refuse = async (
  error: unknown,
  setup: (request: HttpRequest<never>) => void = () => undefined,
  method = 'POST',
  auditSink: AuditSink = sink,
): Promise<void> => {
  const request = requestFor({ method, path: '/sessions' });
  request.error = error as Error;
  setup(request);
  const middleware = signInAudit({ sink: () => auditSink, source: () => SOURCE });
  expect(middleware.name).toBe('signInAudit');
  await middleware.onError?.(request);
};

const asking = (input: object) => (request: HttpRequest<never>) => {
  (request.context as unknown as { validatedRequest: { input: object } }).validatedRequest = { input };
};

/** The JSON lines logged during the current test. */
let logged: Record<string, unknown>[] = [];

beforeEach(() => {
  records = [];
  logged = captureJsonLogLines();
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('signInAudit', () => {
  it('records a refused sign-in with the client, the account and role asked for, and the reason', async () => {
    vi.useFakeTimers({ now: new Date('2025-03-01T12:00:00.000Z'), toFake: ['Date'] });
    await refuse(new ApiError('forbidden', {}), (request) => {
      request.internal = { ...request.internal, client: { clientId: 'c1' } as ClientRecord };
      asking({ accountId: 0, role: 'operator' })(request);
    });
    expect(records).toEqual([
      {
        at: '2025-03-01T12:00:00.000Z',
        action: 'session.refused',
        clientId: 'c1',
        accountId: 0,
        role: 'operator',
        reason: { code: 'forbidden', message: new ApiError('forbidden').message },
        ...SOURCE,
      },
    ]);
  });

  it('names the client of a refused secret from the error’s cause, and the header or parameter at fault', async () => {
    await refuse(
      new ApiError('invalid_client', { headerName: 'X-Client-Secret' }, { cause: new ClientRefusedError('c9') }),
    );
    await refuse(invalidParameter('accountId', 'accountId must be a non-negative integer.'));
    expect(records.map(({ clientId, reason }) => ({ clientId, reason }))).toEqual([
      {
        clientId: 'c9',
        reason: {
          code: 'invalid_client',
          message: new ApiError('invalid_client').message,
          headerName: 'X-Client-Secret',
        },
      },
      {
        clientId: undefined,
        reason: {
          code: 'invalid_parameter',
          message: 'accountId must be a non-negative integer.',
          parameter: 'accountId',
        },
      },
    ]);
    expect(records[1]).not.toHaveProperty('clientId');
    expect(records[0]?.reason).not.toHaveProperty('parameter');
    expect(records[1]?.reason).not.toHaveProperty('headerName');
  });

  it('leaves out a client token nobody holds, an account not given and a role that is none', async () => {
    await refuse(
      new ApiError('invalid_client', {}, { cause: new ClientRefusedError(undefined) }),
      asking({ role: 'admin' }),
    );
    await refuse(new ApiError('invalid_client', {}, { cause: new Error('other') }), asking({ role: 'user' }));
    expect(records).toHaveLength(2);
    for (const key of ['clientId', 'accountId', 'role']) expect(records[0]).not.toHaveProperty(key);
    expect(records[0]?.reason).toEqual({ code: 'invalid_client', message: new ApiError('invalid_client').message });
    expect(records[1]).not.toHaveProperty('clientId');
    expect(records[1]?.role).toBe('user');
  });

  it('records nothing for a dependency failure, an internal error or a method that is no sign-in', async () => {
    await refuse(new DependencyUnavailableError('dynamodb', 'down'));
    await refuse(new Error('bug'));
    await refuse(new ApiError('method_not_allowed'), undefined, 'GET');
    expect(records).toEqual([]);
  });

  it('records any client error of the sign-in, a 428 as well as a 4xx of the credentials', async () => {
    await refuse(new ApiError('precondition_required'));
    expect(records.map((record) => record.reason?.code)).toEqual(['precondition_required']);
  });

  it('logs a record it could not write, and never throws', async () => {
    const failing: AuditSink = () => Promise.reject(new Error('audit group gone'));
    await expect(refuse(new ApiError('forbidden'), undefined, 'POST', failing)).resolves.toBeUndefined();
    expect(logged.filter((line) => line.message === 'Audit of a refused sign-in failed')).toEqual([
      expect.objectContaining({ level: 'ERROR', error: expect.objectContaining({ message: 'audit group gone' }) }),
    ]);
  });
});

/**
 * The audit of refused sign-ins (docs/contract.md §2a): every `POST /sessions` answered with a client error
 * writes one `session.refused` record — the client's id when its token was known (a wrong secret included),
 * the account and role asked for once the body was read, and why in the contract's words (the answer's code,
 * message and context). Added after the error formatter, so its `onError` runs first and sees the error
 * before it becomes the answer; it never changes the answer, and a failure to write is logged, not thrown.
 */
import { ClientRefusedError } from '../../auth/authenticate';
import type { AuditSink, AuditSource } from '../../auth/audit';
import type { ClientRecord } from '../../auth/records';
import { logger } from '../../observability';
import { ERROR_STATUS } from '../errors';
import { toApiError } from './error-formatter';
import type { HttpMiddleware, HttpRequest } from './types';

export interface SignInAuditOptions {
  /** Where records go. */
  sink: () => AuditSink;
  /** Who is asking and through what (the caller's address). */
  source: (request: HttpRequest) => AuditSource;
}

const refusedClientId = (request: HttpRequest, error: unknown): string | undefined => {
  const client = request.internal?.client as ClientRecord | undefined;
  if (client !== undefined) return client.clientId;
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof ClientRefusedError ? cause.clientId : undefined;
};

/** Middleware factory: one audit record per refused sign-in. */
export const signInAudit = (options: SignInAuditOptions): HttpMiddleware => {
  const signInAuditOnError = async (request: HttpRequest): Promise<void> => {
    try {
      const error = toApiError(request.error);
      // A dependency failure is not a refusal, nor is another method on the path a sign-in.
      if (ERROR_STATUS[error.code] >= 500 || request.event?.httpMethod !== 'POST') return;
      const clientId = refusedClientId(request, request.error);
      const asked = request.context?.validatedRequest?.input as { accountId?: number; role?: string } | undefined;
      const { headerName, parameter } = error.context;
      await options.sink()({
        at: new Date().toISOString(),
        action: 'session.refused',
        ...(clientId === undefined ? {} : { clientId }),
        ...(asked?.accountId === undefined ? {} : { accountId: asked.accountId }),
        ...(asked?.role === 'user' || asked?.role === 'operator' ? { role: asked.role } : {}),
        reason: {
          code: error.code,
          message: error.message,
          ...(headerName === undefined ? {} : { headerName }),
          ...(parameter === undefined ? {} : { parameter }),
        },
        ...options.source(request),
      });
    } catch (failure) {
      logger.error('Audit of a refused sign-in failed', { error: failure });
    }
  };
  return { name: 'signInAudit', onError: signInAuditOnError };
};

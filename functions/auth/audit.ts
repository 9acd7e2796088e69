/**
 * The audit trail of credentials (docs/contract.md §2a): one structured line per session opened, ended or
 * revoked, client disabled or enabled, and secret issued or revoked. A line carries ids, the role and the
 * expiry, and where the change came from (the API request's id and source IP, or the CLI), never a token,
 * a secret or a hash: {@link AuditEntry} has no field that could hold one.
 */
import { logger } from '../observability';
import type { Role } from './principal';

/** What happened. */
export type AuditAction =
  | 'session.opened'
  | 'session.ended'
  | 'session.revoked'
  | 'client.disabled'
  | 'client.enabled'
  | 'secret.issued'
  | 'secret.revoked';

/** Where a change came from: an API request, or an operator's CLI. */
export type AuditSource = { via: 'api'; requestId: string; sourceIp?: string } | { via: 'cli' };

/** One audit line. */
export interface AuditEntry {
  action: AuditAction;
  clientId: string;
  sessionId?: string;
  secretId?: string;
  userId?: string;
  accountId?: number;
  role?: Role;
  /** ISO 8601 UTC: when the session or secret ends. */
  expiresAt?: string;
  source: AuditSource;
}

/** Where audit lines go. */
export type AuditSink = (entry: AuditEntry) => void;

/** The source of every change the CLI makes. */
export const CLI_SOURCE: AuditSource = { via: 'cli' };

/** An audit sink writing one JSON line to a stream (the CLI's standard error). */
export const streamAuditSink =
  (write: (line: string) => void): AuditSink =>
  (entry) =>
    write(`${JSON.stringify({ audit: entry })}\n`);

/** The sink that drops audit lines (stores that only read). */
export const noAudit: AuditSink = () => undefined;

/** The functions' sink: one `audit` line of the container's structured log. */
export const loggerAuditSink: AuditSink = (entry) => logger.info('audit', { audit: entry });

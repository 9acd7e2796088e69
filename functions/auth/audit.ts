/**
 * The audit trail of credentials (docs/contract.md §2a): one structured record per client created, session
 * opened, ended or revoked, client disabled or enabled, secret issued or revoked, and per refused
 * `POST /sessions`. A record carries ids, the role, the account, the expiry, and who acted — the API caller's
 * address, or the operator (the AWS caller ARN under `--stack`, the OS user locally) — never a token, a
 * secret or a hash: {@link AuditEntry} has no field that could hold one.
 *
 * Where records go is the sink's business ({@link AuditSink}): in AWS a log group of their own that outlives
 * the stack (`functions/auth/cloudwatch-audit.ts`), locally `$DATA_DIR/audit.ndjson` (`local/`).
 */
import { userInfo } from 'node:os';
import { redactSecrets } from '../redaction';
import type { ClientAccounts } from './records';
import type { Grant, Role } from './principal';

/**
 * The metric counting audit records the audit log group refused (kept only in the writer's own log): one
 * per record, in the service's metrics namespace with the `service` dimension; the stack alarms on it.
 */
export const AUDIT_WRITE_FAILED_METRIC = 'AuditWriteFailed';

/** What happened. */
export type AuditAction =
  | 'client.created'
  | 'client.disabled'
  | 'client.enabled'
  | 'secret.issued'
  | 'secret.revoked'
  | 'session.opened'
  | 'session.ended'
  | 'session.revoked'
  | 'session.refused';

/**
 * Who acted and through what: an API request (its id; `who` is the caller's address), or an operator's CLI
 * (`who` is the AWS caller ARN under `--stack`, the OS user locally).
 */
export type AuditSource = { via: 'api'; requestId: string; who: string } | { via: 'cli'; who: string };

/** Why a `POST /sessions` was refused, in the contract's words: the error's code, message and context. */
export interface RefusalReason {
  code: string;
  message: string;
  headerName?: string;
  parameter?: string;
}

/** What a change says; the sink adds the time and the source. */
export interface AuditEntry {
  action: AuditAction;
  /** The client acted on; absent only for a refused sign-in whose client token is unknown. */
  clientId?: string;
  sessionId?: string;
  secretId?: string;
  userId?: string;
  accountId?: number;
  role?: Role;
  /** ISO 8601 UTC: when the session or secret ends. */
  expiresAt?: string;
  /** `client.created`: what it was given. */
  name?: string;
  grants?: readonly Grant[];
  sessionRoles?: readonly Role[];
  accounts?: ClientAccounts;
  maxSessionTtlSeconds?: number;
  /** `session.revoked`: why (one session, a user's, every one, the secret's, the client disabled). */
  cause?: 'session' | 'user' | 'all' | 'secret' | 'client.disabled';
  /** `session.revoked` over many: how many the command ended. */
  count?: number;
  /** `session.refused`: the answer. */
  reason?: RefusalReason;
}

/** One audit record as written: the entry, when, and who acted through what. */
export type AuditRecord = AuditEntry & { at: string } & AuditSource;

/** Where audit records go; resolves once the record is written. */
export type AuditSink = (record: AuditRecord) => Promise<void>;

/** A record as one log line: JSON, with anything that looks like a credential redacted. */
export const auditLine = (record: AuditRecord): string => JSON.stringify(record, redactSecrets);

/** The sink that drops records (stores that only read). */
export const noAudit: AuditSink = () => Promise.resolve();

/** Builds the record of an entry, stamped now, from a source. */
export const auditRecord = (entry: AuditEntry, source: AuditSource, now: Date = new Date()): AuditRecord => ({
  at: now.toISOString(),
  ...entry,
  ...source,
});

/** The operator at this machine: the OS user (the CLI on the local stack, and code that names no one). */
export const localOperator = (): AuditSource => {
  let who = process.env.USER ?? process.env.USERNAME ?? 'unknown';
  try {
    who = userInfo().username || who;
  } catch {
    // No passwd entry for this uid (some containers): the environment's name stands.
  }
  return { via: 'cli', who: `os-user:${who}` };
};

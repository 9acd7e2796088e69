/**
 * The domain errors of clients, secrets and sessions. They know nothing of HTTP: the sessions endpoint maps
 * them to the contract's answers, the CLI to its messages and exit codes.
 */
import type { Role } from './principal';

/** A request the store refuses (blank name, unknown grant or role, bad accounts, user or lifetime). */
export class InvalidAuthInputError extends Error {
  /** The input field at fault. */
  public readonly field: string;

  public constructor(field: string, message: string) {
    super(message);
    this.name = 'InvalidAuthInputError';
    this.field = field;
  }
}

/** A session was asked for a role the client may not open sessions for. */
export class SessionRoleNotAllowedError extends Error {
  public constructor(role: Role) {
    super(`The client may not open ${role} sessions`);
    this.name = 'SessionRoleNotAllowedError';
  }
}

/** A session was asked for an account outside the client's `accounts`. */
export class AccountNotAllowedError extends Error {
  public constructor(accountId: number) {
    super(`The client may not open sessions for account ${accountId}`);
    this.name = 'AccountNotAllowedError';
  }
}

/** A session was requested for a client token that is unknown or disabled. */
export class UnknownClientError extends Error {
  public constructor() {
    super('The client is unknown or disabled');
    this.name = 'UnknownClientError';
  }
}

/** No client has this id. */
export class ClientNotFoundError extends Error {
  public constructor(clientId: string) {
    super(`No client has the id ${clientId}`);
    this.name = 'ClientNotFoundError';
  }
}

/** The client never had a secret of this id (neither working, ended by a rotation, nor revoked). */
export class SecretNotFoundError extends Error {
  public constructor(secretId: string) {
    super(`The client has never had a secret with the id ${secretId}`);
    this.name = 'SecretNotFoundError';
  }
}

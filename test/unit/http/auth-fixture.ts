/**
 * An auth table held in memory behind a mocked DynamoDB document client (aws-sdk-client-mock), for
 * unit tests of whole endpoints: register clients and sessions by token, then call the handler with
 * those tokens.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import type { Grant, Role } from '../../../functions/auth/principal';
import { hashToken } from '../../../functions/auth/tokens';
import { authKeys } from '../../../functions/tables';

export interface FixtureClient {
  token: string;
  clientId: string;
  grants: Grant[];
  enabled?: boolean;
}

export interface FixtureSession {
  token: string;
  clientId: string;
  accountId: number;
  role: Role;
  /** Default: one hour from now. */
  expiresAt?: Date;
}

/** Answers every GetCommand on the auth table from the given clients and sessions. */
export const serveAuthTable = (
  mock: AwsClientStub<DynamoDBDocumentClient>,
  authTable: string,
  records: { clients: FixtureClient[]; sessions: FixtureSession[] },
): void => {
  const items = new Map<string, Record<string, unknown>>();
  for (const client of records.clients) {
    items.set(authKeys.client(hashToken(client.token)), {
      pk: authKeys.client(hashToken(client.token)),
      type: 'client',
      clientId: client.clientId,
      name: `Client ${client.clientId}`,
      grants: client.grants,
      enabled: client.enabled ?? true,
      createdAt: '2024-01-01T00:00:00.000Z',
    });
  }
  for (const session of records.sessions) {
    const expiresAt = session.expiresAt ?? new Date(Date.now() + 3_600_000);
    items.set(authKeys.session(hashToken(session.token)), {
      pk: authKeys.session(hashToken(session.token)),
      type: 'session',
      sessionId: `session-of-${session.token}`,
      clientId: session.clientId,
      accountId: session.accountId,
      userId: `user-of-${session.token}`,
      role: session.role,
      createdAt: '2024-01-01T00:00:00.000Z',
      expiresAt: expiresAt.toISOString(),
      ttl: Math.ceil(expiresAt.getTime() / 1000),
    });
  }
  mock.on(GetCommand, { TableName: authTable }).callsFake((input: { Key?: Record<string, unknown> }) => {
    const item = items.get(String(input.Key?.pk));
    return { Item: item === undefined ? undefined : structuredClone(item) };
  });
};

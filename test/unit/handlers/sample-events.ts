/**
 * What the exemplary handler unit tests share: the sample events under `events/` (the ones
 * `npm run invoke` sends) with their token placeholders filled in, and a mocked auth table holding one
 * client and one session. Copy a test of this folder to start the test of a new handler.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type DynamoDBDocumentClientResolvedConfig,
  GetCommand,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { AwsStub } from 'aws-sdk-client-mock';
import { vi } from 'vitest';
import { resetDefaultAuthenticator } from '../../../functions/auth/authenticate';
import { resetDocumentClient } from '../../../functions/aws/dynamodb';
import { resetPicturesBucket } from '../../../functions/aws/s3';
import { resetConfig } from '../../../functions/config';
import type { Grant, Role } from '../../../functions/auth/principal';
import { hashToken } from '../../../functions/auth/tokens';
import { authKeys } from '../../../functions/tables';
import { picturesEnv } from '../../support/pictures';

const EVENTS = join(import.meta.dirname, '..', '..', '..', 'events');

/**
 * Points a handler's configuration at the table names the mocks answer (`auth-unit`, `jobs-unit`; the embedded
 * search engine in memory, which the configuration names even where a handler does not search; a pictures bucket
 * that is only signed for) and forgets the container's cached configuration, DynamoDB and S3 clients and
 * authenticator, as a new Lambda container would start.
 */
export const useUnitHandlerEnvironment = (): void => {
  vi.stubEnv('AUTH_TABLE', 'auth-unit');
  vi.stubEnv('JOBS_TABLE', 'jobs-unit');
  vi.stubEnv('SEARCH_ENGINE', 'embedded');
  vi.stubEnv('SEARCH_DB_PATH', ':memory:');
  for (const [name, value] of Object.entries(picturesEnv())) vi.stubEnv(name, value);
  resetConfig();
  resetDocumentClient();
  resetPicturesBucket();
  resetDefaultAuthenticator();
};

/** The tokens the sample events are sent with. */
export const TOKENS = { client: 'sample-client-token', session: 'sample-session-token' };

/** A sample event file of `events/`, parsed. */
export const sampleEvent = <T = APIGatewayProxyEvent>(name: string): T => {
  const text = readFileSync(join(EVENTS, name), 'utf8')
    .replaceAll('<CLIENT_TOKEN>', TOKENS.client)
    .replaceAll('<SESSION_TOKEN>', TOKENS.session);
  return JSON.parse(text) as T;
};

/**
 * Makes a mocked DynamoDB document client answer the authenticator's two GetItem lookups with an
 * enabled client (with `grants`) and a live session (of `role`, in `accountId`) for {@link TOKENS}.
 */
export const registerSampleCaller = (
  dynamo: AwsStub<ServiceInputTypes, ServiceOutputTypes, DynamoDBDocumentClientResolvedConfig>,
  options: { authTable: string; grants: Grant[]; role: Role; accountId: number },
): void => {
  dynamo
    .on(GetCommand, { TableName: options.authTable, Key: { pk: authKeys.client(hashToken(TOKENS.client)) } })
    .resolves({
      Item: {
        type: 'client',
        clientId: 'sample-client',
        name: 'Sample app',
        grants: options.grants,
        enabled: true,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    });
  dynamo
    .on(GetCommand, { TableName: options.authTable, Key: { pk: authKeys.session(hashToken(TOKENS.session)) } })
    .resolves({
      Item: {
        type: 'session',
        sessionId: 'sample-session',
        clientId: 'sample-client',
        accountId: options.accountId,
        userId: 'sample-user',
        role: options.role,
        createdAt: '2026-01-01T00:00:00.000Z',
        expiresAt: '2999-01-01T00:00:00.000Z',
      },
    });
};

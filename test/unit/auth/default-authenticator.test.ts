import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultAuthenticator } from '../../../functions/auth/authenticate';
import { resetDocumentClient } from '../../../functions/aws/dynamodb';
import { resetConfig } from '../../../functions/config';

const dynamo = mockClient(DynamoDBDocumentClient);

const useAuthTable = (table: string): void => {
  process.env.AUTH_TABLE = table;
  process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:9';
  process.env.SEARCH_ENGINE = 'embedded';
  process.env.JOBS_TABLE = 'jobs';
  resetConfig();
};

const tablesRead = (): unknown[] => dynamo.commandCalls(GetCommand).map((call) => call.args[0].input.TableName);

afterEach(() => {
  dynamo.reset();
  resetConfig();
  resetDocumentClient();
});

describe("the container's authenticator", () => {
  it('is made once for a configuration and reads the configured auth table', async () => {
    useAuthTable('auth-first');
    dynamo.on(GetCommand).resolves({});
    expect(defaultAuthenticator()).toBe(defaultAuthenticator());
    await expect(defaultAuthenticator().authenticate('client-token', 'session-token')).rejects.toMatchObject({
      code: 'invalid_client',
    });
    expect(tablesRead()).toEqual(['auth-first']);
  });

  it('reads the auth table the configuration names now, after a stack in the same process named another', async () => {
    useAuthTable('auth-first');
    dynamo.on(GetCommand).resolves({});
    await expect(defaultAuthenticator().authenticate('client-token', 'session-token')).rejects.toThrow();
    useAuthTable('auth-second');
    await expect(defaultAuthenticator().authenticate('another-token', 'session-token')).rejects.toThrow();
    expect(tablesRead()).toEqual(['auth-first', 'auth-second']);
  });

  it('reads through the container client of the moment, after the old one was closed', async () => {
    useAuthTable('auth-first');
    dynamo.on(GetCommand).resolves({});
    const before = defaultAuthenticator();
    resetDocumentClient();
    expect(defaultAuthenticator()).not.toBe(before);
  });
});

/**
 * The refused-sessions alarm counts the sessions function's log lines (lib/alarms.ts): POST /sessions
 * (functions/handlers/sessions.ts), invoked with the sample event `events/sessions-open.json` and refused,
 * must log the line the stack's metric filter selects, with the function's name its dimension is read from.
 * The auth table is mocked with aws-sdk-client-mock.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../../../functions/handlers/sessions';
import { REFUSED_SESSION_LOG_LINE } from '../../../lib/alarms';
import { lambdaContext } from '../../support/api-event';
import { sampleEvent, useUnitHandlerEnvironment } from './sample-events';
import { captureJsonLogLines } from '../../support/json-log-lines';

const dynamo = mockClient(DynamoDBDocumentClient);

/** The JSON lines the function logged during the current test. */
let logged: Record<string, unknown>[] = [];

beforeEach(() => {
  useUnitHandlerEnvironment();
  dynamo.reset();
  // No client has the sample token: the request is refused.
  dynamo.on(GetCommand).resolves({});
  logged = captureJsonLogLines();
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('a refused POST /sessions, as the refused-sessions metric sees it', () => {
  it('logs one line with the fields the metric filter selects and the function name of its dimension', async () => {
    const result = await handler(
      sampleEvent<APIGatewayProxyEvent>('sessions-open.json'),
      lambdaContext({ functionName: 'JobsApi-prod-SessionsFunction' }),
    );
    expect(result.statusCode).toBeGreaterThanOrEqual(400);
    expect(result.statusCode).toBeLessThan(500);

    const selected = logged.filter((line) =>
      Object.entries(REFUSED_SESSION_LOG_LINE).every(([key, value]) => line[key] === value),
    );
    expect(selected).toHaveLength(1);
    expect(selected[0]).toMatchObject({ path: '/sessions', function_name: 'JobsApi-prod-SessionsFunction' });
  });
});

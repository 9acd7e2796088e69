/**
 * The events function's Lambda entry (functions/handlers/events.ts) on mocked AWS: the stream batch's events go
 * to the bus EVENT_BUS_NAME names, a file's job is read from the jobs table, and what the bus refuses is retried.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { resetDocumentClient } from '../../../functions/aws/dynamodb';
import { resetConfig } from '../../../functions/config';
import { handler } from '../../../functions/handlers/events';
import { toFileItem, toJobItem } from '../../../functions/jobs/store/items';
import { lambdaContext } from '../../support/api-event';
import { expectDescribedEvents } from '../../support/asyncapi';
import { makeJob } from '../../support/jobs';
import { streamRecord } from '../../support/stream-records';

const dynamo = mockClient(DynamoDBDocumentClient);
const eventBridge = mockClient(EventBridgeClient);

beforeEach(() => {
  vi.stubEnv('JOBS_TABLE', 'jobs-unit');
  vi.stubEnv('AUTH_TABLE', 'auth-unit');
  vi.stubEnv('SEARCH_ENGINE', 'embedded');
  vi.stubEnv('EVENT_BUS_NAME', 'jobs-unit-bus');
  vi.stubEnv('EVENT_SOURCE', 'https://api.example.test/unit');
  resetConfig();
  resetDocumentClient();
  dynamo.reset();
  eventBridge.reset();
});

afterEach(() => {
  vi.unstubAllEnvs();
  resetConfig();
});

const detailsSent = () =>
  eventBridge
    .commandCalls(PutEventsCommand)
    .flatMap((call) => call.args[0].input.Entries ?? [])
    .map((entry) => ({ bus: entry.EventBusName, event: JSON.parse(entry.Detail as string) as { type: string } }));

describe('events handler', () => {
  it("puts a job's and a file's events on the stage's bus, the file's with its job as read", async () => {
    eventBridge.on(PutEventsCommand).callsFake(async (input: { Entries: unknown[] }) => ({
      FailedEntryCount: 0,
      Entries: input.Entries.map(() => ({ EventId: 'e' })),
    }));
    const job = makeJob({ status: 'CJ_REVIEWING', deliveredDate: '2026-01-01T00:00:00.000Z' });
    dynamo.on(GetCommand).resolves({ Item: toJobItem({ ...job, status: 'CJ_REJECT_READY' }, 6) });
    const pending = toFileItem(job.id, job.files[0] as (typeof job.files)[number], true);
    const records = [
      streamRecord(toJobItem(job, 4), toJobItem({ ...job, name: 'Renamed' }, 5)),
      streamRecord(pending, { ...pending, isRejected: true, reviewDate: '2026-01-02T00:00:00.000Z' }),
    ];

    await expect(handler({ Records: records }, lambdaContext())).resolves.toEqual({ batchItemFailures: [] });

    const sent = detailsSent();
    expect(sent.map(({ bus, event }) => [bus, event.type])).toEqual([
      ['jobs-unit-bus', 'job.updated'],
      ['jobs-unit-bus', 'file.rejected'],
    ]);
    expect(sent[1]?.event).toMatchObject({
      source: 'https://api.example.test/unit',
      data: { version: 6, status: 'CJ_REJECT_READY' },
    });
    expect(dynamo.commandCalls(GetCommand)[0]?.args[0].input).toMatchObject({ ConsistentRead: true });
    expectDescribedEvents(sent.map(({ event }) => event));
  });

  it('reports the record whose event the bus keeps refusing, after sending it again', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });
    const record = streamRecord(undefined, toJobItem(makeJob(), 1));

    const answer = await handler({ Records: [record] }, lambdaContext());

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber }] });
    expect(eventBridge.commandCalls(PutEventsCommand).length).toBeGreaterThan(1);
  });

  it('appends the events to the file EVENTS_FILE names when there is no bus', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'events-handler-'));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const path = join(folder, 'events.ndjson');
    vi.stubEnv('EVENT_BUS_NAME', '');
    vi.stubEnv('EVENTS_FILE', path);
    resetConfig();
    const job = makeJob();

    await handler({ Records: [streamRecord(undefined, toJobItem(job, 1))] }, lambdaContext());

    const lines = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as object);
    expect(lines).toEqual([expect.objectContaining({ type: 'job.created', id: `jobs/${job.id}/v1/job.created` })]);
    expect(eventBridge.commandCalls(PutEventsCommand)).toEqual([]);
  });
});

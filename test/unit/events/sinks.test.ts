import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { JobsEvent } from '../../../functions/events/cloud-event';
import { fileSink } from '../../../functions/events/event-sink';
import {
  chunkEntries,
  entryOf,
  entrySize,
  eventBridgeSink,
  PUT_EVENTS_LIMITS,
} from '../../../functions/events/eventbridge-sink';
import { eventsOfRecord } from '../../../functions/events/stream-events';
import { toJobItem } from '../../../functions/jobs/store/items';
import { makeJob } from '../../support/jobs';
import { streamRecord } from '../../support/stream-records';

const eventBridge = mockClient(EventBridgeClient);

const createdEvent = (overrides: Parameters<typeof makeJob>[0] = {}): JobsEvent => {
  const [event] = eventsOfRecord(streamRecord(undefined, toJobItem(makeJob(overrides), 1)), { source: 'urn:test' });
  return event as JobsEvent;
};

beforeEach(() => {
  eventBridge.reset();
});

describe('the EventBridge sink', () => {
  it('puts each event whole as the detail, its type as the detail type, on the named bus, 10 entries per call', async () => {
    eventBridge.on(PutEventsCommand).callsFake(async (input: { Entries: unknown[] }) => ({
      FailedEntryCount: 0,
      Entries: input.Entries.map((_, index) => ({ EventId: `id-${index}` })),
    }));
    const events = Array.from({ length: 23 }, () => createdEvent());
    const results = await eventBridgeSink(new EventBridgeClient({ region: 'eu-west-1' }), 'jobs-bus').put(events);
    expect(results).toEqual(events.map(() => ({ ok: true })));
    const calls = eventBridge.commandCalls(PutEventsCommand);
    expect(calls.map((call) => call.args[0].input.Entries?.length)).toEqual([10, 10, 3]);
    const first = calls[0]?.args[0].input.Entries?.[0];
    expect(first).toMatchObject({ EventBusName: 'jobs-bus', Source: 'urn:test', DetailType: 'job.created' });
    expect(JSON.parse(first?.Detail as string)).toEqual(events[0]);
  });

  it('answers the entries the bus refused (FailedEntryCount) as failed, the others as taken', async () => {
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [
        { EventId: 'a' },
        { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' },
        { EventId: 'c' },
      ],
    });
    const results = await eventBridgeSink(new EventBridgeClient({ region: 'eu-west-1' }), 'jobs-bus').put([
      createdEvent(),
      createdEvent(),
      createdEvent(),
    ]);
    expect(results).toEqual([{ ok: true }, { ok: false, reason: 'ThrottlingException: Rate exceeded' }, { ok: true }]);
  });

  it('answers every event of a call that failed as failed, without throwing', async () => {
    eventBridge.on(PutEventsCommand).rejects(new Error('socket hang up'));
    const results = await eventBridgeSink(new EventBridgeClient({ region: 'eu-west-1' }), 'jobs-bus').put([
      createdEvent(),
    ]);
    expect(results).toEqual([{ ok: false, reason: 'PutEvents failed: Error: socket hang up' }]);
  });

  it('keeps every call within 256 KiB, and refuses an event larger than that on its own without sending it', async () => {
    eventBridge.on(PutEventsCommand).callsFake(async (input: { Entries: unknown[] }) => ({
      FailedEntryCount: 0,
      Entries: input.Entries.map(() => ({ EventId: 'x' })),
    }));
    const large = () => createdEvent({ description: 'x'.repeat(60_000) });
    const huge = createdEvent({ description: 'y'.repeat(PUT_EVENTS_LIMITS.bytes) });
    const events = [large(), large(), large(), large(), large(), huge];
    const results = await eventBridgeSink(new EventBridgeClient({ region: 'eu-west-1' }), 'bus').put(events);
    expect(results.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => ({ ok: true })));
    expect(results[5]).toEqual({ ok: false, reason: 'the event exceeds 256 KiB' });
    const calls = eventBridge.commandCalls(PutEventsCommand);
    expect(calls.map((call) => call.args[0].input.Entries?.length)).toEqual([4, 1]);
    for (const call of calls) {
      const bytes = (call.args[0].input.Entries ?? []).reduce((sum, entry) => sum + entrySize(entry), 0);
      expect(bytes).toBeLessThanOrEqual(PUT_EVENTS_LIMITS.bytes);
    }
  });

  it('splits entries in order', () => {
    const items = Array.from({ length: 12 }, (_, index) => ({ index, entry: entryOf(createdEvent(), 'bus') }));
    expect(chunkEntries(items).map((chunk) => chunk.map((item) => item.index))).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      [10, 11],
    ]);
  });
});

describe('the file sink', () => {
  it('appends one JSON event per line, creating the file and its folder', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'events-'));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const path = join(folder, 'data', 'events.ndjson');
    const sink = fileSink(path);
    const [first, second, third] = [createdEvent(), createdEvent(), createdEvent()];
    await expect(sink.put([first, second])).resolves.toEqual([{ ok: true }, { ok: true }]);
    await sink.put([third]);
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual([first, second, third]);
  });
});

/**
 * The EventBridge sink: `PutEvents` to the stage's bus, within its limits — at most 10 entries and 256 KiB per
 * call — each CloudEvent whole as an entry's `detail`, its type as the `detail-type`, its source as the entry's
 * source. Entries the bus refuses (`FailedEntryCount`, an `ErrorCode` per entry) and calls that fail are
 * answered as failed, event by event, for the publisher to retry.
 */
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { describeError } from '../errors';
import type { JobsEvent } from './cloud-event';
import type { EventSink, PutResult } from './event-sink';

/** PutEvents' limits: entries per call, and bytes per call as EventBridge counts them. */
export const PUT_EVENTS_LIMITS = { entries: 10, bytes: 256 * 1024 } as const;

/** The size EventBridge counts for an entry: its time (14 bytes), source, detail type and detail, in UTF-8. */
export const entrySize = (entry: PutEventsRequestEntry): number =>
  14 +
  Buffer.byteLength(entry.Source ?? '') +
  Buffer.byteLength(entry.DetailType ?? '') +
  Buffer.byteLength(entry.Detail ?? '') +
  (entry.Resources ?? []).reduce((sum, resource) => sum + Buffer.byteLength(resource), 0);

/** The entry of one event. */
export const entryOf = (event: JobsEvent, busName: string): PutEventsRequestEntry => ({
  EventBusName: busName,
  Source: event.source,
  DetailType: event.type,
  Detail: JSON.stringify(event),
  Time: new Date(event.time),
});

/** Splits entries, in order, into calls within the limits; an entry too large on its own is a call of its own. */
export const chunkEntries = <T extends { entry: PutEventsRequestEntry }>(items: readonly T[]): T[][] => {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = entrySize(item.entry);
    if (
      current.length > 0 &&
      (current.length === PUT_EVENTS_LIMITS.entries || bytes + size > PUT_EVENTS_LIMITS.bytes)
    ) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
};

/** A sink that puts events on an EventBridge bus. */
export const eventBridgeSink = (client: Pick<EventBridgeClient, 'send'>, busName: string): EventSink => ({
  put: async (events) => {
    const results: PutResult[] = events.map(() => ({ ok: false, reason: 'not sent' }));
    const items = events.map((event, index) => ({ index, entry: entryOf(event, busName) }));
    await Promise.all(
      chunkEntries(items).map(async (chunk) => {
        if (chunk.length === 1 && entrySize((chunk[0] as (typeof chunk)[number]).entry) > PUT_EVENTS_LIMITS.bytes) {
          results[(chunk[0] as (typeof chunk)[number]).index] = { ok: false, reason: 'the event exceeds 256 KiB' };
          return;
        }
        try {
          const answer = await client.send(new PutEventsCommand({ Entries: chunk.map((item) => item.entry) }));
          chunk.forEach((item, position) => {
            const entry = answer.Entries?.[position];
            results[item.index] =
              entry === undefined
                ? { ok: false, reason: 'the bus answered no entry for it' }
                : entry.ErrorCode === undefined && entry.EventId !== undefined
                  ? { ok: true }
                  : { ok: false, reason: `${entry.ErrorCode ?? 'no event id'}: ${entry.ErrorMessage ?? ''}`.trim() };
          });
        } catch (error) {
          const reason = `PutEvents failed: ${describeError(error)}`;
          for (const item of chunk) results[item.index] = { ok: false, reason };
        }
      }),
    );
    return results;
  },
});

let client: EventBridgeClient | undefined;

/** The container's EventBridge client. */
export const eventBridgeClient = (region: string): EventBridgeClient =>
  (client ??= new EventBridgeClient({ region, maxAttempts: 3 }));

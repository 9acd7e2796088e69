/**
 * Where published events go: one interface, two places. In AWS the stage's EventBridge bus
 * (`eventbridge-sink.ts`); locally, with no bus, a file of one JSON event per line ({@link fileSink}), which
 * `tail -f` follows. The configuration chooses ({@link configuredSink}).
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { JobsEvent } from './cloud-event';

/** What became of one event handed to a sink. */
export type PutResult = { ok: true } | { ok: false; reason: string };

/** Takes events, in the order given; answers one result per event, in the same order. */
export interface EventSink {
  put(events: readonly JobsEvent[]): Promise<PutResult[]>;
}

/**
 * Appends each event as one line of JSON to a file (created with its folder when missing). One append per call,
 * so the lines of one call are never interleaved with another's.
 */
export const fileSink = (path: string): EventSink => ({
  put: async (events) => {
    if (events.length === 0) return [];
    await mkdir(dirname(path), { recursive: true });
    await appendFile(path, events.map((event) => `${JSON.stringify(event)}\n`).join(''), 'utf8');
    return events.map(() => ({ ok: true }));
  },
});

/**
 * The local stack's events (docs/contract.md §6c): the deployed events function's handler, fed by a stream poller
 * of its own — as a second event source mapping on the jobs table's stream does in AWS, so its failures never hold
 * up the indexer, nor the indexer's it — with checkpoints of its own, so a restart begins where it stopped. Events
 * go to `$DATA_DIR/events.ndjson` (`EVENTS_FILE`, set with the handlers' configuration), or with nothing on disk to
 * the stack's memory; every event written is then handed to the local webhook delivery (`local/webhooks/`), as
 * the stage bus's rule hands it to the webhooks' queue in AWS.
 */
import { readFile } from 'node:fs/promises';
import type { JobsEvent } from '../../functions/events/cloud-event';
import { useEventSink } from '../../functions/events/configured-sink';
import { type EventSink, fileSink } from '../../functions/events/event-sink';
import { handler as eventsHandler } from '../../functions/handlers/events';
import { resetConfig } from '../../functions/config';
import type { DataPaths } from '../paths';
import { type StreamPollerOptions } from '../streams/poller-options';
import { startStreamPoller } from '../streams/poller';
import { type LocalWebhooks, startLocalWebhooks } from '../webhooks/delivery';

/** The events publishing of a running local stack. */
export interface LocalEvents {
  /** Resolves once every change written so far has made its events. */
  drained(): Promise<void>;
  /** Says the table was probably just written: an idle poller reads its stream now (see `StreamPoller.nudge`). */
  nudge(): void;
  /** The webhook delivery of the events. */
  webhooks: LocalWebhooks;
  /** The events published so far, oldest first. */
  events(): Promise<JobsEvent[]>;
  stop(): Promise<void>;
}

/**
 * Starts publishing events with `source` the local API's address. The poller takes the same options as the
 * indexer's, but for its handler, name and checkpoints.
 */
export const startLocalEvents = async (
  paths: DataPaths,
  source: string,
  poller: Omit<StreamPollerOptions, 'handler' | 'checkpointPath'>,
  log?: (message: string) => void,
): Promise<LocalEvents> => {
  process.env.EVENT_SOURCE = source;
  resetConfig();
  const kept: JobsEvent[] = [];
  const webhooks = startLocalWebhooks(log);
  const written: EventSink =
    paths.events === undefined
      ? {
          put: async (events) => {
            kept.push(...events);
            return events.map(() => ({ ok: true }));
          },
        }
      : fileSink(paths.events);
  useEventSink({
    put: async (events) => {
      const results = await written.put(events);
      await webhooks.publish(events.filter((_, index) => results[index]?.ok === true));
      return results;
    },
  });
  const running = await startStreamPoller({
    ...poller,
    handler: eventsHandler,
    ...(paths.eventCheckpoints === undefined ? {} : { checkpointPath: paths.eventCheckpoints }),
  });
  const file = paths.events;
  return {
    drained: () => running.drained(),
    nudge: () => running.nudge(),
    webhooks,
    events: async () => {
      if (file === undefined) return [...kept];
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      return text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as JobsEvent);
    },
    stop: async () => {
      await running.stop();
      await webhooks.stop();
      useEventSink(undefined);
    },
  };
};

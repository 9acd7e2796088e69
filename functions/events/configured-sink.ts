/**
 * The sink the configuration names (`config.ts`: `EVENT_BUS_NAME` in AWS, `EVENTS_FILE` locally), made once per
 * container; a runtime or a test may put its own in place ({@link useEventSink}).
 */
import { config, ConfigError } from '../config';
import { eventBridgeClient, eventBridgeSink } from './eventbridge-sink';
import { type EventSink, fileSink } from './event-sink';

let chosen: EventSink | undefined;
let made: { key: string; sink: EventSink } | undefined;

/** Puts a sink in place of the configured one (undefined: the configured one again). */
export const useEventSink = (sink: EventSink | undefined): void => {
  chosen = sink;
};

/** The sink of this container. */
export const configuredSink = (): EventSink => {
  if (chosen !== undefined) return chosen;
  const { events, region } = config();
  const target = events.sink;
  if (target === undefined) throw new ConfigError('Events need EVENT_BUS_NAME (AWS) or EVENTS_FILE (local)');
  const key = JSON.stringify(target);
  if (made?.key !== key) {
    made = {
      key,
      sink: 'busName' in target ? eventBridgeSink(eventBridgeClient(region), target.busName) : fileSink(target.file),
    };
  }
  return made.sink;
};

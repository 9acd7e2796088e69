import { describe, expect, it } from 'vitest';
import { readConfig } from '../../../functions/config';

const env = { JOBS_TABLE: 'jobs', AUTH_TABLE: 'auth', SEARCH_ENGINE: 'embedded' };

describe('the events configuration', () => {
  it('sends events to the bus EVENT_BUS_NAME names, or to the file EVENTS_FILE names, from the source EVENT_SOURCE names', () => {
    expect(
      readConfig({ ...env, EVENT_BUS_NAME: 'jobs-prod', EVENT_SOURCE: 'https://api.example.test/prod' }).events,
    ).toEqual({
      sink: { busName: 'jobs-prod' },
      source: 'https://api.example.test/prod',
    });
    expect(readConfig({ ...env, EVENTS_FILE: '/tmp/events.ndjson' }).events).toEqual({
      sink: { file: '/tmp/events.ndjson' },
      source: 'urn:jobs-api',
    });
    expect(readConfig(env).events.sink).toBeUndefined();
  });

  it('refuses both a bus and a file', () => {
    expect(() => readConfig({ ...env, EVENT_BUS_NAME: 'bus', EVENTS_FILE: 'events.ndjson' })).toThrow(
      'EVENT_BUS_NAME and EVENTS_FILE are both set: events go to one place',
    );
  });
});

import { readFileSync } from 'node:fs';
import { Parser } from '@asyncapi/parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../functions/events/cloud-event';
import { eventsOfRecord } from '../../../functions/events/stream-events';
import { toJobItem } from '../../../functions/jobs/store/items';
import { ASYNCAPI_PATH, eventErrors, eventValidators } from '../../support/asyncapi';
import { makeJob } from '../../support/jobs';
import { streamRecord } from '../../support/stream-records';

describe('asyncapi.yaml', () => {
  let parsed: Awaited<ReturnType<Parser['parse']>>;
  beforeAll(async () => {
    parsed = await new Parser().parse(readFileSync(ASYNCAPI_PATH, 'utf8'));
  }, 60_000);

  it('is a valid AsyncAPI 3 document, without errors or warnings from the official parser', () => {
    const { document, diagnostics } = parsed;
    expect(diagnostics.map((diagnostic) => `${diagnostic.code}: ${diagnostic.message}`)).toEqual([]);
    expect(document?.version()).toMatch(/^3\./);
  });

  it('describes every event type, one message each', () => {
    const { document } = parsed;
    const names =
      document
        ?.messages()
        .all()
        .map((message) => message.name()) ?? [];
    expect([...names].sort()).toEqual([...EVENT_TYPES].sort());
    expect([...eventValidators().keys()].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('refuses an event whose data lacks what its type promises, or whose type it does not know', () => {
    const job = makeJob();
    const [event] = eventsOfRecord(streamRecord(undefined, toJobItem(job, 1)), { source: 'urn:test' });
    if (event === undefined) throw new Error('no event');
    expect(eventErrors(event)).toEqual([]);
    const { version: _dropped, ...data } = event.data;
    expect(eventErrors({ ...event, data })).not.toEqual([]);
    expect(eventErrors({ ...event, type: 'job.deleted' })).toEqual(['unknown type job.deleted']);
    expect(eventErrors({ ...event, extra: 1 })).not.toEqual([]);
  });
});

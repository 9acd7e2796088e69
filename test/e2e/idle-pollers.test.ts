/**
 * The local stack's stream pollers slow down while nothing happens (`LOCAL_IDLE_POLLING`, README: the local stack),
 * and a write through the API wakes them. The stack here has pollers that, once idle (at once), would wait ten
 * minutes before their next read: only the nudge of a write through the API makes them read it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ok, startTestStack, type TestStack } from '../support/local-stack';

describe('the stream pollers of an idle local stack', () => {
  let idle: TestStack;
  beforeAll(async () => {
    idle = await startTestStack({ idlePolling: { afterMs: 0, pollIntervalMs: 600_000, shardRefreshMs: 600_000 } });
  });
  afterAll(async () => {
    await idle?.stop();
  });

  it('read a job created through the API at once: its event is published and a search finds it', async () => {
    const tokens = await idle.issue({ grants: ['search', 'jobs'], accounts: [1001] });
    const created = ok(
      await idle.request('/jobs', { tokens, body: { name: 'Idle hours', files: [{ fileName: 'clock.jpg' }] } }),
      201,
    ).json as { job: { id: number } };
    await vi.waitFor(
      async () => {
        const events = await idle.stack.events();
        expect(events.map((event) => [event.type, event.data.jobId])).toEqual([['job.created', created.job.id]]);
        const found = ok(await idle.request('/search', { tokens, body: { query: 'Idle hours' } }), 200).json as {
          totalJobs: number;
        };
        expect(found.totalJobs).toBe(1);
      },
      { timeout: 10_000, interval: 50 },
    );
  });
});

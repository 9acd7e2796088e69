/**
 * The stream poller's pace while nothing happens (`idle`): steady as Lambda's by default, slower once idle when
 * asked, and steady again at once when nudged. Played on fake timers against a mocked DynamoDB Streams API of one
 * open shard that never has a record, counting the reads.
 */
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { IdlePolling } from '../../local/streams/poller-options';
import { type StreamPoller, startStreamPoller } from '../../local/streams/poller';
import { mockStreamedTable, quietPollerLogger, STREAM_ARN } from '../support/mocked-stream';

const streams = mockClient(DynamoDBStreamsClient);

let poller: StreamPoller | undefined;

const start = async (idle?: IdlePolling): Promise<StreamPoller> => {
  poller = await startStreamPoller({
    endpoint: 'http://127.0.0.1:1',
    region: 'us-east-1',
    tableName: 'jobs',
    handler: async () => ({ batchItemFailures: [] }),
    pollIntervalMs: 250,
    shardRefreshMs: 1_000,
    logger: quietPollerLogger,
    ...(idle === undefined ? {} : { idle }),
  });
  return poller;
};

const reads = (): number => streams.commandCalls(GetRecordsCommand).length;
const listings = (): number => streams.commandCalls(DescribeStreamCommand).length;

/** The reads and shard listings made while the fake clock moves on by `ms`. */
const during = async (ms: number): Promise<{ reads: number; listings: number }> => {
  const before = { reads: reads(), listings: listings() };
  await vi.advanceTimersByTimeAsync(ms);
  return { reads: reads() - before.reads, listings: listings() - before.listings };
};

beforeEach(() => {
  vi.useFakeTimers();
  mockStreamedTable();
  streams.reset();
  streams
    .on(DescribeStreamCommand)
    .resolves({ StreamDescription: { StreamArn: STREAM_ARN, Shards: [{ ShardId: 'only' }] } });
  streams.on(GetShardIteratorCommand).resolves({ ShardIterator: 'only@start' });
  streams.on(GetRecordsCommand).resolves({ Records: [], NextShardIterator: 'only@start' });
});

afterEach(async () => {
  const stopping = poller?.stop();
  await vi.runOnlyPendingTimersAsync();
  await stopping;
  poller = undefined;
  vi.useRealTimers();
});

describe('stream poller pace', () => {
  it("keeps Lambda's steady pace, four reads a second and a listing a second, however long nothing comes", async () => {
    await start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await during(10_000)).toEqual({ reads: 40, listings: 10 });
  });

  it('slows to the idle pace once nothing came for the idle delay, and is steady again at once when nudged', async () => {
    const running = await start({ afterMs: 5_000, pollIntervalMs: 1_000, shardRefreshMs: 5_000 });
    const steady = await during(4_000);
    expect(steady.reads).toBeGreaterThanOrEqual(15);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await during(10_000)).toEqual({ reads: 10, listings: 2 });

    running.nudge();
    expect((await during(1)).reads, 'a nudge reads at once').toBe(1);
    expect((await during(4_000)).reads).toBeGreaterThanOrEqual(15);
  });

  it('reads no more for a burst of nudges at the steady pace than without them', async () => {
    const running = await start({ afterMs: 5_000, pollIntervalMs: 1_000, shardRefreshMs: 5_000 });
    await vi.advanceTimersByTimeAsync(1_000);
    const before = { reads: reads(), listings: listings() };
    for (let write = 0; write < 100; write += 1) {
      running.nudge();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect({ reads: reads() - before.reads, listings: listings() - before.listings }).toEqual({
      reads: 4,
      listings: 1,
    });
  });

  it('is steady again after a drain request, which it answers without waiting for the idle pace', async () => {
    const running = await start({ afterMs: 1_000, pollIntervalMs: 60_000, shardRefreshMs: 60_000 });
    await vi.advanceTimersByTimeAsync(10_000);
    let drained = false;
    void running.drained().then(() => (drained = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(drained).toBe(true);
    expect((await during(900)).reads).toBeGreaterThanOrEqual(3);
  });
});

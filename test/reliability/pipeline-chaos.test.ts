/**
 * The indexing pipeline under every fault at once, on real parts (DynamoDB Local and its stream, the
 * local poller, the stream indexer, the embedded engine): while writers import, edit, reject (racing
 * each other into transaction conflicts) and delete jobs, the engine fails whole bulk requests, fails
 * single jobs as OpenSearch does under 429, and times out; the indexer's DynamoDB reads are throttled;
 * the indexer crashes before and after doing its work; batches are delivered twice and reordered; and
 * the poller itself crashes and a new one resumes from its checkpoint. Each schedule of faults is drawn
 * from a fixed seed, and each must end with `verify-index` clean, nothing dead-lettered, and the index
 * still clean after every record is replayed once more, shuffled.
 *
 * (test/integration/pipeline.test.ts covers each fault on its own.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStreamIndexer } from '../../functions/indexing/stream-indexer';
import type { Job } from '../../functions/jobs/model/model';
import { RejectFiles } from '../../functions/jobs/review/reject-files';
import { JobRepository } from '../../functions/jobs/store/repository';
import { createSearchIndex } from '../../functions/search/engine';
import { importJobs } from '../../local/operations/import';
import { type DeadLetter, type StreamPoller, startStreamPoller } from '../../local/streams/poller';
import { verifyIndex } from '../../local/operations/verify-index';
import { createTestTables, localClient } from '../support/dynamo';
import { FaultyIndex } from '../support/faulty-index';
import { makeFile, makeJob } from '../support/jobs';

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_303);
const client = localClient();
const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

let directory: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'pipeline-chaos-'));
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A small deterministic PRNG (mulberry32), so a schedule of faults replays from its seed. */
const prng = (seed: number) => {
  let state = seed >>> 0;
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

/** The error DynamoDB answers when a table's throughput is exceeded, as the AWS SDK raises it. */
class ThrottlingException extends Error {
  public readonly $metadata = { httpStatusCode: 400 };
  public readonly $retryable = { throttling: true };

  public constructor() {
    super('Rate of requests exceeds the allowed throughput.');
    this.name = 'ThrottlingException';
  }
}

/** A crash of the indexer's invocation (the Lambda runtime dying, an out-of-memory, a bug). */
class InjectedCrashError extends Error {
  public constructor(when: string) {
    super(`injected crash ${when} the batch`);
    this.name = 'InjectedCrashError';
  }
}

/** How many faults of each kind one schedule may inject at most (so every schedule ends). */
interface FaultBudget {
  throttledReads: number;
  crashes: number;
  duplicates: number;
  reorders: number;
}

/** One schedule: the seed of its PRNG, and the faults the engine starts with. */
interface Schedule {
  seed: number;
  failedRequests: number;
  timedOutRequests: number;
  /** Jobs (by position among the imported ones) the engine refuses as retryable, as under 429, and how often. */
  tooManyRequests: { positions: number[]; times: number };
  budget: FaultBudget;
  /** After how many invocations the first poller crashes (a new one resumes from its checkpoint). */
  pollerCrashAfter: number;
}

const schedules: fc.Arbitrary<Schedule> = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  failedRequests: fc.integer({ min: 0, max: 3 }),
  timedOutRequests: fc.integer({ min: 0, max: 2 }),
  tooManyRequests: fc.record({
    // At least one job no later write touches: its first indexing must not be lost to the 429.
    positions: fc
      .tuple(fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }), fc.integer({ min: 10, max: 13 }))
      .map(([touched, untouched]) => [...touched, untouched]),
    times: fc.integer({ min: 1, max: 3 }),
  }),
  budget: fc.record({
    throttledReads: fc.integer({ min: 0, max: 8 }),
    crashes: fc.integer({ min: 0, max: 4 }),
    duplicates: fc.integer({ min: 0, max: 4 }),
    reorders: fc.integer({ min: 0, max: 4 }),
  }),
  pollerCrashAfter: fc.integer({ min: 1, max: 6 }),
});

/** Faults injected over all schedules, to show the schedules really exercise each kind. */
const injected = { throttledReads: 0, crashes: 0, duplicates: 0, reorders: 0, indexFaults: 0, pollerCrashes: 0 };

/** Runs one schedule from an empty table to a quiet, verified index. */
const runSchedule = async (schedule: Schedule): Promise<void> => {
  const random = prng(schedule.seed);
  const chance = (p: number) => random() < p;
  const budget = { ...schedule.budget };
  const tables = await createTestTables(client);
  const repository = new JobRepository(documents, tables.jobsTable);
  const engine = await createSearchIndex({ engine: 'embedded', path: ':memory:' });
  const index = new FaultyIndex(engine);
  const pollers: StreamPoller[] = [];
  const deadLetters: DeadLetter[] = [];
  const delivered: DynamoDBRecord[] = [];

  // The indexer reads the table through a client whose calls DynamoDB may throttle.
  const throttlingDocuments = {
    send: (command: Parameters<typeof documents.send>[0]) => {
      if (budget.throttledReads > 0 && chance(0.3)) {
        budget.throttledReads -= 1;
        injected.throttledReads += 1;
        return Promise.reject(new ThrottlingException());
      }
      return documents.send(command);
    },
  } as unknown as DynamoDBDocumentClient;
  const indexerRepository = new JobRepository(throttlingDocuments, tables.jobsTable);
  const indexer = createStreamIndexer({ repository: () => indexerRepository, index: async () => index });

  const chaoticHandler = async (event: DynamoDBStreamEvent) => {
    delivered.push(...event.Records);
    if (budget.crashes > 0 && chance(0.15)) {
      budget.crashes -= 1;
      injected.crashes += 1;
      throw new InjectedCrashError('before');
    }
    if (budget.reorders > 0 && chance(0.2)) {
      budget.reorders -= 1;
      injected.reorders += 1;
      await indexer({ Records: [...event.Records].reverse() });
    }
    const result = await indexer(event);
    if (budget.duplicates > 0 && chance(0.2)) {
      budget.duplicates -= 1;
      injected.duplicates += 1;
      await indexer(event);
    }
    if (budget.crashes > 0 && chance(0.15)) {
      budget.crashes -= 1;
      injected.crashes += 1;
      throw new InjectedCrashError('after');
    }
    return result;
  };

  const checkpointPath = join(directory, `${tables.jobsTable}.json`);
  const startPoller = async () => {
    const poller = await startStreamPoller({
      endpoint: tables.endpoint,
      region: 'us-east-1',
      tableName: tables.jobsTable,
      handler: chaoticHandler,
      batchSize: 5,
      maxRetries: 40,
      retryDelayMs: 5,
      maxRetryDelayMs: 40,
      pollIntervalMs: 20,
      batchWindowMs: 10,
      invocationTimeoutMs: 2_000,
      checkpointPath,
      onDeadLetter: (letter) => void deadLetters.push(letter),
      logger: quiet,
    });
    pollers.push(poller);
    return poller;
  };

  try {
    // Jobs 0–9 are rejected, edited or deleted after the import; jobs 10–13 are only imported.
    const jobs: Job[] = Array.from({ length: 14 }, (_, position) =>
      makeJob({
        status: 'CJ_REVIEWING',
        name: `Chaos job ${position}`,
        files: Array.from({ length: 3 }, () => makeFile()),
      }),
    );
    index.failRequests(schedule.failedRequests).timeOutRequests(20, schedule.timedOutRequests);
    index.failJobs(
      schedule.tooManyRequests.positions.map((position) => jobs[position]!.id),
      { times: schedule.tooManyRequests.times, status: 'retryable' },
    );

    const first = await startPoller();
    const writing = (async () => {
      await importJobs(jobs, { repository, batchSize: 4 });
      const rejecting = new RejectFiles({ client: documents, tableName: tables.jobsTable });
      const operator = { role: 'operator' as const, accountId: 1 };
      const rejection = (fileId: number, customRejection: string) =>
        rejecting.run({ files: [{ fileId, customRejection, rejects: [] }] }, operator);
      await Promise.allSettled([
        // Rejects racing each other on the same jobs and files (transaction conflicts, repeats).
        ...jobs
          .slice(0, 6)
          .flatMap((job, position) => [
            rejection(job.files[0]!.id, 'first'),
            rejection(job.files[1]!.id, 'second'),
            rejection(job.files[0]!.id, `again ${position}`),
          ]),
        // Edits racing the rejects on the same job items (optimistic-lock retries), and deletes.
        ...jobs.slice(3, 8).map((job) => repository.putJob({ ...job, name: `${job.name} edited` })),
        ...jobs.slice(8, 10).map((job) => repository.deleteJob(job.id)),
      ]);
    })();
    // The first poller crashes after some invocations (or, at the latest, once it has caught up).
    const invocations = (async () => {
      while (first.stats().invocations < schedule.pollerCrashAfter) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    await Promise.race([invocations, writing.then(() => first.drained().catch(() => undefined))]);
    await first.stop();
    injected.pollerCrashes += 1;
    await writing;

    const second = await startPoller();
    await second.drained();

    injected.indexFaults += index.calls.length > 0 && index.exhausted ? 1 : 0;
    expect(deadLetters).toEqual([]);
    const verified = await verifyIndex({ repository, index: engine });
    expect(verified).toMatchObject({ ok: true, missing: [], stale: [], extra: [] });

    // Every record once more, shuffled: the index must not move.
    const replay = [...delivered].sort(() => random() - 0.5);
    for (let start = 0; start < replay.length; start += 7) {
      await createStreamIndexer({ repository: () => repository, index: async () => engine })({
        Records: replay.slice(start, start + 7),
      });
    }
    expect(await verifyIndex({ repository, index: engine })).toMatchObject({ ok: true });
  } finally {
    await Promise.all(pollers.map((poller) => poller.stop()));
    await engine.close();
  }
};

describe('the indexing pipeline under combined faults', () => {
  it('ends with the index equal to the table, whatever schedule of faults it meets', async () => {
    await fc.assert(fc.asyncProperty(schedules, runSchedule), { seed: SEED, numRuns: 3, endOnFailure: true });
    for (const [kind, count] of Object.entries(injected)) expect(count, `${kind} injected`).toBeGreaterThan(0);
  }, 120_000);
});

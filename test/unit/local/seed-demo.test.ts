/**
 * Demo seeding (`npm start`'s first start, `seed-demo --stack`) when some demo jobs cannot be written: the error
 * says how many, names the first failed job and its error with its causes, and says that a rerun finishes.
 */
import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../../../functions/errors';
import type { PutResult } from '../../../functions/jobs/store/repository';
import type { DemoAuthStore } from '../../../local/demo/auth';
import { demoJobs } from '../../../local/demo/data';
import { DemoJobsNotWrittenError, seedDemoData } from '../../../local/demo/seeding';

const store: DemoAuthStore = {
  createClient: async () => ({ clientId: 'client', token: 'client-token', secretId: 'secret', secret: 'jsk_secret' }),
  createSession: async () => ({ sessionId: 'session', token: 'session-token', expiresAt: '2030-01-01T00:00:00.000Z' }),
};

describe('seeding the demo jobs', () => {
  it('names the first job not written and its error with its cause, and that a rerun finishes', async () => {
    const jobs = demoJobs();
    const timeout = Object.assign(new Error('a request has exceeded the configured 3000 ms requestTimeout'), {
      name: 'TimeoutError',
    });
    const repository = {
      existingJobIds: async () => new Set<number>(),
      importJobs: async (): Promise<PromiseSettledResult<PutResult>[]> =>
        jobs.map((job, position) =>
          position < 3
            ? { status: 'fulfilled', value: { jobId: job.id, outcome: 'created', version: 1 } }
            : { status: 'rejected', reason: new DependencyUnavailableError('dynamodb', timeout) },
        ),
    };
    const seeding = seedDemoData(store, repository);
    await expect(seeding).rejects.toBeInstanceOf(DemoJobsNotWrittenError);
    const error = (await seeding.catch((caught: unknown) => caught)) as Error;
    expect(error.message).toContain(`${jobs.length - 3} of ${jobs.length} demo jobs were not written`);
    expect(error.message).toContain(`the first, job ${jobs[3]?.id}: DependencyUnavailableError`);
    expect(error.message).toContain('TimeoutError: a request has exceeded the configured 3000 ms requestTimeout');
    expect(error.message).toContain('running the command again writes the rest');
  });

  it('sends the demo jobs the table already holds the careful way, without a transaction that can only be cancelled', async () => {
    const held = new Set(
      demoJobs()
        .slice(0, 5)
        .map((job) => job.id),
    );
    let passed: ReadonlySet<number> | undefined;
    const repository = {
      existingJobIds: async (ids: readonly number[]) => new Set(ids.filter((id) => held.has(id))),
      importJobs: async (
        jobs: readonly { id: number }[],
        options?: { existing?: ReadonlySet<number> },
      ): Promise<PromiseSettledResult<PutResult>[]> => {
        passed = options?.existing;
        return jobs.map((job) => ({ status: 'fulfilled', value: { jobId: job.id, outcome: 'unchanged', version: 1 } }));
      },
    };
    await seedDemoData(store, repository);
    expect([...(passed ?? [])].sort()).toEqual([...held].sort());
  });

  it('resolves with the demo credentials when every job is written', async () => {
    const repository = {
      existingJobIds: async () => new Set<number>(),
      importJobs: async (jobs: readonly { id: number }[]): Promise<PromiseSettledResult<PutResult>[]> =>
        jobs.map((job) => ({ status: 'fulfilled', value: { jobId: job.id, outcome: 'unchanged', version: 1 } })),
    };
    await expect(seedDemoData(store, repository)).resolves.toMatchObject({ clients: expect.any(Object) });
  });
});

/**
 * The import's fast path: creates jobs that are not in the table yet without reading them first.
 *
 * Reading a job's partition before writing it costs a round trip per job, and on a first import almost
 * every job is new. So the jobs of a batch are written optimistically, several jobs per
 * TransactWriteItems, each job's item conditioned on `attribute_not_exists(pk)`: a job's items and its
 * version are still written atomically (all of them in one transaction), and an existing job is never
 * overwritten blindly. When a transaction is cancelled, its per-item cancellation reasons say which jobs
 * already exist; those go the careful way (`fallback`: read, compare, conditional write) and the rest are
 * sent again. Jobs that would not fit in a shared transaction go the careful way straight away. A table that
 * is unavailable for a moment (throttling, a 5xx such as DynamoDB Local's "waiting for a lock") is waited out
 * under the table's retry policy, shared and careful writes alike; the jobs fail only once it stays so.
 */
import { settleConcurrently } from '../../async';
import { cancellationCodes } from '../../aws/failures';
import { DependencyUnavailableError } from '../../errors';
import { toFileItems, toJobItem } from './items';
import type { JobsTable } from './jobs-table';
import type { Job } from '../model/model';

/** DynamoDB's limits on one TransactWriteItems request. */
export const TRANSACTION_ITEM_LIMIT = 100;
export const TRANSACTION_BYTE_LIMIT = 4 * 1024 * 1024;
/** DynamoDB's limit on one item. */
const ITEM_BYTE_LIMIT = 400 * 1024;

/** What writing one job did (mirrors the repository's put result). */
export interface CreateResult {
  jobId: number;
  outcome: 'created' | 'updated' | 'unchanged';
  version: number;
}

export interface BatchCreateOptions {
  /** Most item writes per transaction (at most DynamoDB's 100). */
  transactionItems?: number;
  /** Transactions in flight at once. */
  concurrency?: number;
  /** Careful writes (existing jobs, jobs too large to share a transaction) in flight at once. */
  fallbackConcurrency?: number;
  /** The clock a new job's first version is taken from. */
  now?: () => number;
  /** Ids known to exist already: those jobs go the careful way at once (a transaction could only be cancelled). */
  existing?: ReadonlySet<number>;
}

export interface BatchCreateTarget {
  /** The gateway the transactions go through (its classifier and its backoff). */
  table: JobsTable;
  /** Writes one job the careful way: read its partition, compare, write conditioned on what was read. */
  fallback: (job: Job) => Promise<CreateResult>;
}

/**
 * An import did not apply a job because another writer (a rejection, an edit) changed it since an import
 * last wrote it, possibly while this import ran: the table keeps that newer change.
 */
export class JobSupersededError extends Error {
  public readonly jobId: number;

  public constructor(jobId: number, cause?: unknown) {
    super(`job ${jobId} was changed by another writer since it was imported; the table keeps that change`, {
      cause,
    });
    this.name = 'JobSupersededError';
    this.jobId = jobId;
  }
}

/** Errors of a request that took too long (the SDK's own timeout, or DynamoDB's). */
const TIMEOUT_ERROR_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);

/** Items per transaction at first, and the fewest timeouts shrink the transactions to. */
const MIN_TIMEOUT_BUDGET = 12;

/** How many times a transaction is sent again after being cancelled for reasons other than existing jobs. */
const MAX_TRANSACTION_ATTEMPTS = 6;

interface Planned {
  position: number;
  job: Job;
  version: number;
  items: Record<string, unknown>[];
  bytes: number;
}

/**
 * An upper bound of the size DynamoDB counts for an item: its JSON text is longer than the attribute
 * names plus values DynamoDB adds up (quotes, colons and commas count here, not there; numbers are
 * shorter there than their digits).
 */
const estimatedBytes = (item: object): number => Buffer.byteLength(JSON.stringify(item));

const plan = (job: Job, position: number, version: number): Planned => {
  const items = [
    { ...toJobItem(job, version), importedVersion: version } as unknown as Record<string, unknown>,
    ...toFileItems(job).map((item) => item as unknown as Record<string, unknown>),
  ];
  let bytes = 0;
  let largest = 0;
  for (const item of items) {
    const size = estimatedBytes(item);
    bytes += size;
    largest = Math.max(largest, size);
  }
  // An item over DynamoDB's limit makes the careful path report the job's own error.
  return { position, job, version, items, bytes: largest > ITEM_BYTE_LIMIT ? Number.POSITIVE_INFINITY : bytes };
};

/** Packs jobs in order into groups that each fit one transaction. */
const pack = (planned: readonly Planned[], maxItems: number): Planned[][] => {
  const groups: Planned[][] = [];
  let group: Planned[] = [];
  let items = 0;
  let bytes = 0;
  for (const entry of planned) {
    if (group.length > 0 && (items + entry.items.length > maxItems || bytes + entry.bytes > TRANSACTION_BYTE_LIMIT)) {
      groups.push(group);
      group = [];
      items = 0;
      bytes = 0;
    }
    group.push(entry);
    items += entry.items.length;
    bytes += entry.bytes;
  }
  if (group.length > 0) groups.push(group);
  return groups;
};

/**
 * Writes new jobs several per transaction and hands every job that exists (or does not fit) to the
 * careful path; settles one result per job, in input order. A job id must not appear twice.
 */
export const createJobsInBatches = async (
  target: BatchCreateTarget,
  jobs: readonly Job[],
  options: BatchCreateOptions = {},
): Promise<PromiseSettledResult<CreateResult>[]> => {
  const maxItems = Math.max(1, Math.min(TRANSACTION_ITEM_LIMIT, options.transactionItems ?? TRANSACTION_ITEM_LIMIT));
  const now = options.now ?? Date.now;
  const seen = new Set<number>();
  for (const job of jobs) {
    if (seen.has(job.id)) throw new TypeError(`Job ${job.id} appears twice in one batch of creates`);
    seen.add(job.id);
  }
  const results = new Array<PromiseSettledResult<CreateResult>>(jobs.length);
  const careful: Planned[] = [];
  const shared: Planned[] = [];
  const version = now();
  jobs.forEach((job, position) => {
    const entry = plan(job, position, version);
    if (
      options.existing?.has(job.id) !== true &&
      entry.items.length <= maxItems &&
      entry.bytes <= TRANSACTION_BYTE_LIMIT
    )
      shared.push(entry);
    else careful.push(entry);
  });

  const send = async (group: Planned[]): Promise<void> => {
    const transactItems = group.flatMap((entry) =>
      entry.items.map((item, index) => ({
        Put: {
          TableName: target.table.tableName,
          Item: item,
          ...(index === 0 ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
        },
      })),
    );
    await target.table.transactWrite(transactItems);
  };

  /**
   * Most items per transaction from now on, for every writer: it starts small and doubles with every
   * transaction that goes through (a table that has just started, or is loaded, answers small ones in
   * time), and halves with every timeout, so the other writers stop sending the large transactions
   * that time out too.
   */
  let itemBudget = Math.min(maxItems, MIN_TIMEOUT_BUDGET);
  const itemsOf = (group: readonly Planned[]): number => group.reduce((sum, entry) => sum + entry.items.length, 0);

  /** Set once the table is unavailable: the groups not yet written fail with it instead of waiting too. */
  let unavailable: DependencyUnavailableError | undefined;
  const fail = (group: readonly Planned[], reason: unknown): void => {
    for (const entry of group) results[entry.position] = { status: 'rejected', reason };
  };

  /**
   * Writes one group, sending it again without the jobs that exist until it goes through. A transaction
   * that times out is sent again as two halves, and every later transaction is kept to half the items:
   * a loaded table answers smaller transactions in time.
   */
  const write = async (initial: Planned[], firstAttempt = 0): Promise<void> => {
    let group = initial;
    // Unavailability other than a timeout (throttled past the SDK's retries, a 5xx, a lost lock) is waited out
    // under the table's retry policy — an operator's batch has one far longer than a request's — from here.
    const started = Date.now();
    let unavailableAttempts = 0;
    for (let attempt = firstAttempt; group.length > 0; attempt++) {
      if (unavailable !== undefined) {
        fail(group, unavailable);
        return;
      }
      if (attempt >= MAX_TRANSACTION_ATTEMPTS) {
        careful.push(...group);
        return;
      }
      if (attempt > 0) await target.table.pause(attempt);
      if (group.length > 1 && itemsOf(group) > itemBudget) {
        // Only the first piece at this size: the budget grows when it goes through, for the rest.
        const [first = [], ...rest] = pack(group, itemBudget);
        await write(first, attempt);
        await write(rest.flat(), attempt);
        return;
      }
      try {
        await send(group);
        itemBudget = Math.min(maxItems, itemBudget * 2);
        for (const entry of group) {
          results[entry.position] = {
            status: 'fulfilled',
            value: { jobId: entry.job.id, outcome: 'created', version: entry.version },
          };
        }
        return;
      } catch (error) {
        // What DynamoDB answered: the gateway wraps an unavailable DynamoDB (a timeout too) around it.
        const answer = error instanceof DependencyUnavailableError ? error.cause : error;
        const name = answer instanceof Error ? answer.name : '';
        if (name === 'ValidationException' && group.length > 1) {
          // One job's items were refused: write each job on its own so only that job fails.
          careful.push(...group);
          return;
        }
        if (TIMEOUT_ERROR_NAMES.has(name) && attempt + 1 < MAX_TRANSACTION_ATTEMPTS) {
          // Timed out: the transaction may or may not have been applied; a job it created fails its
          // condition when sent again and goes the careful way, which finds it unchanged.
          itemBudget = Math.min(itemBudget, Math.max(MIN_TIMEOUT_BUDGET, Math.floor(itemBudget / 2)));
          if (group.length === 1) continue;
          await target.table.pause(attempt + 1);
          const half = Math.ceil(group.length / 2);
          await write(group.slice(0, half), attempt + 1);
          await write(group.slice(half), attempt + 1);
          return;
        }
        if (name !== 'TransactionCanceledException') {
          if (!(error instanceof DependencyUnavailableError)) {
            fail(group, error);
            return;
          }
          unavailableAttempts += 1;
          const { maxAttempts, budgetMs } = target.table.retry;
          if (!TIMEOUT_ERROR_NAMES.has(name) && unavailableAttempts < maxAttempts && Date.now() - started < budgetMs) {
            await target.table.pause(unavailableAttempts);
            // Not a cancellation: the attempts that lead to the careful path stay as they were.
            attempt -= 1;
            continue;
          }
          unavailable ??= error;
          fail(group, unavailable);
          return;
        }
        // Cancelled: existing jobs leave the group; conflicts and throttling are sent again after a pause.
        const codes = cancellationCodes(answer);
        const remaining: Planned[] = [];
        let offset = 0;
        for (const entry of group) {
          const jobCodes = codes.slice(offset, offset + entry.items.length);
          offset += entry.items.length;
          // The job exists (its condition failed) or DynamoDB refused one of its items.
          if (jobCodes[0] === 'ConditionalCheckFailed' || jobCodes.includes('ValidationError')) careful.push(entry);
          else remaining.push(entry);
        }
        // Only the jobs that exist were in the way: the rest go again at once.
        if (remaining.length < group.length) attempt = -1;
        group = remaining;
      }
    }
  };

  await settleConcurrently(pack(shared, maxItems), options.concurrency ?? 8, (group) => write(group));
  careful.sort((a, b) => a.position - b.position);
  const settled = await settleConcurrently(careful, options.fallbackConcurrency ?? 8, async (entry) => {
    if (unavailable !== undefined) throw unavailable;
    // Read, compare and write conditioned on what was read: safe to run again once the table answers.
    return target.table.untilAvailable(() => target.fallback(entry.job));
  });
  careful.forEach((entry, index) => {
    results[entry.position] = settled[index] as PromiseSettledResult<CreateResult>;
  });
  return results;
};

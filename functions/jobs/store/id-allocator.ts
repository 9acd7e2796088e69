/**
 * The ids the API assigns to the jobs and files it creates (`POST /jobs`).
 *
 * Ids come from one counter item in the jobs table (`jobKeys.counter`), which holds the next id no one
 * has taken. A container reserves a block of ids at a time with one atomic update of the counter and
 * hands them out until the block is spent, so a create costs a counter update only once per block; the
 * ids a container reserved and never used are simply never used by anyone. The counter only grows, so
 * an id is never handed out twice.
 *
 * The API assigns ids from {@link API_ID_RANGE} alone. Imports keep every id of the contract's range, but
 * they may no longer write an id the API assigned (or reserved): {@link claimImportIds} refuses the ids of
 * the range below the counter, and moves the counter past any id of the range an import is about to
 * write, so the API never assigns one an import wrote. Both sides meet on the counter item, whose
 * updates DynamoDB serialises, so a create and an import running together can never share an id.
 */
import { ApiError } from '../../errors';
import { jobKeys } from '../../tables';
import type { JobsTable } from './jobs-table';

/**
 * The ids the API assigns: from one billion (above the ids of the systems jobs are imported from) up
 * to, not including, 10^15, so an import may still write any id from 10^15 up to the range's end
 * without ever meeting the allocator.
 */
export const API_ID_RANGE = { first: 1_000_000_000, end: 1_000_000_000_000_000 } as const;

/** Whether an id is one the API assigns (or may assign later). */
export const isApiRangeId = (id: number): boolean => id >= API_ID_RANGE.first && id < API_ID_RANGE.end;

/** Ids a container reserves at once: a job of 1,000 files and its job id fit one block. */
export const DEFAULT_BLOCK_SIZE = 1_024;

/** The counter reached the end of {@link API_ID_RANGE}: no new id can be assigned. */
export class IdsExhaustedError extends ApiError {
  public constructor() {
    super('internal_error', {}, { message: 'No new id can be assigned.' });
    this.name = 'IdsExhaustedError';
  }
}

/** The counter's attribute names and values in every request. */
const COUNTER_NAMES = { '#next': 'next' };

/**
 * Hands out new ids, reserving them from the counter a block at a time. One allocator per container
 * and table ({@link idAllocatorFor}); concurrent requests of one container share its block.
 */
export class IdAllocator {
  private table: JobsTable;
  private readonly blockSize: number;
  /** The ids reserved and not yet handed out: `[next, end)`. */
  private next = 0;
  private end = 0;
  /** The reservation under way, which concurrent callers wait for instead of reserving another block. */
  private queue: Promise<unknown> = Promise.resolve();

  public constructor(table: JobsTable, options: { blockSize?: number } = {}) {
    this.table = table;
    this.blockSize = Math.max(1, options.blockSize ?? DEFAULT_BLOCK_SIZE);
  }

  /** Reserves through this gateway from now on (the same table, reached by the current client). */
  public use(table: JobsTable): void {
    this.table = table;
  }

  /** `count` new ids, increasing; reserves a new block from the counter when this one runs out. */
  public allocate(count: number): Promise<number[]> {
    const run = this.queue.then(async () => {
      const ids: number[] = [];
      while (ids.length < count) {
        if (this.next >= this.end) await this.reserve(Math.max(this.blockSize, count - ids.length));
        ids.push(this.next);
        this.next += 1;
      }
      return ids;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Moves the counter on by `size` and keeps the ids it passed over. */
  private async reserve(size: number): Promise<void> {
    try {
      const attributes = await this.table.updateItem({
        Key: jobKeys.counter,
        UpdateExpression: 'SET #next = if_not_exists(#next, :first) + :size',
        ConditionExpression: 'attribute_not_exists(#next) OR #next <= :lastStart',
        ExpressionAttributeNames: COUNTER_NAMES,
        ExpressionAttributeValues: {
          ':first': API_ID_RANGE.first,
          ':size': size,
          ':lastStart': API_ID_RANGE.end - size,
        },
        ReturnValues: 'UPDATED_NEW',
      });
      const end = attributes?.next;
      if (typeof end !== 'number') throw new Error('The id counter answered no value');
      this.next = end - size;
      this.end = end;
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') throw new IdsExhaustedError();
      throw error;
    }
  }
}

const allocators = new Map<string, IdAllocator>();

/**
 * The container's allocator of a table (its block outlives the request that reserved it); it reserves
 * through the gateway of the latest request, so a client the container replaced is never used again.
 */
export const idAllocatorFor = (table: JobsTable): IdAllocator => {
  let allocator = allocators.get(table.tableName);
  if (allocator === undefined) {
    allocator = new IdAllocator(table);
    allocators.set(table.tableName, allocator);
  }
  allocator.use(table);
  return allocator;
};

/** How many times an import's claim is decided again when a create moved the counter meanwhile. */
const CLAIM_ATTEMPTS = 100;

/**
 * Claims for an import the ids it is about to write, before it writes them: answers the ids the API
 * assigned or reserved (they must not be written), and moves the counter past the others of
 * {@link API_ID_RANGE}, so the API never assigns them. Ids outside the range cost nothing. When a create
 * moves the counter between the read and the write, the claim is decided again after a pause.
 */
export const claimImportIds = async (table: JobsTable, ids: Iterable<number>): Promise<Set<number>> => {
  const candidates = [...new Set(ids)].filter(isApiRangeId);
  if (candidates.length === 0) return new Set();
  // An import is an operator's batch, not a request with an answer budget: it outlasts creates that keep
  // moving the counter, pausing a little longer after each lost race.
  for (let attempt = 1; ; attempt += 1) {
    const counter = await table.getItem(jobKeys.counter);
    const read = typeof counter?.next === 'number' ? counter.next : undefined;
    const next = read ?? API_ID_RANGE.first;
    const taken = new Set(candidates.filter((id) => id < next));
    const free = candidates.filter((id) => id >= next);
    if (free.length === 0) return taken;
    try {
      await table.updateItem({
        Key: jobKeys.counter,
        UpdateExpression: 'SET #next = :past',
        ConditionExpression: read === undefined ? 'attribute_not_exists(#next)' : '#next = :read',
        ExpressionAttributeNames: COUNTER_NAMES,
        ExpressionAttributeValues: { ':past': Math.max(...free) + 1, ...(read === undefined ? {} : { ':read': read }) },
      });
      return taken;
    } catch (error) {
      if (!(error instanceof Error && error.name === 'ConditionalCheckFailedException')) throw error;
      if (attempt >= CLAIM_ATTEMPTS) {
        throw new Error(`The id counter changed on each of ${attempt} attempts to claim an import's ids`, {
          cause: error,
        });
      }
      await table.pause(Math.min(attempt, 6));
    }
  }
};

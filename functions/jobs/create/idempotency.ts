/**
 * `Idempotency-Key` of `POST /jobs` (docs/contract.md §6a): the same key from the same client for the same
 * account within 24 hours answers the first answer again and creates nothing; the same key with another request
 * is refused; two requests racing with one key create one job.
 *
 * Each key has one record in the jobs table (`jobKeys.idempotency`, expiring by TTL on `ttl`), keyed by the
 * account, the client and the SHA-256 of the key: a key is one client's name for one create in one account, so
 * a session of another account never meets it. The first request claims it with a conditional put (`pending`,
 * with the request's fingerprint and a claim id of its own) and does the work, which writes the answer into the
 * record (`done`) in the very transaction that makes the job visible: a job never exists without its record
 * saying so, whatever fails after its commit. A request that finds the key claimed compares fingerprints (another
 * request → `409 idempotency_key_reused`), answers a stored answer, or waits for the one in progress, reading
 * the record. A claim whose work failed is released (marked so), so the client's retry runs again — only while
 * it is still pending and this request's: a work whose commit went through although it failed to say so finds
 * its record done and answers it. A claim whose container died (still pending after {@link LEASE_MS}) is taken
 * over; the old holder's commit, should it come late, fails on the claim id and creates nothing.
 */
import { createHash, randomUUID } from 'node:crypto';
import { sleep } from '../../async';
import { DYNAMODB } from '../../aws/failures';
import { ApiError, DependencyUnavailableError } from '../../errors';
import { jobKeys } from '../../tables';
import type { Item, ItemKey, JobsTable, TransactItem } from '../store/jobs-table';

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/** How long a claim may stay pending before another request takes it over: longer than any create runs. */
export const LEASE_MS = 60_000;

/** How long a request waits for the request that holds its key before answering `503` (retry later). */
export const WAIT_BUDGET_MS = 6_000;

/** The key was used before, within 24 hours, for another request: answered `409 idempotency_key_reused`. */
export class IdempotencyKeyReusedError extends ApiError {
  public constructor() {
    super('idempotency_key_reused', { headerName: 'Idempotency-Key' });
    this.name = 'IdempotencyKeyReusedError';
  }
}

/** A stored answer; the caller turns it into the response it replays. */
export type StoredAnswer = Record<string, unknown>;

/** Whose keys a key is one of: a client's, for one account. */
export interface IdempotencyScope {
  clientId: string;
  accountId: number;
}

/**
 * The write that completes a claim with its answer: an item for the transaction that commits the work, which
 * fails (and with it the transaction) unless the claim is still pending and this request's.
 */
export type Seal<T extends StoredAnswer> = (answer: T) => TransactItem;

/** The SHA-256 of a text, hex. */
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The fingerprint of a request: what it asked for (any JSON value, in a fixed key order). */
export const fingerprintOf = (request: unknown): string => sha256(JSON.stringify(request));

interface Claim extends ItemKey {
  claimId: string;
}

export interface IdempotencyOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** How long a request waits for the one that holds its key ({@link WAIT_BUDGET_MS} unless told). */
  waitBudgetMs?: number;
}

/** The record's attribute names in every request. */
const NAMES = { '#state': 'state', '#claimId': 'claimId' };

/** The idempotency records of one table. */
export class IdempotencyStore {
  private readonly table: JobsTable;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly waitBudgetMs: number;

  public constructor(table: JobsTable, options: IdempotencyOptions = {}) {
    this.table = table;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? sleep;
    this.waitBudgetMs = options.waitBudgetMs ?? WAIT_BUDGET_MS;
  }

  /**
   * Runs `work` once per scope and key: the first request does it, and `work` commits the answer it answers
   * with the item `seal` makes of it, in the transaction that commits the work; a later request with the same
   * fingerprint gets that answer (`replayed: true`), one with another fingerprint
   * {@link IdempotencyKeyReusedError}.
   */
  public async run<T extends StoredAnswer>(
    scope: IdempotencyScope,
    key: string,
    fingerprint: string,
    work: (seal: Seal<T>) => Promise<T>,
  ): Promise<{ answer: T; replayed: boolean }> {
    const started = this.now();
    const keys = jobKeys.idempotency(scope.clientId, scope.accountId, sha256(key));
    let found = await this.claim(keys, fingerprint);
    for (let attempt = 1; ; attempt += 1) {
      if ('claimId' in found) return this.complete(found, work);
      const record = found.record;
      if (record.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
      if (record.state === 'done') return { answer: record.answer as T, replayed: true };
      if (this.now() - started > this.waitBudgetMs) {
        throw new DependencyUnavailableError(DYNAMODB, new Error('An earlier request with this key is in progress'));
      }
      await this.sleep(Math.min(500, 25 * 2 ** Math.min(attempt, 5)));
      // Read, not claim: the holder's commit updates the record, and a write beside it could cancel that commit.
      const current = await this.table.getItem(keys);
      found =
        current === undefined || this.claimable(current) ? await this.claim(keys, fingerprint) : { record: current };
    }
  }

  /** Whether a record no longer holds its key: released, past its 24 hours, or pending past its lease. */
  private claimable(record: Item): boolean {
    const now = this.now();
    return (
      record.state === 'released' ||
      (typeof record.ttl === 'number' && record.ttl < Math.floor(now / 1000)) ||
      (record.state === 'pending' && typeof record.claimedAt === 'number' && record.claimedAt < now - LEASE_MS)
    );
  }

  /**
   * Claims the key for this request (a new record, or one whose claim expired or whose 24 hours passed),
   * or answers the record that holds it.
   */
  private async claim(keys: ItemKey, fingerprint: string): Promise<Claim | { record: Item }> {
    const now = this.now();
    const claimId = randomUUID();
    try {
      await this.table.putItem({
        Item: {
          ...keys,
          state: 'pending',
          fingerprint,
          claimId,
          claimedAt: now,
          ttl: Math.floor(now / 1000) + IDEMPOTENCY_TTL_SECONDS,
        },
        ConditionExpression:
          'attribute_not_exists(pk) OR #ttl < :nowSeconds OR #state = :released OR ' +
          '(#state = :pending AND #claimedAt < :leaseStart)',
        ExpressionAttributeNames: { '#ttl': 'ttl', '#state': 'state', '#claimedAt': 'claimedAt' },
        ExpressionAttributeValues: {
          ':nowSeconds': Math.floor(now / 1000),
          ':pending': 'pending',
          ':released': 'released',
          ':leaseStart': now - LEASE_MS,
        },
      });
      return { ...keys, claimId };
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'ConditionalCheckFailedException') throw error;
    }
    const record = await this.table.getItem(keys);
    // Released, or gone by TTL, between the put and the read: claim again.
    if (record === undefined || record.state === 'released') return this.claim(keys, fingerprint);
    return { record };
  }

  /** The item that stores a claim's answer, conditioned on the claim being still pending and this request's. */
  private seal<T extends StoredAnswer>(claim: Claim): Seal<T> {
    return (answer) => ({
      Update: {
        TableName: this.table.tableName,
        Key: { pk: claim.pk, sk: claim.sk },
        UpdateExpression: 'SET #state = :done, #answer = :answer REMOVE #claimedAt',
        ConditionExpression: '#state = :pending AND #claimId = :claimId',
        ExpressionAttributeNames: { ...NAMES, '#answer': 'answer', '#claimedAt': 'claimedAt' },
        ExpressionAttributeValues: {
          ':done': 'done',
          ':answer': answer,
          ':pending': 'pending',
          ':claimId': claim.claimId,
        },
      },
    });
  }

  /**
   * Does the work of a claimed key, which commits its answer. When the work fails, releases the claim; a claim
   * that is done already (the work's commit went through, and only its answer was lost) answers its answer.
   */
  private async complete<T extends StoredAnswer>(
    claim: Claim,
    work: (seal: Seal<T>) => Promise<T>,
  ): Promise<{ answer: T; replayed: boolean }> {
    try {
      return { answer: await work(this.seal(claim)), replayed: false };
    } catch (error) {
      const settled = await this.release(claim);
      if (settled?.state === 'done' && settled.claimId === claim.claimId) {
        return { answer: settled.answer as T, replayed: false };
      }
      throw error;
    }
  }

  /**
   * Gives a claim up so that a retry runs again (the record stays, marked `released`, until a request claims it
   * again) — only while it is pending and this request's: a completed record, or one another request took over,
   * is never released. Answers the record when it was not this request's pending claim (read consistently), and
   * nothing when the release went through or failed (the claim then expires after {@link LEASE_MS}).
   */
  private async release(claim: Claim): Promise<Item | undefined> {
    const key = { pk: claim.pk, sk: claim.sk };
    try {
      await this.table.updateItem({
        Key: key,
        UpdateExpression: 'SET #state = :released',
        ConditionExpression: '#state = :pending AND #claimId = :claimId',
        ExpressionAttributeNames: NAMES,
        ExpressionAttributeValues: { ':claimId': claim.claimId, ':pending': 'pending', ':released': 'released' },
      });
      return undefined;
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'ConditionalCheckFailedException') return undefined;
    }
    try {
      return await this.table.getItem(key);
    } catch {
      return undefined;
    }
  }
}

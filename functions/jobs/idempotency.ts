/**
 * `Idempotency-Key` of `POST /jobs` (docs/contract.md §6a): the same key from the same client for the same
 * account within 24 hours answers the first answer again and creates nothing; the same key with another
 * request is refused; two requests racing with one key create one job.
 *
 * Each key has one record in the jobs table (`jobKeys.idempotency`, expiring by TTL on `ttl`), keyed by
 * the account, the client and the SHA-256 of the key: a key is one client's name for one create in one
 * account, so a session of another account never meets it. The first request claims it with a conditional put (`pending`,
 * with the request's fingerprint), does the work and stores its answer (`done`). A request that finds the
 * key claimed compares fingerprints (another request → `409 idempotency_key_reused`), answers a stored
 * answer, or waits for the one in progress. A claim whose request failed is released (marked so), so the
 * client's retry runs again; one whose container died (still pending after {@link LEASE_MS}) is taken over.
 */
import { createHash, randomUUID } from 'node:crypto';
import { sleep } from '../async';
import { DYNAMODB } from '../aws/failures';
import { ApiError, DependencyUnavailableError } from '../errors';
import { jobKeys } from '../tables';
import type { Item, JobsTable } from './jobs-table';

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

/** The SHA-256 of a text, hex. */
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The fingerprint of a request: what it asked for (any JSON value, in a fixed key order). */
export const fingerprintOf = (request: unknown): string => sha256(JSON.stringify(request));

interface Claim {
  pk: string;
  sk: string;
  token: string;
}

export interface IdempotencyOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The idempotency records of one table. */
export class IdempotencyStore {
  private readonly table: JobsTable;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  public constructor(table: JobsTable, options: IdempotencyOptions = {}) {
    this.table = table;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? sleep;
  }

  /**
   * Runs `work` once per scope and key: the first request does it and stores what `work` answers; a
   * later request with the same fingerprint gets that answer (`replayed: true`), one with another
   * fingerprint {@link IdempotencyKeyReusedError}.
   */
  public async run<T extends StoredAnswer>(
    scope: IdempotencyScope,
    key: string,
    fingerprint: string,
    work: () => Promise<T>,
  ): Promise<{ answer: T; replayed: boolean }> {
    const started = this.now();
    const keys = jobKeys.idempotency(scope.clientId, scope.accountId, sha256(key));
    for (let attempt = 1; ; attempt += 1) {
      const claim = await this.claim(keys, fingerprint);
      if ('token' in claim) return { answer: await this.complete(claim, work), replayed: false };
      const record = claim.record;
      if (record.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
      if (record.state === 'done') return { answer: record.answer as T, replayed: true };
      if (this.now() - started > WAIT_BUDGET_MS) {
        throw new DependencyUnavailableError(DYNAMODB, new Error('An earlier request with this key is in progress'));
      }
      await this.sleep(Math.min(500, 25 * 2 ** Math.min(attempt, 5)));
    }
  }

  /**
   * Claims the key for this request (a new record, or one whose claim expired or whose 24 hours passed),
   * or answers the record that holds it.
   */
  private async claim(keys: { pk: string; sk: string }, fingerprint: string): Promise<Claim | { record: Item }> {
    const now = this.now();
    const token = randomUUID();
    try {
      await this.table.putItem({
        Item: {
          ...keys,
          state: 'pending',
          fingerprint,
          token,
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
      return { ...keys, token };
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'ConditionalCheckFailedException') throw error;
    }
    const record = await this.table.getItem(keys);
    // Released, or gone by TTL, between the put and the read: claim again.
    if (record === undefined || record.state === 'released') return this.claim(keys, fingerprint);
    return { record };
  }

  /** Does the work of a claimed key and stores its answer; releases the claim when the work fails. */
  private async complete<T extends StoredAnswer>(claim: Claim, work: () => Promise<T>): Promise<T> {
    let answer: T;
    try {
      answer = await work();
    } catch (error) {
      await this.release(claim);
      throw error;
    }
    await this.table.updateItem({
      Key: { pk: claim.pk, sk: claim.sk },
      UpdateExpression: 'SET #state = :done, #answer = :answer REMOVE #claimedAt',
      ConditionExpression: '#token = :token',
      ExpressionAttributeNames: {
        '#state': 'state',
        '#answer': 'answer',
        '#token': 'token',
        '#claimedAt': 'claimedAt',
      },
      ExpressionAttributeValues: { ':done': 'done', ':answer': answer, ':token': claim.token },
    });
    return answer;
  }

  /**
   * Gives a claim up so that a retry runs again (the record stays, marked `released`, until a request claims
   * it again); a release that fails leaves the claim to expire after {@link LEASE_MS}.
   */
  private async release(claim: Claim): Promise<void> {
    try {
      await this.table.updateItem({
        Key: { pk: claim.pk, sk: claim.sk },
        UpdateExpression: 'SET #state = :released',
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#token': 'token', '#state': 'state' },
        ExpressionAttributeValues: { ':token': claim.token, ':released': 'released' },
      });
    } catch {
      // The claim expires after LEASE_MS and is taken over then.
    }
  }
}

/**
 * Rejecting files (docs/contract.md §5): find each file, check that the caller may reject it, and apply
 * every file and job change in one conditional DynamoDB transaction — all or nothing, never
 * overwriting a concurrent change, and a repeat of the same review changes nothing.
 *
 * The module has two halves: pure rules (what a rejection does to a file and its job, which file
 * refuses first, whether the writes fit DynamoDB's size limits) and the use case {@link RejectFiles},
 * which reads, decides and writes, retrying the whole read-check-write when a concurrent writer got
 * there first.
 */
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Principal } from '../auth/principal';
import { accountScope } from '../auth/principal';
import { ApiError, DependencyUnavailableError } from '../http/errors';
import { JOBS_TABLE, jobKeys } from '../tables';
import { type FileItem, fromFileItem } from './items';
import {
  type JobFile,
  type JobStatus,
  MAX_PREVIOUS_REVIEWS,
  REVIEWABLE_STATUSES,
  type RejectReason,
  type Review,
} from './model';
import type { FileRejection, RejectRequest } from './model';

// ---------------------------------------------------------------------------------------------------
// The response
// ---------------------------------------------------------------------------------------------------

/** One file of the response, in request order. */
export interface RejectedFile {
  fileId: number;
  jobId: number;
  isRejected: boolean;
  rejectionReason: string | null;
  reviewDate: string | null;
}

/** One distinct job of the response, in order of first appearance. */
export interface RejectedJob {
  id: number;
  status: JobStatus;
}

/** The `200` body of `POST /reject`. */
export interface RejectResponseBody {
  _type: 'RejectResponseBody';
  files: RejectedFile[];
  jobs: RejectedJob[];
}

// ---------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------

/** Why a file cannot be rejected, in the order the checks run. */
export type RejectRefusalCode = 'file_not_found' | 'job_archived' | 'file_not_rejectable';

/**
 * The request names a file that cannot be rejected; nothing was written. Answered with the code's
 * status and the offending `fileId`.
 */
export class FileRejectionRefusedError extends ApiError {
  public readonly fileId: number;

  public constructor(code: RejectRefusalCode, fileId: number, message?: string) {
    super(code, { fileId }, message === undefined ? {} : { message });
    this.name = 'FileRejectionRefusedError';
    this.fileId = fileId;
  }
}

/** Which DynamoDB size limit a rejection would break: one item's, or the whole transaction's. */
export type RejectSizeLimit = 'item' | 'transaction';

const SIZE_REFUSAL_MESSAGES: Record<RejectSizeLimit, string> = {
  item: "The file's review history is too large to store another review.",
  transaction:
    'The files of this request hold too much review history to be rejected together; reject fewer files per request.',
};

/**
 * Writing the rejection would break a DynamoDB size limit: the file's item would outgrow
 * {@link ITEM_SIZE_BUDGET}, or the request's transaction would outgrow {@link TRANSACTION_SIZE_BUDGET}
 * once this file is added. Answered as `409 file_not_rejectable` naming the file; nothing was written.
 */
export class RejectionTooLargeError extends FileRejectionRefusedError {
  public readonly limit: RejectSizeLimit;
  /** The estimated size that broke the budget, in bytes. */
  public readonly estimatedBytes: number;
  public readonly budgetBytes: number;

  public constructor(limit: RejectSizeLimit, fileId: number, estimatedBytes: number, budgetBytes: number) {
    super('file_not_rejectable', fileId, SIZE_REFUSAL_MESSAGES[limit]);
    this.name = 'RejectionTooLargeError';
    this.limit = limit;
    this.estimatedBytes = estimatedBytes;
    this.budgetBytes = budgetBytes;
  }
}

/**
 * Concurrent writers kept invalidating what this request read, through every attempt: answered as
 * `503 service_unavailable` (nothing was written; retrying later is safe).
 */
export class RejectContentionError extends DependencyUnavailableError {
  public readonly attempts: number;

  public constructor(attempts: number, cause?: unknown) {
    super('DynamoDB', cause, 1);
    this.name = 'RejectContentionError';
    this.attempts = attempts;
  }
}

// ---------------------------------------------------------------------------------------------------
// Sizes
// ---------------------------------------------------------------------------------------------------

/**
 * The largest estimated size, in bytes, a file item may have after a rejection. DynamoDB refuses items
 * over 400 KB (409,600 bytes); the 29,600 bytes between (7%) absorb any difference between
 * {@link estimatedItemSize} and the service's own accounting, which is published as rules, not as code.
 */
export const ITEM_SIZE_BUDGET = 380_000;

/**
 * The largest estimated size, in bytes, of everything one request's transaction touches. DynamoDB
 * refuses a transaction whose items add up to more than 4 MB (4,194,304 bytes). Each action counts with
 * its whole item (after the change for an update, as read for a check), the strictest reading of that
 * rule; the 694,304 bytes left (17%) hold the keys, expressions and placeholders of up to 100 actions
 * (under 1 KB each) with room to spare.
 */
export const TRANSACTION_SIZE_BUDGET = 3_500_000;

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * A number's stored size: DynamoDB keeps one byte per two significant digits plus about one byte. Every
 * digit of its decimal text is counted as significant and two bytes are added (three when negative), so
 * the estimate never falls short.
 */
const numberBytes = (value: number | bigint): number => {
  const text = String(value);
  const digits = text.replace(/[^0-9]/g, '').length;
  return 2 + Math.ceil(digits / 2) + (text.startsWith('-') ? 1 : 0);
};

const isDefined = (value: unknown): boolean => value !== undefined;

/** The stored size of one attribute value, by DynamoDB's published sizing rules, rounded up. */
export const attributeValueBytes = (value: unknown): number => {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8Bytes(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberBytes(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set || Array.isArray(value)) {
    const elements = [...(value as Iterable<unknown>)];
    return elements.reduce<number>((total, element) => total + 1 + attributeValueBytes(element), 3);
  }
  if (typeof value === 'object') {
    return Object.entries(value)
      .filter(([, field]) => isDefined(field))
      .reduce((total, [name, field]) => total + 1 + utf8Bytes(name) + attributeValueBytes(field), 3);
  }
  return utf8Bytes(String(value));
};

/**
 * A conservative estimate of an item's stored size in bytes: the UTF-8 length of every attribute name
 * plus the size of every value (strings by their UTF-8 length, numbers by their digits, lists and maps
 * with DynamoDB's per-container and per-element overhead). Attributes left undefined are not stored.
 */
export const estimatedItemSize = (item: object): number =>
  Object.entries(item)
    .filter(([, value]) => isDefined(value))
    .reduce((total, [name, value]) => total + utf8Bytes(name) + attributeValueBytes(value), 0);

// ---------------------------------------------------------------------------------------------------
// Pure rules
// ---------------------------------------------------------------------------------------------------

/** The job fields a rejection reads: who owns it, where it is in its lifecycle, its version. */
export interface StoredJob {
  id: number;
  accountId: number;
  status: JobStatus;
  version: number;
  /** The estimated stored size of the job item as read ({@link estimatedItemSize}), in bytes. */
  itemBytes: number;
}

/** A file as read, with its job and its raw item (the item guards the conditional write). */
export interface StoredFile {
  job: StoredJob;
  file: JobFile;
  item: FileItem;
}

/** `" - " + reasons joined by " - "`, or the custom rejection when there are no reasons. */
export const rejectionReasonOf = (review: Pick<Review, 'customRejection' | 'rejects'>): string | null =>
  review.rejects.length > 0
    ? ` - ${review.rejects.map((reject) => reject.reason).join(' - ')}`
    : review.customRejection;

const normalisedCustomRejection = (text: string | null | undefined): string | null =>
  text === null || text === undefined || text.trim().length === 0 ? null : text;

const sameRejects = (stored: readonly RejectReason[], requested: readonly RejectReason[]): boolean =>
  stored.length === requested.length &&
  stored.every((reject, index) => {
    const other = requested[index]!;
    const positions = reject.positions ?? [];
    return (
      reject.reason === other.reason &&
      positions.length === other.positions.length &&
      positions.every(
        (position, at) =>
          position.xPercent === other.positions[at]!.xPercent && position.yPercent === other.positions[at]!.yPercent,
      )
    );
  });

/** Whether the file is already rejected with exactly this review (then rejecting again is a no-op). */
export const isSameRejection = (file: JobFile, rejection: FileRejection): boolean =>
  file.isRejected &&
  file.reviews !== null &&
  normalisedCustomRejection(file.reviews.customRejection) === rejection.customRejection &&
  sameRejects(file.reviews.rejects ?? [], rejection.rejects);

/**
 * The first reason a caller may not reject a stored file, or `undefined` when it may. A user asking for
 * another account's file is told it does not exist.
 */
export const refusalOf = (
  stored: StoredFile | undefined,
  principal: Pick<Principal, 'role' | 'accountId'>,
): RejectRefusalCode | undefined => {
  const scope = accountScope(principal);
  if (stored === undefined || (scope !== undefined && stored.job.accountId !== scope)) return 'file_not_found';
  if (stored.job.status === 'CJ_ARCHIVED') return 'job_archived';
  if (!REVIEWABLE_STATUSES.includes(stored.job.status) || stored.file.acceptedByUser) return 'file_not_rejectable';
  return undefined;
};

/** The file after the rejection: the new review current, the earlier one kept in `previousReviews`. */
export const rejectedFile = (file: JobFile, rejection: FileRejection, now: string): JobFile => {
  const review: Review = { customRejection: rejection.customRejection, rejects: rejection.rejects, reviewDate: now };
  return {
    ...file,
    isRejected: true,
    isReviewed: true,
    reviewDate: now,
    rejectionReason: rejectionReasonOf(review),
    reviews: review,
    previousReviews: (file.reviews === null ? file.previousReviews : [...file.previousReviews, file.reviews]).slice(
      -MAX_PREVIOUS_REVIEWS,
    ),
  };
};

/** One file to write: the item as read (the write's guard) and the file after the rejection. */
export interface FileChange {
  before: FileItem;
  after: JobFile;
}

/** Everything one request writes, grouped by job. */
export interface RejectPlan {
  /** Jobs with at least one file to change: each gets a version bump and the review status. */
  changedJobs: Array<{ job: StoredJob; files: FileChange[] }>;
  /** Jobs whose requested files are all unchanged repeats, in a request that changes other jobs. */
  unchangedJobs: StoredJob[];
  /**
   * Files that repeat their current review, in a request that changes other files: the write checks
   * that each is still as read, so the answer it gives for them is still true when it commits.
   */
  unchangedFiles: FileItem[];
  /** The answer once the plan is written (or immediately, when there is nothing to write). */
  response: RejectResponseBody;
}

/** The status a job takes when one of its files is rejected. */
export const REJECTED_JOB_STATUS: JobStatus = 'CJ_REJECT_READY';

/**
 * The estimated stored size of a file item after the rejection: the item as read with the file's new
 * state over it (other attributes of the item are kept by the update, so they count too).
 */
export const rejectedItemSize = (before: FileItem, after: JobFile): number =>
  estimatedItemSize({ ...before, ...after });

/** An upper bound of a job item's size once a rejection has set its status, `reviewedDate` and version. */
const rejectedJobSize = (job: StoredJob, now: string): number =>
  job.itemBytes + estimatedItemSize({ status: REJECTED_JOB_STATUS, reviewedDate: now, version: job.version + 1 });

/** What one file of the request adds to its transaction, in bytes: its own item and, once, its job's. */
interface TransactionShare {
  fileId: number;
  bytes: number;
}

/**
 * Throws {@link RejectionTooLargeError} for the first file, in request order, whose share takes the
 * transaction's estimated size over {@link TRANSACTION_SIZE_BUDGET}.
 */
const checkTransactionSize = (shares: readonly TransactionShare[]): void => {
  let total = 0;
  for (const { fileId, bytes } of shares) {
    total += bytes;
    if (total > TRANSACTION_SIZE_BUDGET) {
      throw new RejectionTooLargeError('transaction', fileId, total, TRANSACTION_SIZE_BUDGET);
    }
  }
};

/**
 * Decides what a request does, given the stored state of its files (keyed by file id). Throws
 * {@link FileRejectionRefusedError} for the first refused file in request order — one that may not be
 * rejected, or whose item would outgrow {@link ITEM_SIZE_BUDGET} — and {@link RejectionTooLargeError}
 * when the request's transaction would outgrow {@link TRANSACTION_SIZE_BUDGET}; otherwise returns the
 * writes (none when every file repeats its current review) and the response.
 */
export const planRejection = (
  request: RejectRequest,
  stored: ReadonlyMap<number, StoredFile>,
  principal: Pick<Principal, 'role' | 'accountId'>,
  now: string,
): RejectPlan => {
  const changes = new Map<number, { job: StoredJob; files: FileChange[] }>();
  const jobs = new Map<number, StoredJob>();
  const repeats: FileItem[] = [];
  const shares: TransactionShare[] = [];
  const files: RejectedFile[] = request.files.map((rejection) => {
    const found = stored.get(rejection.fileId);
    const refusal = refusalOf(found, principal);
    if (refusal !== undefined) throw new FileRejectionRefusedError(refusal, rejection.fileId);
    const { job, file, item } = found!;
    const jobBytes = jobs.has(job.id) ? 0 : rejectedJobSize(job, now);
    if (!jobs.has(job.id)) jobs.set(job.id, job);
    if (isSameRejection(file, rejection)) {
      repeats.push(item);
      shares.push({ fileId: file.id, bytes: estimatedItemSize(item) + jobBytes });
      return {
        fileId: file.id,
        jobId: job.id,
        isRejected: true,
        rejectionReason: file.rejectionReason ?? rejectionReasonOf(file.reviews!),
        reviewDate: file.reviewDate ?? file.reviews!.reviewDate,
      };
    }
    const after = rejectedFile(file, rejection, now);
    const bytes = rejectedItemSize(item, after);
    if (bytes > ITEM_SIZE_BUDGET) throw new RejectionTooLargeError('item', file.id, bytes, ITEM_SIZE_BUDGET);
    shares.push({ fileId: file.id, bytes: bytes + jobBytes });
    const entry = changes.get(job.id) ?? { job, files: [] };
    entry.files.push({ before: item, after });
    changes.set(job.id, entry);
    return {
      fileId: after.id,
      jobId: job.id,
      isRejected: after.isRejected,
      rejectionReason: after.rejectionReason,
      reviewDate: after.reviewDate,
    };
  });
  const changedJobs = [...changes.values()];
  if (changedJobs.length > 0) checkTransactionSize(shares);
  return {
    changedJobs,
    unchangedJobs: changedJobs.length === 0 ? [] : [...jobs.values()].filter((job) => !changes.has(job.id)),
    unchangedFiles: changedJobs.length === 0 ? [] : repeats,
    response: {
      _type: 'RejectResponseBody',
      files,
      jobs: [...jobs.values()].map((job) => ({
        id: job.id,
        status: changes.has(job.id) ? REJECTED_JOB_STATUS : job.status,
      })),
    },
  };
};

// ---------------------------------------------------------------------------------------------------
// The transaction
// ---------------------------------------------------------------------------------------------------

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The file attributes a rejection derives from: if any changed since the read, the write must fail. */
const GUARDED_FILE_ATTRIBUTES = ['isRejected', 'acceptedByUser', 'reviewDate'] as const;

/** A condition under construction: its clauses (joined with AND) and their placeholders. */
interface Condition {
  clauses: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** Adds a clause that holds only while the attribute still has the value it was read with. */
const requireAsRead = (condition: Condition, attribute: string, value: unknown): void => {
  const name = `#${attribute}`;
  condition.names[name] = attribute;
  if (value === undefined) {
    condition.clauses.push(`attribute_not_exists(${name})`);
  } else if (value === null) {
    condition.values[':nullType'] = 'NULL';
    condition.clauses.push(`attribute_type(${name}, :nullType)`);
  } else {
    condition.values[`:was_${attribute}`] = value;
    condition.clauses.push(`${name} = :was_${attribute}`);
  }
};

/** A condition that holds only while each guarded attribute still has the value it was read with. */
const unchangedCondition = (item: FileItem): Condition => {
  const condition: Condition = { clauses: ['attribute_exists(#pk)'], names: { '#pk': 'pk' }, values: {} };
  for (const attribute of GUARDED_FILE_ATTRIBUTES) {
    requireAsRead(condition, attribute, (item as unknown as Record<string, unknown>)[attribute]);
  }
  return condition;
};

/**
 * How the review a rejection replaces reaches `previousReviews`, which keeps the
 * {@link MAX_PREVIOUS_REVIEWS} most recent. While the list has room, the review is appended to the list
 * as stored (an absent list starts empty), so the write carries that one review and never the history;
 * a full list is written whole, its oldest review dropped, so the history, the item and every later
 * write stay bounded however often a file is rejected. Either way the write requires the list to still
 * hold as many reviews as were read, so it never lands on a list another writer changed meanwhile. An
 * item holding something else than a list there (`null`) gets a list of the one review, required to
 * still hold what was read.
 */
const moveToHistory = (condition: Condition, before: FileItem, moved: Review): { set: string } => {
  const history: unknown = (before as unknown as Record<string, unknown>).previousReviews;
  condition.names['#previousReviews'] = 'previousReviews';
  condition.values[':moved'] = [moved];
  if (!Array.isArray(history) && history !== undefined) {
    requireAsRead(condition, 'previousReviews', history);
    return { set: '#previousReviews = :moved' };
  }
  if (history === undefined) {
    condition.clauses.push('attribute_not_exists(#previousReviews)');
  } else {
    condition.values[':was_previousReviewCount'] = history.length;
    condition.clauses.push('size(#previousReviews) = :was_previousReviewCount');
    if (history.length >= MAX_PREVIOUS_REVIEWS) {
      condition.values[':moved'] = [...history, moved].slice(-MAX_PREVIOUS_REVIEWS);
      return { set: '#previousReviews = :moved' };
    }
  }
  condition.values[':empty'] = [];
  return { set: '#previousReviews = list_append(if_not_exists(#previousReviews, :empty), :moved)' };
};

const fileUpdate = (tableName: string, change: FileChange, now: string): TransactItem => {
  const condition = unchangedCondition(change.before);
  const moved = change.before.reviews ?? null;
  const sets = [
    '#isRejected = :true',
    '#isReviewed = :true',
    '#reviewDate = :now',
    '#rejectionReason = :reason',
    '#reviews = :review',
  ];
  if (moved !== null) sets.push(moveToHistory(condition, change.before, moved).set);
  return {
    Update: {
      TableName: tableName,
      Key: { pk: change.before.pk, sk: change.before.sk },
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: condition.clauses.join(' AND '),
      ExpressionAttributeNames: {
        ...condition.names,
        '#isReviewed': 'isReviewed',
        '#rejectionReason': 'rejectionReason',
        '#reviews': 'reviews',
      },
      ExpressionAttributeValues: {
        ...condition.values,
        ':true': true,
        ':now': now,
        ':reason': change.after.rejectionReason,
        ':review': change.after.reviews,
      },
    },
  };
};

/**
 * The one thing a rejection reads from its job item (besides the owner, which never changes): that the
 * job is in review. The condition holds while the status is one of {@link REVIEWABLE_STATUSES}, so
 * rejections of different files of one job do not invalidate each other, while a job archived or sent
 * back to work in the meantime still fails the write.
 */
const reviewableCondition = () => {
  const values: Record<string, unknown> = {};
  const placeholders = REVIEWABLE_STATUSES.map((status, index) => {
    values[`:reviewable${index}`] = status;
    return `:reviewable${index}`;
  });
  return { expression: `#status IN (${placeholders.join(', ')})`, names: { '#status': 'status' }, values };
};

const jobUpdate = (tableName: string, job: StoredJob, now: string): TransactItem => {
  const guard = reviewableCondition();
  return {
    Update: {
      TableName: tableName,
      Key: { pk: jobKeys.pk(job.id), sk: jobKeys.jobSk },
      UpdateExpression: 'SET #status = :status, #reviewedDate = :now ADD #version :one',
      ConditionExpression: guard.expression,
      ExpressionAttributeNames: { ...guard.names, '#reviewedDate': 'reviewedDate', '#version': 'version' },
      ExpressionAttributeValues: { ...guard.values, ':status': REJECTED_JOB_STATUS, ':now': now, ':one': 1 },
    },
  };
};

const jobUnchanged = (tableName: string, job: StoredJob): TransactItem => {
  const guard = reviewableCondition();
  return {
    ConditionCheck: {
      TableName: tableName,
      Key: { pk: jobKeys.pk(job.id), sk: jobKeys.jobSk },
      ConditionExpression: guard.expression,
      ExpressionAttributeNames: guard.names,
      ExpressionAttributeValues: guard.values,
    },
  };
};

const fileUnchanged = (tableName: string, item: FileItem): TransactItem => {
  const guard = unchangedCondition(item);
  return {
    ConditionCheck: {
      TableName: tableName,
      Key: { pk: item.pk, sk: item.sk },
      ConditionExpression: guard.clauses.join(' AND '),
      ExpressionAttributeNames: guard.names,
      ...(Object.keys(guard.values).length > 0 ? { ExpressionAttributeValues: guard.values } : {}),
    },
  };
};

/**
 * The items of the one transaction that writes a plan: per changed job, its files (each guarded by
 * what was read) and the job item (review status, `reviewedDate`, version incremented atomically by
 * one, conditioned on the job still being in review); per unchanged job of the request, a check that
 * it is still in review; per repeated file, a check that it is still as read. Every file of the request
 * is one item and every job one more: at most 50 + 50, within the 100 items a transaction may hold.
 */
export const transactItems = (tableName: string, plan: RejectPlan, now: string): TransactItem[] => [
  ...plan.changedJobs.flatMap(({ job, files }) => [
    ...files.map((change) => fileUpdate(tableName, change, now)),
    jobUpdate(tableName, job, now),
  ]),
  ...plan.unchangedJobs.map((job) => jobUnchanged(tableName, job)),
  ...plan.unchangedFiles.map((item) => fileUnchanged(tableName, item)),
];

/** Whether a failed transaction lost a race (retry the whole read-check-write) rather than failed for good. */
export const isContention = (error: unknown): boolean => {
  if (typeof error !== 'object' || error === null) return false;
  const { name, CancellationReasons } = error as { name?: string; CancellationReasons?: Array<{ Code?: string }> };
  if (name === 'TransactionConflictException' || name === 'TransactionInProgressException') return true;
  if (name !== 'TransactionCanceledException') return false;
  const codes = (CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
  const retryable = new Set(['ConditionalCheckFailed', 'TransactionConflict', 'ThrottlingError', 'None']);
  return codes.some((code) => code !== 'None') && codes.every((code) => retryable.has(code));
};

// ---------------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------------

interface ItemKey {
  pk: string;
  sk: string;
}

const LOOKUP_CONCURRENCY = 10;
const BATCH_GET_LIMIT = 100;
const BATCH_GET_ATTEMPTS = 5;

const mapConcurrently = async <T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>) => {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await map(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Retry timing: full-jitter exponential backoff, bounded in attempts and in total time. */
export interface RetryPolicy {
  /** Attempts of the whole read-check-write, the first included. */
  maxAttempts: number;
  /** Upper bound of the first backoff, in milliseconds; doubles per attempt. */
  baseDelayMs: number;
  /** Upper bound of any one backoff, in milliseconds. */
  maxDelayMs: number;
  /** No new attempt starts once this much time has passed since the request began, in milliseconds. */
  budgetMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 10, baseDelayMs: 20, maxDelayMs: 400, budgetMs: 7_000 };

/** How the use case reaches the world; tests replace the clock, the randomness and the waiting. */
export interface RejectFilesOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  retry?: Partial<RetryPolicy>;
  now?: () => Date;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The reject use case. `run` answers the response body, or throws {@link FileRejectionRefusedError}
 * (nothing written) or {@link RejectContentionError} (retries exhausted, nothing written).
 */
export class RejectFiles {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly retry: RetryPolicy;
  private readonly now: () => Date;
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  public constructor(options: RejectFilesOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? sleep;
  }

  /** Rejects the files of a validated request on behalf of a caller. */
  public async run(request: RejectRequest, principal: Pick<Principal, 'role' | 'accountId'>) {
    const started = this.now().getTime();
    const locations = await this.locate(request.files.map((file) => file.fileId));
    let lastContention: unknown;
    for (let attempt = 1; attempt <= this.retry.maxAttempts; attempt += 1) {
      const stored = await this.read(locations);
      const now = this.now().toISOString();
      const plan = planRejection(request, stored, principal, now);
      if (plan.changedJobs.length === 0) return plan.response;
      try {
        await this.client.send(new TransactWriteCommand({ TransactItems: transactItems(this.tableName, plan, now) }));
        return plan.response;
      } catch (error) {
        if (!isContention(error)) throw error;
        lastContention = error;
      }
      const delay = this.random() * Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
      if (this.now().getTime() + delay - started > this.retry.budgetMs) {
        throw new RejectContentionError(attempt, lastContention);
      }
      await this.sleep(delay);
    }
    throw new RejectContentionError(this.retry.maxAttempts, lastContention);
  }

  /**
   * Where each file lives, from the sparse `byFileId` index. The index is eventually consistent: a file
   * it does not list yet is treated as not found. A file's location never changes, so it is looked up
   * once per request, not once per attempt.
   */
  private async locate(fileIds: readonly number[]): Promise<Map<number, ItemKey>> {
    const found = await mapConcurrently(fileIds, LOOKUP_CONCURRENCY, async (fileId) => {
      const { Items } = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: JOBS_TABLE.globalSecondaryIndexes[0].indexName,
          KeyConditionExpression: '#fileId = :fileId',
          ExpressionAttributeNames: { '#fileId': 'fileId' },
          ExpressionAttributeValues: { ':fileId': fileId },
        }),
      );
      const item = Items?.find((candidate) => typeof candidate.pk === 'string' && typeof candidate.sk === 'string');
      return item === undefined ? undefined : { pk: item.pk as string, sk: item.sk as string };
    });
    const locations = new Map<number, ItemKey>();
    fileIds.forEach((fileId, index) => {
      const location = found[index];
      if (location !== undefined) locations.set(fileId, location);
    });
    return locations;
  }

  /** The current state of the located files and their jobs, read strongly consistently by key. */
  private async read(locations: ReadonlyMap<number, ItemKey>): Promise<Map<number, StoredFile>> {
    const jobPartitions = new Set([...locations.values()].map((key) => key.pk));
    const keys: ItemKey[] = [...locations.values(), ...[...jobPartitions].map((pk) => ({ pk, sk: jobKeys.jobSk }))];
    const items = await this.batchGet(keys);
    const stored = new Map<number, StoredFile>();
    for (const [fileId, location] of locations) {
      const fileItem = items.get(`${location.pk}\u0000${location.sk}`);
      const jobItem = items.get(`${location.pk}\u0000${jobKeys.jobSk}`);
      if (fileItem?.entity !== 'file' || fileItem.fileId !== fileId || jobItem?.entity !== 'job') continue;
      stored.set(fileId, {
        job: {
          id: jobItem.id as number,
          accountId: jobItem.accountId as number,
          status: jobItem.status as JobStatus,
          version: jobItem.version as number,
          itemBytes: estimatedItemSize(jobItem),
        },
        file: fromFileItem(fileItem as unknown as FileItem),
        item: fileItem as unknown as FileItem,
      });
    }
    return stored;
  }

  private async batchGet(keys: readonly ItemKey[]): Promise<Map<string, Record<string, unknown>>> {
    const items = new Map<string, Record<string, unknown>>();
    for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) {
      let pending: Array<Record<string, unknown>> = keys
        .slice(start, start + BATCH_GET_LIMIT)
        .map((key) => ({ ...key }));
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        if (attempt > BATCH_GET_ATTEMPTS) throw new DependencyUnavailableError('DynamoDB');
        if (attempt > 1) await this.sleep(this.random() * this.retry.baseDelayMs * 2 ** (attempt - 1));
        const { Responses, UnprocessedKeys } = await this.client.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } } }),
        );
        for (const item of Responses?.[this.tableName] ?? []) items.set(`${item.pk}\u0000${item.sk}`, item);
        pending = UnprocessedKeys?.[this.tableName]?.Keys ?? [];
      }
    }
    return items;
  }
}

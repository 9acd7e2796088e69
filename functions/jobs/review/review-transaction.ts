/**
 * The conditional transaction of a review plan (a rejection or an acceptance): every write is guarded by
 * what the plan was decided on, so a concurrent change makes the whole transaction fail (and the use case
 * decide again) instead of being overwritten. The job item's review counts change by `ADD`, so reviews of
 * different files of one job commute; an acceptance, whose new status depends on the accepted count, also
 * requires that count as read.
 */
import { jobKeys } from '../../tables';
import type { FileItem } from '../store/items';
import type { TransactItem } from '../store/jobs-table';
import { REVIEWABLE_STATUSES } from '../model/model';
import { moveToHistory, unchangedCondition } from '../store/file-conditions';
import { settledCondition } from '../store/pending-delivery';
import { COUNT_ATTRIBUTES, REVIEW_FILTERS, reviewKey } from '../model/review';
import type { FileChange, JobChange, JobSnapshot, ReviewPlan } from './review-plan';

const fileUpdate = (tableName: string, change: FileChange, now: string): TransactItem => {
  const condition = unchangedCondition(change.before);
  const moved = change.movesReview ? (change.before.reviews ?? null) : null;
  const { after } = change;
  const sets = [
    '#isRejected = :isRejected',
    '#isReviewed = :isReviewed',
    '#acceptedByUser = :acceptedByUser',
    '#reviewDate = :now',
    '#rejectionReason = :reason',
    '#reviewKey = :reviewKey',
  ];
  const values: Record<string, unknown> = {
    ':isRejected': after.isRejected,
    ':isReviewed': after.isReviewed,
    ':acceptedByUser': after.acceptedByUser,
    ':now': after.reviewDate ?? now,
    ':reason': after.rejectionReason,
    ':reviewKey': reviewKey(change.before.jobId, change.to),
  };
  const names: Record<string, string> = { '#isReviewed': 'isReviewed', '#rejectionReason': 'rejectionReason' };
  if (change.movesReview) {
    sets.push('#reviews = :review');
    names['#reviews'] = 'reviews';
    values[':review'] = after.reviews;
    if (moved !== null) sets.push(moveToHistory(condition, change.before, moved).set);
  }
  return {
    Update: {
      TableName: tableName,
      Key: { pk: change.before.pk, sk: change.before.sk },
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: condition.clauses.join(' AND '),
      ExpressionAttributeNames: { ...condition.names, ...names },
      ExpressionAttributeValues: { ...condition.values, ...values },
    },
  };
};

/**
 * The one thing a rejection reads from its job item (besides the owner, which never changes): that the
 * job is in review. The condition holds while the status is one of {@link REVIEWABLE_STATUSES}, so
 * rejections of different files of one job do not invalidate each other, while a job archived or sent
 * back to work in the meantime still fails the write — and while the job item records no committed
 * delivery still being written to its files (`pending-delivery.ts`), so no review lands on a file such a
 * delivery has not reached yet.
 */
const reviewableCondition = () => {
  const values: Record<string, unknown> = {};
  const placeholders = REVIEWABLE_STATUSES.map((status, index) => {
    values[`:reviewable${index}`] = status;
    return `:reviewable${index}`;
  });
  const settled = settledCondition();
  return {
    expression: `#status IN (${placeholders.join(', ')}) AND ${settled.expression}`,
    names: { '#status': 'status', ...settled.names },
    values: { ...values, ...settled.values },
  };
};

/**
 * The job's write: its new status (when the review changes it), `reviewedDate`, the version plus one and
 * the review counts — added to (`ADD`) when the item stores them, else written whole under a guard on the
 * version read (an item from before the counts, counted from its files). Guarded by the job being in
 * review, and by the accepted count as read when the new status depends on it.
 */
const jobUpdate = (tableName: string, change: JobChange, now: string): TransactItem => {
  const { job } = change;
  const guard = reviewableCondition();
  const clauses = [guard.expression];
  const names: Record<string, string> = { ...guard.names, '#reviewedDate': 'reviewedDate', '#version': 'version' };
  const values: Record<string, unknown> = { ...guard.values, ':now': now, ':one': 1 };
  const sets = [];
  if (change.status !== undefined) {
    sets.push('#status = :status');
    values[':status'] = change.status;
  }
  sets.push('#reviewedDate = :now');
  const adds = ['#version :one'];
  for (const filter of REVIEW_FILTERS) {
    const attribute = COUNT_ATTRIBUTES[filter];
    const delta = change.countChanges[filter];
    if (job.countsStored && delta === 0) continue;
    names[`#${attribute}`] = attribute;
    if (job.countsStored) {
      values[`:${attribute}`] = delta;
      adds.push(`#${attribute} :${attribute}`);
    } else {
      values[`:${attribute}`] = job.counts[filter] + delta;
      sets.push(`#${attribute} = :${attribute}`);
    }
  }
  if (!job.countsStored) {
    clauses.push('#version = :read');
    values[':read'] = job.version;
  } else if (change.guardAccepted) {
    const attribute = COUNT_ATTRIBUTES.accepted;
    names[`#${attribute}`] = attribute;
    values[':readAccepted'] = job.counts.accepted;
    clauses.push(`#${attribute} = :readAccepted`);
  }
  return {
    Update: {
      TableName: tableName,
      Key: { pk: jobKeys.pk(job.id), sk: jobKeys.jobSk },
      UpdateExpression: `SET ${sets.join(', ')} ADD ${adds.join(', ')}`,
      ConditionExpression: clauses.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
};

const jobUnchanged = (tableName: string, job: JobSnapshot): TransactItem => {
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
 * what was read) and the job item (status, `reviewedDate`, review counts, version incremented atomically
 * by one, conditioned on the job still being in review); per unchanged job of the request, a check that
 * it is still in review; per repeated file, a check that it is still as read. Every file of the request
 * is one item and every job one more: at most 50 + 50, within the 100 items a transaction may hold.
 */
export const transactItems = <TResponse>(
  tableName: string,
  plan: ReviewPlan<TResponse>,
  now: string,
): TransactItem[] => [
  ...plan.changedJobs.flatMap((change) => [
    ...change.files.map((file) => fileUpdate(tableName, file, now)),
    jobUpdate(tableName, change, now),
  ]),
  ...plan.unchangedJobs.map((job) => jobUnchanged(tableName, job)),
  ...plan.unchangedFiles.map((item) => fileUnchanged(tableName, item)),
];

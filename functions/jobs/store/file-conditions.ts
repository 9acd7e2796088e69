/**
 * The conditions a write of a file item is guarded by, shared by the customer's review (`review/`) and the
 * delivery (`delivery/`): the file still holds what the write was decided on, and its review history moves
 * to `previousReviews` without ever outgrowing its bound.
 */
import type { Review } from '../model/model';
import { MAX_PREVIOUS_REVIEWS } from '../model/model';
import type { FileItem } from './items';
/** The file attributes a review derives from: if any changed since the read, the write must fail. */
const GUARDED_FILE_ATTRIBUTES = ['isRejected', 'acceptedByUser', 'reviewDate', 'reviewKey'] as const;

/** A condition under construction: its clauses (joined with AND) and their placeholders. */
export interface Condition {
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
export const unchangedCondition = (item: FileItem): Condition => {
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
export const moveToHistory = (condition: Condition, before: FileItem, moved: Review): { set: string } => {
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

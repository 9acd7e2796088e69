/**
 * The conditions a write of a file item is guarded by, shared by the customer's review (`review/`) and the
 * delivery (`delivery/`): the file still holds what the write was decided on (for a delivery, an edited
 * picture that is ready), and its review history moves to `previousReviews` without ever outgrowing its bound.
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
 * Adds a clause that holds only while the file's edited picture is `ready` (`images/file-images.ts`): a
 * delivery's write of the file then refuses itself when a newer upload turned out invalid after the read.
 */
export const readyEditCondition = (condition: Condition): void => {
  condition.names['#edited'] = 'edited';
  condition.names['#editedStatus'] = 'status';
  condition.values[':readyEdit'] = 'ready';
  condition.clauses.push('#edited.#editedStatus = :readyEdit');
};

/** The placeholders and the bound of one history list an entry moves to. */
export interface HistoryList {
  /** The attribute holding the list (`previousReviews`, `previousEdits`). */
  attribute: string;
  /** How many entries it keeps, the most recent. */
  max: number;
  /** The value placeholders of the moved entry and of the count read. */
  moved: string;
  count: string;
}

const PREVIOUS_REVIEWS: HistoryList = {
  attribute: 'previousReviews',
  max: MAX_PREVIOUS_REVIEWS,
  moved: ':moved',
  count: ':was_previousReviewCount',
};

/**
 * How an entry reaches a bounded history list of a file item, which keeps the `max` most recent. While the list
 * has room, the entry is appended to the list as stored (an absent list starts empty), so the write carries that
 * one entry and never the history; a full list is written whole, its oldest entry dropped, so the history, the
 * item and every later write stay bounded. Either way the write requires the list to still hold as many entries
 * as were read, so it never lands on a list another writer changed meanwhile. An item holding something else
 * than a list there (`null`) gets a list of the one entry, required to still hold what was read.
 */
export const moveToList = (
  condition: Condition,
  before: Readonly<Record<string, unknown>>,
  list: HistoryList,
  moved: unknown,
): { set: string } => {
  const history: unknown = before[list.attribute];
  const name = `#${list.attribute}`;
  condition.names[name] = list.attribute;
  condition.values[list.moved] = [moved];
  if (!Array.isArray(history) && history !== undefined) {
    requireAsRead(condition, list.attribute, history);
    return { set: `${name} = ${list.moved}` };
  }
  if (history === undefined) {
    condition.clauses.push(`attribute_not_exists(${name})`);
  } else {
    condition.values[list.count] = history.length;
    condition.clauses.push(`size(${name}) = ${list.count}`);
    if (history.length >= list.max) {
      condition.values[list.moved] = [...history, moved].slice(-list.max);
      return { set: `${name} = ${list.moved}` };
    }
  }
  condition.values[':empty'] = [];
  return { set: `${name} = list_append(if_not_exists(${name}, :empty), ${list.moved})` };
};

/**
 * How the review a rejection or a delivery replaces reaches `previousReviews`, which keeps the
 * {@link MAX_PREVIOUS_REVIEWS} most recent ({@link moveToList}), so a file can be reviewed any number of times.
 */
export const moveToHistory = (condition: Condition, before: FileItem, moved: Review): { set: string } =>
  moveToList(condition, before as unknown as Record<string, unknown>, PREVIOUS_REVIEWS, moved);

/**
 * Order keys: the rowid of a job in the `jobs` table and in the FTS5 index, chosen so that ascending
 * rowid order is exactly ascending (createdDate, id) order. Any rowid walk (`ORDER BY rowid DESC`) then
 * yields matches already in the SPEC's result order, so a page stops after `offset + limit` matches
 * instead of sorting all of them.
 *
 * A key is `group << TIE_BITS | tie`: the group is the creation instant in epoch milliseconds (clamped
 * to ±2^42 ms, about the years 1831–2109, so the key fits a signed 64-bit integer); the tie orders the
 * jobs of one group by (created, id). Ties are allocated between the neighbours' ties, so the key of a
 * job never changes unless its createdDate does, or its group runs out of room and is renumbered.
 */

/** Bits of a key below the group: room for 2^20 jobs created in the same millisecond. */
export const TIE_BITS = 20n;
/** How many ties a group has. */
export const TIE_SPAN = 1n << TIE_BITS;
/** The largest group magnitude: creation instants beyond ±2^42 ms share the outermost group. */
export const MAX_GROUP = 2 ** 42;
/** The gap left after the last (or before the first) job of a group, so appends rarely renumber. */
const APPEND_STEP = 1n << 10n;

/** The group of a creation instant (epoch milliseconds). */
export const groupOf = (created: number): number => Math.max(-MAX_GROUP, Math.min(MAX_GROUP, created));

/** The first key of a group. */
export const groupStart = (group: number): bigint => BigInt(group) << TIE_BITS;

/**
 * The key bound of an instant for range filters: `created ≥ instant` ⇔ `key ≥ bound` and
 * `created < instant` ⇔ `key < bound`, or `undefined` when the instant lies at or beyond the clamped
 * groups (then the filter must compare `created` itself).
 */
export const instantBound = (instant: number): bigint | undefined =>
  instant > -MAX_GROUP && instant < MAX_GROUP ? groupStart(instant) : undefined;

/** A job as the order of a group sees it. */
export interface Ranked {
  created: number;
  id: number;
}

/** Compares two jobs in ascending (created, id) order. */
export const compareRanked = (a: Ranked, b: Ranked): number => a.created - b.created || a.id - b.id;

/** A job of a group with its key. */
export interface Placed extends Ranked {
  key: bigint;
}

/**
 * The tie of a new job between its neighbours' ties (`below`/`above`, exclusive; -1 and TIE_SPAN when
 * it has none), or `undefined` when no integer lies between them and the group must be renumbered.
 */
export const tieBetween = (below: bigint, above: bigint): bigint | undefined => {
  const gap = above - below;
  if (gap <= 1n) return undefined;
  const half = gap / 2n;
  if (above === TIE_SPAN && below !== -1n) return below + (half < APPEND_STEP ? half : APPEND_STEP);
  if (below === -1n && above !== TIE_SPAN) return above - (half < APPEND_STEP ? half : APPEND_STEP);
  return below + half;
};

/**
 * The key of `job` in a group whose other members are `members` (sorted by key, which is their
 * (created, id) order), or `undefined` when the group must be renumbered.
 */
export const keyAmong = (group: number, members: readonly Placed[], job: Ranked): bigint | undefined => {
  const start = groupStart(group);
  let below = -1n;
  let above = TIE_SPAN;
  for (const member of members) {
    if (compareRanked(member, job) < 0) below = member.key - start;
    else {
      above = member.key - start;
      break;
    }
  }
  const tie = tieBetween(below, above);
  return tie === undefined ? undefined : start + tie;
};

/** Evenly spaced keys for `count` jobs of a group, in order. Throws when the group is full. */
export const spreadKeys = (group: number, count: number): bigint[] => {
  if (BigInt(count) >= TIE_SPAN) throw new RangeError(`more than ${TIE_SPAN - 1n} jobs created in one millisecond`);
  const step = TIE_SPAN / BigInt(count + 1);
  const start = groupStart(group);
  return Array.from({ length: count }, (_, index) => start + step * BigInt(index + 1));
};

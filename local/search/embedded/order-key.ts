/**
 * Order keys: the rowid of a job in the `jobs` table and in the FTS5 index, chosen so that ascending
 * rowid order is exactly ascending (createdDate, id) order. Any rowid walk (`ORDER BY rowid DESC`) then
 * yields matches already in the contract's result order, so a page stops after `offset + limit` matches
 * instead of sorting all of them.
 *
 * A key is `group << TIE_BITS | tie`: the group is the creation instant in epoch milliseconds (clamped
 * to ±2^42 ms, about the years 1831–2109, so the key fits a signed 64-bit integer); the tie orders the
 * jobs of one group by (created, id). Ties are allocated between the neighbours' ties, so the key of a
 * job never changes unless its createdDate does, or its neighbourhood runs out of room and is
 * renumbered.
 *
 * Many jobs can share a millisecond (date-only legacy imports, test fixtures), and they arrive in any
 * order, so {@link allocateKey} must stay cheap in a group of thousands:
 * - it never reads the whole group to place a job: it reads the group's first two and last two
 *   members, and an insert in the middle finds its neighbours by a binary search over the group's key
 *   range (at most ~21 indexed probes), since keys are monotone in (created, id);
 * - within one instant the order is the ids', so keys are placed in proportion to ids: a job between
 *   two members goes where its id falls between theirs, and an append or prepend steps by the group's
 *   keys per id. While the group has a key per id of its range, every id thus has its place
 *   reserved, and jobs arriving in random order, or in runs inside the group, rarely find it taken;
 * - when there is no free key between two neighbours, only a window of members around them is
 *   respread (see {@link windowFits}); the whole group is renumbered only when a window would reach
 *   both ends or an append or prepend would take more than half the room left at that end, and then so
 *   that the end that ran out has room for twice as many jobs again (see {@link Room}).
 * Measured with 5,000 and 20,000 jobs of one instant: in ascending or descending id order the group is
 * renumbered O(log N) times, 1.0–1.3 moves per job (at most about 1.5: 1 + 1/3 + 1/9 + …); in random id
 * order, or as two interleaved runs, almost none move; pages of 100 ascending ids in descending page
 * order, 0.4–1.2 moves per job. A moved job's rows are rewritten, so a move costs about one insert.
 */

/** Bits of a key below the group: room for 2^20 jobs created in the same millisecond. */
export const TIE_BITS = 20n;
/** How many ties a group has. */
export const TIE_SPAN = 1n << TIE_BITS;
/** The largest group magnitude: creation instants beyond ±2^42 ms share the outermost group. */
export const MAX_GROUP = 2 ** 42;
/**
 * Keys per id of distance between a group's only member and a second job (at most half the room left),
 * before the group has a scale of its own.
 */
export const APPEND_STEP = 1n << 10n;

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

/** Reads members of a group in key order, as the `jobs` table answers them (rowid range scans). */
export interface GroupReader {
  /** Up to `limit` members with keys in [from, to), ascending; every one of them when `limit` is -1. */
  ascending(from: bigint, to: bigint, limit: number): Placed[];
  /** Up to `limit` members with keys in [from, to), descending. */
  descending(from: bigint, to: bigint, limit: number): Placed[];
}

/** A member that changes key to make room for a new job. */
export interface Move {
  id: number;
  from: bigint;
  to: bigint;
}

/** The key of a job about to be placed, and the members to move first (all in one transaction). */
export interface Allocation {
  key: bigint;
  moves: Move[];
}

const abs = (value: bigint): bigint => (value < 0n ? -value : value);
const maxKey = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const minKey = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** Whether jobs share their creation instant, so that their order, and their keys' scale, is their ids'. */
const sameInstant = (...jobs: Ranked[]): boolean => jobs.every((job) => job.created === jobs[0]?.created);

/**
 * The key of `job` beyond `from`, the group's last (or first) member, on the side of `bound` (one past
 * the group's end): as many keys past `from` as the group has per id (measured from `from` to `far`,
 * the member at the other end) times the ids between `from` and the job, so a run of appends keeps the
 * group's scale and jobs arriving later between them find room in proportion. Without a scale: a
 * single member, {@link APPEND_STEP} per id; jobs of different instants in a clamped group, the
 * distance from `from` to `next`, its neighbour. `undefined` when that step would take more than half
 * the room left at that end: the group is renumbered with room there rather than crowding it.
 */
export const stepTowards = (
  from: Placed,
  next: Placed | undefined,
  far: Placed | undefined,
  bound: bigint,
  job: Ranked,
): bigint | undefined => {
  const room = abs(bound - from.key);
  if (room <= 1n) return undefined;
  const ids = abs(BigInt(job.id) - BigInt(from.id));
  let step: bigint;
  if (next === undefined || far === undefined) step = sameInstant(from, job) ? APPEND_STEP * ids : APPEND_STEP;
  else if (sameInstant(far, from, job)) step = (abs(from.key - far.key) * ids) / abs(BigInt(from.id) - BigInt(far.id));
  else step = abs(from.key - next.key);
  if (step < 1n) step = 1n;
  if (step > room / 2n) return undefined;
  return bound > from.key ? from.key + step : from.key - step;
};

/**
 * The key of `job` between its neighbours `below` and `above`, or `undefined` when their keys are
 * adjacent: where its id falls between theirs (at least one key from each) when the three share their
 * creation instant, so jobs arriving in any order take the places their ids reserve and runs of
 * consecutive ids spread over the gap instead of halving it; halfway otherwise.
 */
export const between = (below: Placed, above: Placed, job: Ranked): bigint | undefined => {
  const gap = above.key - below.key;
  if (gap <= 1n) return undefined;
  if (!sameInstant(below, above, job)) return below.key + gap / 2n;
  const offset = (gap * (BigInt(job.id) - BigInt(below.id))) / (BigInt(above.id) - BigInt(below.id));
  return below.key + (offset < 1n ? 1n : offset > gap - 1n ? gap - 1n : offset);
};

/** `count` keys evenly spaced strictly between `lo` and `hi`, which must leave room for them. */
export const spreadBetween = (lo: bigint, hi: bigint, count: number): bigint[] => {
  const slots = BigInt(count + 1);
  return Array.from({ length: count }, (_, index) => lo + ((hi - lo) * BigInt(index + 1)) / slots);
};

/**
 * Whether a window of `count` jobs (the new one included) may be respread between `lo` and `hi`
 * (exclusive) at `level`, the window reaching 2^level members to each side of the gap that ran out: it
 * must leave at least `2 + level` between neighbouring keys. Wider windows must end up sparser, so
 * respreading a window buys room for many inserts before a larger one is needed, and a crowded stretch
 * (ids outnumbering the keys between their neighbours) widens its window step by step instead of
 * renumbering the whole group.
 */
export const windowFits = (level: number, lo: bigint, hi: bigint, count: number): boolean =>
  hi - lo >= BigInt(2 + level) * BigInt(count + 1);

/**
 * Where a renumbered group keeps its room: at both ends (its jobs over the middle half of the span,
 * a quarter free on each side), or mostly after (before) its jobs when appends (prepends) ran out of
 * room, since more are likely to follow (its jobs over the second (third) quarter, half the span free
 * after (before) them).
 */
export type Room = 'both' | 'after' | 'before';

/**
 * Keys for all `count` jobs of a group, in order, evenly spaced with the room where `room` says: half
 * as many jobs again fit at each end at the same spacing, or twice as many at the end that ran out.
 * Throws when the group is full.
 */
export const spreadKeys = (group: number, count: number, room: Room = 'both'): bigint[] => {
  if (BigInt(count) >= TIE_SPAN) throw new RangeError(`more than ${TIE_SPAN - 1n} jobs created in one millisecond`);
  const wanted = (room === 'both' ? TIE_SPAN / 2n : TIE_SPAN / 4n) / BigInt(count + 1);
  const step = wanted > 1n ? wanted : 1n;
  const width = step * BigInt(count - 1);
  // centred, unless the room goes to one end (a group too large for that is centred all the same)
  const centred = (TIE_SPAN - width) / 2n;
  const offset =
    room === 'after'
      ? minKey(centred, TIE_SPAN / 4n)
      : room === 'before'
        ? maxKey(centred, TIE_SPAN - TIE_SPAN / 4n - width)
        : centred;
  const first = groupStart(group) + offset;
  return Array.from({ length: count }, (_, index) => first + step * BigInt(index));
};

/** The allocation that gives `ordered` (members and the new job, in order) the keys `keys`. */
const assign = (ordered: readonly (Placed | Ranked)[], job: Ranked, keys: readonly bigint[]): Allocation => {
  let key = 0n;
  const moves: Move[] = [];
  ordered.forEach((member, index) => {
    const to = keys[index] as bigint;
    if (member === job) key = to;
    else if ((member as Placed).key !== to) moves.push({ id: member.id, from: (member as Placed).key, to });
  });
  return { key, moves };
};

/** Renumbers the whole group with the new job among its members, keeping the room where `room` says. */
const renumberGroup = (group: number, reader: GroupReader, job: Ranked, room: Room): Allocation => {
  const start = groupStart(group);
  const members = reader.ascending(start, start + TIE_SPAN, -1);
  const position = members.findIndex((member) => compareRanked(job, member) < 0);
  const ordered: (Placed | Ranked)[] = [...members];
  ordered.splice(position < 0 ? members.length : position, 0, job);
  return assign(ordered, job, spreadKeys(group, ordered.length, room));
};

/**
 * Respreads the smallest window of members around the used-up gap between `below` and `above` that
 * {@link windowFits}, or `undefined` when every window up to one reaching both ends of the group is too
 * dense. A window that reaches one end of the group may extend into the room beyond it by its own
 * width, no further, so appends and prepends keep most of that room.
 */
const renumberWindow = (
  group: number,
  reader: GroupReader,
  job: Ranked,
  below: Placed,
  above: Placed,
): Allocation | undefined => {
  const start = groupStart(group);
  const end = start + TIE_SPAN;
  for (let level = 0; ; level++) {
    const reach = 2 ** level;
    const left = reader.descending(start, below.key + 1n, reach + 1);
    const right = reader.ascending(above.key, end, reach + 1);
    const leftEnds = left.length <= reach;
    const rightEnds = right.length <= reach;
    if (leftEnds && rightEnds) return undefined;
    const inner: (Placed | Ranked)[] = [...left.slice(0, reach).reverse(), job, ...right.slice(0, reach)];
    const firstKey = (inner[0] as Placed).key;
    const lastKey = (inner.at(-1) as Placed).key;
    let lo = leftEnds ? start - 1n : (left[reach] as Placed).key;
    let hi = rightEnds ? end : (right[reach] as Placed).key;
    if (leftEnds) lo = maxKey(lo, firstKey - (hi - firstKey));
    if (rightEnds) hi = minKey(hi, lastKey + (lastKey - lo));
    if (windowFits(level, lo, hi, inner.length)) return assign(inner, job, spreadBetween(lo, hi, inner.length));
  }
};

/** How many times {@link neighbours} guesses where a job's neighbours are before it searches. */
const GUESSES = 4;

/**
 * The neighbours of `job` between the group's `first` and `last` members (first < job < last). Keys
 * mostly follow ids, so the job's neighbours usually lie right around the key {@link between} gives it
 * between the nearest members known: a look at the members on either side of that key (two indexed
 * lookups) finds them, or narrows the range for the next guess. After a few guesses, a binary search
 * over the key range that is left, each probe one "first member at or after this key" lookup: keys
 * are monotone in (created, id), so a probe below the job moves the lower bound past it, and one above
 * the job (or finding nothing before the upper bound) moves the upper bound down to the probed key.
 */
const neighbours = (reader: GroupReader, first: Placed, last: Placed, job: Ranked): [Placed, Placed] => {
  let below = first;
  let above = last;
  for (let round = 0; round < GUESSES; round++) {
    const guess = between(below, above, job);
    if (guess === undefined) return [below, above];
    const [before = below] = reader.descending(below.key + 1n, guess, 1);
    const [after = above] = reader.ascending(guess, above.key, 1);
    // `before` and `after` are adjacent: the last member before the guess and the first one from it
    if (compareRanked(job, before) < 0) above = before;
    else if (compareRanked(after, job) < 0) below = after;
    else return [before, after];
  }
  // Invariant: no member lies between below.key and lo, nor between hi and above.key.
  let lo = below.key + 1n;
  let hi = above.key;
  while (lo < hi) {
    const mid = lo + (hi - lo) / 2n;
    const [probe] = reader.ascending(mid, hi, 1);
    if (probe !== undefined && compareRanked(probe, job) < 0) {
      below = probe;
      lo = probe.key + 1n;
    } else {
      if (probe !== undefined) above = probe;
      hi = mid;
    }
  }
  return [below, above];
};

/**
 * The key of `job` in its group, whose members `reader` reads (the job itself must not be one of
 * them), and the members to move first when its neighbourhood has no room left.
 */
export const allocateKey = (group: number, reader: GroupReader, job: Ranked): Allocation => {
  const start = groupStart(group);
  const end = start + TIE_SPAN;
  const [last, beforeLast] = reader.descending(start, end, 2);
  if (last === undefined) return { key: start + TIE_SPAN / 2n, moves: [] };
  const [first, afterFirst] = reader.ascending(start, end, 2) as [Placed, Placed | undefined];
  if (compareRanked(last, job) < 0) {
    const key = stepTowards(last, beforeLast, beforeLast && first, end, job);
    return key === undefined ? renumberGroup(group, reader, job, 'after') : { key, moves: [] };
  }
  if (compareRanked(job, first) < 0) {
    const key = stepTowards(first, afterFirst, afterFirst && last, start - 1n, job);
    return key === undefined ? renumberGroup(group, reader, job, 'before') : { key, moves: [] };
  }
  const [below, above] = neighbours(reader, first, last, job);
  const key = between(below, above, job);
  if (key !== undefined) return { key, moves: [] };
  return renumberWindow(group, reader, job, below, above) ?? renumberGroup(group, reader, job, 'both');
};

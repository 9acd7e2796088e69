/**
 * The embedded engine's order keys: results stay in (createdDate desc, id desc) order however jobs
 * share a millisecond, move in time, or lie far outside the keyed years; totals stay exact when another
 * connection writes; a database of an older layout is replaced.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedSearchIndex } from '../../../local/search/embedded/embedded-search-index';
import {
  allocateKey,
  APPEND_STEP,
  between,
  compareRanked,
  type GroupReader,
  groupOf,
  groupStart,
  instantBound,
  MAX_GROUP,
  type Placed,
  type Ranked,
  spreadBetween,
  spreadKeys,
  stepTowards,
  TIE_SPAN,
  windowFits,
} from '../../../local/search/embedded/order-key';
import type { SearchDocument, SearchQuery } from '../../../functions/search/search-index';
import { seededShuffle } from '../../support/shuffle';

const directory = mkdtempSync(join(tmpdir(), 'embedded-order-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const documentOf = (id: number, created: string, version = 1, status = 'CJ_NEW'): SearchDocument => ({
  summary: {
    id,
    accountId: 1,
    status: status as SearchDocument['summary']['status'],
    guid: `guid-${id}`,
    name: `Spring catalogue ${id}`,
    description: '',
    acceptedDate: null,
    createdDate: created,
    deliveredDate: null,
    orderedDate: null,
    reviewedDate: null,
    realCost: 1,
    fileCount: 0,
  },
  version,
  accountName: 'Acme',
  invoiceReference: '',
  jobTags: [],
  fileNames: [],
  fileTags: [],
  fileInstructions: [],
});

const query = (overrides: Partial<SearchQuery> = {}): SearchQuery => ({
  field: 'Global',
  text: '',
  globalFields: ['JobName'],
  globalMatchesAccountNumber: false,
  offset: 0,
  limit: 100,
  ...overrides,
});

const idsOf = async (index: EmbeddedSearchIndex, overrides: Partial<SearchQuery> = {}): Promise<number[]> =>
  (await index.search(query(overrides))).jobs.map((job) => job.id);

const SAME_MOMENT = '2024-03-01T10:00:00.000Z';

/**
 * One group of jobs in memory, read like the `jobs` table (members sorted by key): places jobs as the
 * engine does (the moves first, then the new job), checks after each placement that the keys are
 * unique, inside the group and in (created, id) order, and counts the rows read and the renumberings.
 */
class MemoryGroup implements GroupReader {
  public members: Placed[] = [];
  public rowsRead = 0;
  public renumberings = 0;
  public moved = 0;

  public constructor(public readonly group: number) {}

  public ascending(from: bigint, to: bigint, limit: number): Placed[] {
    const found: Placed[] = [];
    for (let index = this.#firstAtOrAfter(from); index < this.members.length && found.length !== limit; index++) {
      const member = this.members[index] as Placed;
      if (member.key >= to) break;
      found.push(member);
    }
    this.rowsRead += found.length;
    return found;
  }

  public descending(from: bigint, to: bigint, limit: number): Placed[] {
    const found: Placed[] = [];
    for (let index = this.#firstAtOrAfter(to) - 1; index >= 0 && found.length !== limit; index--) {
      const member = this.members[index] as Placed;
      if (member.key < from) break;
      found.push(member);
    }
    this.rowsRead += found.length;
    return found;
  }

  /**
   * Places a job that is not a member yet, and checks the members whose keys changed against their
   * neighbours: `members` stays in (created, id) order, so the keys must ascend along it.
   */
  public place(job: Ranked): bigint {
    const { key, moves } = allocateKey(this.group, this, job);
    const moved = moves.map((move) => {
      const index = this.#firstAtOrAfter(move.from);
      const member = this.members[index];
      if (member?.key !== move.from || member.id !== move.id) throw new Error(`no member ${move.id} at ${move.from}`);
      return { index, key: move.to };
    });
    for (const { index, key: to } of moved) this.members[index] = { ...(this.members[index] as Placed), key: to };
    if (moves.length > 0) this.renumberings += 1;
    this.moved += moves.length;
    const position = this.#rankOf(job);
    this.members.splice(position, 0, { ...job, key });
    const changed = [position, ...moved.map(({ index }) => (index < position ? index : index + 1))];
    expect(changed.filter((index) => !this.#inPlace(index) || !this.#inPlace(index + 1))).toEqual([]);
    return key;
  }

  /** Removes a member, as a delete or a move to another millisecond does. */
  public remove(id: number): void {
    this.members = this.members.filter((member) => member.id !== id);
  }

  /** Asserts that the members' keys are unique, inside the group and ascending in (created, id) order. */
  public check(): void {
    expect(this.members.findIndex((_, index) => !this.#inPlace(index))).toBe(-1);
  }

  /** Whether the member at `index` (if any) lies inside the group and after the one before it. */
  #inPlace(index: number): boolean {
    const member = this.members[index];
    if (member === undefined) return true;
    const start = groupStart(this.group);
    const previous = this.members[index - 1];
    const inside = member.key >= start && member.key < start + TIE_SPAN;
    return inside && (previous === undefined || (member.key > previous.key && compareRanked(previous, member) < 0));
  }

  /** The index of the first member after `job` in (created, id) order. */
  #rankOf(job: Ranked): number {
    let lo = 0;
    let hi = this.members.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareRanked(this.members[mid] as Placed, job) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #firstAtOrAfter(key: bigint): number {
    let lo = 0;
    let hi = this.members.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.members[mid] as Placed).key < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

const GROUP = Date.UTC(2024, 0, 15, 10);

/** Places jobs of ids `ids`, in that order, all created at `GROUP`, into a new group. */
const groupOfIds = (ids: readonly number[]): MemoryGroup => {
  const group = new MemoryGroup(GROUP);
  for (const id of ids) group.place({ created: GROUP, id });
  group.check();
  return group;
};

const range = (count: number): number[] => Array.from({ length: count }, (_, index) => index + 1);

/** 1…count in a fixed pseudo-random order. */
const shuffled = (count: number): number[] => seededShuffle(range(count), 42);

describe('order key placement', () => {
  /** A member created at instant 7 (or `created`). */
  const at = (id: number, key: bigint, created = 7): Placed => ({ created, id, key });
  /** A job created at instant 7 (or `created`). */
  const job = (id: number, created = 7): Ranked => ({ created, id });

  it('places a job between its neighbours where its id falls between theirs', () => {
    expect(between(at(10, 1_000n), at(20, 2_000n), job(15))).toBe(1_500n);
    expect(between(at(10, 1_000n), at(20, 2_000n), job(11))).toBe(1_100n);
    expect(between(at(10, 1_000n), at(20, 2_000n), job(19))).toBe(1_900n);
    // at least one key away from either neighbour when the ids outnumber the keys
    expect(between(at(10, 1_000n), at(1_000, 1_003n), job(11))).toBe(1_001n);
    expect(between(at(10, 1_000n), at(1_000, 1_003n), job(999))).toBe(1_002n);
    expect(between(at(10, 1_000n), at(20, 1_001n), job(15))).toBeUndefined();
    // in a clamped group, jobs of different instants: halfway
    expect(between(at(10, 1_000n, 7), at(5, 2_000n, 8), job(20))).toBe(1_500n);
  });

  it("steps an append or prepend by the group's keys per id, and refuses to crowd an end", () => {
    const next = at(50, 5_000n);
    expect(stepTowards(at(60, 5_010n), next, next, TIE_SPAN, job(70))).toBe(5_020n);
    expect(stepTowards(at(50, 5_000n), at(60, 5_010n), at(60, 5_010n), -1n, job(40))).toBe(4_990n);
    // the scale is the whole group's: 410 keys over 40 ids
    expect(stepTowards(at(60, 5_010n), next, at(20, 4_600n), TIE_SPAN, job(70))).toBe(5_112n);
    // a single member: APPEND_STEP keys per id
    expect(stepTowards(at(50, 5_000n), undefined, undefined, TIE_SPAN, job(53))).toBe(5_000n + 3n * APPEND_STEP);
    // at least one key, even below one key per id
    expect(stepTowards(at(1_000, 5_001n), at(1, 5_000n), at(1, 5_000n), TIE_SPAN, job(1_001))).toBe(5_002n);
    // no more than half the room left: the group is renumbered instead
    const nearEnd = at(60, TIE_SPAN - 30n);
    const before = at(50, TIE_SPAN - 40n);
    expect(stepTowards(nearEnd, before, before, TIE_SPAN, job(70))).toBe(TIE_SPAN - 20n);
    expect(stepTowards(nearEnd, before, before, TIE_SPAN, job(80))).toBeUndefined();
    expect(stepTowards(at(10, 0n), at(20, 5n), at(20, 5n), -1n, job(5))).toBeUndefined();
    // in a clamped group, jobs of different instants: the spacing of the two members at that end
    expect(stepTowards(at(60, 5_010n, 8), at(50, 5_000n, 7), at(50, 5_000n, 7), TIE_SPAN, job(1, 9))).toBe(5_020n);
  });

  it('respreads a window evenly, only when it leaves 2 + level between neighbouring keys', () => {
    expect(spreadBetween(10n, 30n, 3)).toEqual([15n, 20n, 25n]);
    expect(windowFits(0, 0n, 8n, 3)).toBe(true);
    expect(windowFits(0, 0n, 7n, 3)).toBe(false);
    expect(windowFits(2, 0n, 16n, 3)).toBe(true);
    expect(windowFits(2, 0n, 15n, 3)).toBe(false);
  });

  it('renumbers a whole group over the middle half of its span, or with more room at the end that ran out', () => {
    const start = groupStart(GROUP);
    /** The free ties before the first key and after the last, and the spacing. */
    const layout = (keys: bigint[]): bigint[] => [
      (keys[0] as bigint) - start,
      start + TIE_SPAN - (keys.at(-1) as bigint),
      (keys[1] as bigint) - (keys[0] as bigint),
    ];
    for (const count of [2, 3, 1_000, 100_000]) {
      const spacing = TIE_SPAN / 2n / BigInt(count + 1);
      const [before, after, step] = layout(spreadKeys(GROUP, count));
      expect(step).toBe(spacing);
      expect(before).toBeGreaterThanOrEqual(TIE_SPAN / 4n);
      expect(after).toBeGreaterThanOrEqual(TIE_SPAN / 4n);
      // after appends ran out: half the spacing, a quarter of the span free before, half of it after
      const quarter = TIE_SPAN / 4n;
      const [appendsBefore, appendsAfter, appendsStep] = layout(spreadKeys(GROUP, count, 'after'));
      expect([appendsBefore, appendsStep]).toEqual([quarter, quarter / BigInt(count + 1)]);
      expect(appendsAfter).toBeGreaterThanOrEqual(2n * quarter);
      // after prepends ran out: the reverse
      const [prependsBefore, prependsAfter, prependsStep] = layout(spreadKeys(GROUP, count, 'before'));
      expect([prependsAfter, prependsStep]).toEqual([quarter, quarter / BigInt(count + 1)]);
      expect(prependsBefore).toBeGreaterThanOrEqual(2n * quarter);
    }
    expect(spreadKeys(GROUP, 1)).toEqual([start + TIE_SPAN / 2n]);
    const full = spreadKeys(GROUP, Number(TIE_SPAN) - 1, 'after');
    expect([full[0], full.at(-1)]).toEqual([start + 1n, start + TIE_SPAN - 1n]);
    expect(() => spreadKeys(GROUP, Number(TIE_SPAN))).toThrow(RangeError);
  });

  it('starts a group in the middle of its span and places a second job by its distance in ids', () => {
    const middle = groupStart(GROUP) + TIE_SPAN / 2n;
    const keysOf = (ids: number[]): bigint[] => groupOfIds(ids).members.map((member) => member.key);
    expect(keysOf([50])).toEqual([middle]);
    expect(keysOf([50, 60])).toEqual([middle, middle + 10n * APPEND_STEP]);
    expect(keysOf([50, 40])).toEqual([middle - 10n * APPEND_STEP, middle]);
    // too far for the room: both are renumbered, with room after them for more appends
    expect(keysOf([50, 5_000])).toEqual(spreadKeys(GROUP, 2, 'after'));
    expect(keysOf([5_000, 50])).toEqual(spreadKeys(GROUP, 2, 'before'));
  });

  it('gives jobs arriving around and between the members the keys their ids reserve', () => {
    const start = groupStart(GROUP);
    const group = new MemoryGroup(GROUP);
    group.members = [
      { created: GROUP, id: 50, key: start + 5_000n },
      { created: GROUP, id: 60, key: start + 5_010n },
    ];
    for (const id of [70, 80, 40, 30, 65, 33]) group.place({ created: GROUP, id });
    expect(group.members.map((member) => [member.id, member.key - start])).toEqual([
      [30, 4_980n],
      [33, 4_983n],
      [40, 4_990n],
      [50, 5_000n],
      [60, 5_010n],
      [65, 5_015n],
      [70, 5_020n],
      [80, 5_030n],
    ]);
    expect(group.moved).toBe(0);
  });

  it('finds the neighbours of a job in a large group without reading the group', () => {
    /** How many rows placing each of `ids` reads in `group`, checking that none renumbers. */
    const rowsToPlace = (group: MemoryGroup, ids: number[]): number[] =>
      ids.map((id) => {
        group.rowsRead = 0;
        const renumberings = group.renumberings;
        group.place({ created: GROUP, id });
        expect(group.renumberings).toBe(renumberings);
        return group.rowsRead;
      });
    // keys in proportion to ids: the two members at each end, then the two around the guessed key
    const even = groupOfIds(range(5_000).map((id) => id * 2));
    for (const rows of rowsToPlace(even, [1, 2_001, 5_001, 9_999, 10_001])) expect(rows).toBeLessThanOrEqual(4 + 2);
    // ids far from proportional to keys (their squares): a few guesses, then one row per probe of a
    // binary search over at most 2^20 keys
    const squares = groupOfIds(range(2_000).map((id) => id * id));
    for (const rows of rowsToPlace(squares, [2, 1_000_001, 2_000_001, 3_999_999])) {
      expect(rows).toBeLessThanOrEqual(4 + 2 * 4 + 21);
    }
  });

  it('respreads a window that reaches an end of the group into the room beyond it, by at most its width', () => {
    const start = groupStart(GROUP);
    /** The ties of ids 10, 20, 30, 40 placed at `ties`, after placing `id`, by id. */
    const tiesAfter = (ties: bigint[], id: number): bigint[] => {
      const group = new MemoryGroup(GROUP);
      group.members = ties.map((tie, index) => ({ created: GROUP, id: (index + 1) * 10, key: start + tie }));
      group.place({ created: GROUP, id });
      return group.members.map((member) => member.key - start);
    };
    // 15 between the adjacent 10 and 20: the window 10…20 spreads up to 30, and back as far as its width
    expect(tiesAfter([100n, 101n, 110n, 200n], 15)).toEqual([95n, 100n, 105n, 110n, 200n]);
    // … but never before the group's first tie
    expect(tiesAfter([0n, 1n, 12n, 20n], 15)).toEqual([2n, 5n, 8n, 12n, 20n]);
    // the same at the other end, never past the group's last tie
    const last = TIE_SPAN - 1n;
    expect(tiesAfter([last - 20n, last - 12n, last - 1n, last], 35)).toEqual([
      last - 20n,
      last - 12n,
      last - 9n,
      last - 6n,
      last - 3n,
    ]);
  });

  it('keeps any group in (created, id) order through any sequence of inserts and removals', () => {
    const operation = fc.oneof(
      {
        arbitrary: fc.record({ insert: fc.integer({ min: 0, max: 400 }), late: fc.integer({ min: 0, max: 3 }) }),
        weight: 4,
      },
      { arbitrary: fc.record({ remove: fc.nat() }), weight: 1 },
    );
    fc.assert(
      fc.property(fc.boolean(), fc.array(operation, { maxLength: 300 }), (clamped, operations) => {
        // in the outermost group, jobs of different instants share the group, ordered by created first
        const group = new MemoryGroup(clamped ? MAX_GROUP : GROUP);
        const ids = new Set<number>();
        for (const operation of operations) {
          if ('insert' in operation) {
            if (ids.has(operation.insert)) continue;
            ids.add(operation.insert);
            group.place({ created: clamped ? MAX_GROUP + operation.late : GROUP, id: operation.insert });
          } else if (group.members.length > 0) {
            const member = group.members[operation.remove % group.members.length] as Placed;
            ids.delete(member.id);
            group.remove(member.id);
          }
        }
        group.check();
        expect(group.members.map((member) => member.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps order when inserts land in a crowded stretch anywhere in the span, up to its ends', () => {
    const start = groupStart(GROUP);
    fc.assert(
      fc.property(
        // the first member's tie: at the start of the span, anywhere, or close enough to its end that
        // the stretch reaches it
        fc.oneof(
          fc.integer({ min: 0, max: 20 }),
          fc.integer({ min: 0, max: Number(TIE_SPAN) - 1 }),
          fc.integer({ min: Number(TIE_SPAN) - 600, max: Number(TIE_SPAN) - 1 }),
        ),
        // mostly crowded, with some room here and there
        fc.array(
          fc.oneof(
            { arbitrary: fc.integer({ min: 1, max: 3 }), weight: 6 },
            { arbitrary: fc.integer({ min: 4, max: 200 }), weight: 1 },
          ),
          { minLength: 1, maxLength: 200 },
        ),
        fc.array(fc.nat(), { maxLength: 200 }),
        (offset, gaps, inserts) => {
          // members with ids 10, 20, … `gaps` apart, from `offset`, clipped to the span
          const group = new MemoryGroup(GROUP);
          let tie = BigInt(offset);
          gaps.forEach((gap, index) => {
            if (tie < TIE_SPAN) group.members.push({ created: GROUP, id: (index + 1) * 10, key: start + tie });
            tie += BigInt(gap);
          });
          group.check();
          const ids = new Set(group.members.map((member) => member.id));
          // ids among and around the members' (0 up to 10 past the last one)
          for (const id of inserts.map((insert) => insert % (10 * group.members.length + 11))) {
            if (ids.has(id)) continue;
            ids.add(id);
            group.place({ created: GROUP, id });
          }
          group.check();
          expect(group.members).toHaveLength(ids.size);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('renumbers a group of N jobs O(log N) times when they arrive in ascending or descending order', () => {
    const count = 5_000;
    for (const ids of [range(count), range(count).reverse()]) {
      const group = groupOfIds(ids);
      expect(group.members).toHaveLength(count);
      // Every renumbering moves the jobs placed so far and leaves room for twice as many again at the
      // end that ran out, so the group triples between renumberings, and the jobs moved in all sum to
      // about 1 + 1/3 + 1/9 + … = 1.5 times the group at most.
      expect(group.renumberings).toBeLessThanOrEqual(Math.log2(count));
      expect(group.moved).toBeLessThanOrEqual(2 * count);
    }
  });

  it('moves almost no jobs when they arrive in random order: each takes the keys its id reserves', () => {
    const count = 5_000;
    const group = groupOfIds(shuffled(count));
    expect(group.members).toHaveLength(count);
    // only while the first few jobs set the group's scale (at most 25 over 30 random orders)
    expect(group.moved).toBeLessThanOrEqual(count / 100);
  });

  it('moves each job a few times at most when runs of ids arrive inside the group', () => {
    const count = 5_000;
    // pages of 100 ascending ids, the pages in descending order: each page's first job is a prepend that
    // reserves room for the page, the others fall in that room
    const pages = range(count / 100)
      .reverse()
      .flatMap((page) => range(100).map((id) => (page - 1) * 100 + id));
    // the mirror image: pages in ascending order, each a descending run after the jobs already there
    const mirrored = pages.map((id) => count + 1 - id);
    // two interleaved ascending runs: the first one inserts into the middle of the group every time
    const interleaved = range(count / 2).flatMap((id) => [id, count / 2 + id]);
    for (const ids of [pages, mirrored, interleaved]) {
      const group = groupOfIds(ids);
      expect(group.members).toHaveLength(count);
      // as for appends and prepends: 1.5 times the group at most (renumbering the whole group whenever
      // a gap ran out moved each job over 250 times)
      expect(group.moved).toBeLessThanOrEqual(2 * count);
    }
  });

  it('renumbers only the crowded neighbourhood when ids outnumber the keys between members', () => {
    const count = 5_000;
    // two clusters of ids 10^9 apart, in random order: a cluster's jobs land a key or so apart until
    // its own members set the scale, and some find no key left between their neighbours
    const ids = shuffled(count).map((id) => (id <= count / 2 ? id : 1e9 + id));
    const group = groupOfIds(ids);
    expect(group.members).toHaveLength(count);
    // renumbering the whole group instead of a window around the crowded gap moved 1.7 per job
    expect(group.moved).toBeLessThanOrEqual(count / 10);
  });

  it('refuses a job that would not fit its full millisecond with a RangeError', () => {
    const start = groupStart(GROUP);
    const size = Number(TIE_SPAN) - 1;
    // every tie from 1 up holds a job (ids 1…2^20 - 1); read by arithmetic instead of a sorted array
    const member = (tie: bigint): Placed => ({ created: GROUP, id: Number(tie), key: start + tie });
    const full: GroupReader = {
      ascending: (from, to, limit) => {
        const found: Placed[] = [];
        for (let tie = from - start < 1n ? 1n : from - start; start + tie < to && found.length !== limit; tie++) {
          found.push(member(tie));
        }
        return found;
      },
      descending: (from, to, limit) => {
        const found: Placed[] = [];
        for (let tie = to - start - 1n; tie >= 1n && start + tie >= from && found.length !== limit; tie--) {
          found.push(member(tie));
        }
        return found;
      },
    };
    expect(() => allocateKey(GROUP, full, { created: GROUP, id: size + 1 })).toThrow(
      /more than 1048575 jobs created in one millisecond/,
    );
    // tie 0 is still free: a job that sorts first takes it without renumbering
    expect(allocateKey(GROUP, full, { created: GROUP, id: 0 })).toEqual({ key: start, moves: [] });
  });
});

describe('order keys', () => {
  it('clamps instants beyond ±2^42 ms into the outermost groups and keys no range bound there', () => {
    expect(groupOf(Date.UTC(9999, 0, 1))).toBe(MAX_GROUP);
    expect(groupOf(Date.UTC(1000, 0, 1))).toBe(-MAX_GROUP);
    expect(instantBound(Date.UTC(9999, 0, 1))).toBeUndefined();
    expect(instantBound(0)).toBe(0n);
    expect(groupStart(MAX_GROUP) + TIE_SPAN - 1n).toBeLessThanOrEqual(2n ** 63n - 1n);
  });
});

describe('the embedded engine keeps result order', () => {
  it('lists jobs of one millisecond by id descending after renumbering them', async () => {
    const index = new EmbeddedSearchIndex({ path: ':memory:' });
    // 1,000,000 first, then the odd ids 1…59, which take adjacent keys (a key per id is more than the
    // group has room for), then the even ids 2…60: id 2 finds no key between 1 and 3, so the jobs
    // around it are renumbered first.
    const odds = Array.from({ length: 30 }, (_, position) => 2 * position + 1);
    for (const id of [1_000_000, ...odds, ...odds.map((odd) => odd + 1)]) {
      await index.apply([{ type: 'upsert', document: documentOf(id, SAME_MOMENT) }]);
    }
    const expected = [1_000_000, ...Array.from({ length: 60 }, (_, position) => 60 - position)];
    expect(await idsOf(index)).toEqual(expected);
    expect(await idsOf(index, { text: 'catalogue' })).toEqual(expected);
    expect((await index.search(query({ text: 'spr cat', offset: 10, limit: 5 }))).total).toBe(61);
    expect(await idsOf(index, { text: 'spr cat', offset: 10, limit: 5 })).toEqual(expected.slice(10, 15));
    await index.close();
  });

  it('moves a job when its createdDate changes, and keeps its other matches', async () => {
    const index = new EmbeddedSearchIndex({ path: ':memory:' });
    await index.apply([
      { type: 'upsert', document: documentOf(1, '2024-01-01T00:00:00Z') },
      { type: 'upsert', document: documentOf(2, '2024-02-01T00:00:00Z') },
      { type: 'upsert', document: documentOf(3, '2024-03-01T00:00:00Z') },
    ]);
    await index.apply([{ type: 'upsert', document: documentOf(1, '2024-04-01T00:00:00Z', 2, 'ERROR') }]);
    expect(await idsOf(index)).toEqual([1, 3, 2]);
    expect(await idsOf(index, { text: 'catalogue', statuses: ['ERROR'] })).toEqual([1]);
    expect(await idsOf(index, { created: { from: Date.UTC(2024, 2, 15) } })).toEqual([1]);
    await index.apply([{ type: 'delete', jobId: 1, version: 3 }]);
    expect(await idsOf(index, { text: 'catalogue' })).toEqual([3, 2]);
    await index.close();
  });

  it('orders and filters jobs created centuries away from now', async () => {
    const index = new EmbeddedSearchIndex({ path: ':memory:' });
    await index.apply([
      { type: 'upsert', document: documentOf(1, '9999-12-31T00:00:00Z') },
      { type: 'upsert', document: documentOf(2, '5000-01-01T00:00:00Z') },
      { type: 'upsert', document: documentOf(3, '1700-01-01T00:00:00Z') },
      { type: 'upsert', document: documentOf(4, '1600-01-01T00:00:00Z') },
      { type: 'upsert', document: documentOf(5, '2024-01-01T00:00:00Z') },
    ]);
    expect(await idsOf(index)).toEqual([1, 2, 5, 3, 4]);
    expect(await idsOf(index, { text: 'spring' })).toEqual([1, 2, 5, 3, 4]);
    const from6000 = { created: { from: Date.UTC(6000, 0, 1) } };
    expect(await idsOf(index, from6000)).toEqual([1]);
    expect(await idsOf(index, { ...from6000, text: 'spring' })).toEqual([1]);
    expect((await index.search(query({ ...from6000, text: 'spring' }))).total).toBe(1);
    expect(await idsOf(index, { created: { to: Date.UTC(1650, 0, 1) }, text: 'cat' })).toEqual([4]);
    await index.close();
  });
});

describe('the embedded engine on a shared file', () => {
  it('counts exactly after another connection writes', async () => {
    const path = join(directory, 'shared.sqlite');
    const reader = new EmbeddedSearchIndex({ path });
    const writer = new EmbeddedSearchIndex({ path });
    await writer.apply([{ type: 'upsert', document: documentOf(1, SAME_MOMENT) }]);
    expect((await reader.search(query({ text: 'spring' }))).total).toBe(1);
    await writer.apply([{ type: 'upsert', document: documentOf(2, SAME_MOMENT) }]);
    expect((await reader.search(query({ text: 'spring' }))).total).toBe(2);
    expect((await reader.search(query())).total).toBe(2);
    await reader.close();
    await writer.close();
  });

  it('replaces the tables of an older layout with empty ones', async () => {
    const path = join(directory, 'old-layout.sqlite');
    const old = new DatabaseSync(path);
    old.exec('CREATE TABLE jobs (id INTEGER PRIMARY KEY, version INTEGER NOT NULL); INSERT INTO jobs VALUES (1, 1);');
    old.close();
    const index = new EmbeddedSearchIndex({ path });
    expect((await index.search(query())).total).toBe(0);
    await index.apply([{ type: 'upsert', document: documentOf(1, SAME_MOMENT) }]);
    expect(await idsOf(index)).toEqual([1]);
    await index.close();
    const reopened = new EmbeddedSearchIndex({ path });
    expect(await idsOf(reopened)).toEqual([1]);
    await reopened.close();
  });
});

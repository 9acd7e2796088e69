/**
 * The embedded engine's vocabulary: the range of strings a word prefixes in SQLite's binary order, and
 * the `terms` table (the engine's own DDL, in a real in-memory SQLite database) that lists the indexed
 * terms a word prefixes.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCHEMA } from '../../../local/search/embedded/schema';
import { PendingTerms, prefixEnd, TermsVocabulary } from '../../../local/search/embedded/vocabulary';

describe('the end of a prefix range', () => {
  it.each([
    ['cat', 'cau'],
    ['buzz', 'buz{'],
    ['a', 'b'],
    ['naïve', 'naïvf'],
    ['ÿ', '\u0100'],
    ['x\u007f', 'x\u0080'],
    ['日本', '日札'],
    ['ab\uffff', 'ab\u{10000}'],
    ['a\ud7ff', 'a\ue000'],
    ['a😀', 'a😁'],
    ['😀😀', '😀😁'],
  ])('of %j is %j', (word, end) => {
    expect(prefixEnd(word)).toBe(end);
  });

  it('refuses an empty word', () => {
    expect(() => prefixEnd('')).toThrow(RangeError);
  });

  describe('in SQLite binary order', () => {
    let db: DatabaseSync;
    let inRange: StatementSync;

    beforeEach(() => {
      db = new DatabaseSync(':memory:');
      inRange = db.prepare('SELECT ? >= ? AND ? < ? AS inside');
    });

    afterEach(() => {
      db.close();
    });

    /** Whether SQLite orders `text` within `[word, prefixEnd(word))`. */
    const sqliteInRange = (text: string, word: string): boolean =>
      (inRange.get(text, word, text, prefixEnd(word)) as { inside: number }).inside === 1;

    /**
     * Code points other than surrogates (a JS string holding one is not UTF-8), biased towards the
     * boundaries where UTF-8 changes length or skips the surrogate block.
     */
    const BOUNDARIES = [0x01, 0x7e, 0x7f, 0x80, 0xff, 0x7ff, 0x800, 0xd7fe, 0xd7ff, 0xe000, 0xfffe, 0xffff, 0x10000];
    const codePoint = fc.oneof(
      fc.constantFrom(...BOUNDARIES),
      fc.integer({ min: 0x61, max: 0x63 }),
      fc.integer({ min: 0, max: 0xd7ff }),
      fc.integer({ min: 0xe000, max: 0x10ffff }),
    );
    const text = (minLength: number): fc.Arbitrary<string> =>
      fc.array(codePoint, { minLength, maxLength: 6 }).map((points) => String.fromCodePoint(...points));
    /** A word the engine can look up: not empty, not ending in U+10FFFF (the last code point there is). */
    const word = text(1).filter((value) => [...value].at(-1)?.codePointAt(0) !== 0x10ffff);

    it('holds every string the word prefixes', () => {
      fc.assert(
        fc.property(word, text(0), (prefix, rest) => {
          expect(sqliteInRange(prefix + rest, prefix)).toBe(true);
        }),
        { numRuns: 500 },
      );
    });

    it('holds no string the word does not prefix', () => {
      /** Strings close to the word: a shorter prefix of it, or it with its last code point moved, then more. */
      const near = fc
        .tuple(word, fc.nat(), fc.integer({ min: -2, max: 2 }), text(0))
        .map(([prefix, cut, move, rest]) => {
          const points = [...prefix].map((point) => point.codePointAt(0) as number);
          const kept = points.slice(0, cut % (points.length + 1));
          if (kept.length === points.length && kept.length > 0) {
            const last = (kept.pop() as number) + move;
            if (last >= 0 && last <= 0x10ffff && (last < 0xd800 || last > 0xdfff)) kept.push(last);
          }
          return { prefix, candidate: String.fromCodePoint(...kept) + rest };
        });
      fc.assert(
        fc.property(fc.oneof(near, fc.record({ prefix: word, candidate: text(0) })), ({ prefix, candidate }) => {
          expect(sqliteInRange(candidate, prefix)).toBe(candidate.startsWith(prefix));
        }),
        { numRuns: 1000 },
      );
    });
  });
});

describe('the terms table', () => {
  let db: DatabaseSync;
  let vocabulary: TermsVocabulary;

  beforeEach(() => {
    db = new DatabaseSync(':memory:');
    db.exec(SCHEMA);
    vocabulary = new TermsVocabulary(db);
  });

  afterEach(() => {
    db.close();
  });

  const given = (byColumn: Record<number, readonly string[]>): void => {
    vocabulary.add(new Map(Object.entries(byColumn).map(([column, terms]) => [Number(column), new Set(terms)])));
  };

  const numbered = (stem: string, count: number): string[] =>
    Array.from({ length: count }, (_, index) => `${stem}${String(index).padStart(3, '0')}`);

  it('lists the terms a word prefixes, sorted', () => {
    given({ 1: ['catalogues', 'catalogue', 'cataloguer', 'cat', 'catalog', 'dog'] });
    expect(vocabulary.termsWithPrefix('catalogue', [1], 64)).toEqual(['catalogue', 'cataloguer', 'catalogues']);
    expect(vocabulary.termsWithPrefix('cata', [1], 64)).toEqual(['catalog', 'catalogue', 'cataloguer', 'catalogues']);
  });

  it('lists a term held by several of the columns once', () => {
    given({ 0: ['spring', 'springs'], 1: ['spring'], 4: ['springfield', 'spring'] });
    expect(vocabulary.termsWithPrefix('spri', [0, 1, 4], 64)).toEqual(['spring', 'springfield', 'springs']);
  });

  it('looks only in the requested columns', () => {
    given({ 0: ['spring'], 1: ['springs'], 2: ['springfield'] });
    expect(vocabulary.termsWithPrefix('spri', [1], 64)).toEqual(['springs']);
    expect(vocabulary.termsWithPrefix('spri', [0, 2], 64)).toEqual(['spring', 'springfield']);
    expect(vocabulary.termsWithPrefix('spri', [3], 64)).toEqual([]);
  });

  it('includes a term equal to the word and stops before the next word', () => {
    given({ 1: ['caa', 'cas', 'cat', 'catz', 'cat\u{10ffff}', 'cau', 'caua', 'cb', 'ca'] });
    expect(vocabulary.termsWithPrefix('cat', [1], 64)).toEqual(['cat', 'catz', 'cat\u{10ffff}']);
  });

  it('stops before the next word across UTF-8 length boundaries', () => {
    given({ 1: ['x\uffff', 'x\uffffa', 'x\u{10000}', 'x\u{10000}b', 'a\ud7ff', 'a\ud7ffé', 'a\ue000', 'a\ue001'] });
    expect(vocabulary.termsWithPrefix('x\uffff', [1], 64)).toEqual(['x\uffff', 'x\uffffa']);
    expect(vocabulary.termsWithPrefix('a\ud7ff', [1], 64)).toEqual(['a\ud7ff', 'a\ud7ffé']);
  });

  it('answers an empty list when the word prefixes no term', () => {
    given({ 1: ['catalogue'] });
    expect(vocabulary.termsWithPrefix('catalogues', [1], 64)).toEqual([]);
    expect(vocabulary.termsWithPrefix('dog', [1], 64)).toEqual([]);
  });

  it('answers the terms when there are exactly as many as the limit, and nothing when there is one more', () => {
    given({ 1: numbered('catalogue', 64) });
    expect(vocabulary.termsWithPrefix('catalogue', [1], 64)).toEqual(numbered('catalogue', 64));
    given({ 1: ['catalogue999'] });
    expect(vocabulary.termsWithPrefix('catalogue', [1], 64)).toBeUndefined();
    expect(vocabulary.termsWithPrefix('catalogue0', [1], 64)).toEqual(numbered('catalogue', 64));
  });

  it('applies the limit to the distinct terms of all the requested columns together', () => {
    given({ 0: numbered('catalogue', 40), 1: numbered('catalogue', 40), 2: numbered('catalogue', 24) });
    expect(vocabulary.termsWithPrefix('catalogue', [0, 1], 40)).toHaveLength(40);
    expect(vocabulary.termsWithPrefix('catalogue', [0, 1, 2], 40)).toHaveLength(40);
    given({ 2: ['catalogue999'] });
    expect(vocabulary.termsWithPrefix('catalogue', [0, 1, 2], 40)).toBeUndefined();
    expect(vocabulary.termsWithPrefix('catalogue', [0, 1], 40)).toHaveLength(40);
  });

  it('keeps one row per column and term when terms are added again', () => {
    given({ 1: ['spring', 'sale'] });
    given({ 1: ['spring'], 2: ['spring'] });
    expect(db.prepare('SELECT col, term FROM terms ORDER BY col, term').all()).toEqual([
      { col: 1, term: 'sale' },
      { col: 1, term: 'spring' },
      { col: 2, term: 'spring' },
    ]);
  });
});

describe('the terms of one write transaction', () => {
  it('collects the distinct space-separated terms of each column', () => {
    const pending = new PendingTerms();
    pending.addTexts(['test account', 'spring catalogue', '', 'catalogue spring spring']);
    pending.addTexts(['test account', 'winter']);
    expect(pending.byColumn).toEqual(
      new Map([
        [0, new Set(['test', 'account'])],
        [1, new Set(['spring', 'catalogue', 'winter'])],
        [3, new Set(['catalogue', 'spring'])],
      ]),
    );
  });

  it('forgets what it collected when cleared', () => {
    const pending = new PendingTerms();
    pending.addTexts(['spring']);
    pending.clear();
    expect(pending.byColumn.size).toBe(0);
    pending.addTexts(['', 'winter']);
    expect(pending.byColumn).toEqual(new Map([[1, new Set(['winter'])]]));
  });
});

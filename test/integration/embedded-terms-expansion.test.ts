/**
 * The embedded engine's expansion of query words into the indexed terms they prefix, through its public
 * SearchIndex on a real SQLite file: below, at and above the expansion limit the engine answers exactly
 * what a brute-force reference of docs/contract.md §4 answers (total and page), after updates and deletes
 * that leave dead terms behind, with case and diacritics folded, with search syntax in the query, and
 * after a version-2 database (without the terms table) is upgraded in place.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Job } from '../../functions/jobs/model/model';
import { toSearchDocument } from '../../functions/search/search-document';
import { EmbeddedSearchIndex } from '../../local/search/embedded/embedded-search-index';
import { MAX_EXPANDED_TERMS } from '../../local/search/embedded/match';
import { SCHEMA_VERSION, TEXT_COLUMN_FIELDS, UPGRADABLE_VERSION } from '../../local/search/embedded/schema';
import { TEXT_FIELD_IDS, type TextFieldId } from '../../functions/search/query-text';
import type { SearchQuery } from '../../functions/search/search-index';
import { words } from '../../functions/search/text';
import { FIELD_TEXTS } from '../support/field-texts';
import { makeFile, makeJob } from '../support/jobs';

const directory = mkdtempSync(join(tmpdir(), 'embedded-terms-'));
let files = 0;

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** A fresh database file path in the test directory. */
const freshPath = (): string => join(directory, `index-${++files}.sqlite`);

const DAY = 86_400_000;
const BASE = Date.UTC(2024, 0, 1);

/** A job with the given id and name, created `day` days after 2024-01-01, with one plain file. */
const job = (id: number, name: string, overrides: Partial<Job> = {}, day = id % 37): Job =>
  makeJob({
    id,
    name,
    accountName: 'Test Account',
    createdDate: new Date(BASE + day * DAY).toISOString(),
    files: [makeFile({ id: id * 10, fileName: 'plain.png' })],
    ...overrides,
  });

const pad = (value: number): string => String(value).padStart(3, '0');

type Field = TextFieldId | 'Global';

/** The folded words of a job in the given text fields. */
const jobWords = (value: Job, fields: readonly TextFieldId[]): string[] =>
  fields.flatMap((field) => FIELD_TEXTS[field](value).flatMap((text) => words(text)));

/**
 * Whether a job matches a text query (docs/contract.md §4): every query word is a prefix of some word of the
 * searched fields; a query without words matches everything; Global also matches the whole job number
 * or GUID.
 */
const matches = (value: Job, field: Field, text: string): boolean => {
  const trimmed = text.trim();
  const queryWords = words(trimmed);
  if (trimmed.length === 0 || queryWords.length === 0) return true;
  const fields = field === 'Global' ? TEXT_FIELD_IDS : [field];
  const held = jobWords(value, fields);
  const everyWord = queryWords.every((word) => held.some((candidate) => candidate.startsWith(word)));
  if (field !== 'Global') return everyWord;
  return (
    everyWord ||
    (/^[0-9]+$/.test(trimmed) && Number.isSafeInteger(Number(trimmed)) && Number(trimmed) === value.id) ||
    value.guid.toLowerCase() === trimmed.toLowerCase()
  );
};

/** Newest first, then the higher id first. */
const resultOrder = (a: Job, b: Job): number => b.createdDate.localeCompare(a.createdDate) || b.id - a.id;

/** The distinct folded words of the jobs in the given fields that start with `word`. */
const termsPrefixedBy = (jobs: Iterable<Job>, word: string, fields: readonly TextFieldId[]): number =>
  new Set([...jobs].flatMap((value) => jobWords(value, fields)).filter((term) => term.startsWith(word))).size;

interface Page {
  offset: number;
  limit: number;
}

/** An engine on a fresh file together with the jobs it should hold (the table, as it were). */
class Fixture {
  public readonly jobs = new Map<number, Job>();
  readonly #versions = new Map<number, number>();

  public constructor(public readonly index: EmbeddedSearchIndex) {}

  /** Indexes jobs (new, or replacing the held ones at the next version). */
  public async put(...values: Job[]): Promise<void> {
    const outcomes = await this.index.apply(
      values.map((value) => {
        const version = (this.#versions.get(value.id) ?? 0) + 1;
        this.#versions.set(value.id, version);
        this.jobs.set(value.id, value);
        return { type: 'upsert', document: toSearchDocument(value, version) } as const;
      }),
    );
    expect(outcomes.every((outcome) => outcome.status === 'indexed')).toBe(true);
  }

  /** Deletes a job. */
  public async remove(id: number): Promise<void> {
    const version = (this.#versions.get(id) ?? 0) + 1;
    this.#versions.set(id, version);
    this.jobs.delete(id);
    expect(await this.index.apply([{ type: 'delete', jobId: id, version }])).toEqual([{ status: 'indexed' }]);
  }

  /** The reference answer: the exact total and the ids of the page. */
  public expected(field: Field, text: string, page: Page): { total: number; ids: number[] } {
    const all = [...this.jobs.values()].filter((value) => matches(value, field, text)).sort(resultOrder);
    return { total: all.length, ids: all.slice(page.offset, page.offset + page.limit).map((value) => value.id) };
  }

  /** What the engine answers. */
  public async actual(field: Field, text: string, page: Page): Promise<{ total: number; ids: number[] }> {
    const query: SearchQuery = {
      field,
      text,
      globalFields: [...TEXT_FIELD_IDS],
      globalMatchesAccountNumber: false,
      ...page,
    };
    const result = await this.index.search(query);
    return { total: result.total, ids: result.jobs.map((summary) => summary.id) };
  }

  /** Asserts that the engine answers exactly as the reference; returns the answer. */
  public async expectExact(
    field: Field,
    text: string,
    page: Page = { offset: 0, limit: 20 },
  ): Promise<{ total: number; ids: number[] }> {
    const actual = await this.actual(field, text, page);
    expect(actual, `${field} ${JSON.stringify(text)} ${JSON.stringify(page)}`).toEqual(
      this.expected(field, text, page),
    );
    return actual;
  }

  /** Asserts the first page, a middle page, the last page, a page past the end and one large page. */
  public async expectExactPages(field: Field, text: string): Promise<number> {
    const { total } = await this.expectExact(field, text);
    for (const page of [
      { offset: 40, limit: 20 },
      { offset: Math.max(0, total - 5), limit: 20 },
      { offset: total + 10, limit: 20 },
      { offset: 0, limit: 100 },
      { offset: 7, limit: 3 },
    ]) {
      await this.expectExact(field, text, page);
    }
    return total;
  }
}

/**
 * 64 job names starting `cataloguea` (64 terms), 65 starting `catalogueb` (65 terms; ten more jobs
 * repeat `catalogueb001`), and noise: terms of other fields with those prefixes, near misses, a fixed
 * GUID and a job number that no term starts with.
 */
const catalogueJobs = (): Job[] => [
  ...Array.from({ length: 64 }, (_, index) =>
    job(index + 1, `Cataloguea${pad(index + 1)}${(index + 1) % 4 === 0 ? ' Spring' : ''}`),
  ),
  ...Array.from({ length: 65 }, (_, index) =>
    job(101 + index, `Catalogueb${pad(index + 1)}${(index + 1) % 5 === 0 ? ' spring sale' : ''}`),
  ),
  ...Array.from({ length: 10 }, (_, index) => job(201 + index, 'Catalogueb001 reprint')),
  job(301, 'Catalogue'),
  job(302, 'Catalogues of spring'),
  job(303, 'Catalog'),
  job(304, 'Katalogue'),
  job(305, 'cat'),
  job(306, 'Untitled', { files: [makeFile({ id: 3060, fileName: 'catalogueb999.jpg' })] }),
  job(307, 'Untitled', { description: 'See catalogueb000 and cataloguea000' }),
  job(308, 'Untitled', { guid: '0a0b0c0d-1111-4222-8333-444455556666' }),
  job(5555, 'Untitled'),
  job(4321, 'Untitled'),
  job(4400, 'Batch 4321b'),
];

const openFixture = (): Fixture => new Fixture(new EmbeddedSearchIndex({ path: freshPath() }));

describe('embedded engine: words expanded into the terms they prefix', () => {
  let fixture: Fixture;

  beforeEach(() => {
    fixture = openFixture();
  });

  afterEach(async () => {
    await fixture.index.close();
  });

  describe('beyond the expansion limit', () => {
    beforeEach(async () => {
      await fixture.put(...catalogueJobs());
    });

    it('answers a word that prefixes more than 64 terms with the exact total and page', async () => {
      expect(termsPrefixedBy(fixture.jobs.values(), 'catalogue', ['JobName'])).toBeGreaterThan(MAX_EXPANDED_TERMS);
      expect(await fixture.expectExactPages('JobName', 'catalogue')).toBe(64 + 65 + 10 + 2);
      expect(await fixture.expectExactPages('JobName', 'CATALOGUEB0')).toBe(65 + 10);
      expect(await fixture.expectExactPages('Global', 'catalogue')).toBe(64 + 65 + 10 + 2 + 2);
    });

    it('expands a word that prefixes exactly 64 terms and falls back for one that prefixes 65', async () => {
      expect(termsPrefixedBy(fixture.jobs.values(), 'cataloguea', ['JobName'])).toBe(MAX_EXPANDED_TERMS);
      expect(termsPrefixedBy(fixture.jobs.values(), 'catalogueb', ['JobName'])).toBe(MAX_EXPANDED_TERMS + 1);
      expect(await fixture.expectExactPages('JobName', 'cataloguea')).toBe(64);
      expect(await fixture.expectExactPages('JobName', 'catalogueb')).toBe(65 + 10);
      expect(await fixture.expectExactPages('Global', 'cataloguea')).toBe(65);
      expect(await fixture.expectExactPages('Global', 'catalogueb')).toBe(65 + 10 + 2);
      expect(await fixture.expectExactPages('FileName', 'catalogueb')).toBe(1);
    });

    it('combines expanded, fallen-back and short prefix words with AND', async () => {
      for (const text of [
        'catalogueb spring',
        'spring catalogueb',
        'cataloguea spr',
        'catalogue sale',
        'catalogue spring',
        'catalogueb reprint',
        'catalogueb001 reprint',
        'cataloguea catalogueb',
      ]) {
        await fixture.expectExactPages('JobName', text);
        await fixture.expectExactPages('Global', text);
      }
      expect((await fixture.actual('JobName', 'catalogueb spring', { offset: 0, limit: 20 })).total).toBe(13);
    });

    it('stays exact for a word whose terms grow from below to above the limit', async () => {
      const growing = openFixture();
      try {
        await growing.put(job(1, 'Catalogue'), job(2, 'Catalogues'));
        for (let first = 1; first <= 80; first += 9) {
          await growing.put(
            ...Array.from({ length: 9 }, (_, index) => job(100 + first + index, `catalogue${pad(first + index)}`)),
          );
          const terms = termsPrefixedBy(growing.jobs.values(), 'catalogue', ['JobName']);
          const { total } = await growing.expectExact('JobName', 'catalogue');
          expect(total, `${terms} terms`).toBe(growing.jobs.size);
          await growing.expectExact('JobName', 'catalogue', { offset: Math.max(0, total - 3), limit: 10 });
        }
      } finally {
        await growing.index.close();
      }
    });
  });

  describe('words longer than, or equal to, indexed terms', () => {
    beforeEach(async () => {
      await fixture.put(...catalogueJobs());
    });

    it('finds nothing for a word longer than every term it extends', async () => {
      for (const field of ['JobName', 'Global'] as const) {
        expect(await fixture.expectExact(field, 'cataloguea0011')).toEqual({ total: 0, ids: [] });
        expect(await fixture.expectExact(field, 'catalogues1')).toEqual({ total: 0, ids: [] });
        expect(await fixture.expectExact(field, 'catalogue cataloguea0011')).toEqual({ total: 0, ids: [] });
      }
    });

    it('finds the jobs holding a word equal to a term, and the longer terms it prefixes', async () => {
      expect(await fixture.expectExact('JobName', 'cataloguea001')).toEqual({ total: 1, ids: [1] });
      expect(await fixture.expectExactPages('JobName', 'catalogueb001')).toBe(11);
      expect(await fixture.expectExact('JobName', 'Catalogues')).toEqual({ total: 1, ids: [302] });
      expect(await fixture.expectExact('JobName', 'Katalogue')).toEqual({ total: 1, ids: [304] });
      expect(await fixture.expectExact('JobName', 'catalog')).toMatchObject({ total: 64 + 65 + 10 + 3 });
    });

    it('finds a job by its number or GUID in Global when no term starts with the query', async () => {
      expect(await fixture.expectExact('Global', '5555')).toEqual({ total: 1, ids: [5555] });
      expect(await fixture.expectExact('Global', '0A0B0C0D-1111-4222-8333-444455556666')).toEqual({
        total: 1,
        ids: [308],
      });
      expect(await fixture.expectExact('Global', '55555')).toEqual({ total: 0, ids: [] });
    });

    it('counts a job once in Global when its number equals the query and a term of another job starts with it', async () => {
      expect(await fixture.expectExact('Global', '4321', { offset: 0, limit: 100 })).toMatchObject({ total: 2 });
      expect(await fixture.expectExact('Global', '4321', { offset: 1, limit: 1 })).toMatchObject({ total: 2 });
    });
  });

  describe('after updates and deletes (the vocabulary keeps dead terms)', () => {
    it('no longer finds a job by a term it lost, and keeps the total exact', async () => {
      await fixture.put(job(1, 'Zebra catalogue'), job(2, 'Zebras'), job(3, 'Zebu'));
      await fixture.put(job(1, 'Yak catalogue'));
      expect(await fixture.expectExact('JobName', 'zebra')).toEqual({ total: 1, ids: [2] });
      expect(await fixture.expectExact('JobName', 'ZEBR')).toEqual({ total: 1, ids: [2] });
      expect(await fixture.expectExact('JobName', 'zeb')).toEqual({ total: 2, ids: [3, 2] });
      expect(await fixture.expectExact('Global', 'zebra catalogue')).toEqual({ total: 0, ids: [] });
      expect(await fixture.expectExact('JobName', 'yak catalogue')).toEqual({ total: 1, ids: [1] });

      await fixture.remove(2);
      expect(await fixture.expectExact('JobName', 'zebra')).toEqual({ total: 0, ids: [] });
      expect(await fixture.expectExact('Global', 'zebr')).toEqual({ total: 0, ids: [] });
      expect(await fixture.expectExact('JobName', 'zebu')).toEqual({ total: 1, ids: [3] });
    });

    it('keeps totals exact beyond the limit when jobs lose terms or are deleted', async () => {
      await fixture.put(...catalogueJobs());
      await fixture.put(job(5, 'Brochure'), job(110, 'Flyer catalogueb010'));
      await fixture.remove(101);
      expect(await fixture.expectExactPages('JobName', 'cataloguea')).toBe(63);
      expect(await fixture.expectExact('JobName', 'cataloguea005')).toEqual({ total: 0, ids: [] });
      expect(await fixture.expectExactPages('JobName', 'catalogueb')).toBe(64 + 10);
      expect(await fixture.expectExactPages('JobName', 'catalogueb001')).toBe(10);
      expect(await fixture.expectExactPages('JobName', 'catalogue')).toBe(63 + 64 + 10 + 2);
    });

    it('expands words from the current jobs only once the index is cleared and filled again', async () => {
      await fixture.put(...catalogueJobs());
      await fixture.index.clear();
      fixture.jobs.clear();
      expect(await fixture.expectExact('JobName', 'catalogue')).toEqual({ total: 0, ids: [] });
      await fixture.put(job(1000, 'Catalogue reborn'), job(1001, 'Cataloguea001'));
      expect(await fixture.expectExact('JobName', 'catalogue')).toEqual({ total: 2, ids: [1001, 1000] });
      expect(await fixture.expectExact('JobName', 'catalogueb')).toEqual({ total: 0, ids: [] });
    });
  });

  describe('folding', () => {
    it('folds case and diacritics of expanded words as it does of the indexed text', async () => {
      await fixture.put(
        job(1, 'Katalógue Ørsted'),
        job(2, 'STRASSENBAHN Straße'),
        job(3, 'Crème brûlée'),
        job(4, 'ＫＡＴＡＬＯＧ'),
        job(5, 'katalogue'),
        job(6, 'Łódź Æble Þórsmörk'),
      );
      const cases: [string, number[]][] = [
        ['KATALÓG', [5, 4, 1]],
        ['katalógue', [5, 1]],
        ['KATALOGUE', [5, 1]],
        ['ØRST', [1]],
        ['orsted', [1]],
        ['STRASS', [2]],
        ['straße', [2]],
        ['strassenb', [2]],
        ['BRULÉE', [3]],
        ['creme', [3]],
        ['crème brûl', [3]],
        ['lodz', [6]],
        ['AEBLE', [6]],
        ['thorsm', [6]],
        ['ｋａｔａ', [5, 4, 1]],
      ];
      for (const [text, ids] of cases) {
        const answer = await fixture.expectExact('JobName', text);
        expect(answer.ids, text).toEqual(ids);
      }
    });
  });

  describe('search syntax in the query', () => {
    beforeEach(async () => {
      await fixture.put(
        job(1, 'near nearby notebook'),
        job(2, 'OR order'),
        job(3, 'AND android'),
        job(4, 'Catalogue "quoted" (parenthesised) star* col:on NEAR/2', {
          files: [makeFile({ id: 40, fileName: 'job_name.jpg' })],
        }),
        job(5, "O'Clock catalogue"),
        job(6, 'Plain'),
      );
    });

    const TEXTS = [
      '"catalogue',
      'catalogue"',
      '"catalogue"*',
      'catalogue*',
      'cata*',
      '"quoted"',
      'quot"ed',
      '(catalogue OR plain)',
      'NEAR(catalogue order)',
      'NEAR',
      'near',
      'nearb',
      'NOT',
      'not',
      'noteb',
      'OR',
      'orde',
      'AND',
      'andr',
      '{job_name}: catalogue',
      'job_name : catalogue',
      'job_name.jpg',
      '^catalogue',
      '-catalogue',
      'catalogue + near',
      "o'clock",
      "o'clo",
      'col:on',
      'NEAR/2',
      '"',
      '""',
      '*',
      '"*" OR',
      'star*',
    ];

    it('matches the words of the query literally, in Global and in a text field', async () => {
      for (const text of TEXTS) {
        await fixture.expectExact('Global', text, { offset: 0, limit: 100 });
        await fixture.expectExact('JobName', text, { offset: 0, limit: 100 });
      }
      expect(await fixture.expectExact('JobName', 'NEAR')).toEqual({ total: 2, ids: [4, 1] });
      expect(await fixture.expectExact('JobName', '"catalogue"*')).toEqual({ total: 2, ids: [5, 4] });
      expect(await fixture.expectExact('JobName', '"*" OR')).toEqual({ total: 1, ids: [2] });
    });
  });

  describe('against a brute-force reference', () => {
    const LETTERS = ['a', 'b', 'A', 'B', 'á', 'Ä'];
    const SEPARATORS = [' ', '-', '_', '. ', '"', '*', ' OR ', '(', ':'];
    const word = (maxLength: number): fc.Arbitrary<string> =>
      fc.array(fc.constantFrom(...LETTERS), { minLength: 1, maxLength }).map((letters) => letters.join(''));
    const text = (maxWords: number, maxLength: number): fc.Arbitrary<string> =>
      fc
        .array(fc.tuple(word(maxLength), fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: maxWords })
        .map((parts) => parts.map(([value, separator]) => value + separator).join(''));

    /** 128 terms `abab` + 7 letters over {a, b}, spread over four jobs: `abab`, `ababa` and `ababb` fall back. */
    const background = (): Job[] => {
      const suffixes = Array.from({ length: 128 }, (_, value) =>
        value.toString(2).padStart(7, '0').replaceAll('0', 'a').replaceAll('1', 'b'),
      );
      return [0, 1, 2, 3].map((part) =>
        job(
          901 + part,
          suffixes
            .slice(part * 32, part * 32 + 32)
            .map((suffix) => `abab${suffix}`)
            .join(' '),
          {},
          part,
        ),
      );
    };

    const generatedJob = fc.record({
      name: text(3, 8),
      renamed: fc.option(text(3, 8), { nil: undefined }),
      day: fc.integer({ min: 0, max: 4 }),
    });

    const generatedQuery = fc.record({
      text: fc.oneof(
        text(2, 9),
        fc.constantFrom('abab', 'ababa', 'ABABB', 'ababaa', 'ÁBAB', '"abab"*', 'ab', 'a', 'b', 'aaaa', 'bbbb'),
        fc.record({ job: fc.nat(), word: fc.nat(), length: fc.integer({ min: 1, max: 9 }) }),
      ),
      offset: fc.integer({ min: 0, max: 12 }),
      limit: fc.integer({ min: 1, max: 10 }),
    });

    it('answers random prefix queries on job names with the reference total and page', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(generatedJob, { maxLength: 36 }),
          fc.array(generatedQuery, { minLength: 1, maxLength: 5 }),
          async (generated, queries) => {
            const run = openFixture();
            try {
              const jobs = generated.map((value, index) => job(index + 1, value.name, {}, value.day));
              await run.put(...background(), ...jobs);
              const renamed = generated.flatMap((value, index) =>
                value.renamed === undefined ? [] : [job(index + 1, value.renamed, {}, value.day)],
              );
              if (renamed.length > 0) await run.put(...renamed);
              for (const query of queries) {
                let queryText: string;
                if (typeof query.text === 'string') queryText = query.text;
                else {
                  const held = jobs.length === 0 ? ['a'] : words(jobs[query.text.job % jobs.length]?.name ?? 'a');
                  queryText = (held[query.text.word % held.length] ?? 'a').slice(0, query.text.length);
                }
                await run.expectExact('JobName', queryText, { offset: query.offset, limit: query.limit });
              }
            } finally {
              await run.index.close();
            }
          },
        ),
        { numRuns: 50 },
      );
    });
  });
});

describe('embedded engine: a version-2 database (without the terms table)', () => {
  /** Writes the jobs into a fresh file, closes it, and rewrites it as the given older layout version. */
  const olderDatabase = async (version: number, jobs: Job[]): Promise<{ path: string; fixture: Fixture }> => {
    const path = freshPath();
    const fixture = new Fixture(new EmbeddedSearchIndex({ path }));
    await fixture.put(...jobs);
    await fixture.index.close();
    const db = new DatabaseSync(path);
    try {
      db.exec(`DROP TABLE terms; PRAGMA user_version = ${version};`);
    } finally {
      db.close();
    }
    return { path, fixture };
  };

  /** The rows of the terms table of a database file, as `column:term`. */
  const termsOf = (path: string): string[] => {
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      return (db.prepare('SELECT col, term FROM terms').all() as { col: number; term: string }[]).map(
        (row) => `${row.col}:${row.term}`,
      );
    } finally {
      db.close();
    }
  };

  const jobsWithEveryField = (): Job[] => [
    ...catalogueJobs(),
    job(400, 'Spring', {
      accountName: 'Zephyr Studios',
      description: 'Retouch gently',
      invoiceReference: 'INV-2024-0042',
      tags: ['leather', 'shoes'],
      files: [makeFile({ id: 4000, fileName: 'red_shoe.tif', tags: ['sole'], remarkToProcessor: 'Remove shadow' })],
    }),
  ];

  it('is upgraded in place: its vocabulary is rebuilt from the index and searches stay exact', async () => {
    const jobs = jobsWithEveryField();
    const reference = freshPath();
    const written = new EmbeddedSearchIndex({ path: reference });
    await written.apply(jobs.map((value) => ({ type: 'upsert', document: toSearchDocument(value, 1) })));
    await written.close();

    const { path, fixture: before } = await olderDatabase(UPGRADABLE_VERSION, jobs);
    const fixture = new Fixture(new EmbeddedSearchIndex({ path }));
    for (const value of before.jobs.values()) fixture.jobs.set(value.id, value);
    try {
      await fixture.expectExactPages('JobName', 'catalogue');
      await fixture.expectExactPages('JobName', 'cataloguea0');
      await fixture.expectExactPages('Global', 'catalogueb');
      for (const [field, text] of [
        ['AccountName', 'zephy studi'],
        ['FileName', 'red_sho'],
        ['JobInstruction', 'retou'],
        ['JobTags', 'leath'],
        ['FileTags', 'sole'],
        ['FileInstruction', 'shado'],
        ['InvoiceReference', 'inv-2024-0042'],
        ['Global', 'leath shado'],
      ] as const) {
        expect(await fixture.expectExact(field, text), `${field} ${text}`).toEqual({ total: 1, ids: [400] });
      }
      await fixture.put(job(401, 'Catalogueb999 late'));
      await fixture.expectExactPages('JobName', 'catalogueb9');
    } finally {
      await fixture.index.close();
    }
    const jobName = TEXT_COLUMN_FIELDS.indexOf('JobName');
    expect(new Set(termsOf(path))).toEqual(
      new Set([...termsOf(reference), `${jobName}:catalogueb999`, `${jobName}:late`]),
    );
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      expect(db.prepare('PRAGMA user_version').get()).toEqual({ user_version: SCHEMA_VERSION });
    } finally {
      db.close();
    }
  });

  it('is searched exactly after an upgrade even when jobs had changed before it', async () => {
    const path = freshPath();
    const fixture = new Fixture(new EmbeddedSearchIndex({ path }));
    await fixture.put(...catalogueJobs());
    await fixture.put(job(5, 'Brochure'), job(102, 'Zebra'));
    await fixture.remove(103);
    await fixture.index.close();
    const db = new DatabaseSync(path);
    try {
      db.exec(`DROP TABLE terms; PRAGMA user_version = ${UPGRADABLE_VERSION};`);
    } finally {
      db.close();
    }
    const reopened = new Fixture(new EmbeddedSearchIndex({ path }));
    for (const value of fixture.jobs.values()) reopened.jobs.set(value.id, value);
    try {
      expect(await reopened.expectExactPages('JobName', 'cataloguea')).toBe(63);
      expect(await reopened.expectExactPages('JobName', 'catalogueb')).toBe(63 + 10);
      expect(await reopened.expectExact('JobName', 'zebra')).toEqual({ total: 1, ids: [102] });
      expect(await reopened.expectExact('JobName', 'brochure')).toEqual({ total: 1, ids: [5] });
    } finally {
      await reopened.index.close();
    }
  });

  it('is rebuilt empty when its layout is older than version 2', async () => {
    const { path } = await olderDatabase(UPGRADABLE_VERSION - 1, catalogueJobs());
    const fixture = new Fixture(new EmbeddedSearchIndex({ path }));
    try {
      const versions: unknown[] = [];
      for await (const version of fixture.index.versions()) versions.push(version);
      expect(versions).toEqual([]);
      expect(await fixture.expectExact('JobName', 'catalogue')).toEqual({ total: 0, ids: [] });
      await fixture.put(job(1, 'Catalogue again'));
      expect(await fixture.expectExact('JobName', 'catalogue')).toEqual({ total: 1, ids: [1] });
    } finally {
      await fixture.index.close();
    }
  });
});

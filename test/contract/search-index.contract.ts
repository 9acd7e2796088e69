/**
 * The search contract of docs/contract.md §4 and the versioning rules of section 7, stated once and run
 * against every engine: `searchIndexContract('embedded', () => …)` registers the whole suite for an
 * engine, each test on a fresh, empty index from the factory.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Job, JobFile, JobStatus } from '../../functions/jobs/model/model';
import { toSearchDocument } from '../../functions/search/search-document';
import type { SearchFieldId } from '../../functions/search/fields';
import { TEXT_FIELD_IDS, type TextFieldId } from '../../functions/search/query-text';
import {
  type IndexOutcome,
  type SearchDocument,
  type SearchIndex,
  type SearchQuery,
  SearchUnavailableError,
} from '../../functions/search/search-index';
import { makeFile, makeJob } from '../support/jobs';

/** Creates a fresh, empty engine for one test. */
export type SearchIndexFactory = () => Promise<SearchIndex>;

/**
 * Opens a second handle on the index the factory created last: another container, or the local server
 * while `npm run cli -- reindex` runs. An engine without one (an in-memory database) has no reader to
 * watch a rebuild from, so the test of what readers see during one is not registered for it.
 */
export type SecondHandle = () => Promise<SearchIndex>;

const DAY = 86_400_000;
const BASE = Date.UTC(2024, 0, 1);

/** The ISO instant `days` days (fractions allowed) after 2024-01-01T00:00:00Z. */
const day = (days: number): string => new Date(BASE + days * DAY).toISOString();
const dayMs = (days: number): number => BASE + days * DAY;

/**
 * A job with the given id, created on `day(id)`, with one plain file, unless overridden. Its texts hold
 * no digits, so a numeric query can only match what a test puts there.
 */
const job = (id: number, overrides: Partial<Job> = {}): Job =>
  makeJob({
    id,
    accountName: 'Test Account',
    guid: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
    name: 'Untitled',
    description: '',
    createdDate: day(id),
    files: [makeFile({ id: id * 10, fileName: 'plain.png' })],
    ...overrides,
  });

const file = (id: number, overrides: Partial<JobFile>): JobFile => makeFile({ id, ...overrides });

const doc = (value: Job, version = 1): SearchDocument => toSearchDocument(value, version);

const upsert = (document: SearchDocument) => ({ type: 'upsert', document }) as const;
const remove = (jobId: number, version: number) => ({ type: 'delete', jobId, version }) as const;

/** A search with defaults: Global over every text field, first 100 jobs. */
const query = (overrides: Partial<SearchQuery> = {}): SearchQuery => ({
  field: 'Global',
  text: '',
  globalFields: [...TEXT_FIELD_IDS],
  globalMatchesAccountNumber: false,
  offset: 0,
  limit: 100,
  ...overrides,
});

const INDEXED: IndexOutcome = { status: 'indexed' };
const STALE: IndexOutcome = { status: 'stale' };

/** Each text field with a job carrying a distinctive text in exactly that field. */
const FIELD_SAMPLES: Record<TextFieldId, { job: (id: number) => Job; text: string; query: string }> = {
  AccountName: { job: (id) => job(id, { accountName: 'Zephyr Studios' }), text: 'Zephyr Studios', query: 'zeph stud' },
  JobName: { job: (id) => job(id, { name: 'Zephyr Studios' }), text: 'Zephyr Studios', query: 'zeph stud' },
  FileName: {
    job: (id) => job(id, { files: [file(id * 10, { fileName: 'zephyr_studios.tif' })] }),
    text: 'zephyr_studios.tif',
    query: 'zeph stud',
  },
  JobInstruction: {
    job: (id) => job(id, { description: 'Zephyr Studios' }),
    text: 'Zephyr Studios',
    query: 'zeph stud',
  },
  JobTags: { job: (id) => job(id, { tags: ['zephyr', 'studios'] }), text: 'zephyr, studios', query: 'zeph stud' },
  FileTags: {
    job: (id) => job(id, { files: [file(id * 10, { tags: ['zephyr', 'studios'] })] }),
    text: 'zephyr, studios',
    query: 'zeph stud',
  },
  FileInstruction: {
    job: (id) => job(id, { files: [file(id * 10, { remarkToProcessor: 'Zephyr Studios' })] }),
    text: 'Zephyr Studios',
    query: 'zeph stud',
  },
  InvoiceReference: {
    job: (id) => job(id, { invoiceReference: 'Zephyr-Studios' }),
    text: 'Zephyr-Studios',
    query: 'zeph stud',
  },
};

/** Registers the whole contract for one engine. */
export const searchIndexContract = (engine: string, factory: SearchIndexFactory, secondHandle?: SecondHandle): void => {
  describe(`SearchIndex contract: ${engine}`, () => {
    let index: SearchIndex;

    beforeEach(async () => {
      index = await factory();
    });

    afterEach(async () => {
      await index.close();
    });

    const given = async (...jobs: Job[]): Promise<void> => {
      const outcomes = await index.apply(jobs.map((value) => upsert(doc(value))));
      expect(outcomes).toEqual(jobs.map(() => INDEXED));
    };

    const ids = async (overrides: Partial<SearchQuery> = {}): Promise<number[]> =>
      (await index.search(query(overrides))).jobs.map((summary) => summary.id);

    const found = (field: SearchFieldId, text: string, overrides: Partial<SearchQuery> = {}) =>
      ids({ field, text, ...overrides });

    describe('an engine that holds no index yet', () => {
      it('answers every search with the empty page', async () => {
        expect(await index.search(query())).toEqual({ total: 0, jobs: [] });
        expect(await index.search(query({ field: 'JobName', text: 'spr cat', accountId: 5, offset: 40 }))).toEqual({
          total: 0,
          jobs: [],
        });
        expect(await index.get(1)).toBeUndefined();
      });
    });

    describe('text fields', () => {
      for (const field of TEXT_FIELD_IDS) {
        const sample = FIELD_SAMPLES[field];
        it(`finds a job by word prefixes of its ${field} ("${sample.query}" finds "${sample.text}")`, async () => {
          await given(sample.job(1), job(2));
          expect(await found(field, sample.query)).toEqual([1]);
        });

        it(`searches ${field} only in ${field}`, async () => {
          const other = TEXT_FIELD_IDS.find((candidate) => candidate !== field) as TextFieldId;
          await given(sample.job(1), job(2));
          expect(await found(other, sample.query)).toEqual([]);
        });
      }

      it('finds "Spring catalogue" with "spr cat", in any word order', async () => {
        await given(
          job(1, { name: 'Spring catalogue' }),
          job(2, { name: 'Spring sale' }),
          job(3, { name: 'Catalogue' }),
        );
        expect(await found('JobName', 'spr cat')).toEqual([1]);
        expect(await found('JobName', 'cat spr')).toEqual([1]);
        expect(await found('JobName', 'spring')).toEqual([2, 1]);
      });

      it('requires every word: one unmatched word excludes the job', async () => {
        await given(job(1, { name: 'Spring catalogue' }));
        expect(await found('JobName', 'spr dog')).toEqual([]);
      });

      it('matches word prefixes only, not infixes or suffixes', async () => {
        await given(job(1, { name: 'Spring catalogue' }));
        expect(await found('JobName', 'ring')).toEqual([]);
        expect(await found('JobName', 'logue')).toEqual([]);
        expect(await found('JobName', 'springs')).toEqual([]);
      });

      it('matches a whole word and a word longer than any prefix index', async () => {
        const long = 'Pneumonoultramicroscopicsilicovolcanoconiosis';
        await given(job(1, { name: `Spring ${long}` }), job(2, { name: 'Pneumonia' }));
        expect(await found('JobName', 'spring')).toEqual([1]);
        expect(await found('JobName', long.toUpperCase())).toEqual([1]);
        expect(await found('JobName', long.slice(0, 30))).toEqual([1]);
        expect(await found('JobName', 'pneumo')).toEqual([2, 1]);
      });

      it('ignores case and diacritics on both sides ("cafe" finds "Café", "CAFÉ" finds "cafe")', async () => {
        await given(
          job(1, { name: 'Café Crème Brûlée' }),
          job(2, { name: 'cafe creme' }),
          job(3, { name: 'Cafe\u0301 decomposed' }),
          job(4, { name: 'Coffee' }),
        );
        expect(await found('JobName', 'cafe')).toEqual([3, 2, 1]);
        expect(await found('JobName', 'CAFÉ')).toEqual([3, 2, 1]);
        expect(await found('JobName', 'creme brulee')).toEqual([1]);
        expect(await found('JobName', 'crè')).toEqual([2, 1]);
      });

      it('splits file names on punctuation ("test15" finds "cem_test15.jpg")', async () => {
        await given(
          job(1, { files: [file(10, { fileName: 'cem_test15.jpg' })] }),
          job(2, { files: [file(20, { fileName: 'cemtest15.jpg' })] }),
        );
        expect(await found('FileName', 'test15')).toEqual([1]);
        expect(await found('FileName', 'jpg')).toEqual([2, 1]);
        expect(await found('FileName', 'cem_test15.jpg')).toEqual([1]);
        expect(await found('FileName', 'CEM-TEST')).toEqual([1]);
      });

      it('lets the words of one query match different files of a job', async () => {
        await given(
          job(1, { files: [file(10, { fileName: 'front.jpg' }), file(11, { fileName: 'back.png' })] }),
          job(2, { files: [file(20, { fileName: 'front.png' })] }),
        );
        expect(await found('FileName', 'front back')).toEqual([1]);
      });

      it('replaces the text of a job when it is indexed again', async () => {
        await given(job(1, { name: 'Spring catalogue' }));
        expect(await index.apply([upsert(doc(job(1, { name: 'Autumn sale' }), 2))])).toEqual([INDEXED]);
        expect(await found('JobName', 'spring')).toEqual([]);
        expect(await found('JobName', 'autumn')).toEqual([1]);
      });
    });

    describe('exact fields', () => {
      beforeEach(async () => {
        await given(job(42, { accountId: 7 }), job(420, { accountId: 77 }), job(4, { accountId: 7 }));
      });

      it('finds a job by its whole job number', async () => {
        expect(await found('JobNumber', '42')).toEqual([42]);
        expect(await found('JobNumber', ' 420 ')).toEqual([420]);
      });

      it('matches nothing when the job number is not an integer', async () => {
        for (const text of ['4x', '4.2', '-42', '+42', 'forty-two', '42 420', '1e3']) {
          expect(await found('JobNumber', text), text).toEqual([]);
        }
      });

      it('finds every job of an account by its whole account number', async () => {
        expect(await found('AccountNumber', '7')).toEqual([42, 4]);
        expect(await found('AccountNumber', '77')).toEqual([420]);
        expect(await found('AccountNumber', 'seven')).toEqual([]);
      });

      it('finds a job by its whole GUID, in any case', async () => {
        const guid = '00000000-0000-4000-8000-000000000042';
        expect(await found('Guid', guid)).toEqual([42]);
        expect(await found('Guid', guid.toUpperCase())).toEqual([42]);
        expect(await found('Guid', ` ${guid} `)).toEqual([42]);
      });

      it('does not match part of a GUID', async () => {
        expect(await found('Guid', '00000000-0000-4000-8000')).toEqual([]);
        expect(await found('Guid', '00000000')).toEqual([]);
      });
    });

    describe('Global', () => {
      it('lets each word match a different field', async () => {
        await given(
          job(1, { name: 'Spring catalogue', files: [file(10, { fileName: 'red_shoe.jpg', tags: ['leather'] })] }),
          job(2, { name: 'Spring catalogue' }),
        );
        expect(await ids({ text: 'spring shoe' })).toEqual([1]);
        expect(await ids({ text: 'leath cat' })).toEqual([1]);
        expect(await ids({ text: 'spring' })).toEqual([2, 1]);
      });

      it('searches only the text fields it is given', async () => {
        await given(job(1, { tags: ['zephyr'] }), job(2, { name: 'Zephyr' }));
        expect(await ids({ text: 'zephyr', globalFields: ['JobName', 'FileName'] })).toEqual([2]);
        expect(await ids({ text: 'zephyr' })).toEqual([2, 1]);
      });

      it('finds a job whose number equals the query, besides word matches', async () => {
        await given(job(15), job(16, { name: 'Batch 15b' }), job(150));
        expect(await ids({ text: '15' })).toEqual([16, 15]);
        expect(await ids({ text: '150' })).toEqual([150]);
      });

      it('finds a job whose GUID equals the query, in any case', async () => {
        await given(job(1), job(2));
        expect(await ids({ text: '00000000-0000-4000-8000-000000000002'.toUpperCase() })).toEqual([2]);
      });

      it('finds an account by number only when the query allows it', async () => {
        await given(job(1, { accountId: 555 }), job(2, { accountId: 555 }), job(3, { accountId: 556 }));
        expect(await ids({ text: '555' })).toEqual([]);
        expect(await ids({ text: '555', globalMatchesAccountNumber: true })).toEqual([2, 1]);
      });
    });

    describe('empty and wordless queries', () => {
      it('has no text condition when the query is empty or blank', async () => {
        await given(job(1), job(2));
        expect(await ids({ text: '' })).toEqual([2, 1]);
        expect(await ids({ text: '   ' })).toEqual([2, 1]);
        expect(await ids({ field: 'JobName', text: '' })).toEqual([2, 1]);
        expect(await ids({ field: 'JobNumber', text: ' ' })).toEqual([2, 1]);
      });

      it('has no text condition when a text query holds no word', async () => {
        await given(job(1), job(2));
        expect(await ids({ text: '*** -- ""' })).toEqual([2, 1]);
        expect(await ids({ field: 'JobName', text: '()' })).toEqual([2, 1]);
      });
    });

    describe('engine syntax in the query is plain text', () => {
      beforeEach(async () => {
        await given(
          job(1, { name: 'Spring catalogue' }),
          job(2, { name: 'Autumn sale' }),
          job(3, { name: 'Rock AND roll NOT near OR' }),
        );
      });

      const cases: [string, number[]][] = [
        ['"spring', [1]],
        ['"spring catalogue"', [1]],
        ['spring"', [1]],
        ['spr*', [1]],
        ['spr*ng', []],
        ['*', [3, 2, 1]],
        ['spring OR autumn', []],
        ['spring AND autumn', []],
        ['NOT autumn', []],
        ['rock AND roll', [3]],
        ['NEAR(rock roll)', [3]],
        ['NEAR(spring catalogue, 2)', []],
        ['-autumn', [2]],
        ['spring -autumn', []],
        ['job_name:autumn', []],
        ['name:autumn', []],
        [':autumn', [2]],
        ['^spring', [1]],
        ['spring^2', []],
        ['(spring)', [1]],
        ['(spring OR autumn)', []],
        ['{job_name}: autumn', []],
        ['{autumn}', [2]],
        ['autumn~', [2]],
        ['autum?', [2]],
        ['[autumn TO spring]', []],
        ['/spr.*/', [1]],
        ['\\spring', [1]],
        ['+spring', [1]],
        ['spring && autumn', []],
        ['spring || autumn', []],
      ];
      for (const [text, expected] of cases) {
        it(`treats ${JSON.stringify(text)} as words`, async () => {
          expect(await ids({ field: 'JobName', text })).toEqual(expected);
          expect(await ids({ text })).toEqual(expected);
        });
      }
    });

    describe('filters', () => {
      it('restricts to one account', async () => {
        await given(
          job(1, { accountId: 10, name: 'Spring' }),
          job(2, { accountId: 11, name: 'Spring' }),
          job(3, { accountId: 10 }),
        );
        expect(await ids({ accountId: 10 })).toEqual([3, 1]);
        expect(await ids({ accountId: 10, text: 'spring' })).toEqual([1]);
        expect(await ids({ accountId: 12 })).toEqual([]);
        expect((await index.search(query({ accountId: 11 }))).total).toBe(1);
      });

      it('restricts to account 0 like any other account: 0 names an account, not every account', async () => {
        await given(
          job(1, { accountId: 0, name: 'Spring' }),
          job(2, { accountId: 5, name: 'Spring' }),
          job(3, { accountId: 0, status: 'ERROR' }),
          job(4, { accountId: 6, status: 'ERROR' }),
        );
        expect(await index.search(query({ accountId: 0 }))).toMatchObject({ total: 2 });
        expect(await ids({ accountId: 0 })).toEqual([3, 1]);
        expect(await ids({ accountId: 5 })).toEqual([2]);
      });

      it("finds exactly the scoped account's jobs, 0 included, with and without text, statuses and date ranges", async () => {
        const accounts = [0, 1, 2];
        const statusChoices: (JobStatus[] | undefined)[] = [undefined, [], ['CJ_NEW'], ['CJ_NEW', 'ERROR']];
        const everything = { from: dayMs(0), to: dayMs(100) };
        const ranges = [
          [undefined, undefined],
          [everything, undefined],
          [undefined, everything],
        ] as const;
        const jobs = Array.from({ length: 12 }, (_, position) =>
          job(position + 1, {
            accountId: accounts[position % accounts.length] as number,
            status: position % 2 === 0 ? 'CJ_NEW' : 'ERROR',
            name: position % 4 < 2 ? 'Spring' : 'Autumn',
            deliveredDate: position % 5 === 0 ? null : day(position + 1),
          }),
        );
        await given(...jobs);
        const failures: string[] = [];
        // Every combination: each takes another path through an engine (counts, filtered rows, text matches);
        // the date ranges hold every job, so only the delivery range's "has a delivery date" filters.
        for (const accountId of [undefined, ...accounts]) {
          for (const text of ['', 'spring']) {
            for (const statuses of statusChoices) {
              for (const [created, delivered] of ranges) {
                const criteria: Partial<SearchQuery> = {
                  text,
                  ...(accountId === undefined ? {} : { accountId }),
                  ...(statuses === undefined ? {} : { statuses }),
                  ...(created === undefined ? {} : { created }),
                  ...(delivered === undefined ? {} : { delivered }),
                };
                const expected = jobs
                  .filter(
                    (candidate) =>
                      (accountId === undefined || candidate.accountId === accountId) &&
                      (text === '' || candidate.name === 'Spring') &&
                      (statuses === undefined || statuses.length === 0 || statuses.includes(candidate.status)) &&
                      (delivered === undefined || candidate.deliveredDate !== null),
                  )
                  .map((candidate) => candidate.id)
                  .reverse();
                const answer = await index.search(query(criteria));
                const got = { total: answer.total, ids: answer.jobs.map((summary) => summary.id) };
                if (JSON.stringify(got) !== JSON.stringify({ total: expected.length, ids: expected })) {
                  failures.push(
                    `${JSON.stringify(criteria)}: ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`,
                  );
                }
              }
            }
          }
        }
        expect(failures).toEqual([]);
      });

      it('restricts to the given statuses', async () => {
        const statuses: JobStatus[] = ['CJ_NEW', 'CJ_ACCEPT', 'ERROR', 'CJ_NEW'];
        await given(...statuses.map((status, position) => job(position + 1, { status })));
        expect(await ids({ statuses: ['CJ_NEW'] })).toEqual([4, 1]);
        expect(await ids({ statuses: ['CJ_ACCEPT', 'ERROR'] })).toEqual([3, 2]);
        expect(await ids({ statuses: ['CJ_ARCHIVED'] })).toEqual([]);
        expect(await ids({ statuses: ['CJ_NEW'], accountId: 1001 })).toEqual([4, 1]);
      });

      it('treats an empty status list as no restriction', async () => {
        await given(job(1, { status: 'CJ_NEW' }), job(2, { status: 'ERROR' }));
        expect(await ids({ statuses: [] })).toEqual([2, 1]);
      });

      it('restricts creation dates to from ≤ createdDate < to', async () => {
        await given(job(1), job(2), job(3), job(4));
        expect(await ids({ created: { from: dayMs(2), to: dayMs(4) } })).toEqual([3, 2]);
        expect(await ids({ created: { from: dayMs(2) } })).toEqual([4, 3, 2]);
        expect(await ids({ created: { to: dayMs(2) } })).toEqual([1]);
        expect(await ids({ created: { from: dayMs(2) + 1, to: dayMs(3) + 1 } })).toEqual([3]);
        expect(await ids({ created: { from: dayMs(3), to: dayMs(3) } })).toEqual([]);
      });

      it('restricts delivery dates to from ≤ deliveredDate < to', async () => {
        await given(
          job(1, { deliveredDate: day(10) }),
          job(2, { deliveredDate: day(11) }),
          job(3, { deliveredDate: day(12) }),
        );
        expect(await ids({ delivered: { from: dayMs(11), to: dayMs(12) } })).toEqual([2]);
        expect(await ids({ delivered: { from: dayMs(11) } })).toEqual([3, 2]);
        expect(await ids({ delivered: { to: dayMs(11) } })).toEqual([1]);
      });

      it('keeps a date bound at the epoch (0 ms), which a job of 1969 falls before', async () => {
        const before = '1969-12-31T00:00:00.000Z';
        await given(
          job(1, { deliveredDate: day(2) }),
          job(2, { deliveredDate: day(3) }),
          job(3, { createdDate: before, deliveredDate: before }),
        );
        expect(await ids({ created: { from: 0 } })).toEqual([2, 1]);
        expect(await ids({ created: { to: 0 } })).toEqual([3]);
        expect(await ids({ delivered: { from: 0 } })).toEqual([2, 1]);
        expect(await ids({ delivered: { to: 0 } })).toEqual([3]);
        expect(await index.search(query({ created: { from: 0 } }))).toMatchObject({ total: 2 });
      });

      it('never matches a job without a delivery date to a delivery range', async () => {
        await given(job(1, { deliveredDate: null }), job(2, { deliveredDate: day(5) }));
        expect(await ids({ delivered: { from: 0 } })).toEqual([2]);
        expect(await ids({ delivered: { to: dayMs(100) } })).toEqual([2]);
        expect(await ids({ delivered: {} })).toEqual([2]);
      });

      it('combines every filter with the text condition', async () => {
        await given(
          job(1, { name: 'Spring', accountId: 5, status: 'CJ_NEW', deliveredDate: day(20) }),
          job(2, { name: 'Spring', accountId: 5, status: 'CJ_NEW', deliveredDate: day(20) }),
          job(3, { name: 'Spring', accountId: 5, status: 'ERROR', deliveredDate: day(20) }),
          job(4, { name: 'Spring', accountId: 6, status: 'CJ_NEW', deliveredDate: day(20) }),
          job(5, { name: 'Autumn', accountId: 5, status: 'CJ_NEW', deliveredDate: day(20) }),
          job(6, { name: 'Spring', accountId: 5, status: 'CJ_NEW', deliveredDate: null }),
        );
        const result = await index.search(
          query({
            text: 'spr',
            accountId: 5,
            statuses: ['CJ_NEW'],
            created: { from: dayMs(2) },
            delivered: { from: dayMs(20), to: dayMs(21) },
          }),
        );
        expect(result).toEqual({
          total: 1,
          jobs: [doc(job(2, { name: 'Spring', accountId: 5, deliveredDate: day(20) })).summary],
        });
      });
    });

    describe('order, paging and totals', () => {
      it('orders by createdDate newest first, then by id descending', async () => {
        await given(
          job(1, { createdDate: day(5) }),
          job(2, { createdDate: day(3) }),
          job(3, { createdDate: day(5) }),
          job(4, { createdDate: day(9) }),
          job(5, { createdDate: day(3) }),
        );
        expect(await ids()).toEqual([4, 3, 1, 5, 2]);
      });

      it('compares creation instants, not their text (offsets and fractions)', async () => {
        await given(
          job(1, { createdDate: '2024-03-01T10:00:00.000Z' }),
          job(2, { createdDate: '2024-03-01T11:30:00+02:00' }),
          job(3, { createdDate: '2024-03-01T10:00:00.001Z' }),
        );
        expect(await ids()).toEqual([3, 1, 2]);
      });

      it('walks every job exactly once across pages, with the exact total on every page', async () => {
        const jobs = Array.from({ length: 23 }, (_, position) =>
          job(position + 1, { createdDate: day(position % 4), name: 'Spring' }),
        );
        await given(...jobs);
        const seen: number[] = [];
        for (let offset = 0; offset < 30; offset += 5) {
          const page = await index.search(query({ text: 'spring', offset, limit: 5 }));
          expect(page.total).toBe(23);
          seen.push(...page.jobs.map((summary) => summary.id));
        }
        expect(seen).toHaveLength(23);
        expect(new Set(seen).size).toBe(23);
        expect(seen).toEqual(await ids({ text: 'spring' }));
      });

      it('answers a page past the end with no jobs and the true total', async () => {
        await given(job(1), job(2), job(3));
        expect(await index.search(query({ offset: 3, limit: 2 }))).toEqual({ total: 3, jobs: [] });
        expect(await index.search(query({ offset: 100, limit: 20 }))).toEqual({ total: 3, jobs: [] });
      });

      it('counts every match, not just the page', async () => {
        await given(
          ...Array.from({ length: 12 }, (_, position) =>
            job(position + 1, { status: position % 3 === 0 ? 'ERROR' : 'CJ_NEW' }),
          ),
        );
        expect((await index.search(query({ limit: 1 }))).total).toBe(12);
        expect((await index.search(query({ limit: 1, statuses: ['ERROR'] }))).total).toBe(4);
        expect((await index.search(query({ limit: 1, text: 'unti' }))).total).toBe(12);
        expect((await index.search(query({ limit: 1, created: { from: dayMs(7) } }))).total).toBe(6);
        expect(await index.search(query({ limit: 1, field: 'JobNumber', text: 'x' }))).toEqual({ total: 0, jobs: [] });
      });

      it('returns exactly the summary of each job', async () => {
        const value = job(9, { description: 'Crop all', realCost: 12.5, deliveredDate: '2024-02-01T12:00:00.000Z' });
        await given(value);
        expect((await index.search(query())).jobs).toEqual([doc(value).summary]);
      });
    });

    describe('versions', () => {
      it('ignores an upsert older than the indexed version', async () => {
        await index.apply([upsert(doc(job(1, { name: 'Newer' }), 5))]);
        expect(await index.apply([upsert(doc(job(1, { name: 'Older' }), 4))])).toEqual([STALE]);
        expect((await index.get(1))?.summary.name).toBe('Newer');
        expect(await found('JobName', 'older')).toEqual([]);
      });

      it('rewrites a job at the same version harmlessly', async () => {
        await index.apply([upsert(doc(job(1), 5))]);
        expect(await index.apply([upsert(doc(job(1), 5))])).toEqual([INDEXED]);
        expect(await ids()).toEqual([1]);
      });

      it('applies a newer upsert', async () => {
        await index.apply([upsert(doc(job(1, { status: 'CJ_NEW' }), 1))]);
        expect(await index.apply([upsert(doc(job(1, { status: 'CJ_REJECT_READY' }), 2))])).toEqual([INDEXED]);
        expect(await ids({ statuses: ['CJ_NEW'] })).toEqual([]);
        expect(await ids({ statuses: ['CJ_REJECT_READY'] })).toEqual([1]);
      });

      it('removes a job with a delete at a newer version', async () => {
        await index.apply([upsert(doc(job(1), 1)), upsert(doc(job(2), 1))]);
        expect(await index.apply([remove(1, 2)])).toEqual([INDEXED]);
        expect(await ids()).toEqual([2]);
        expect(await index.get(1)).toBeUndefined();
      });

      it('ignores a delete older than the indexed version', async () => {
        await index.apply([upsert(doc(job(1), 3))]);
        expect(await index.apply([remove(1, 2)])).toEqual([STALE]);
        expect(await ids()).toEqual([1]);
      });

      it('keeps a tombstone: an older upsert after a delete is stale', async () => {
        await index.apply([upsert(doc(job(1), 1))]);
        await index.apply([remove(1, 3)]);
        expect(await index.apply([upsert(doc(job(1), 2))])).toEqual([STALE]);
        expect(await ids()).toEqual([]);
      });

      it('keeps a tombstone for a job it never held', async () => {
        expect(await index.apply([remove(1, 3)])).toEqual([INDEXED]);
        expect(await index.apply([upsert(doc(job(1), 2))])).toEqual([STALE]);
        expect(await ids()).toEqual([]);
      });

      it('lets a re-created job with a larger version win over its tombstone', async () => {
        await index.apply([upsert(doc(job(1, { name: 'First life' }), 1)), remove(1, 2)]);
        expect(await index.apply([upsert(doc(job(1, { name: 'Second life' }), 3))])).toEqual([INDEXED]);
        expect(await found('JobName', 'second')).toEqual([1]);
        expect((await index.get(1))?.version).toBe(3);
      });

      it('reports one outcome per operation, in order, within one batch', async () => {
        const outcomes = await index.apply([
          upsert(doc(job(1), 2)),
          upsert(doc(job(1), 1)),
          upsert(doc(job(2), 1)),
          remove(2, 1),
          upsert(doc(job(2), 1)),
          upsert(doc(job(3), 4)),
        ]);
        expect(outcomes).toEqual([INDEXED, STALE, INDEXED, INDEXED, INDEXED, INDEXED]);
        expect(await ids()).toEqual([3, 2, 1]);
      });

      it('rejects a document it cannot index without failing the others', async () => {
        const broken = doc(job(2));
        broken.summary.createdDate = 'not a date';
        const outcomes = await index.apply([upsert(doc(job(1))), upsert(broken), upsert(doc(job(3)))]);
        expect(outcomes[0]).toEqual(INDEXED);
        expect(outcomes[1]?.status).toBe('rejected');
        expect(outcomes[2]).toEqual(INDEXED);
        expect(await ids()).toEqual([3, 1]);
      });
    });

    describe('malformed documents', () => {
      /** Ways a job item edited outside the API (or by an older writer) can reach the indexer. */
      const MALFORMED: Record<string, (document: Record<string, unknown>) => void> = {
        'no guid': (document) => delete (document.summary as Record<string, unknown>).guid,
        'a numeric guid': (document) => ((document.summary as Record<string, unknown>).guid = 42),
        'a numeric name': (document) => ((document.summary as Record<string, unknown>).name = 7),
        'an unknown status': (document) => ((document.summary as Record<string, unknown>).status = 'CJ_LOST'),
        'a textual account id': (document) => ((document.summary as Record<string, unknown>).accountId = '1001'),
        'an undated delivery': (document) => ((document.summary as Record<string, unknown>).deliveredDate = 'soon'),
        'a textual cost': (document) => ((document.summary as Record<string, unknown>).realCost = 'cheap'),
        'job tags as one string': (document) => (document.jobTags = 'red, blue'),
        'a missing file name': (document) => (document.fileNames = [null]),
        'a numeric file tag': (document) => (document.fileTags = [7]),
        'no account name': (document) => (document.accountName = null),
        'no summary': (document) => delete document.summary,
      };

      it.each(Object.keys(MALFORMED))('rejects a document with %s alone, indexing the rest', async (name) => {
        const broken = JSON.parse(JSON.stringify(doc(job(2)))) as Record<string, unknown>;
        MALFORMED[name]?.(broken);
        const outcomes = await index.apply([
          upsert(doc(job(1))),
          upsert(broken as unknown as SearchDocument),
          upsert(doc(job(3))),
        ]);
        expect(outcomes[0]).toEqual(INDEXED);
        expect(outcomes[1]).toEqual({ status: 'rejected', reason: expect.any(String) });
        expect(outcomes[2]).toEqual(INDEXED);
        expect(await ids()).toEqual([3, 1]);
      });
    });

    describe('reading the index back', () => {
      it('lists every indexed job with its version, in ascending id order', async () => {
        await index.apply([
          upsert(doc(job(30), 3)),
          upsert(doc(job(4), 1)),
          upsert(doc(job(1200), 7)),
          upsert(doc(job(9), 2)),
          remove(9, 3),
        ]);
        const listed = [];
        for await (const entry of index.versions()) listed.push({ ...entry });
        expect(listed).toEqual([
          { jobId: 4, version: 1 },
          { jobId: 30, version: 3 },
          { jobId: 1200, version: 7 },
        ]);
      });

      it('lists more jobs than fit one internal page', async () => {
        const total = 2_345;
        const operations = Array.from({ length: total }, (_, position) => upsert(doc(job(position + 1), 1)));
        for (let start = 0; start < total; start += 500) await index.apply(operations.slice(start, start + 500));
        let count = 0;
        let previous = 0;
        for await (const entry of index.versions()) {
          expect(entry.jobId).toBeGreaterThan(previous);
          previous = entry.jobId;
          count += 1;
        }
        expect(count).toBe(total);
      });

      it('returns the document it holds for a job, and nothing for an unknown job', async () => {
        const value = job(5, {
          tags: ['red'],
          files: [file(50, { fileName: 'a.jpg', tags: ['x'], remarkToProcessor: 'crop' })],
        });
        await index.apply([upsert(doc(value, 4))]);
        expect(await index.get(5)).toEqual(doc(value, 4));
        expect(await index.get(6)).toBeUndefined();
      });

      it('returns the documents of many jobs in one read, leaving out the jobs it does not hold', async () => {
        await index.apply([upsert(doc(job(5), 4)), upsert(doc(job(7), 1)), remove(8, 2)]);
        expect(await index.getMany([5, 6, 7, 8])).toEqual(
          new Map([
            [5, doc(job(5), 4)],
            [7, doc(job(7), 1)],
          ]),
        );
        expect(await index.getMany([])).toEqual(new Map());
      });

      it('reports one live index under its name, with its document count', async () => {
        await index.apply([upsert(doc(job(1), 1)), upsert(doc(job(2), 1)), remove(3, 1)]);
        const health = await index.health();
        expect(health.indices).toHaveLength(1);
        expect(health.documents).toBe(2);
      });

      it('clears every job and every tombstone', async () => {
        await index.apply([upsert(doc(job(1), 5)), upsert(doc(job(2), 5)), remove(3, 9)]);
        await index.clear();
        expect(await index.search(query())).toEqual({ total: 0, jobs: [] });
        expect(await index.get(1)).toBeUndefined();
        expect(await index.apply([upsert(doc(job(1), 1)), upsert(doc(job(3), 1))])).toEqual([INDEXED, INDEXED]);
        expect(await ids()).toEqual([3, 1]);
      });
    });

    describe('rebuilds', () => {
      it('replaces the whole contents with what the fill writes, and returns what the fill returns', async () => {
        await given(job(1), job(2));
        const written = await index.rebuild(async (writer) =>
          writer.apply([upsert(doc(job(3), 2)), upsert(doc(job(4), 2))]),
        );
        expect(written).toEqual([INDEXED, INDEXED]);
        expect(await index.search(query())).toMatchObject({ total: 2 });
        expect(await ids()).toEqual([4, 3]);
        expect(await index.get(1)).toBeUndefined();
        expect(await index.get(3)).toEqual(doc(job(3), 2));
        // The new index is the live one: writes and versions apply to it.
        expect(await index.apply([upsert(doc(job(3), 1)), upsert(doc(job(5), 1))])).toEqual([STALE, INDEXED]);
        expect(await ids()).toEqual([5, 4, 3]);
      });

      it('leaves the live index as it was when the fill fails', async () => {
        await given(job(1), job(2));
        await expect(
          index.rebuild(async (writer) => {
            await writer.apply([upsert(doc(job(3), 1))]);
            throw new Error('the table scan failed');
          }),
        ).rejects.toThrow('the table scan failed');
        expect(await index.search(query())).toMatchObject({ total: 2 });
        expect(await ids()).toEqual([2, 1]);
        expect(await index.apply([upsert(doc(job(6), 1))])).toEqual([INDEXED]);
        expect(await ids()).toEqual([6, 2, 1]);
      });

      // Registered only for an engine that can open a second handle on one index (not an in-memory one).
      if (secondHandle !== undefined) {
        it('answers searches from the complete old index until the switch, then from the complete new one', async () => {
          await given(job(1), job(2));
          const reader = await secondHandle();
          try {
            const seen: number[][] = [];
            const look = async () => seen.push((await reader.search(query())).jobs.map((summary) => summary.id));
            await index.rebuild(async (writer) => {
              await look();
              await writer.apply([upsert(doc(job(3), 1))]);
              await look();
              await writer.apply([upsert(doc(job(4), 1))]);
              await look();
            });
            await look();
            expect(seen).toEqual([
              [2, 1],
              [2, 1],
              [2, 1],
              [4, 3],
            ]);
          } finally {
            await reader.close();
          }
        });

        it('leaves one complete index after two rebuilds at once, and writes apply to it', async () => {
          await given(job(1), job(2));
          const operator = await secondHandle();
          try {
            const fills = [
              [10, 11, 12],
              [20, 21],
            ];
            const rebuildWith = (engine: SearchIndex, ids: number[]) =>
              engine.rebuild(async (writer) => {
                for (const id of ids) {
                  await writer.apply([upsert(doc(job(id)))]);
                  await new Promise((resolve) => setImmediate(resolve));
                }
              });
            const results = await Promise.allSettled([
              rebuildWith(index, fills[0] ?? []),
              rebuildWith(operator, fills[1] ?? []),
            ]);
            // Both may finish (the later swap wins), or one may be refused while the other holds the index.
            const finished = fills.filter((_, position) => results[position]?.status === 'fulfilled');
            expect(finished.length).toBeGreaterThan(0);
            for (const result of results) {
              if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(SearchUnavailableError);
            }
            const held = (await ids()).sort((a, b) => a - b);
            expect(finished).toContainEqual(held);
            // Exactly one index: every job is counted once, and a write lands where searches read.
            expect((await index.search(query())).total).toBe(held.length);
            expect(await operator.apply([upsert(doc(job(30)))])).toEqual([INDEXED]);
            expect(await ids()).toEqual([30, ...held.slice().reverse()]);
          } finally {
            await operator.close();
          }
        });
      }
    });
  });
};

/**
 * Search answers at scale, checked: every query class of the search suite plus extra checks (each status
 * alone, date ranges, every search field, paging), asked of the cached embedded index
 * (`SearchIndex.search`) and of an independent reference (bench/lib/reference.ts) that regenerates every
 * job of the population and applies docs/contract.md §4 to it. Each check compares the exact total, the
 * ordered ids of the page and the summaries the page returns. Exits non-zero on any mismatch, printing
 * each one.
 *
 *   npx tsx bench/suites/verify.ts [--quick]     (builds the index first when it is missing)
 */
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import type { Role } from '../../functions/auth/principal';
import { JOB_STATUSES, type JobSummary } from '../../functions/jobs/model/model';
import { EmbeddedSearchIndex } from '../../local/search/embedded/embedded-search-index';
import type { SearchQuery } from '../../functions/search/search-index';
import { accountOf, generateJob, LARGE_ACCOUNT_ID, type Population, totalJobs } from '../lib/generator';
import { ensureIndex } from '../lib/index-cache';
import { engineQuery, type QueryClass, queryClasses } from '../lib/queries';
import { expectedSummary, type ReferenceAnswer, ReferenceJob, ReferenceSearch } from '../lib/reference';
import type { Figure } from '../lib/report';
import { round } from '../lib/stats';
import { runSuite } from '../lib/suite';

/** How a check's answer differs from the reference. */
interface Mismatch {
  check: string;
  label: string;
  role: Role;
  accountId: number;
  body: Record<string, unknown>;
  expectedTotal: number;
  actualTotal: number;
  /** The first page position whose id (or summary) differs, or null when only the total differs. */
  firstDifferingPosition: number | null;
  expectedIdAt: number | null;
  actualIdAt: number | null;
  /** What differs at that position: the id, or the summary of the same id. */
  what: 'total' | 'id' | 'summary';
}

/** A check: a query class (who asks, with what body). */
const check = (
  id: string,
  label: string,
  role: Role,
  accountId: number,
  body: Record<string, unknown>,
): QueryClass => ({
  id,
  label,
  role,
  accountId,
  body,
});

/** The first job id from `from` on whose account is not the large account. */
const otherAccountJob = (population: Population, from: number): number => {
  for (let id = from; id <= totalJobs(population); id++) if (accountOf(population, id) !== LARGE_ACCOUNT_ID) return id;
  throw new Error('Every job after the starting id belongs to the large account');
};

/** The first job id from `from` on that belongs to the large account. */
const largeAccountJob = (population: Population, from: number): number => {
  for (let id = from; id <= totalJobs(population); id++) if (accountOf(population, id) === LARGE_ACCOUNT_ID) return id;
  throw new Error('No job of the large account after the starting id');
};

/** The checks beyond the search suite's query classes. */
const extraChecks = (population: Population): QueryClass[] => {
  const total = totalJobs(population);
  const user = ['user', LARGE_ACCOUNT_ID] as const;
  const operator = ['operator', 1] as const;
  const foreign = generateJob(population, otherAccountJob(population, Math.floor(total * 0.6)));
  const own = generateJob(population, largeAccountJob(population, Math.floor(total * 0.7)));
  return [
    ...JOB_STATUSES.map((status) =>
      check(`status-${status}`, `operator, status ${status} alone`, ...operator, { statuses: [status] }),
    ),
    check('user-delivered-range', 'user, delivered in 2019 H1', ...user, {
      deliveredDateFrom: '2019-01-01',
      deliveredDateTo: '2019-07-01',
    }),
    check(
      'operator-delivered-created-status',
      'operator, archived, created ≥ 2018, delivered < Feb 2018 +01:00',
      ...operator,
      {
        statuses: ['CJ_ARCHIVED'],
        dateFrom: '2018-01-01',
        deliveredDateTo: '2018-02-01T00:00:00+01:00',
      },
    ),
    check('user-created-offset-bounds', 'user, created range with offsets and fractions', ...user, {
      dateFrom: '2019-03-01T12:00:00.5+02:00',
      dateTo: '2019-03-20T08:30:00.123456789-05:00',
    }),
    check('user-word-webshop', 'user, one word "webshop" (Global)', ...user, { query: 'webshop' }),
    check('user-word-diacritics', 'user, "CAFÉ AU" (Global, folded)', ...user, { query: 'CAFÉ AU' }),
    check('user-word-status', 'user, "sneak" + 2 statuses', ...user, {
      query: 'sneak',
      statuses: ['CJ_FINISHED', 'CJ_ARCHIVED'],
    }),
    check('user-page-0', 'user, "webshop", page 0 × 20', ...user, { query: 'webshop', page: 0 }),
    check('user-page-1', 'user, "webshop", page 1 × 20', ...user, { query: 'webshop', page: 1 }),
    check('user-page-499', 'user, "webshop", page 499 × 20', ...user, { query: 'webshop', page: 499 }),
    check('user-page-past-end', 'user, "spring", page 499 × 20 (past the end)', ...user, {
      query: 'spring',
      page: 499,
    }),
    check('user-page-size-100', 'user, "sneak", page 2 × 100', ...user, { query: 'sneak', page: 2, pageSize: 100 }),
    check('user-empty-page-1', 'user, empty query, page 1 × 20', ...user, { page: 1 }),
    check('operator-empty-page-0', 'operator, empty query, page 0 × 20', ...operator, {}),
    check('operator-empty-page-1', 'operator, empty query, page 1 × 20', ...operator, { page: 1 }),
    check('operator-empty-page-499', 'operator, empty query, page 499 × 20', ...operator, { page: 499 }),
    check('operator-empty-page-99x100', 'operator, empty query, page 99 × 100', ...operator, {
      page: 99,
      pageSize: 100,
    }),
    check('user-job-name', 'user, JobName "spr cat"', ...user, { field: 'JobName', query: 'spr cat' }),
    check('user-file-name-test15', 'user, FileName "test15"', ...user, { field: 'FileName', query: 'test15' }),
    check('user-file-name-extension', 'user, FileName "cr2"', ...user, { field: 'FileName', query: 'cr2' }),
    check('user-job-instruction', 'user, JobInstruction "ghost neck"', ...user, {
      field: 'JobInstruction',
      query: 'ghost neck',
    }),
    check('user-job-tags', 'user, JobTags "rus"', ...user, { field: 'JobTags', query: 'rus' }),
    check('user-file-tags', 'user, FileTags "det"', ...user, { field: 'FileTags', query: 'det' }),
    check('user-file-instruction', 'user, FileInstruction "coll"', ...user, {
      field: 'FileInstruction',
      query: 'coll',
    }),
    check('user-invoice', 'user, InvoiceReference "inv 2020"', ...user, {
      field: 'InvoiceReference',
      query: 'inv 2020',
    }),
    check('user-guid-lower', 'user, Guid in lower case', ...user, { field: 'Guid', query: own.guid.toLowerCase() }),
    check('user-job-number-own', 'user, JobNumber of an own job', ...user, {
      field: 'JobNumber',
      query: String(own.id),
    }),
    check('user-job-number-foreign', "user, JobNumber of another account's job", ...user, {
      field: 'JobNumber',
      query: String(foreign.id),
    }),
    check('user-global-foreign-guid', "user, Global with another account's GUID", ...user, { query: foreign.guid }),
    check('user-global-account-field', 'user, Global "nordlicht" (account names are operator-only)', ...user, {
      query: 'nordlicht',
    }),
    check('user-global-nothing', 'user, Global "zzqx" (no such word)', ...user, { query: 'zzqx' }),
    check('operator-job-number', 'operator, JobNumber of any job', ...operator, {
      field: 'JobNumber',
      query: String(foreign.id),
    }),
    check('operator-job-number-not-integer', 'operator, JobNumber "12a"', ...operator, {
      field: 'JobNumber',
      query: '12a',
    }),
    check('operator-account-number', 'operator, AccountNumber "17"', ...operator, {
      field: 'AccountNumber',
      query: '17',
    }),
    check('operator-global-number', 'operator, Global "17" (job, account, word prefixes)', ...operator, {
      query: '17',
    }),
    check('operator-account-name', 'operator, AccountName "cafe" (Café)', ...operator, {
      field: 'AccountName',
      query: 'cafe',
    }),
    check('operator-account-name-orsted', 'operator, AccountName "orsted" (Ørsted)', ...operator, {
      field: 'AccountName',
      query: 'orsted',
    }),
    check('operator-global-user-field', 'operator, Global "rush" (job tags are user-only)', ...operator, {
      query: 'rush',
    }),
    check('operator-global-status-dates', 'operator, Global "boots camp" + status + created range', ...operator, {
      query: 'boots camp',
      statuses: ['CJ_FINISHED'],
      dateFrom: '2016-01-01',
      dateTo: '2022-01-01',
    }),
  ];
};

/** Compares the engine's answer with the reference's; undefined when they agree. */
const compare = (
  queryClass: QueryClass,
  expected: ReferenceAnswer,
  actual: { total: number; jobs: JobSummary[] },
  expectedSummaries: Map<number, JobSummary>,
): Mismatch | undefined => {
  const base = {
    check: queryClass.id,
    label: queryClass.label,
    role: queryClass.role,
    accountId: queryClass.accountId,
    body: queryClass.body,
    expectedTotal: expected.total,
    actualTotal: actual.total,
  };
  const length = Math.max(expected.pageIds.length, actual.jobs.length);
  for (let position = 0; position < length; position++) {
    const expectedId = expected.pageIds[position];
    const actualJob = actual.jobs[position];
    const differing = { firstDifferingPosition: position, expectedIdAt: expectedId ?? null };
    if (expectedId === undefined || actualJob === undefined || expectedId !== actualJob.id)
      return { ...base, ...differing, actualIdAt: actualJob?.id ?? null, what: 'id' };
    if (!isDeepStrictEqual(expectedSummaries.get(expectedId), actualJob))
      return { ...base, ...differing, actualIdAt: actualJob.id, what: 'summary' };
  }
  if (expected.total !== actual.total)
    return { ...base, firstDifferingPosition: null, expectedIdAt: null, actualIdAt: null, what: 'total' };
  return undefined;
};

const describeMismatch = (mismatch: Mismatch): string =>
  `MISMATCH ${mismatch.check} (${mismatch.role} of account ${mismatch.accountId}, body ${JSON.stringify(mismatch.body)}): ` +
  `total expected ${mismatch.expectedTotal}, actual ${mismatch.actualTotal}` +
  (mismatch.firstDifferingPosition === null
    ? '; the page agrees'
    : `; first differing page position ${mismatch.firstDifferingPosition} (${mismatch.what}): expected id ${mismatch.expectedIdAt}, actual id ${mismatch.actualIdAt}`);

let mismatchCount = 0;

await runSuite('verify', 'Search answers at scale checked against an independent reference', async ({ scale, log }) => {
  const population = scale.searchPopulation;
  const jobs = totalJobs(population);
  const { path } = await ensureIndex(population, log);
  const classes = [...queryClasses(population), ...extraChecks(population)];
  const queries: SearchQuery[] = classes.map(engineQuery);
  const references = queries.map((query) => new ReferenceSearch(query));

  log(`regenerating ${jobs.toLocaleString('en-US')} jobs for ${classes.length} checks`);
  const started = performance.now();
  for (let id = 1; id <= jobs; id++) {
    const job = new ReferenceJob(generateJob(population, id));
    for (const reference of references) reference.offer(job);
    if (id % Math.round(jobs / 10) === 0)
      log(`reference: ${id.toLocaleString('en-US')} / ${jobs.toLocaleString('en-US')}`);
  }
  const referenceSeconds = (performance.now() - started) / 1000;
  const expected = references.map((reference) => reference.answer());

  const index = new EmbeddedSearchIndex({ path });
  const mismatches: Mismatch[] = [];
  let idsCompared = 0;
  try {
    for (const [position, queryClass] of classes.entries()) {
      const answer = expected[position]!;
      const actual = await index.search(queries[position]!);
      const summaries = new Map(answer.pageIds.map((id) => [id, expectedSummary(generateJob(population, id))]));
      idsCompared += answer.pageIds.length;
      const mismatch = compare(queryClass, answer, actual, summaries);
      log(
        `${mismatch === undefined ? 'ok' : 'MISMATCH'} ${queryClass.id}: total ${answer.total.toLocaleString('en-US')}, page of ${answer.pageIds.length}`,
      );
      if (mismatch !== undefined) mismatches.push(mismatch);
    }
  } finally {
    await index.close();
  }
  for (const mismatch of mismatches) process.stderr.write(`${describeMismatch(mismatch)}\n`);
  mismatchCount = mismatches.length;

  const figures: Figure[] = [
    {
      id: 'verify.checks',
      label: `searches checked against the reference over ${jobs.toLocaleString('en-US')} jobs (total, page ids, summaries)`,
      value: classes.length,
      unit: 'checks',
    },
    {
      id: 'verify.mismatches',
      label: `searches whose total, page ids or summaries differ from the reference at ${jobs.toLocaleString('en-US')} jobs`,
      value: mismatches.length,
      unit: 'mismatches',
      target: { text: '0 mismatches', met: mismatches.length === 0 },
    },
    {
      id: 'verify.page-ids',
      label: 'page positions compared (id and summary)',
      value: idsCompared,
      unit: 'jobs',
    },
    {
      id: 'verify.reference-seconds',
      label: `reference pass: regenerate ${jobs.toLocaleString('en-US')} jobs and evaluate every check in application code`,
      value: round(referenceSeconds),
      unit: 's',
    },
  ];
  return {
    parameters: {
      jobs,
      population,
      indexPath: path,
      checks: Object.fromEntries(
        classes.map((queryClass, position) => [
          queryClass.id,
          {
            role: queryClass.role,
            accountId: queryClass.accountId,
            body: queryClass.body,
            total: expected[position]!.total,
          },
        ]),
      ),
    },
    figures,
    notes: [
      'The reference (bench/lib/reference.ts) reads each regenerated job directly and applies [docs/contract.md §4](docs/contract.md) on its own: words folded by text.words, every query word a prefix of some word of the field, exact fields by equality, filters as half-open ranges, order createdDate desc then id desc; it shares no matching code with the engine or with query-text.',
      'Engine queries are built by the handler’s own parser (criteria.ts) from each request body, so a check covers what POST /search sends to the engine.',
      ...(mismatches.length === 0 ? [] : mismatches.map(describeMismatch)),
    ],
  };
});

if (mismatchCount > 0) process.exitCode = 1;

/**
 * Mutation testing with Stryker (`npm run mutate`, never part of `npm test`): each mutant is one change on the
 * syntax tree of a domain module (an operator, a condition, a boundary, a literal, a removed block, …); the
 * TypeScript checker drops mutants that do not compile, and the vitest runner runs only the unit tests that reach
 * each mutant (per-test coverage). A mutant the tests pass on is a survivor: a behaviour no test holds.
 *
 * The domain is measured a folder at a time (`MUTATION_FOLDER=<name>`, which `npm run mutate` sets for each folder
 * in turn; without it one run covers all of them). Each folder has its own report under `reports/mutation/<name>/`
 * (HTML and JSON), its own incremental file, and its own `break` threshold: the score the folder reached when it
 * was last measured (docs/reliability.md), so a change that weakens the tests fails the run.
 *
 * The tests are the unit tier (`test/unit/`; vitest.mutation.config.ts keeps the `unit` project alone): pure tests
 * and handler tests on mocked events, a fraction of a second per mutant, no DynamoDB Local. The integration tier
 * starts a database and the e2e tests spawn processes whose code per-test coverage cannot see; a mutant only they
 * would kill counts as a survivor here, and docs/reliability.md names it.
 *
 * The TypeScript checker compiles `functions/` alone (tsconfig.mutation.json): the mutated code imports nothing
 * outside it, and the rest of the project (the CDK app, the tests, the benchmarks) is `npm run typecheck`'s.
 *
 * The incremental file stays out of git (`reports/` is ignored): it is a cache of one machine's last run, large
 * and rewritten by every change to a mutated file or a unit test, so committed it would conflict on every
 * branch; the score of record is the table in docs/reliability.md, and a fresh clone simply runs everything once.
 */

/**
 * The measured folders: what is mutated, and the score below which the run fails (`null` until a folder's first
 * full run sets it). `jobs` and `auth` are whole
 * folders (a new module is measured as soon as it lands); `search` is its query building (the query text, its
 * folding, the OpenSearch search body) and its document checks; `http` is the checks every request passes
 * (contract §1: route and method, Accept, Content-Type, headers, credentials, grant, body size, body parsing,
 * path parameters and schema validation, and the error answers), not the endpoint-specific request parsers.
 */
export const FOLDERS = {
  jobs: { mutate: ['functions/jobs/**/*.ts'], break: null },
  auth: { mutate: ['functions/auth/**/*.ts'], break: 58 },
  search: {
    mutate: [
      'functions/search/query-text.ts',
      'functions/search/text.ts',
      'functions/search/opensearch/search-body.ts',
      'functions/search/document-check.ts',
    ],
    break: null,
  },
  http: {
    mutate: [
      'functions/http/**/*.ts',
      '!functions/http/generated/**',
      '!functions/http/{search-criteria,reject-request,session-request,validator-types,state,endpoint}.ts',
      '!functions/http/middlewares/{detailed-tracing,request-context,types}.ts',
    ],
    break: null,
  },
};

/** The lowest `break` of the folders measured so far (`null`: a folder not measured yet has no threshold). */
const breakAt = (names) => {
  const set = names.map((folder) => FOLDERS[folder].break).filter((score) => score !== null);
  return set.length === 0 ? null : Math.min(...set);
};

const chosen = process.env.MUTATION_FOLDER?.trim();
if (chosen !== undefined && chosen !== '' && !Object.hasOwn(FOLDERS, chosen)) {
  throw new Error(`MUTATION_FOLDER must be one of ${Object.keys(FOLDERS).join(', ')}; got "${chosen}"`);
}
const folders = chosen ? [chosen] : Object.keys(FOLDERS);
const name = chosen || 'all';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.mutation.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  mutate: folders.flatMap((folder) => FOLDERS[folder].mutate),
  ignorePatterns: ['bench/results', 'cdk.out', '.data', 'coverage', 'client/dist'],
  concurrency: 1,
  timeoutFactor: 3,
  incremental: true,
  incrementalFile: `reports/mutation/${name}/stryker-incremental.json`,
  reporters: ['html', 'json', 'clear-text', 'progress'],
  htmlReporter: { fileName: `reports/mutation/${name}/mutation.html` },
  jsonReporter: { fileName: `reports/mutation/${name}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 75, break: breakAt(folders) },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};

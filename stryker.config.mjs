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
 *
 * A folder too large for one run on the shared two-core machine (about 500 mutants an hour at `concurrency: 1`,
 * most of it the static mutants, which run every unit test) is measured in parts: `parts` maps each part's name
 * to its files (paths under the folder) and its own `break`, and the part named `rest` takes every file of the
 * folder no other part names, so a module added to the folder is measured from its first run. A part is run as
 * `<folder>/<part>` (`npm run mutate -- jobs/model`; `MUTATION_FOLDER=jobs/model` for Stryker itself) and has its
 * own report and incremental file under `reports/mutation/<folder>/<part>/`; `npm run mutate -- jobs` runs the
 * parts in turn. `MUTATION_FOLDER=jobs` is still one run over the whole folder, whose `break` is the lowest of
 * its parts' once every part has one (a folder's score is a weighted mean of its parts' scores, never below the
 * lowest) and `null` before.
 */
export const FOLDERS = {
  jobs: {
    mutate: ['functions/jobs/**/*.ts'],
    parts: {
      /** The pure model: ids, statuses and their transitions, the job view, items and review counts, the files cursor, item sizes. */
      model: {
        files: ['ids', 'model', 'statuses', 'job-view', 'items', 'review', 'files-cursor', 'reject-sizes'],
        break: 97,
      },
      /** The review rules of a rejection and an acceptance, and the plan that groups them by job. */
      review: { files: ['reject', 'accept', 'review-plan', 'reject-files', 'accept-files'], break: 94 },
      /** Creating and editing jobs: the allocator, the idempotency record, the import's batches, the upsert plan. */
      writes: {
        files: ['create-job', 'batch-create', 'id-allocator', 'idempotency', 'update-job', 'write-plan'],
        break: 98,
      },
      /** The review's transaction and the delivery: its writes, and how readers see one committed but not yet rolled forward. */
      delivery: {
        files: ['deliver-files', 'pending-delivery', 'review-transaction', 'review-files'],
        break: 95,
      },
      /** Everything else: the table gateway, the repository, the API's reads, and any module added later. */
      rest: { files: [], break: 97 },
    },
  },
  auth: { mutate: ['functions/auth/**/*.ts'], break: 96 },
  search: {
    mutate: [
      'functions/search/query-text.ts',
      'functions/search/text.ts',
      'functions/search/opensearch/search-body.ts',
      'functions/search/document-check.ts',
    ],
    break: 98,
  },
  http: {
    mutate: [
      'functions/http/**/*.ts',
      '!functions/http/generated/**',
      '!functions/http/{search-criteria,reject-request,session-request,validator-types,state,endpoint}.ts',
      '!functions/http/middlewares/{detailed-tracing,request-context,types}.ts',
    ],
    parts: {
      /** The middlewares of every request: method, Accept, Content-Type, headers, credentials, grant, size, parsing, validation, errors. */
      middlewares: { files: ['middlewares/*'], break: 83 },
      /** The route table and the schema validation of parameters and bodies. */
      routes: { files: ['routes', 'schema-validation'], break: 95 },
      /** Everything else: media types, headers, forms, path parameters, the job requests, the error and response helpers. */
      rest: { files: [], break: 97 },
    },
  },
};

/**
 * The globs of one part of a folder: its files (less what the folder leaves out), or (for `rest`) the folder's
 * globs without every other part's files.
 */
const partGlobs = (folder, part) => {
  const { mutate, parts } = FOLDERS[folder];
  const glob = (file) => `functions/${folder}/${file}.ts`;
  if (part !== 'rest') return [...parts[part].files.map(glob), ...mutate.filter((each) => each.startsWith('!'))];
  const named = Object.entries(parts)
    .filter(([name]) => name !== 'rest')
    .flatMap(([, { files }]) => files);
  return [...mutate, ...named.map((file) => `!${glob(file)}`)];
};

/** What a name (`search`, `jobs/model`) measures: its globs and its `break`. */
const target = (name) => {
  const [folder, part] = name.split('/');
  const entry = FOLDERS[folder];
  if (part !== undefined) return { mutate: partGlobs(folder, part), break: entry.parts[part].break };
  if (entry.parts === undefined) return entry;
  const breaks = Object.values(entry.parts).map((each) => each.break);
  return { mutate: entry.mutate, break: breaks.includes(null) ? null : Math.min(...breaks) };
};

/** Every name a run may be given: the folders, and `<folder>/<part>` for the parts of a folder measured in parts. */
export const TARGETS = Object.entries(FOLDERS).flatMap(([folder, { parts }]) => [
  folder,
  ...Object.keys(parts ?? {}).map((part) => `${folder}/${part}`),
]);

/** The lowest `break` of the targets measured so far (`null`: a target not measured yet has no threshold). */
const breakAt = (names) => {
  const set = names.map((name) => target(name).break).filter((score) => score !== null);
  return set.length === 0 ? null : Math.min(...set);
};

const chosen = process.env.MUTATION_FOLDER?.trim();
if (chosen !== undefined && chosen !== '' && !TARGETS.includes(chosen)) {
  throw new Error(`MUTATION_FOLDER must be one of ${TARGETS.join(', ')}; got "${chosen}"`);
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
  // Stryker's default writes `// @ts-nocheck` atop every JavaScript and TypeScript file of its sandbox, so that a
  // type-checking test runner accepts the mutated code. Vitest strips types without checking them, and the
  // TypeScript checker compiles each mutant from the project's own files, so the comment serves nothing here; it
  // also made the sandbox's generated files (`functions/http/generated/`, `client/schema.d.ts`) differ from what
  // their generators write, and the unit tests that hold those files fresh failed Stryker's initial run.
  disableTypeChecks: false,
  coverageAnalysis: 'perTest',
  mutate: folders.flatMap((folder) => target(folder).mutate),
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

/**
 * The large search index, built once and reused: generated jobs written straight into the embedded
 * engine through `SearchIndex.apply` in bulk (not through DynamoDB), in a SQLite file under the OS temp
 * directory. The file name carries the generator version, the population and a hash of the engine's
 * schema, so a cached index is reused only when it holds exactly what this run would build.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { toSearchDocument } from '../../functions/search/search-document';
import { EmbeddedSearchIndex } from '../../local/search/embedded/embedded-search-index';
import { SCHEMA } from '../../local/search/embedded/schema';
import type { IndexOperation } from '../../functions/search/search-index';
import { GENERATOR_VERSION, generateJob, type Population, totalJobs } from './generator';

/** How the cached index was built. */
export interface IndexManifest {
  generatorVersion: number;
  population: Population;
  schemaHash: string;
  builtAt: string;
  jobs: number;
  /** When the build resumed an interrupted one: the last job id the interrupted build had written. */
  resumedAfter?: number;
  /** Jobs per bulk `apply`. */
  batchSize: number;
  /** Seconds spent generating documents and applying them. */
  buildSeconds: number;
  /** Seconds of that spent inside `apply`. */
  applySeconds: number;
  fileBytes: number;
}

export interface CachedIndex {
  path: string;
  manifest: IndexManifest;
  /** Whether this call built it (false: reused from an earlier run). */
  built: boolean;
}

const BATCH_SIZE = 1_000;

const schemaHash = (): string => createHash('sha256').update(SCHEMA).digest('hex').slice(0, 12);

/** Where the index of a population lives. */
export const cachedIndexPath = (population: Population): string =>
  join(
    tmpdir(),
    `jobs-api-bench-index-g${GENERATOR_VERSION}-${population.jobs}-${population.accounts}-${population.largeAccountJobs}-${schemaHash()}.sqlite`,
  );

const removeDatabase = (path: string): void => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
};

/** The highest job id an interrupted build wrote (ids are written in ascending order), or 0. */
const resumePoint = async (index: EmbeddedSearchIndex): Promise<number> => {
  let highest = 0;
  for await (const { jobId } of index.versions()) highest = Math.max(highest, jobId);
  return highest;
};

/**
 * Builds the index of a population batch by batch. With `resume`, an interrupted build in the same file
 * continues after the last job it wrote (documents are deterministic, so the result is the same file a
 * fresh build writes); the manifest then times only the resumed part.
 */
const build = async (
  population: Population,
  path: string,
  log: (message: string) => void,
  resume: boolean,
): Promise<IndexManifest> => {
  if (!resume) removeDatabase(path);
  const index = new EmbeddedSearchIndex({ path });
  const total = totalJobs(population);
  const started = performance.now();
  let applyMs = 0;
  const resumeAfter = resume ? await resumePoint(index) : 0;
  if (resumeAfter > 0) log(`resuming an interrupted build after job ${resumeAfter.toLocaleString('en-US')}`);
  try {
    for (let first = resumeAfter + 1; first <= total; first += BATCH_SIZE) {
      const last = Math.min(total, first + BATCH_SIZE - 1);
      const operations: IndexOperation[] = [];
      for (let id = first; id <= last; id++) {
        operations.push({ type: 'upsert', document: toSearchDocument(generateJob(population, id), 1) });
      }
      const applying = performance.now();
      const outcomes = await index.apply(operations);
      applyMs += performance.now() - applying;
      const failed = outcomes.find((outcome) => outcome.status !== 'indexed');
      if (failed !== undefined) throw new Error(`Building the index failed: ${JSON.stringify(failed)}`);
      if (last % Math.max(BATCH_SIZE, Math.round(total / 10)) < BATCH_SIZE || last === total)
        log(`indexed ${last.toLocaleString('en-US')} / ${total.toLocaleString('en-US')}`);
    }
  } finally {
    await index.close();
  }
  const { size } = statSync(path);
  return {
    generatorVersion: GENERATOR_VERSION,
    population,
    schemaHash: schemaHash(),
    builtAt: new Date().toISOString(),
    jobs: total,
    ...(resumeAfter > 0 ? { resumedAfter: resumeAfter } : {}),
    batchSize: BATCH_SIZE,
    buildSeconds: (performance.now() - started) / 1000,
    applySeconds: applyMs / 1000,
    fileBytes: size,
  };
};

/** The cached index of a population, building it first when missing (or `rebuild`). */
export const ensureIndex = async (
  population: Population,
  log: (message: string) => void,
  rebuild = false,
): Promise<CachedIndex> => {
  const path = cachedIndexPath(population);
  const manifestPath = `${path}.json`;
  if (!rebuild && existsSync(path) && existsSync(manifestPath)) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as IndexManifest;
    log(`reusing the index built ${manifest.builtAt} at ${path}`);
    return { path, manifest, built: false };
  }
  log(`building the index of ${totalJobs(population).toLocaleString('en-US')} jobs at ${path}`);
  const building = `${path}.building`;
  const manifest = await build(population, building, log, existsSync(building));
  removeDatabase(path);
  renameSync(building, path);
  removeDatabase(building);
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return { path, manifest, built: true };
};

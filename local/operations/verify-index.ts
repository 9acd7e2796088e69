/**
 * Compares the search index with the jobs table: every job of the table must be in the index at its
 * table version, with the document the table's state produces, and the index must hold nothing else.
 * Meant for a quiet system (after `drained()`, or with no writers); a job written during the check
 * shows up as a difference.
 *
 * The index is read in pages, never one request per job: its versions in pages of the engine's version
 * scan, then the documents of the jobs whose versions agree in batches of {@link DOCUMENT_BATCH}. An index
 * name that points at no index or at several is a finding of its own, and nothing else is compared.
 */
import { type JobRepository, sameItem } from '../../functions/jobs/store/repository';
import { toSearchDocument } from '../../functions/search/search-document';
import type { IndexHealth, SearchDocument, SearchIndex } from '../../functions/search/search-index';
import type { Job } from '../../functions/jobs/model/model';
import { indexNameProblem } from './index-health';

/** How many documents one read of the index fetches. */
export const DOCUMENT_BATCH = 500;

/** A job whose indexed state differs from the table's. */
export interface StaleJob {
  jobId: number;
  tableVersion: number;
  indexVersion: number;
  /** `version`: the versions differ; `content`: same version, different document. */
  reason: 'version' | 'content';
}

export interface VerifyResult {
  /** True when the index equals the table. */
  ok: boolean;
  /** What the index's name points at. */
  index: IndexHealth;
  /** Set when the name points at no index or at several: nothing else was compared. */
  problem?: string;
  /** Jobs in the table. */
  checked: number;
  /** Jobs of the table the index lacks, ascending. */
  missing: number[];
  stale: StaleJob[];
  /** Jobs in the index the table does not have, ascending. */
  extra: number[];
}

export interface VerifyOptions {
  repository: Pick<JobRepository, 'scanJobVersions' | 'scanJobs'>;
  index: SearchIndex;
  /** Also compare each document with the one the table's state produces (default true). */
  compareDocuments?: boolean;
  /** The command an operator runs to repair a broken index name (default `npm run cli -- reindex`). */
  repair?: string;
}

/** Compares the index with the table. */
export const verifyIndex = async (options: VerifyOptions): Promise<VerifyResult> => {
  const health = await options.index.health();
  const problem = indexNameProblem(health, options.repair ?? 'npm run cli -- reindex');
  const empty = { missing: [], stale: [], extra: [] };
  if (problem !== undefined) return { ok: false, index: health, problem, checked: 0, ...empty };

  const tableVersions = new Map<number, number>();
  for await (const { jobId, version } of options.repository.scanJobVersions()) tableVersions.set(jobId, version);

  const stale: StaleJob[] = [];
  const extra: number[] = [];
  const current = new Set<number>();
  const seen = new Set<number>();
  for await (const { jobId, version } of options.index.versions()) {
    seen.add(jobId);
    const tableVersion = tableVersions.get(jobId);
    if (tableVersion === undefined) extra.push(jobId);
    else if (tableVersion !== version) stale.push({ jobId, tableVersion, indexVersion: version, reason: 'version' });
    else current.add(jobId);
  }
  const missing = [...tableVersions.keys()].filter((jobId) => !seen.has(jobId));

  if (options.compareDocuments ?? true) {
    let batch: { job: Job; version: number }[] = [];
    const compare = async (): Promise<void> => {
      const indexed = await options.index.getMany(batch.map(({ job }) => job.id));
      for (const { job, version } of batch) stale.push(...contentDifference(job, version, indexed.get(job.id)));
      batch = [];
    };
    for await (const entry of options.repository.scanJobs()) {
      if (!current.has(entry.job.id) || tableVersions.get(entry.job.id) !== entry.version) continue;
      batch.push(entry);
      if (batch.length === DOCUMENT_BATCH) await compare();
    }
    if (batch.length > 0) await compare();
  }

  const ascending = (a: number, b: number): number => a - b;
  return {
    ok: missing.length === 0 && stale.length === 0 && extra.length === 0,
    index: health,
    checked: tableVersions.size,
    missing: missing.sort(ascending),
    stale: stale.sort((a, b) => a.jobId - b.jobId),
    extra: extra.sort(ascending),
  };
};

const contentDifference = (job: Job, version: number, indexed: SearchDocument | undefined): StaleJob[] =>
  sameItem(indexed, toSearchDocument(job, version))
    ? []
    : [{ jobId: job.id, tableVersion: version, indexVersion: indexed?.version ?? -1, reason: 'content' }];

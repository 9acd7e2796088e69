/**
 * Compares the search index with the jobs table: every job of the table must be in the index at its
 * table version, with the document the table's state produces, and the index must hold nothing else.
 * Meant for a quiet system (after `drained()`, or with no writers); a job written during the check
 * shows up as a difference.
 */
import { type JobRepository, sameItem } from '../../functions/jobs/repository';
import { toSearchDocument } from '../../functions/search/search-document';
import type { SearchIndex } from '../../functions/search/search-index';

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
}

/** Compares the index with the table. */
export const verifyIndex = async (options: VerifyOptions): Promise<VerifyResult> => {
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
    for await (const { job, version } of options.repository.scanJobs()) {
      if (!current.has(job.id) || tableVersions.get(job.id) !== version) continue;
      const indexed = await options.index.get(job.id);
      if (!sameItem(indexed, toSearchDocument(job, version))) {
        stale.push({ jobId: job.id, tableVersion: version, indexVersion: indexed?.version ?? -1, reason: 'content' });
      }
    }
  }

  const ascending = (a: number, b: number): number => a - b;
  return {
    ok: missing.length === 0 && stale.length === 0 && extra.length === 0,
    checked: tableVersions.size,
    missing: missing.sort(ascending),
    stale: stale.sort((a, b) => a.jobId - b.jobId),
    extra: extra.sort(ascending),
  };
};

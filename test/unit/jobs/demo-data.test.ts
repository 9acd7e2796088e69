import { describe, expect, it } from 'vitest';
import { JOB_STATUSES, REVIEWABLE_STATUSES } from '../../../functions/jobs/model';
import { validateJob } from '../../../local/operations/validate-job';
import { words } from '../../../functions/search/text';
import { DEMO_ACCOUNTS, DEMO_REJECTABLE_FILE_IDS, DEMO_REJECTABLE_FILES, demoJobs } from '../../../local/demo/data';

const DELIVERED_STATUSES = ['CJ_REVIEWING', 'CJ_REJECT_READY', 'CJ_REJECT_ERROR', 'CJ_FINISHED', 'CJ_ARCHIVED'];

describe('demo data', () => {
  const jobs = demoJobs();

  it('is the same on every call', () => {
    expect(demoJobs()).toEqual(jobs);
  });

  it('hands out copies, so a caller cannot change the next call’s data', () => {
    const copy = demoJobs();
    (copy[0] as { name: string }).name = 'changed';
    expect(demoJobs()[0]?.name).toBe(jobs[0]?.name);
  });

  it('holds at least 200 valid jobs with unique job and file ids', () => {
    expect(jobs.length).toBeGreaterThanOrEqual(200);
    for (const job of jobs) expect(validateJob(job)).toEqual(job);
    expect(new Set(jobs.map((job) => job.id)).size).toBe(jobs.length);
    const fileIds = jobs.flatMap((job) => job.files.map((file) => file.id));
    expect(new Set(fileIds).size).toBe(fileIds.length);
  });

  it('gives every account every status, and 3 to 30 files per job', () => {
    for (const account of DEMO_ACCOUNTS) {
      const statuses = new Set(jobs.filter((job) => job.accountId === account.id).map((job) => job.status));
      expect([...statuses].sort()).toEqual([...JOB_STATUSES].sort());
    }
    for (const job of jobs) {
      expect(job.files.length).toBeGreaterThanOrEqual(3);
      expect(job.files.length).toBeLessThanOrEqual(30);
    }
  });

  it('has a delivered date only on delivered statuses', () => {
    for (const job of jobs) {
      expect(job.deliveredDate !== null).toBe(DELIVERED_STATUSES.includes(job.status));
    }
  });

  it('spreads creation dates over about two years', () => {
    const created = jobs.map((job) => Date.parse(job.createdDate));
    const spanDays = (Math.max(...created) - Math.min(...created)) / 86_400_000;
    expect(spanDays).toBeGreaterThan(600);
    expect(spanDays).toBeLessThan(800);
  });

  it('carries texts with diacritics that fold to plain words', () => {
    expect(DEMO_ACCOUNTS.map((account) => account.name)).toEqual(
      expect.arrayContaining(['Café Müller Studio', 'Ørsted Foto']),
    );
    expect(jobs.some((job) => job.name !== words(job.name).join(' ') && /[\u00C0-\u017F]/.test(job.name))).toBe(true);
    expect(jobs.some((job) => job.files.some((file) => file.fileName === 'cem_test15.jpg'))).toBe(true);
    expect(jobs.some((job) => job.invoiceReference.length > 0 && job.tags.length > 0)).toBe(true);
    expect(jobs.some((job) => job.files.some((file) => file.remarkToProcessor.length > 0))).toBe(true);
  });

  it('lists rejectable files that belong to jobs in review and were not accepted, first account first', () => {
    const files = new Map(jobs.flatMap((job) => job.files.map((file) => [file.id, { job, file }] as const)));
    expect(DEMO_REJECTABLE_FILE_IDS.length).toBeGreaterThan(0);
    expect(DEMO_REJECTABLE_FILE_IDS).toEqual(DEMO_REJECTABLE_FILES.map((file) => file.fileId));
    for (const { fileId, jobId, accountId } of DEMO_REJECTABLE_FILES) {
      const found = files.get(fileId);
      expect(found?.job.id).toBe(jobId);
      expect(found?.job.accountId).toBe(accountId);
      expect(REVIEWABLE_STATUSES).toContain(found?.job.status);
      expect(found?.file.acceptedByUser).toBe(false);
    }
    expect(DEMO_REJECTABLE_FILES[0]?.accountId).toBe(DEMO_ACCOUNTS[0]?.id);
  });
});

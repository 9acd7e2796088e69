import { describe, expect, it } from 'vitest';
import { type Job, JOB_STATUSES, type JobStatus, REVIEWABLE_STATUSES } from '../../../functions/jobs/model/model';
import { allowedMoves } from '../../../functions/jobs/model/statuses';
import { validateJob } from '../../../local/operations/validate-job';
import { words } from '../../../functions/search/text';
import { DEMO_ACCOUNTS, DEMO_REJECTABLE_FILE_IDS, DEMO_REJECTABLE_FILES, demoJobs } from '../../../local/demo/data';

const DELIVERED_STATUSES = ['CJ_REVIEWING', 'CJ_REJECT_READY', 'CJ_REJECT_ERROR', 'CJ_FINISHED', 'CJ_ARCHIVED'];

const time = (value: string | null): number | undefined => (value === null ? undefined : Date.parse(value));

/**
 * Why a job's dates and files could not be those of a job in `status` that got there by the transition table
 * (empty when they could): accepted (CJ_ACCEPT sets acceptedDate), paid (CJ_JOB_PAID sets orderedDate),
 * delivered, reviewed (each acceptance and rejection sets reviewedDate), in that order. ERROR and
 * CJ_ARCHIVED fit when the job fits a status the table lets staff leave for them.
 */
const misfits = (job: Job, status: JobStatus = job.status, depth = 0): string[] => {
  if ((status === 'ERROR' || status === 'CJ_ARCHIVED') && depth === 0) {
    const origins = JOB_STATUSES.filter((from) => from !== status && allowedMoves(from, 'operator').includes(status));
    return origins.some((from) => misfits(job, from, depth + 1).length === 0)
      ? []
      : [`fits no status it could have become ${status} from (${origins.join(', ')})`];
  }
  const accepted = job.acceptedDate !== null;
  const paid = job.orderedDate !== null;
  const delivered = job.deliveredDate !== null;
  const reviewed = job.reviewedDate !== null;
  const rejected = job.files.some((file) => file.isRejected);
  const allAccepted = job.files.every((file) => file.acceptedByUser);
  const expect = (condition: boolean, what: string): string[] => (condition ? [] : [`${status}: ${what}`]);
  switch (status) {
    case 'CJ_NEW':
    case 'CJ_REQUEST_OFFER':
      return expect(!accepted && !paid && !delivered && !reviewed, 'neither accepted, paid, delivered nor reviewed');
    case 'CJ_ACCEPT':
    case 'CJ_PREPROCESS':
      return expect(accepted && !paid && !delivered && !reviewed, 'accepted, not yet paid nor delivered');
    case 'CJ_JOB_PAID':
      return expect(accepted && paid && !delivered && !reviewed, 'accepted and paid, not yet delivered');
    case 'CJ_WORK_PROGRESS':
      return expect(
        accepted && (delivered ? reviewed && rejected : !reviewed),
        'accepted; delivered only before a rework',
      );
    case 'CJ_REVIEWING':
      return expect(accepted && delivered && !rejected, 'accepted and delivered, no file rejected');
    case 'CJ_REJECT_READY':
    case 'CJ_REJECT_ERROR':
      return expect(accepted && delivered && reviewed && rejected, 'delivered and reviewed, a file rejected');
    case 'CJ_FINISHED':
      return expect(accepted && delivered && reviewed && allAccepted, 'delivered, reviewed, every file accepted');
    default:
      return [`${status}: not a status a job comes from`];
  }
};

/** Why a job's dates are out of the lifecycle's order, or its files' reviews out of its own (empty when fine). */
const outOfOrder = (job: Job): string[] => {
  const problems: string[] = [];
  const dates = [job.createdDate, job.acceptedDate, job.orderedDate, job.deliveredDate, job.reviewedDate];
  const set = dates.map(time).filter((value): value is number => value !== undefined);
  if (set.some((value, index) => index > 0 && value < (set[index - 1] as number))) {
    problems.push(`dates out of order: ${dates.join(', ')}`);
  }
  if (job.orderedDate !== null && job.acceptedDate === null) problems.push('paid but never accepted');
  const reviewDates = job.files.flatMap((file) => (file.reviewDate === null ? [] : [Date.parse(file.reviewDate)]));
  for (const file of job.files) {
    if (file.isReviewed !== (file.reviewDate !== null)) problems.push(`file ${file.id}: isReviewed without its date`);
  }
  if (reviewDates.length > 0) {
    if (job.deliveredDate === null || Math.min(...reviewDates) < Date.parse(job.deliveredDate)) {
      problems.push('a file reviewed before the job was delivered');
    }
    if (time(job.reviewedDate) !== Math.max(...reviewDates)) problems.push('reviewedDate is not its last file review');
  } else if (job.reviewedDate !== null) problems.push('reviewed with no file reviewed');
  return problems;
};

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

  it("follows the lifecycle: no job paid before it is accepted, every job's dates fit its status and the transition table", () => {
    const problems = jobs.flatMap((job) =>
      [...outOfOrder(job), ...misfits(job)].map((problem) => `job ${job.id} (${job.status}): ${problem}`),
    );
    expect(problems).toEqual([]);
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

/**
 * Job and file factories for tests: complete, valid jobs (docs/contract.md §6) with unique ids, overridable
 * field by field. Ids start high (job 700 000, file 7 000 000) so they never meet the demo data.
 */
import { randomUUID } from 'node:crypto';
import { type Job, type JobFile, unreviewedFile } from '../../functions/jobs/model/model';

let nextJobId = 700_000;
let nextFileId = 7_000_000;

/** A fresh job id, unique within the test process. */
export const nextTestJobId = (): number => nextJobId++;

/** A fresh file id, unique within the test process. */
export const nextTestFileId = (): number => nextFileId++;

/** A file with a unique id, not reviewed, not rejected; any field can be overridden. */
export const makeFile = (overrides: Partial<JobFile> = {}): JobFile => {
  const id = overrides.id ?? nextTestFileId();
  return unreviewedFile({ id, fileName: `image_${id}.jpg`, ...overrides });
};

/**
 * A job with a unique id and GUID, in `CJ_NEW`, with one file unless `files` is given; any field can be
 * overridden.
 */
export const makeJob = (overrides: Partial<Job> = {}): Job => {
  const id = overrides.id ?? nextTestJobId();
  return {
    id,
    accountId: 1001,
    accountName: 'Test Account',
    status: 'CJ_NEW',
    guid: randomUUID(),
    name: `Test job ${id}`,
    description: '',
    invoiceReference: '',
    tags: [],
    realCost: 10,
    createdDate: '2024-01-15T10:00:00.000Z',
    acceptedDate: null,
    orderedDate: null,
    deliveredDate: null,
    reviewedDate: null,
    files: overrides.files ?? [makeFile()],
    ...overrides,
  };
};

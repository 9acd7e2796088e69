/**
 * The job the reject unit tests find in a mocked jobs table: in review, one file not yet reviewed, and the
 * request and caller that reject that file.
 */
import { type Job, unreviewedFile } from '../../../functions/jobs/model/model';

/** A job in review with one file (70), as the reject use case finds it. */
export const reviewedJob: Job = {
  id: 7,
  accountId: 10,
  accountName: 'Ørsted Foto',
  status: 'CJ_REVIEWING',
  guid: '0b6f2c4e-8f7a-4c59-9d3e-1a2b3c4d5e6f',
  name: 'Autumn',
  description: '',
  invoiceReference: '',
  tags: [],
  realCost: 1,
  createdDate: '2024-01-01T00:00:00.000Z',
  acceptedDate: null,
  orderedDate: null,
  deliveredDate: null,
  reviewedDate: null,
  files: [unreviewedFile({ id: 70, fileName: 'a.jpg' })],
};

/** Rejects file 70 with a custom rejection. */
export const rejectRequest = { files: [{ fileId: 70, customRejection: 'Redo', rejects: [] }] };

/** A user of the job's account. */
export const rejectPrincipal = { role: 'user' as const, accountId: 10 };

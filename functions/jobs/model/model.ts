/**
 * The job and file model of docs/contract.md §6: what a job is, what a file is, and the statuses.
 */

/** Every job status, in lifecycle order. */
export const JOB_STATUSES = [
  'CJ_NEW',
  'CJ_REQUEST_OFFER',
  'CJ_ACCEPT',
  'CJ_PREPROCESS',
  'CJ_JOB_PAID',
  'CJ_WORK_PROGRESS',
  'CJ_REVIEWING',
  'CJ_REJECT_READY',
  'CJ_REJECT_ERROR',
  'CJ_FINISHED',
  'CJ_ARCHIVED',
  'ERROR',
] as const;

export type JobStatus = (typeof JOB_STATUSES)[number];

export const isJobStatus = (value: unknown): value is JobStatus =>
  typeof value === 'string' && (JOB_STATUSES as readonly string[]).includes(value);

/** Statuses in which the customer reviews edited files, so files may be rejected. */
export const REVIEWABLE_STATUSES: readonly JobStatus[] = [
  'CJ_REVIEWING',
  'CJ_FINISHED',
  'CJ_REJECT_READY',
  'CJ_REJECT_ERROR',
];

/** A point on an image, each coordinate a fraction of the width/height in [0, 1]. */
export interface Position {
  xPercent: number;
  yPercent: number;
}

/** One reason a file was rejected, with the places on the image it applies to. */
export interface RejectReason {
  reason: string;
  positions: Position[];
}

/** A complete review of a file: what the customer asked to be reworked, and when. */
export interface Review {
  customRejection: string | null;
  rejects: RejectReason[];
  reviewDate: string;
}

/** A file of a job (an image). Datetimes are ISO 8601 UTC strings (`2016-05-06T15:22:02.860Z`). */
export interface JobFile {
  id: number;
  fileName: string;
  tags: string[];
  /** The customer's instruction to the editor for this file. */
  remarkToProcessor: string;
  acceptedByUser: boolean;
  isRejected: boolean;
  isReviewed: boolean;
  rejectionReason: string | null;
  reviewDate: string | null;
  /** The current review, or null when the file was never reviewed. */
  reviews: Review | null;
  /** Earlier reviews, oldest first: the {@link MAX_PREVIOUS_REVIEWS} most recent. */
  previousReviews: Review[];
  /**
   * What the customer declared of the original's bytes when the file was created through the API (its size,
   * its base64 SHA-256): stored so that every upload target of the original binds them; never answered.
   */
  declaredOriginal?: { size?: number; sha256?: string };
}

/**
 * How many earlier reviews a file keeps (docs/contract.md §5): five of the largest reviews still fit one
 * DynamoDB item, so a file can be rejected any number of times.
 */
export const MAX_PREVIOUS_REVIEWS = 5;

/** A job with its files. Datetimes are ISO 8601 UTC strings; unset dates are null. */
export interface Job {
  id: number;
  accountId: number;
  accountName: string;
  status: JobStatus;
  guid: string;
  name: string;
  description: string;
  invoiceReference: string;
  tags: string[];
  realCost: number;
  createdDate: string;
  acceptedDate: string | null;
  orderedDate: string | null;
  deliveredDate: string | null;
  reviewedDate: string | null;
  files: JobFile[];
}

/** The seed's job summary: exactly these 13 fields, in this order, are returned by search. */
export interface JobSummary {
  id: number;
  accountId: number;
  status: JobStatus;
  guid: string;
  name: string;
  description: string;
  acceptedDate: string | null;
  createdDate: string;
  deliveredDate: string | null;
  orderedDate: string | null;
  reviewedDate: string | null;
  realCost: number;
  fileCount: number;
}

/** A file as the customer sent it: never reviewed, accepted or rejected; any field can be given. */
export const unreviewedFile = (fields: Pick<JobFile, 'id' | 'fileName'> & Partial<JobFile>): JobFile => ({
  tags: [],
  remarkToProcessor: '',
  acceptedByUser: false,
  isRejected: false,
  isReviewed: false,
  rejectionReason: null,
  reviewDate: null,
  reviews: null,
  previousReviews: [],
  ...fields,
});

/** What the customer asks to be reworked on one file. */
export interface FileRejection {
  fileId: number;
  /** Free text; `null` when not given (then `rejects` holds at least one reason). */
  customRejection: string | null;
  /** The reasons, in the order given; empty when only `customRejection` is given. */
  rejects: RejectReason[];
}

/** A validated reject request: 1–50 distinct files, in request order. */
export interface RejectRequest {
  files: FileRejection[];
}

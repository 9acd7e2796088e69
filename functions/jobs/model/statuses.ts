/**
 * The status catalogue of docs/contract.md §6a, defined once: every job status in lifecycle order with
 * its description, and the transition table — which statuses an operator and a user may set from each with
 * `PATCH /jobs/{id}`. `GET /statuses` shows it; PATCH judges every status change by it. Moves the API makes
 * by itself (delivery to `CJ_REVIEWING`, a rejection to `CJ_REJECT_READY`, the last acceptance to
 * `CJ_FINISHED`) are the review loop's, not moves a caller sets, and are not in this table.
 */
import type { Role } from '../../auth/principal';
import { JOB_STATUSES, type JobStatus } from './model';

/** Every status, in lifecycle order (the order `GET /statuses` lists them in). */
export const LIFECYCLE_ORDER: readonly JobStatus[] = JOB_STATUSES;

/** What each status means, in the words a customer reads. */
export const STATUS_DESCRIPTIONS: Readonly<Record<JobStatus, string>> = {
  CJ_NEW: 'Created; the customer can still change it before asking for an offer.',
  CJ_REQUEST_OFFER: 'The customer asked for an offer; staff price the job.',
  CJ_ACCEPT: 'The offer is accepted; the job is waiting to be prepared or paid.',
  CJ_PREPROCESS: 'Staff prepare the files for editing.',
  CJ_JOB_PAID: 'The job is paid and waits for an editor.',
  CJ_WORK_PROGRESS: 'Editors are working on the files.',
  CJ_REVIEWING: 'Edited files are delivered; the customer reviews them, accepting or rejecting each.',
  CJ_REJECT_READY: 'The customer rejected files; they wait to be reworked.',
  CJ_REJECT_ERROR: 'A rejection could not be taken up as it was; staff sort it out.',
  CJ_FINISHED: 'Every file is accepted; the job is done.',
  CJ_ARCHIVED: 'The job is archived and can no longer change.',
  ERROR: 'Something went wrong with the job; staff look into it.',
};

/** The statuses each role may set from each status (docs/contract.md §6a). */
export const TRANSITIONS: Readonly<Record<JobStatus, Readonly<Record<Role, readonly JobStatus[]>>>> = {
  CJ_NEW: {
    operator: ['CJ_REQUEST_OFFER', 'CJ_ACCEPT', 'CJ_ARCHIVED', 'ERROR'],
    user: ['CJ_REQUEST_OFFER', 'CJ_ARCHIVED'],
  },
  CJ_REQUEST_OFFER: {
    operator: ['CJ_NEW', 'CJ_ACCEPT', 'CJ_ARCHIVED', 'ERROR'],
    user: ['CJ_ACCEPT', 'CJ_ARCHIVED'],
  },
  CJ_ACCEPT: { operator: ['CJ_PREPROCESS', 'CJ_JOB_PAID', 'CJ_ARCHIVED', 'ERROR'], user: [] },
  CJ_PREPROCESS: { operator: ['CJ_JOB_PAID', 'CJ_WORK_PROGRESS', 'ERROR'], user: [] },
  CJ_JOB_PAID: { operator: ['CJ_WORK_PROGRESS', 'ERROR'], user: [] },
  // Delivery (POST /jobs/{id}/delivery) moves a job in work on to review.
  CJ_WORK_PROGRESS: { operator: ['ERROR'], user: [] },
  CJ_REVIEWING: { operator: ['CJ_FINISHED', 'ERROR'], user: [] },
  CJ_REJECT_READY: { operator: ['CJ_WORK_PROGRESS', 'CJ_REJECT_ERROR', 'ERROR'], user: [] },
  CJ_REJECT_ERROR: { operator: ['CJ_REJECT_READY', 'CJ_WORK_PROGRESS', 'ERROR'], user: [] },
  CJ_FINISHED: { operator: ['CJ_ARCHIVED'], user: ['CJ_ARCHIVED'] },
  ERROR: { operator: ['CJ_NEW', 'CJ_WORK_PROGRESS', 'CJ_ARCHIVED'], user: [] },
  CJ_ARCHIVED: { operator: [], user: [] },
};

/** The statuses a role may set from `from`, in the table's order (empty when none). */
export const allowedMoves = (from: JobStatus, role: Role): readonly JobStatus[] => TRANSITIONS[from][role];

/** Whether a role may move a job from one status to another with PATCH. */
export const canMove = (from: JobStatus, to: JobStatus, role: Role): boolean => allowedMoves(from, role).includes(to);

/** One entry of the status catalogue as `GET /statuses` answers it. */
export interface StatusView {
  id: JobStatus;
  description: string;
  /** The statuses the caller's role may set from this one. */
  next: JobStatus[];
}

/** The catalogue for a role: every status in lifecycle order, its description and the role's moves. */
export const statusCatalogue = (role: Role): StatusView[] =>
  LIFECYCLE_ORDER.map((id) => ({ id, description: STATUS_DESCRIPTIONS[id], next: [...allowedMoves(id, role)] }));

/**
 * The events of docs/contract.md §6c as they leave the service: CloudEvents 1.0 in their JSON form, one type
 * per kind of change, each with the job's account, id, version and status in its `data` and what changed
 * beside them. `asyncapi.yaml` describes the same shapes for the integrating platforms.
 */
import type { JobStatus, JobSummary } from '../jobs/model/model';

/** Every event type, in the order the contract lists them. */
export const EVENT_TYPES = [
  'job.created',
  'job.updated',
  'job.status_changed',
  'job.files_delivered',
  'file.rejected',
  'file.accepted',
  'file.image_ready',
  'file.image_invalid',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** What every event says of the job it is about. */
export interface JobEventData {
  accountId: number;
  jobId: number;
  /** The job's version after the change (for a file's picture, the version the job had when it was seen). */
  version: number;
  /** The job's status after the change. */
  status: JobStatus;
}

/** The job fields `job.updated` reports, each with its value before and after. */
export const UPDATABLE_FIELDS = [
  'accountName',
  'guid',
  'name',
  'description',
  'invoiceReference',
  'tags',
  'realCost',
  'createdDate',
  'acceptedDate',
  'orderedDate',
  'deliveredDate',
  'reviewedDate',
] as const;

export type UpdatableField = (typeof UPDATABLE_FIELDS)[number];

export interface FieldChange {
  from: unknown;
  to: unknown;
}

/** Which picture of a file an image event is about. */
export type ImageVariant = 'original' | 'edited';

/** The `data` of each event type. */
export interface EventDataByType {
  'job.created': JobEventData & { job: JobSummary };
  'job.updated': JobEventData & { changes: Partial<Record<UpdatableField, FieldChange>> };
  'job.status_changed': JobEventData & { from: JobStatus; to: JobStatus };
  'job.files_delivered': JobEventData & { deliveredDate: string };
  'file.rejected': JobEventData & {
    fileId: number;
    fileName: string;
    rejectionReason: string | null;
    reviewDate: string | null;
  };
  'file.accepted': JobEventData & { fileId: number; fileName: string; reviewDate: string | null };
  'file.image_ready': JobEventData & {
    fileId: number;
    fileName: string;
    variant: ImageVariant;
    uploadId: string;
    contentType: string;
    size: number;
    width: number;
    height: number;
    sha256: string;
    uploadedDate: string;
  };
  'file.image_invalid': JobEventData & {
    fileId: number;
    fileName: string;
    variant: ImageVariant;
    uploadId: string;
    reason: string;
    uploadedDate: string;
  };
}

/** A CloudEvent of one type (JSON event format, CloudEvents 1.0). */
export interface CloudEvent<T extends EventType = EventType> {
  specversion: '1.0';
  /** The same for the same change, however often it is delivered. */
  id: string;
  /** The stage's API (configured). */
  source: string;
  type: T;
  /** When the change was made, as the table's stream recorded it (ISO 8601 UTC). */
  time: string;
  /** `jobs/<id>`. */
  subject: string;
  datacontenttype: 'application/json';
  data: EventDataByType[T];
}

/** Any event. */
export type JobsEvent = { [T in EventType]: CloudEvent<T> }[EventType];

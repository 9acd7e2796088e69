/**
 * From the jobs table's stream to the events of docs/contract.md §6c: a pure function of each stream record's
 * old and new images, so a record delivered twice makes the same events with the same ids.
 *
 * - A job item that appears is `job.created`; one that changes makes `job.status_changed` (`from`, `to`) when its
 *   status moved, `job.files_delivered` when a delivery put it in review (a new `deliveredDate` and status
 *   `CJ_REVIEWING`), and `job.updated` with every other job field that changed, each with its value before and
 *   after. Book-keeping attributes (version, counts, delivery markers) are no event of their own.
 * - A file item that changes makes `file.rejected` (rejected now, or rejected again with a new review),
 *   `file.accepted`, and per picture (`original`, `edited`) `file.image_ready` or `file.image_invalid` when it
 *   records an upload it did not record before. A file item carries no version, account or status of its job, so
 *   those come from the job as the caller read it ({@link JobContext}).
 * - Everything else (deletions, the id allocator, idempotency records, a file appearing with its job) makes none.
 *
 * Each event's id is built from the change itself: the job, its version and the type for a job's events; the
 * file, the review date or the upload for a file's events, which carry no version of their own. The event's time
 * is the stream's record of when the change was made.
 */
import type { AttributeValue as LambdaAttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { parseId } from '../jobs/model/ids';
import { isJobStatus, type JobStatus } from '../jobs/model/model';
import { type JobItem, jobFieldsOf } from '../jobs/store/items';
import { jobKeys } from '../tables';
import type { StoredVariant } from '../images/file-images';
import {
  type CloudEvent,
  type EventDataByType,
  type EventType,
  type FieldChange,
  type ImageVariant,
  type JobEventData,
  type JobsEvent,
  UPDATABLE_FIELDS,
  type UpdatableField,
} from './cloud-event';

/** What a file's events say of its job: read from the job item, since the file item does not carry it. */
export interface JobContext {
  accountId: number;
  version: number;
  status: JobStatus;
}

export interface StreamEventOptions {
  /** The `source` of every event: the stage's API. */
  source: string;
  /** The job of a file's events, by job id; a file whose job is unknown (deleted since) makes no event. */
  jobContext?: (jobId: number) => JobContext | undefined;
  /** The time of a record that carries none (the stream always does). */
  now?: () => Date;
}

/** The status a delivery puts a job in. */
const IN_REVIEW: JobStatus = 'CJ_REVIEWING';

const JOB_PK = /^JOB#([0-9]+)$/;

/** Which item of the jobs table a record is about: a job item, a file item, or neither. */
export type RecordSubject = { kind: 'job'; jobId: number } | { kind: 'file'; jobId: number } | undefined;

/** Tells job items and file items from everything else the table holds, by their keys. */
export const subjectOf = (record: DynamoDBRecord): RecordSubject => {
  const keys = record.dynamodb?.Keys;
  const match = JOB_PK.exec(keys?.pk?.S ?? '');
  const jobId = match === null ? undefined : parseId(match[1] as string);
  if (jobId === undefined) return undefined;
  const sk = keys?.sk?.S ?? '';
  if (sk === jobKeys.jobSk) return { kind: 'job', jobId };
  if (sk.startsWith(jobKeys.filePrefix)) return { kind: 'file', jobId };
  return undefined;
};

type Image = Readonly<Record<string, unknown>>;

const imageOf = (image: Record<string, LambdaAttributeValue> | undefined): Image | undefined =>
  image === undefined ? undefined : unmarshall(image as Record<string, AttributeValue>);

/** The time of the change, as the stream recorded it. */
const timeOf = (record: DynamoDBRecord, now: () => Date): string => {
  const seconds = record.dynamodb?.ApproximateCreationDateTime;
  return typeof seconds === 'number' && Number.isFinite(seconds)
    ? new Date(seconds * 1000).toISOString()
    : now().toISOString();
};

/** Compares two attribute values as JSON (arrays and objects included). */
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

const numberIn = (image: Image, name: string): number | undefined => {
  const value = image[name];
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
};

/** The job of a job item's image, when it is one the service wrote (account, status and version present). */
export const jobContextOf = (image: Image | undefined): JobContext | undefined => {
  if (image === undefined) return undefined;
  const accountId = numberIn(image, 'accountId');
  const version = numberIn(image, 'version');
  const status = image.status;
  if (accountId === undefined || version === undefined || !isJobStatus(status)) return undefined;
  return { accountId, version, status };
};

/** Builds the envelope of one event. */
const envelope = <T extends EventType>(
  type: T,
  id: string,
  jobId: number,
  time: string,
  source: string,
  data: EventDataByType[T],
): CloudEvent<T> => ({
  specversion: '1.0',
  id,
  source,
  type,
  time,
  subject: `jobs/${jobId}`,
  datacontenttype: 'application/json',
  data,
});

/** The events of one change of a job item. */
const jobEvents = (record: DynamoDBRecord, jobId: number, time: string, source: string): JobsEvent[] => {
  const newImage = imageOf(record.dynamodb?.NewImage);
  const job = jobContextOf(newImage);
  if (newImage === undefined || job === undefined) return [];
  const base: JobEventData = { accountId: job.accountId, jobId, version: job.version, status: job.status };
  const idOf = (type: EventType): string => `jobs/${jobId}/v${job.version}/${type}`;
  const after = jobFieldsOf(newImage as unknown as JobItem);
  const oldImage = imageOf(record.dynamodb?.OldImage);
  if (oldImage === undefined) {
    const fileCount = numberIn(newImage, 'fileCount') ?? 0;
    const summary = {
      id: jobId,
      accountId: job.accountId,
      status: job.status,
      guid: after.guid,
      name: after.name,
      description: after.description,
      acceptedDate: after.acceptedDate,
      createdDate: after.createdDate,
      deliveredDate: after.deliveredDate,
      orderedDate: after.orderedDate,
      reviewedDate: after.reviewedDate,
      realCost: after.realCost,
      fileCount,
    };
    return [envelope('job.created', idOf('job.created'), jobId, time, source, { ...base, job: summary })];
  }
  const before = jobFieldsOf(oldImage as unknown as JobItem);
  const events: JobsEvent[] = [];
  const delivered =
    after.deliveredDate !== null && after.deliveredDate !== before.deliveredDate && job.status === IN_REVIEW;
  const changes: Partial<Record<UpdatableField, FieldChange>> = {};
  for (const field of UPDATABLE_FIELDS) {
    if (field === 'deliveredDate' && delivered) continue;
    if (!same(before[field], after[field])) changes[field] = { from: before[field], to: after[field] };
  }
  if (Object.keys(changes).length > 0) {
    events.push(envelope('job.updated', idOf('job.updated'), jobId, time, source, { ...base, changes }));
  }
  if (isJobStatus(before.status) && before.status !== after.status) {
    events.push(
      envelope('job.status_changed', idOf('job.status_changed'), jobId, time, source, {
        ...base,
        from: before.status,
        to: job.status,
      }),
    );
  }
  if (delivered) {
    events.push(
      envelope('job.files_delivered', idOf('job.files_delivered'), jobId, time, source, {
        ...base,
        deliveredDate: after.deliveredDate as string,
      }),
    );
  }
  return events;
};

/** The change a file item's record makes, before its job is known. */
type FileChange =
  | { type: 'file.rejected'; key: string; data: Omit<EventDataByType['file.rejected'], keyof JobEventData> }
  | { type: 'file.accepted'; key: string; data: Omit<EventDataByType['file.accepted'], keyof JobEventData> }
  | { type: 'file.image_ready'; key: string; data: Omit<EventDataByType['file.image_ready'], keyof JobEventData> }
  | {
      type: 'file.image_invalid';
      key: string;
      data: Omit<EventDataByType['file.image_invalid'], keyof JobEventData>;
    };

const VARIANTS: readonly ImageVariant[] = ['original', 'edited'];

const stringIn = (image: Image, name: string): string | null => {
  const value = image[name];
  return typeof value === 'string' ? value : null;
};

const variantIn = (image: Image | undefined, variant: ImageVariant): StoredVariant | undefined => {
  const value = image?.[variant];
  if (typeof value !== 'object' || value === null) return undefined;
  const stored = value as Partial<StoredVariant>;
  return typeof stored.uploadId === 'string' && (stored.status === 'ready' || stored.status === 'invalid')
    ? (stored as StoredVariant)
    : undefined;
};

/**
 * What a file item's change means, with the key that identifies it (the same change, the same key): nothing
 * for a file that appears (it comes with its job's `job.created`) or disappears.
 */
export const fileChangesOf = (record: DynamoDBRecord): FileChange[] => {
  const newImage = imageOf(record.dynamodb?.NewImage);
  const oldImage = imageOf(record.dynamodb?.OldImage);
  if (newImage === undefined || oldImage === undefined) return [];
  const fileId = numberIn(newImage, 'fileId') ?? numberIn(newImage, 'id');
  if (fileId === undefined) return [];
  const fileName = stringIn(newImage, 'fileName') ?? '';
  const reviewDate = stringIn(newImage, 'reviewDate');
  // A review without a date (never written so by the service) is still one change: the record names it.
  const reviewKey = reviewDate ?? `record-${record.eventID ?? 'unknown'}`;
  const changes: FileChange[] = [];
  const rejected = newImage.isRejected === true;
  if (rejected && (oldImage.isRejected !== true || oldImage.reviewDate !== newImage.reviewDate)) {
    changes.push({
      type: 'file.rejected',
      key: `files/${fileId}/file.rejected/${reviewKey}`,
      data: { fileId, fileName, rejectionReason: stringIn(newImage, 'rejectionReason'), reviewDate },
    });
  }
  if (newImage.acceptedByUser === true && oldImage.acceptedByUser !== true) {
    changes.push({
      type: 'file.accepted',
      key: `files/${fileId}/file.accepted/${reviewKey}`,
      data: { fileId, fileName, reviewDate },
    });
  }
  for (const variant of VARIANTS) {
    const now = variantIn(newImage, variant);
    const was = variantIn(oldImage, variant);
    if (now === undefined || (was?.uploadId === now.uploadId && was.status === now.status)) continue;
    const key = `files/${fileId}/${variant}/${now.uploadId}`;
    changes.push(
      now.status === 'ready'
        ? {
            type: 'file.image_ready',
            key: `${key}/file.image_ready`,
            data: {
              fileId,
              fileName,
              variant,
              uploadId: now.uploadId,
              contentType: now.contentType,
              size: now.size,
              width: now.width,
              height: now.height,
              sha256: now.sha256,
              uploadedDate: now.uploadedDate,
            },
          }
        : {
            type: 'file.image_invalid',
            key: `${key}/file.image_invalid`,
            data: {
              fileId,
              fileName,
              variant,
              uploadId: now.uploadId,
              reason: now.reason,
              uploadedDate: now.uploadedDate,
            },
          },
    );
  }
  return changes;
};

/** Whether a record's events need its job read ({@link JobContext}): a file item's change that means something. */
export const needsJobContext = (record: DynamoDBRecord): number | undefined => {
  const subject = subjectOf(record);
  return subject?.kind === 'file' && fileChangesOf(record).length > 0 ? subject.jobId : undefined;
};

/** The events of one stream record, in the order they happened. */
export const eventsOfRecord = (record: DynamoDBRecord, options: StreamEventOptions): JobsEvent[] => {
  const subject = subjectOf(record);
  if (subject === undefined) return [];
  const time = timeOf(record, options.now ?? (() => new Date()));
  if (subject.kind === 'job') return jobEvents(record, subject.jobId, time, options.source);
  const changes = fileChangesOf(record);
  if (changes.length === 0) return [];
  const job = options.jobContext?.(subject.jobId);
  if (job === undefined) return [];
  const base: JobEventData = {
    accountId: job.accountId,
    jobId: subject.jobId,
    version: job.version,
    status: job.status,
  };
  return changes.map(
    (change) =>
      envelope(change.type, `jobs/${subject.jobId}/${change.key}`, subject.jobId, time, options.source, {
        ...base,
        ...change.data,
      } as never) as JobsEvent,
  );
};

/** The events of one record of a batch, with the record they came from. */
export interface RecordEvents {
  record: DynamoDBRecord;
  events: JobsEvent[];
}

/**
 * The events of a batch, each job's in `version` order (a file's events, which carry the version its job was
 * read at, after the job's own events of the same batch); records that make no event are kept, with none.
 */
export const eventsOfBatch = (records: readonly DynamoDBRecord[], options: StreamEventOptions): RecordEvents[] =>
  records.map((record) => ({ record, events: eventsOfRecord(record, options) }));

/**
 * The events of a batch, flattened, each job's in `version` order (stable for equal versions): each job's events
 * are sorted among the places its events take in the batch, so jobs keep their interleaving.
 */
export const orderedEvents = (batch: readonly RecordEvents[]): { event: JobsEvent; record: DynamoDBRecord }[] => {
  const entries = batch.flatMap(({ record, events }) => events.map((event) => ({ event, record })));
  const slots = new Map<number, number[]>();
  entries.forEach((entry, position) => {
    const jobSlots = slots.get(entry.event.data.jobId) ?? [];
    jobSlots.push(position);
    slots.set(entry.event.data.jobId, jobSlots);
  });
  const ordered = [...entries];
  for (const positions of slots.values()) {
    const sorted = positions
      .map((position) => entries[position] as (typeof entries)[number])
      .map((entry, index) => ({ entry, index }))
      .sort((a, b) => a.entry.event.data.version - b.entry.event.data.version || a.index - b.index);
    positions.forEach((position, index) => {
      ordered[position] = (sorted[index] as (typeof sorted)[number]).entry;
    });
  }
  return ordered;
};

import { describe, expect, it } from 'vitest';
import {
  eventsOfBatch,
  eventsOfRecord as mapRecord,
  type JobContext,
  needsJobContext,
  orderedEvents,
} from '../../../functions/events/stream-events';
import type { FileImages } from '../../../functions/images/file-images';
import type { Job } from '../../../functions/jobs/model/model';
import { toFileItem, toJobItem } from '../../../functions/jobs/store/items';
import { jobKeys } from '../../../functions/tables';
import { makeFile, makeJob } from '../../support/jobs';
import { rejectedFileItem, streamRecord } from '../../support/stream-records';
import { expectDescribedEvents } from '../../support/asyncapi';

/** The events of a record, each checked against asyncapi.yaml. */
const eventsOfRecord: typeof mapRecord = (record, options) => {
  const events = mapRecord(record, options);
  expectDescribedEvents(events);
  return events;
};

const SOURCE = 'https://api.example.test/prod';
const options = (context?: Record<number, JobContext>) => ({
  source: SOURCE,
  jobContext: (jobId: number) => context?.[jobId],
});

const jobItem = (job: Job, version: number, extra: Record<string, unknown> = {}) => ({
  ...toJobItem(job, version),
  ...extra,
});

describe('events of a job item', () => {
  it('makes job.created, with the job summary, when a job item appears', () => {
    const job = makeJob({ files: [makeFile(), makeFile()], name: 'Spring catalogue' });
    const events = eventsOfRecord(
      streamRecord(undefined, jobItem(job, 1), { time: '2026-03-04T05:06:07.000Z' }),
      options(),
    );
    expect(events).toEqual([
      {
        specversion: '1.0',
        id: `jobs/${job.id}/v1/job.created`,
        source: SOURCE,
        type: 'job.created',
        time: '2026-03-04T05:06:07.000Z',
        subject: `jobs/${job.id}`,
        datacontenttype: 'application/json',
        data: {
          accountId: job.accountId,
          jobId: job.id,
          version: 1,
          status: 'CJ_NEW',
          job: {
            id: job.id,
            accountId: job.accountId,
            status: 'CJ_NEW',
            guid: job.guid,
            name: 'Spring catalogue',
            description: '',
            acceptedDate: null,
            createdDate: job.createdDate,
            deliveredDate: null,
            orderedDate: null,
            reviewedDate: null,
            realCost: job.realCost,
            fileCount: 2,
          },
        },
      },
    ]);
  });

  it('makes job.status_changed alone, with from and to, when only the status moved', () => {
    const job = makeJob();
    const events = eventsOfRecord(
      streamRecord(jobItem(job, 3), jobItem({ ...job, status: 'CJ_REQUEST_OFFER' }, 4)),
      options(),
    );
    expect(events.map((event) => [event.type, event.id])).toEqual([
      ['job.status_changed', `jobs/${job.id}/v4/job.status_changed`],
    ]);
    expect(events[0]?.data).toEqual({
      accountId: job.accountId,
      jobId: job.id,
      version: 4,
      status: 'CJ_REQUEST_OFFER',
      from: 'CJ_NEW',
      to: 'CJ_REQUEST_OFFER',
    });
  });

  it('makes job.updated with each changed field before and after, and no status event when the status stayed', () => {
    const job = makeJob({ tags: ['a'] });
    const events = eventsOfRecord(
      streamRecord(jobItem(job, 2), jobItem({ ...job, name: 'Renamed', tags: ['a', 'b'] }, 3)),
      options(),
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'job.updated',
      id: `jobs/${job.id}/v3/job.updated`,
      data: {
        version: 3,
        changes: { name: { from: job.name, to: 'Renamed' }, tags: { from: ['a'], to: ['a', 'b'] } },
      },
    });
    expect(Object.keys((events[0]?.data as { changes: object }).changes)).toEqual(['name', 'tags']);
  });

  it('takes a field a job item lacks as the contract answers it, so writing its default is no change', () => {
    const job = makeJob({ description: '' });
    const { description: _unset, ...without } = jobItem(job, 1);
    expect(eventsOfRecord(streamRecord(without, jobItem(job, 2)), options())).toEqual([]);
  });

  it('makes job.status_changed and job.files_delivered for a delivery, not a job.updated of its date', () => {
    const job = makeJob({ status: 'CJ_WORK_PROGRESS' });
    const deliveredDate = '2026-02-02T10:00:00.000Z';
    const events = eventsOfRecord(
      streamRecord(jobItem(job, 5), jobItem({ ...job, status: 'CJ_REVIEWING', deliveredDate }, 6)),
      options(),
    );
    expect(events.map((event) => event.type)).toEqual(['job.status_changed', 'job.files_delivered']);
    expect(events[1]).toMatchObject({
      id: `jobs/${job.id}/v6/job.files_delivered`,
      data: { version: 6, status: 'CJ_REVIEWING', deliveredDate },
    });
  });

  it('makes job.files_delivered for a second delivery of a job already in review', () => {
    const job = makeJob({ status: 'CJ_REVIEWING', deliveredDate: '2026-02-02T10:00:00.000Z' });
    const events = eventsOfRecord(
      streamRecord(jobItem(job, 8), jobItem({ ...job, deliveredDate: '2026-02-03T10:00:00.000Z' }, 9)),
      options(),
    );
    expect(events.map((event) => event.type)).toEqual(['job.files_delivered']);
  });

  it('makes no event of a change to book-keeping only (version, review counts)', () => {
    const job = makeJob();
    expect(eventsOfRecord(streamRecord(jobItem(job, 1), jobItem(job, 2, { reviewPending: 1 })), options())).toEqual([]);
  });

  it('makes no event of a job item removed', () => {
    expect(eventsOfRecord(streamRecord(jobItem(makeJob(), 4), undefined), options())).toEqual([]);
  });
});

describe('records that are neither jobs nor files', () => {
  it('makes no event of the id allocator or an idempotency record', () => {
    const counter = { ...jobKeys.counter, next: 12 };
    const idempotency = { ...jobKeys.idempotency('client-1', 1001, 'abc'), jobId: 5, ttl: 1 };
    const records = [
      streamRecord(undefined, counter),
      streamRecord(counter, { ...counter, next: 13 }),
      streamRecord(undefined, idempotency),
      streamRecord(idempotency, undefined),
    ];
    expect(records.flatMap((record) => eventsOfRecord(record, options()))).toEqual([]);
    expect(records.map(needsJobContext)).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe('events of a file item', () => {
  const job = makeJob({ status: 'CJ_REVIEWING', deliveredDate: '2026-02-02T10:00:00.000Z' });
  const context = { [job.id]: { accountId: job.accountId, version: 12, status: 'CJ_REJECT_READY' as const } };
  const file = makeFile();
  const pending = toFileItem(job.id, file, true);
  const rejectedAt = '2026-02-03T09:00:00.000Z';
  const rejected = rejectedFileItem(pending, rejectedAt);

  it('makes file.rejected with the job as read, when a file is rejected', () => {
    const record = streamRecord(pending, rejected);
    expect(needsJobContext(record)).toBe(job.id);
    expect(eventsOfRecord(record, options(context))).toEqual([
      expect.objectContaining({
        type: 'file.rejected',
        id: `jobs/${job.id}/files/${file.id}/file.rejected/${rejectedAt}`,
        subject: `jobs/${job.id}`,
        data: {
          accountId: job.accountId,
          jobId: job.id,
          version: 12,
          status: 'CJ_REJECT_READY',
          fileId: file.id,
          fileName: file.fileName,
          rejectionReason: 'Too dark',
          reviewDate: rejectedAt,
        },
      }),
    ]);
  });

  it('makes a new file.rejected, with a new id, when a rejected file is rejected again with a new review', () => {
    const again = { ...rejected, rejectionReason: 'Crooked', reviewDate: '2026-02-04T09:00:00.000Z' };
    const events = eventsOfRecord(streamRecord(rejected, again), options(context));
    expect(events.map((event) => event.id)).toEqual([
      `jobs/${job.id}/files/${file.id}/file.rejected/2026-02-04T09:00:00.000Z`,
    ]);
  });

  it('makes file.accepted when the customer accepts a file', () => {
    const acceptedAt = '2026-02-05T09:00:00.000Z';
    const accepted = { ...pending, isReviewed: true, acceptedByUser: true, reviewDate: acceptedAt };
    const events = eventsOfRecord(streamRecord(pending, accepted), options(context));
    expect(events).toEqual([
      expect.objectContaining({
        type: 'file.accepted',
        id: `jobs/${job.id}/files/${file.id}/file.accepted/${acceptedAt}`,
        data: expect.objectContaining({ fileId: file.id, reviewDate: acceptedAt, version: 12 }),
      }),
    ]);
  });

  it('makes no event of a file whose job is unknown (deleted since), nor of a file that appears or goes', () => {
    expect(eventsOfRecord(streamRecord(pending, rejected), options({}))).toEqual([]);
    expect(eventsOfRecord(streamRecord(undefined, rejected), options(context))).toEqual([]);
    expect(eventsOfRecord(streamRecord(rejected, undefined), options(context))).toEqual([]);
    expect(needsJobContext(streamRecord(undefined, rejected))).toBeUndefined();
  });

  it('makes no event of a delivery rolling a file back into review', () => {
    expect(eventsOfRecord(streamRecord(rejected, pending), options(context))).toEqual([]);
  });

  const ready: NonNullable<FileImages['original']> = {
    status: 'ready',
    uploadId: 'u-0001',
    contentType: 'image/jpeg',
    size: 2048,
    width: 640,
    height: 480,
    sha256: 'q1w2e3',
    uploadedDate: '2026-02-01T08:00:00.000Z',
  };

  it('makes file.image_ready when a picture of a file is checked and rendered', () => {
    const events = eventsOfRecord(streamRecord(pending, { ...pending, original: ready }), options(context));
    expect(events).toEqual([
      expect.objectContaining({
        type: 'file.image_ready',
        id: `jobs/${job.id}/files/${file.id}/original/u-0001/file.image_ready`,
        data: {
          accountId: job.accountId,
          jobId: job.id,
          version: 12,
          status: 'CJ_REJECT_READY',
          fileId: file.id,
          fileName: file.fileName,
          variant: 'original',
          uploadId: 'u-0001',
          contentType: 'image/jpeg',
          size: 2048,
          width: 640,
          height: 480,
          sha256: 'q1w2e3',
          uploadedDate: '2026-02-01T08:00:00.000Z',
        },
      }),
    ]);
  });

  it('makes file.image_invalid for bytes refused, and nothing when the same upload is written again', () => {
    const invalid = {
      status: 'invalid' as const,
      uploadId: 'u-0002',
      reason: 'not_an_image',
      uploadedDate: ready.uploadedDate,
    };
    const withEdit = { ...pending, original: ready, edited: invalid };
    const events = eventsOfRecord(streamRecord({ ...pending, original: ready }, withEdit), options(context));
    expect(events).toEqual([
      expect.objectContaining({
        type: 'file.image_invalid',
        id: `jobs/${job.id}/files/${file.id}/edited/u-0002/file.image_invalid`,
        data: expect.objectContaining({ variant: 'edited', uploadId: 'u-0002', reason: 'not_an_image' }),
      }),
    ]);
    expect(eventsOfRecord(streamRecord(withEdit, { ...withEdit, tags: ['x'] }), options(context))).toEqual([]);
  });
});

describe('a batch', () => {
  it('gives a redelivered batch the same events with the same ids', () => {
    const job = makeJob();
    const records = [
      streamRecord(undefined, jobItem(job, 1)),
      streamRecord(jobItem(job, 1), jobItem({ ...job, status: 'CJ_REQUEST_OFFER' }, 2)),
    ];
    const first = eventsOfBatch(records, { ...options(), now: () => new Date(1) });
    expectDescribedEvents(first.flatMap((entry) => entry.events));
    const again = eventsOfBatch(structuredClone(records), { ...options(), now: () => new Date(2) });
    expect(again).toEqual(first);
    expect(first.flatMap((entry) => entry.events.map((event) => event.id))).toEqual([
      `jobs/${job.id}/v1/job.created`,
      `jobs/${job.id}/v2/job.status_changed`,
    ]);
  });

  it('orders each job by version within the places its events take, other jobs staying where they are', () => {
    const a = makeJob();
    const b = makeJob();
    const records = [
      streamRecord(jobItem(a, 2), jobItem({ ...a, name: 'third' }, 3)),
      streamRecord(undefined, jobItem(b, 1)),
      streamRecord(jobItem(a, 1), jobItem({ ...a, name: 'second' }, 2)),
      streamRecord(jobItem(b, 1), jobItem({ ...b, name: 'b2' }, 2)),
    ];
    const ordered = orderedEvents(eventsOfBatch(records, options()));
    expectDescribedEvents(ordered.map(({ event }) => event));
    expect(ordered.map(({ event }) => `${event.data.jobId === a.id ? 'a' : 'b'}${event.data.version}`)).toEqual([
      'a2',
      'b1',
      'a3',
      'b2',
    ]);
    expect(ordered[0]?.record).toBe(records[2]);
  });
});

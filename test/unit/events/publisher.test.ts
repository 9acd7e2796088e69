import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { JobsEvent } from '../../../functions/events/cloud-event';
import type { EventSink, PutResult } from '../../../functions/events/event-sink';
import { createEventPublisher, type EventPublisherOptions } from '../../../functions/events/publisher';
import type { JobContext } from '../../../functions/events/stream-events';
import type { Job } from '../../../functions/jobs/model/model';
import { toFileItem, toJobItem } from '../../../functions/jobs/store/items';
import { jobKeys } from '../../../functions/tables';
import { expectDescribedEvents } from '../../support/asyncapi';
import { makeFile, makeJob } from '../../support/jobs';
import { streamRecord } from '../../support/stream-records';

/** A sink that keeps what it takes and refuses what the test decides. */
class RecordingSink implements EventSink {
  public readonly calls: JobsEvent[][] = [];
  public readonly taken: JobsEvent[] = [];
  public constructor(private readonly refuse: (event: JobsEvent, call: number) => boolean = () => false) {}
  public async put(events: readonly JobsEvent[]): Promise<PutResult[]> {
    const call = this.calls.length;
    this.calls.push([...events]);
    return events.map((event) => {
      if (this.refuse(event, call)) return { ok: false, reason: 'InternalFailure' };
      this.taken.push(event);
      return { ok: true };
    });
  }
}

const noDelay = { attempts: 2, baseDelayMs: 0, maxDelayMs: 0, random: () => 0 };

const publisherWith = (sink: EventSink, overrides: Partial<EventPublisherOptions> = {}) =>
  createEventPublisher({
    sink: () => sink,
    source: () => 'urn:test',
    readJob: async () => undefined,
    retry: noDelay,
    ...overrides,
  });

const failuresOf = (records: DynamoDBRecord[]) =>
  records.map((record) => ({ itemIdentifier: record.dynamodb?.SequenceNumber as string }));

/** A job's life: created (v1), renamed (v2), asked for an offer (v3). */
const lifeOf = (job: Job): DynamoDBRecord[] => [
  streamRecord(undefined, toJobItem(job, 1)),
  streamRecord(toJobItem(job, 1), toJobItem({ ...job, name: 'Renamed' }, 2)),
  streamRecord(
    toJobItem({ ...job, name: 'Renamed' }, 2),
    toJobItem({ ...job, name: 'Renamed', status: 'CJ_REQUEST_OFFER' }, 3),
  ),
];

describe('the events publisher', () => {
  it('publishes every event of a batch, each job version by version, and reports no failure', async () => {
    const sink = new RecordingSink();
    const [a, b] = [makeJob(), makeJob()];
    const records = [...lifeOf(a), ...lifeOf(b)];
    await expect(publisherWith(sink)({ Records: records })).resolves.toEqual({ batchItemFailures: [] });
    // One call per version: both jobs' first versions together, then their second, then their third.
    expect(
      sink.calls.map((call) => call.map((event) => `${event.data.jobId === a.id ? 'a' : 'b'}${event.data.version}`)),
    ).toEqual([
      ['a1', 'b1'],
      ['a2', 'b2'],
      ['a3', 'b3'],
    ]);
    expectDescribedEvents(sink.taken);
  });

  it('sends a refused event again and, once taken, reports the batch done', async () => {
    const sink = new RecordingSink((event, call) => call === 0 && event.type === 'job.created');
    const records = lifeOf(makeJob());
    await expect(publisherWith(sink)({ Records: records })).resolves.toEqual({ batchItemFailures: [] });
    expect(sink.taken.map((event) => event.type)).toEqual(['job.created', 'job.updated', 'job.status_changed']);
  });

  it('holds back a job whose event stays refused: its record and every later one of the job fail, other jobs go on', async () => {
    const [stuck, fine] = [makeJob(), makeJob()];
    const sink = new RecordingSink((event) => event.data.jobId === stuck.id && event.data.version === 2);
    const stuckRecords = lifeOf(stuck);
    const records = [...stuckRecords, ...lifeOf(fine)];
    const answer = await publisherWith(sink)({ Records: records });
    expect(answer.batchItemFailures).toEqual(failuresOf([stuckRecords[1], stuckRecords[2]] as DynamoDBRecord[]));
    // The held-back version 3 was never offered; the refused one was offered once and twice again.
    expect(sink.taken.filter((event) => event.data.jobId === stuck.id).map((event) => event.data.version)).toEqual([1]);
    expect(sink.calls.flat().filter((event) => event.data.jobId === stuck.id && event.data.version === 3)).toEqual([]);
    expect(sink.calls.flat().filter((event) => event.data.jobId === stuck.id && event.data.version === 2)).toHaveLength(
      3,
    );
    expect(sink.taken.filter((event) => event.data.jobId === fine.id).map((event) => event.data.version)).toEqual([
      1, 2, 3,
    ]);
  });

  it('fails every record of the batch when the sink throws, and publishes them with the same ids on redelivery', async () => {
    const records = lifeOf(makeJob());
    const broken: EventSink = {
      put: async () => {
        throw new Error('EventBridge unreachable');
      },
    };
    const answer = await publisherWith(broken)({ Records: records });
    expect(answer.batchItemFailures).toEqual(failuresOf(records));
    const first = new RecordingSink();
    const again = new RecordingSink();
    await publisherWith(first)({ Records: records });
    await publisherWith(again)({ Records: structuredClone(records) });
    expect(again.taken.map((event) => event.id)).toEqual(first.taken.map((event) => event.id));
    expect(again.taken).toEqual(first.taken);
  });

  it('reads the job of changed files once per batch, and gives their events its account, version and status', async () => {
    const job = makeJob({
      status: 'CJ_REVIEWING',
      files: [makeFile(), makeFile()],
      deliveredDate: '2026-01-01T00:00:00.000Z',
    });
    const context: JobContext = { accountId: job.accountId, version: 9, status: 'CJ_REJECT_READY' };
    const reads: number[] = [];
    const sink = new RecordingSink();
    const records = job.files.map((file) => {
      const pending = toFileItem(job.id, file, true);
      return streamRecord(pending, {
        ...pending,
        isRejected: true,
        isReviewed: true,
        rejectionReason: 'Blurred',
        reviewDate: '2026-01-02T00:00:00.000Z',
      });
    });
    const publish = publisherWith(sink, {
      readJob: async (jobId) => {
        reads.push(jobId);
        return context;
      },
    });
    await expect(publish({ Records: records })).resolves.toEqual({ batchItemFailures: [] });
    expect(reads).toEqual([job.id]);
    expect(sink.calls).toHaveLength(1);
    expect(sink.taken.map((event) => [event.type, event.data.version, event.data.status])).toEqual([
      ['file.rejected', 9, 'CJ_REJECT_READY'],
      ['file.rejected', 9, 'CJ_REJECT_READY'],
    ]);
    expectDescribedEvents(sink.taken);
  });

  it('fails the records of a file whose job could not be read, and passes a file whose job is gone', async () => {
    const [unreadable, gone] = [makeJob(), makeJob()];
    const rejectedRecord = (job: Job) => {
      const pending = toFileItem(job.id, job.files[0] as Job['files'][number], true);
      return streamRecord(pending, { ...pending, isRejected: true, reviewDate: '2026-01-02T00:00:00.000Z' });
    };
    const records = [rejectedRecord(unreadable), rejectedRecord(gone)];
    const sink = new RecordingSink();
    const publish = publisherWith(sink, {
      readJob: async (jobId) => {
        if (jobId === unreadable.id) throw new Error('ProvisionedThroughputExceededException');
        return undefined;
      },
    });
    await expect(publish({ Records: records })).resolves.toEqual({
      batchItemFailures: failuresOf([records[0] as DynamoDBRecord]),
    });
    expect(sink.taken).toEqual([]);
  });

  it('passes records of the id allocator and of idempotency without an event', async () => {
    const sink = new RecordingSink();
    const counter = { ...jobKeys.counter, next: 3 };
    await expect(publisherWith(sink)({ Records: [streamRecord(undefined, counter)] })).resolves.toEqual({
      batchItemFailures: [],
    });
    expect(sink.calls).toEqual([]);
  });
});

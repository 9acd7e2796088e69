/**
 * DynamoDB stream records of the jobs table as Lambda hands them over (NEW_AND_OLD_IMAGES), made from items the
 * service's own item builders write, for the tests of what reads the stream.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';

let sequence = 1_000_000;

type Item = object;

const image = (item: Item | undefined): Record<string, AttributeValue> | undefined =>
  item === undefined
    ? undefined
    : (marshall(item as Record<string, unknown>, {
        removeUndefinedValues: true,
        convertClassInstanceToMap: true,
      }) as Record<string, AttributeValue>);

/**
 * The record of one write: `INSERT` without an old item, `REMOVE` without a new one, `MODIFY` with both. The
 * event id and sequence number are fresh unless given; the time is the stream's (epoch seconds).
 */
export const streamRecord = (
  before: Item | undefined,
  after: Item | undefined,
  options: { eventID?: string; sequenceNumber?: string; time?: string } = {},
): DynamoDBRecord => {
  const keysOf = (after ?? before) as { pk?: unknown; sk?: unknown };
  const seq = options.sequenceNumber ?? String(sequence++).padStart(21, '0');
  const eventName = before === undefined ? 'INSERT' : after === undefined ? 'REMOVE' : 'MODIFY';
  const newImage = image(after);
  const oldImage = image(before);
  return {
    eventID: options.eventID ?? `event-${seq}`,
    eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: {
      ApproximateCreationDateTime: Date.parse(options.time ?? '2026-01-02T03:04:05.000Z') / 1000,
      Keys: image({ pk: keysOf.pk, sk: keysOf.sk }),
      ...(newImage === undefined ? {} : { NewImage: newImage }),
      ...(oldImage === undefined ? {} : { OldImage: oldImage }),
      SequenceNumber: seq,
      SizeBytes: 100,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
    eventSourceARN: 'arn:aws:dynamodb:us-east-1:123456789012:table/jobs/stream/2026-01-01T00:00:00.000',
  };
};

/** A file item as a rejection leaves it: reviewed, rejected for `reason` at `at`, its review current. */
export const rejectedFileItem = <T extends object>(item: T, at: string, reason = 'Too dark') => ({
  ...item,
  isReviewed: true,
  isRejected: true,
  rejectionReason: reason,
  reviewDate: at,
  reviews: { customRejection: reason, rejects: [], reviewDate: at },
});

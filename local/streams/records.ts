/**
 * DynamoDB Streams records as Lambda hands them to a stream handler: the stream API's record converted to
 * the `DynamoDBRecord` of a `DynamoDBStreamEvent` (binary attributes as base64 text, the event source ARN
 * and region set), and the sequence numbers that order them.
 */
import type {
  _Record as StreamsRecord,
  AttributeValue as StreamsAttributeValue,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';

/** Compares two stream sequence numbers (decimal strings of any length). */
export const compareSequence = (a: string, b: string): number => {
  const left = BigInt(a);
  const right = BigInt(b);
  return left < right ? -1 : left > right ? 1 : 0;
};

const toBase64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** One attribute value as Lambda's event carries it (binary as base64 text). */
const toLambdaAttribute = (value: StreamsAttributeValue): AttributeValue => {
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.B !== undefined) return { B: toBase64(value.B) };
  if (value.SS !== undefined) return { SS: value.SS };
  if (value.NS !== undefined) return { NS: value.NS };
  if (value.BS !== undefined) return { BS: value.BS.map(toBase64) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaAttribute) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  return { NULL: true };
};

const toLambdaImage = (image: Record<string, StreamsAttributeValue>): Record<string, AttributeValue> =>
  Object.fromEntries(Object.entries(image).map(([name, value]) => [name, toLambdaAttribute(value)]));

/** A stream record as Lambda's DynamoDB event source delivers it. */
export const toLambdaRecord = (record: StreamsRecord, streamArn: string, region: string): DynamoDBRecord => {
  const stream = record.dynamodb ?? {};
  const created = stream.ApproximateCreationDateTime;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: record.eventSource ?? 'aws:dynamodb',
    awsRegion: region,
    dynamodb: {
      ...(created === undefined ? {} : { ApproximateCreationDateTime: Math.floor(new Date(created).getTime() / 1000) }),
      ...(stream.Keys === undefined ? {} : { Keys: toLambdaImage(stream.Keys) }),
      ...(stream.NewImage === undefined ? {} : { NewImage: toLambdaImage(stream.NewImage) }),
      ...(stream.OldImage === undefined ? {} : { OldImage: toLambdaImage(stream.OldImage) }),
      SequenceNumber: stream.SequenceNumber,
      SizeBytes: stream.SizeBytes,
      StreamViewType: stream.StreamViewType,
    },
    eventSourceARN: streamArn,
    ...(record.userIdentity === undefined ? {} : { userIdentity: record.userIdentity }),
  };
};

export const sequenceOf = (record: DynamoDBRecord): string => record.dynamodb?.SequenceNumber ?? '';

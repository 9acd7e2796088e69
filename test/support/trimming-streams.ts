/**
 * A DynamoDB Streams client on DynamoDB Local that plays the stream's retention trim, which DynamoDB
 * Local only does after 24 hours: once `trimThrough(sequenceNumber)` is called, the records up to that
 * sequence number are gone, as DynamoDB Streams answers it — `TRIM_HORIZON` starts after them, and an
 * iterator or a sequence number pointing at one of them answers `TrimmedDataAccessException`. Every
 * other request reaches DynamoDB Local unchanged.
 */
import {
  DynamoDBStreamsClient,
  type GetRecordsCommandOutput,
  type GetShardIteratorCommandInput,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';

const compare = (a: string, b: string): number => {
  const left = BigInt(a);
  const right = BigInt(b);
  return left < right ? -1 : left > right ? 1 : 0;
};

const trimmed = (): TrimmedDataAccessException =>
  new TrimmedDataAccessException({
    message: 'The operation attempted to read past the oldest stream record in a shard.',
    $metadata: { httpStatusCode: 400 },
  });

export interface TrimmingStreamsClient {
  client: DynamoDBStreamsClient;
  /** Trims every record up to and including this sequence number. */
  trimThrough(sequenceNumber: string): void;
}

export const trimmingStreamsClient = (endpoint: string): TrimmingStreamsClient => {
  let horizon: string | undefined;
  const client = new DynamoDBStreamsClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (horizon === undefined) return next(args);
      if (context.commandName === 'GetShardIteratorCommand') {
        const input = args.input as GetShardIteratorCommandInput;
        if (input.ShardIteratorType === 'TRIM_HORIZON') {
          return next({
            ...args,
            input: { ...input, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: horizon },
          });
        }
        if (input.SequenceNumber !== undefined && compare(input.SequenceNumber, horizon) <= 0) throw trimmed();
        return next(args);
      }
      const result = await next(args);
      if (context.commandName === 'GetRecordsCommand') {
        const output = result.output as GetRecordsCommandOutput;
        const limit = horizon;
        const stale = (output.Records ?? []).some(
          (record) => compare(record.dynamodb?.SequenceNumber ?? '0', limit) <= 0,
        );
        if (stale) throw trimmed();
      }
      return result;
    },
    { step: 'initialize', name: 'retentionTrim' },
  );
  return {
    client,
    trimThrough: (sequenceNumber) => {
      horizon = sequenceNumber;
    },
  };
};

/**
 * The iterators the poller reads a shard with: after the last sequence number it fetched, at the
 * configured starting position for a shard it never read, or at `TRIM_HORIZON` after a trim.
 */
import { type DynamoDBStreamsClient, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { Settings } from './poller-options';

/** An iterator after a sequence number, or at the starting position (`TRIM_HORIZON` after a trim). */
export const shardIterator = async (
  client: DynamoDBStreamsClient,
  streamArn: string,
  startingPosition: Settings['startingPosition'],
  shardId: string,
  after: string | undefined,
  fromHorizon: boolean,
): Promise<string | undefined> => {
  const output = await client.send(
    new GetShardIteratorCommand({
      StreamArn: streamArn,
      ShardId: shardId,
      ...(fromHorizon
        ? { ShardIteratorType: 'TRIM_HORIZON' }
        : after === undefined
          ? { ShardIteratorType: startingPosition }
          : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }),
    }),
  );
  return output.ShardIterator;
};

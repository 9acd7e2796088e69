/**
 * A jobs table with a stream, as the stream poller finds it on a mocked DynamoDB: for unit tests that play stream
 * situations against the poller with `mockClient(DynamoDBStreamsClient)`.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { PollerLogger } from '../../local/streams/poller';

export const STREAM_ARN = 'arn:aws:dynamodb:ddblocal:000000000000:table/jobs/stream/2024-01-01T00:00:00.000';

/** A poller logger that prints nothing. */
export const quietPollerLogger: PollerLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

const tables = mockClient(DynamoDBClient);

/** Makes the mocked DynamoDB describe the table with {@link STREAM_ARN} as its enabled stream (call in beforeEach). */
export const mockStreamedTable = (): void => {
  tables.reset();
  tables.on(DescribeTableCommand).resolves({
    Table: {
      LatestStreamArn: STREAM_ARN,
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    },
  });
};

/**
 * How many jobs the jobs table holds, without reading it: `status` must stay one cheap look however large the
 * table grows, so it asks DynamoDB's control plane (`DescribeTable`) instead of scanning.
 *
 * DescribeTable's `ItemCount` counts every item of the table — a job's item and one item per file — and the
 * sparse `byFileId` index holds exactly the file items, so the jobs are the table's count less the index's, less
 * the id allocator's counter item when there is one (one GetItem). The idempotency records of `POST /jobs` (kept
 * 24 hours) are counted too: a table that took creates with an `Idempotency-Key` that day shows that many more.
 * DynamoDB refreshes both counts about every six hours
 * (<https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TableDescription.html>): the figure is
 * as old as that, and a difference from the index's documents is a hint, not a finding (`verify-index`
 * compares job by job).
 */
import { DescribeTableCommand, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { config } from '../../functions/config';
import { JOBS_TABLE, jobKeys } from '../../functions/tables';

/** The jobs table's counts as DynamoDB last refreshed them. */
export interface TableJobCount {
  /** About the job items: the table's items less its file items and the id counter (idempotency records included). */
  jobs: number;
  /** Every item of the table. */
  items: number;
  /** The file items (the `byFileId` index's items). */
  fileItems: number;
  /** How old the counts may be: DynamoDB refreshes them about every six hours. */
  refreshed: 'about every six hours';
}

const FILE_INDEX = 'byFileId' satisfies (typeof JOBS_TABLE.globalSecondaryIndexes)[number]['indexName'];

/** Reads the counts of `tableName` with one DescribeTable call. */
export const countTableJobs = async (
  tableName: string,
  client: DynamoDBClient = new DynamoDBClient({
    region: config().region,
    ...(config().dynamodbEndpoint === undefined ? {} : { endpoint: config().dynamodbEndpoint }),
  }),
): Promise<TableJobCount> => {
  try {
    const { Table: table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const items = table?.ItemCount ?? 0;
    const fileItems = table?.GlobalSecondaryIndexes?.find((index) => index.IndexName === FILE_INDEX)?.ItemCount ?? 0;
    const { Item: counter } = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: { pk: { S: jobKeys.counter.pk }, sk: { S: jobKeys.counter.sk } },
        ProjectionExpression: 'pk',
      }),
    );
    const others = counter === undefined ? 0 : 1;
    return { jobs: Math.max(0, items - fileItems - others), items, fileItems, refreshed: 'about every six hours' };
  } finally {
    client.destroy();
  }
};

/**
 * How many jobs the jobs table holds, without reading it: `status` must stay one cheap look however large the
 * table grows, so it asks DynamoDB's control plane (`DescribeTable`) instead of scanning.
 *
 * DescribeTable's `ItemCount` counts every item of the table — a job's item, one item per file, the id
 * allocator's counter and the idempotency records of `POST /jobs` (kept 24 hours) — and the sparse `byFileId`
 * index holds exactly the file items, so the table's count less the index's is the jobs plus those few
 * bookkeeping items. DynamoDB refreshes both counts about every six hours
 * (<https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TableDescription.html>): the figure is
 * as old as that, and a difference from the index's documents is a hint, not a finding (`verify-index`
 * compares job by job).
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { config } from '../../functions/config';
import { JOBS_TABLE } from '../../functions/tables';

/** The jobs table's counts as DynamoDB last refreshed them. */
export interface TableJobCount {
  /** About the job items: the table's items less its file items (the allocator's and idempotency items included). */
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
    return { jobs: Math.max(0, items - fileItems), items, fileItems, refreshed: 'about every six hours' };
  } finally {
    client.destroy();
  }
};

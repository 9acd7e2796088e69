/**
 * The jobs table: jobs and their files, the sparse `byFileId` index, and the stream that feeds the
 * search indexer.
 */
import { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { JOBS_TABLE } from '../functions/tables';
import { type TableProtection, tablePropsOf } from './table-definition';

export type JobsTableProps = TableProtection;

/** The jobs table of `functions/tables.ts`, deployed. */
export class JobsTable extends Construct {
  /** The table. */
  public readonly table: TableV2;

  public constructor(scope: Construct, id: string, props: JobsTableProps) {
    super(scope, id);
    this.table = new TableV2(this, 'Table', tablePropsOf(JOBS_TABLE, props));
  }

  /** The ARN of one of the table's global secondary indexes. */
  public indexArn(indexName: (typeof JOBS_TABLE.globalSecondaryIndexes)[number]['indexName']): string {
    return `${this.table.tableArn}/index/${indexName}`;
  }
}

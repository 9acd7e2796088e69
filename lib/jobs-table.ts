/**
 * The jobs table: jobs and their files, the sparse `byFileId` index, and the stream that feeds the
 * search indexer.
 */
import { type ITableV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
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

  /** The ARN of the table's stream (the table always has one). */
  public get streamArn(): string {
    const arn = this.table.tableStreamArn;
    if (arn === undefined) throw new Error('The jobs table has no stream');
    return arn;
  }

  /** The ARN of one of the table's global secondary indexes. */
  public indexArn(indexName: (typeof JOBS_TABLE.globalSecondaryIndexes)[number]['indexName']): string {
    return `${this.table.tableArn}/index/${indexName}`;
  }

  /** The table as the interface grants and event sources take. */
  public get asTable(): ITableV2 {
    return this.table;
  }
}

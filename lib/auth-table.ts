/**
 * The auth table: clients and sessions keyed by token hash; sessions expire by TTL.
 */
import { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { AUTH_TABLE } from '../functions/tables';
import { type TableProtection, tablePropsOf } from './table-definition';

export type AuthTableProps = TableProtection;

/** The auth table of `functions/tables.ts`, deployed. */
export class AuthTable extends Construct {
  /** The table. */
  public readonly table: TableV2;

  public constructor(scope: Construct, id: string, props: AuthTableProps) {
    super(scope, id);
    this.table = new TableV2(this, 'Table', tablePropsOf(AUTH_TABLE, props));
  }
}

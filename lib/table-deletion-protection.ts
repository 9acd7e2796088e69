/**
 * The tables' deletion protection, switched on by the last step of a deployment: a CloudFormation custom
 * resource backed by a function of its own (`functions/handlers/table-protection.ts`) that depends on every
 * other resource of the stack.
 *
 * Why: DynamoDB refuses to delete a table with deletion protection, by any user or process, CloudFormation
 * included. Tables created protected would make the rollback of a failed first deployment (a function,
 * the stage, the stream mapping or an alarm failing after the tables exist) stop in `ROLLBACK_FAILED` with
 * two orphaned tables, although their deletion policy (`RetainExceptOnCreate`) asks for them to go. So the
 * template creates them unprotected, and CloudFormation creates a resource only once every resource it
 * depends on is complete: when this step runs, nothing else of the deployment is left to fail. Should it
 * fail itself, it switches off what it switched on, and the rollback deletes unprotected tables.
 *
 * The step runs again whenever the stage's `deletionProtection` or anything the stack sets on the tables
 * changes (their names, definitions or properties), after the tables' own update, so the protection always
 * ends as configured.
 */
import { createHash } from 'node:crypto';
import { CfnResource, CustomResource, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { AUTH_TABLE, JOBS_TABLE } from '../functions/tables';
import { HandlerFunction } from './handler-function';
import { tablePropsOf } from './table-definition';
import { XRAY_REASON } from './nag-suppressions';

export interface TableDeletionProtectionProps {
  tables: ITableV2[];
  /** The stage's `deletionProtection`: what the step sets on every table. */
  enabled: boolean;
  /** The functions' environment. */
  environment: Record<string, string>;
  detailedTracing: boolean;
  logRetention: RetentionDays;
}

/** How long the protection function may run: two updates, each tried up to five times over about 30 s. */
export const PROTECTION_TIMEOUT = Duration.minutes(2);

/**
 * A digest of everything the stack sets on the tables (their definitions and the properties built from
 * them): any change to the tables runs the step again after their own update, whatever that update does to
 * their protection.
 */
const tablesDigest = (enabled: boolean): string =>
  createHash('sha256')
    .update(
      JSON.stringify([JOBS_TABLE, AUTH_TABLE].map((table) => tablePropsOf(table, { deletionProtection: enabled }))),
    )
    .digest('hex')
    .slice(0, 16);

/** The last step of a deployment: the tables' deletion protection. */
export class TableDeletionProtection extends Construct {
  public readonly handler: HandlerFunction;
  public readonly resource: CustomResource;

  public constructor(scope: Construct, id: string, props: TableDeletionProtectionProps) {
    super(scope, id);
    this.handler = new HandlerFunction(this, 'Handler', {
      module: 'table-protection',
      logicalId: 'TableProtectionFunction',
      description: 'Jobs API table deletion protection (deploy time, last step)',
      memoryMiB: 256,
      timeout: PROTECTION_TIMEOUT,
      detailedTracing: props.detailedTracing,
      environment: props.environment,
      logRetention: props.logRetention,
    });
    // It sets the protection of the two tables with UpdateTable, and calls nothing else.
    this.handler.role.addToPolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateTable'],
        resources: props.tables.map((table) => table.tableArn),
      }),
    );

    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: this.handler.function.functionArn,
      resourceType: 'Custom::TableDeletionProtection',
      serviceTimeout: Duration.minutes(5),
      properties: {
        TableNames: props.tables.map((table) => table.tableName),
        DeletionProtection: String(props.enabled),
        Tables: tablesDigest(props.enabled),
      },
    });

    Validations.of(this.handler).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason: XRAY_REASON });
  }

  /**
   * Makes the step wait for every other resource of `stack`: CloudFormation starts it only once all of
   * them are complete. Call it once the stack holds all its resources.
   */
  public comeLast(stack: Stack): void {
    const own = new Set(this.resource.node.findAll());
    for (const construct of stack.node.findAll()) {
      if (construct instanceof CfnResource && !own.has(construct)) this.resource.node.addDependency(construct);
    }
  }
}

/**
 * The audit log: a CloudWatch Logs group of its own for the audit records of credentials (docs/contract.md
 * §2a), written by the sessions function and by the CLI under `--stack` (`OperatorPolicyArn`). It outlives
 * the stack: retained `auditRetentionDays` (400 by default) and kept when the stack is deleted, so a stack
 * torn down after an incident does not take its evidence with it — but deleted by the rollback of the
 * deployment that created it (`RetainExceptOnCreate`, as the tables), which has no records yet. Its name is CloudFormation's own, so a
 * stack deployed again beside a kept group never collides with it; the `AuditLogGroupName` output names it.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface AuditLogProps {
  /** Days the records are kept (one of CloudWatch Logs' retention periods). */
  retentionDays: number;
}

/** The audit log group. */
export class AuditLog extends Construct {
  public readonly logGroup: LogGroup;

  public constructor(scope: Construct, id: string, props: AuditLogProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Group', {
      retention: props.retentionDays as RetentionDays,
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
  }

  /** Lets a writer create its own log streams in the group and put events in them; nothing else. */
  public grantWrite(grantee: IGrantable): void {
    this.logGroup.grantWrite(grantee);
  }
}

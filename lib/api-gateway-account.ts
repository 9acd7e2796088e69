/**
 * API Gateway's CloudWatch role is a setting of the whole account and region, not of one API: the last
 * stack to set it wins, and deleting a stage that owned it would break every other API's execution logs.
 * So it lives in its own small stack, `JobsApi-account`, which every stage's stack depends on: the first
 * `cdk deploy` in an account creates it, later stages find it deployed, and destroying a stage leaves it.
 */
import { Stack, type StackProps } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Validations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/** The stack's name: one per account and region, shared by every stage. */
export const ACCOUNT_STACK_NAME = 'JobsApi-account';

export class ApiGatewayAccountStack extends Stack {
  public constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const role = new Role(this, 'CloudWatchRole', {
      description: 'Lets API Gateway write execution logs of every API in this account and region',
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs')],
    });
    new CfnAccount(this, 'Account', { cloudWatchRoleArn: role.roleArn });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "API Gateway's account-level CloudWatch role, needed for execution logs, uses the AWS-managed policy " +
        'made for exactly this purpose.',
    });
  }
}

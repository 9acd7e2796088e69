/**
 * CloudFormation custom resource events for the deploy-time search index setup, as CloudFormation sends
 * them to a Lambda-backed custom resource: the answer goes to `ResponseURL` (a pre-signed S3 URL in AWS, a
 * local recording server in tests).
 */
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';

/** An event of the stack's `Custom::SearchIndexSetup` resource; `responseUrl` receives the answer. */
export const setupEvent = (
  type: 'Create' | 'Update' | 'Delete',
  responseUrl: string,
): CloudFormationCustomResourceEvent => {
  const common = {
    ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:SearchIndexSetupFunction',
    ResponseURL: `${responseUrl}/answer?X-Amz-Signature=test`,
    StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/JobsApi-prod/3f9a1c2b',
    RequestId: `request-${type}`,
    LogicalResourceId: 'SearchIndexSetup',
    ResourceType: 'Custom::SearchIndexSetup',
    ResourceProperties: { ServiceToken: 'token', Endpoint: 'https://search.example.com', Alias: 'jobs' },
  };
  if (type === 'Create') return { ...common, RequestType: type };
  if (type === 'Update') {
    return {
      ...common,
      RequestType: type,
      PhysicalResourceId: 'jobs',
      OldResourceProperties: common.ResourceProperties,
    };
  }
  return { ...common, RequestType: type, PhysicalResourceId: 'jobs' };
};

/**
 * Finding a deployed stack's resources from its CloudFormation outputs (`--stack`), on a mocked
 * CloudFormation client: no AWS account is involved.
 */
import {
  CloudFormationClient,
  type DescribeStacksCommandOutput,
  type Output,
  type StackStatus,
  CloudFormationServiceException,
  DescribeStacksCommand,
} from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { STACK_OUTPUTS } from '../../lib/stack-outputs';
import {
  RegionMissingError,
  resolveStackTarget,
  StackNotFoundError,
  StackOutputMissingError,
  stackTargetEnvironment,
} from '../../local/operations/stack-target';

const cloudFormation = mockClient(CloudFormationClient);

const OUTPUTS: Output[] = [
  { OutputKey: STACK_OUTPUTS.jobsTable, OutputValue: 'JobsApi-prod-JobsTable-1A2B3C' },
  { OutputKey: STACK_OUTPUTS.authTable, OutputValue: 'JobsApi-prod-AuthTable-4D5E6F' },
  { OutputKey: STACK_OUTPUTS.opensearchUrl, OutputValue: 'https://search-jobs-prod-abc.eu-west-1.es.amazonaws.com' },
  { OutputKey: STACK_OUTPUTS.opensearchDomain, OutputValue: 'jobs-prod-3f9a1c' },
  { OutputKey: STACK_OUTPUTS.opensearchIndex, OutputValue: 'jobs' },
  { OutputKey: STACK_OUTPUTS.apiUrl, OutputValue: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/' },
  { OutputKey: STACK_OUTPUTS.auditLogGroup, OutputValue: 'JobsApi-prod-audit' },
];

const stack = (outputs = OUTPUTS, status: StackStatus = 'CREATE_COMPLETE'): DescribeStacksCommandOutput => ({
  $metadata: {},
  Stacks: [{ StackName: 'JobsApi-prod', StackStatus: status, CreationTime: new Date(), Outputs: outputs }],
});

beforeEach(() => {
  cloudFormation.reset();
});

afterAll(() => {
  cloudFormation.restore();
});

describe('resolving a deployed stack', () => {
  it('reads the tables, the search endpoint and the index from the stack outputs', async () => {
    cloudFormation.on(DescribeStacksCommand, { StackName: 'JobsApi-prod' }).resolves(stack());
    await expect(resolveStackTarget('JobsApi-prod', 'eu-west-1')).resolves.toEqual({
      jobsTable: 'JobsApi-prod-JobsTable-1A2B3C',
      authTable: 'JobsApi-prod-AuthTable-4D5E6F',
      opensearchUrl: 'https://search-jobs-prod-abc.eu-west-1.es.amazonaws.com',
      opensearchDomain: 'jobs-prod-3f9a1c',
      opensearchIndex: 'jobs',
      apiUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/',
      auditLogGroup: 'JobsApi-prod-audit',
      region: 'eu-west-1',
    });
    expect(cloudFormation.commandCalls(DescribeStacksCommand)).toHaveLength(1);
  });

  it("reads the pictures' bucket when the stack has one (a stack deployed before it has none)", async () => {
    cloudFormation
      .on(DescribeStacksCommand, { StackName: 'JobsApi-prod' })
      .resolves(stack([...OUTPUTS, { OutputKey: STACK_OUTPUTS.imagesBucket, OutputValue: 'jobs-prod-images-1a2b' }]));
    await expect(resolveStackTarget('JobsApi-prod', 'eu-west-1')).resolves.toMatchObject({
      imagesBucket: 'jobs-prod-images-1a2b',
    });
  });

  it('asks CloudFormation in the region it is given', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves(stack());
    await resolveStackTarget('JobsApi-prod', 'ap-southeast-2');
    const calls = cloudFormation.commandCalls(DescribeStacksCommand);
    expect(calls).toHaveLength(1);
    const client = calls[0]!.thisValue as CloudFormationClient;
    await expect(client.config.region()).resolves.toBe('ap-southeast-2');
  });

  it('uses the configured region when none is given', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves(stack());
    const client = new CloudFormationClient({ region: 'us-west-2' });
    await expect(resolveStackTarget('JobsApi-prod', undefined, { client })).resolves.toMatchObject({
      region: 'us-west-2',
    });
  });

  it('says so when no region is given and none is configured', async () => {
    const client = new CloudFormationClient({
      region: async () => {
        throw new Error('Region is missing');
      },
    });
    await expect(resolveStackTarget('JobsApi-prod', undefined, { client })).rejects.toThrow(RegionMissingError);
    expect(cloudFormation.commandCalls(DescribeStacksCommand)).toHaveLength(0);
  });

  it('names the stack and the region when the stack does not exist', async () => {
    cloudFormation.on(DescribeStacksCommand).rejects(
      new CloudFormationServiceException({
        name: 'ValidationError',
        $fault: 'client',
        $metadata: {},
        message: 'Stack with id JobsApi-nope does not exist',
      }),
    );
    const failure = resolveStackTarget('JobsApi-nope', 'eu-west-1');
    await expect(failure).rejects.toThrow(StackNotFoundError);
    await expect(failure).rejects.toThrow('"JobsApi-nope" was not found in eu-west-1');
  });

  it('names the missing output and the stack status when an output is absent', async () => {
    const withoutSearch = OUTPUTS.filter((output) => output.OutputKey !== STACK_OUTPUTS.opensearchUrl);
    cloudFormation.on(DescribeStacksCommand).resolves(stack(withoutSearch, 'UPDATE_ROLLBACK_COMPLETE'));
    const failure = resolveStackTarget('JobsApi-prod', 'eu-west-1');
    await expect(failure).rejects.toThrow(StackOutputMissingError);
    await expect(failure).rejects.toThrow('no output "OpenSearchUrl"');
    await expect(failure).rejects.toThrow('status UPDATE_ROLLBACK_COMPLETE');
  });

  it('passes other CloudFormation failures through unchanged', async () => {
    const denied = new CloudFormationServiceException({
      name: 'AccessDenied',
      $fault: 'client',
      $metadata: {},
      message: 'User is not authorized to perform: cloudformation:DescribeStacks',
    });
    cloudFormation.on(DescribeStacksCommand).rejects(denied);
    await expect(resolveStackTarget('JobsApi-prod', 'eu-west-1')).rejects.toBe(denied);
  });
});

describe('the environment of a stack target', () => {
  it('points the functions’ configuration at the deployed tables and OpenSearch', () => {
    expect(
      stackTargetEnvironment({
        jobsTable: 'jobs-t',
        authTable: 'auth-t',
        opensearchUrl: 'https://search.example.com',
        opensearchDomain: 'jobs-test',
        opensearchIndex: 'jobs',
        apiUrl: 'https://api.example.com/test/',
        auditLogGroup: 'jobs-test-audit',
        region: 'eu-west-1',
      }),
    ).toEqual({
      JOBS_TABLE: 'jobs-t',
      AUTH_TABLE: 'auth-t',
      SEARCH_ENGINE: 'opensearch',
      OPENSEARCH_URL: 'https://search.example.com',
      OPENSEARCH_INDEX: 'jobs',
      AUDIT_LOG_GROUP: 'jobs-test-audit',
      AWS_REGION: 'eu-west-1',
    });
  });

  it("names the pictures' bucket when the stack has one", () => {
    expect(
      stackTargetEnvironment({
        jobsTable: 'jobs-t',
        authTable: 'auth-t',
        opensearchUrl: 'https://search.example.com',
        opensearchDomain: 'jobs-test',
        opensearchIndex: 'jobs',
        apiUrl: 'https://api.example.com/test/',
        auditLogGroup: 'jobs-test-audit',
        imagesBucket: 'jobs-test-images',
        region: 'eu-west-1',
      }),
    ).toMatchObject({ IMAGES_BUCKET: 'jobs-test-images' });
  });
});

/**
 * Assertions on the synthesized Jobs API stack (default configuration). The stack is synthesized once
 * for the file, without bundling (test/infra/bundling.test.ts bundles for real).
 */
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { PolicyValidationPluginReport } from 'aws-cdk-lib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../functions/http/errors';
import { pathsOf, type Route, ROUTES } from '../../functions/http/routes';
import { AUTH_TABLE, JOBS_TABLE, jobKeys } from '../../functions/tables';
import { REFUSED_SESSIONS_METRIC } from '../../lib/alarms';
import { POWERTOOLS_ENVIRONMENT } from '../../lib/handler-function';
import { AUDIT_WRITE_FAILED_METRIC } from '../../functions/auth/audit';
import { WEBHOOK_DELIVERIES_FAILED_METRIC } from '../../functions/webhooks/delivery';
import { buildJobsApi } from '../../lib/app';
import { ALARM_SUBSCRIBER, TEMPLATE_ONLY } from './template-only';
import {
  completedBefore,
  dependenciesOf,
  leftByRollback,
  type TemplateResource,
} from '../support/cloudformation-order';
import { type GuideTemplate, guideDifferences, readGuide } from './deploy-guide';
import { API_ENDPOINTS, type FunctionName, type JobsApiStack } from '../../lib/jobs-api-stack';
import { STACK_OUTPUTS } from '../../lib/stack-outputs';
import { loadOpenApiDocument } from '../../local/gateway/docs';

type Json = Record<string, unknown>;
interface Statement {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
  Condition?: unknown;
}

let stack: JobsApiStack;
let template: Template;
let nagReport: PolicyValidationPluginReport;

const resourcesOf = (type: string): Record<string, Json> => template.findResources(type) as Record<string, Json>;
const propertiesOf = (resource: Json): Json => resource.Properties as Json;
const actionsOf = (statement: Statement): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];

/** Every statement of the identity policies attached to a function's role. */
const statementsOf = (name: FunctionName): Statement[] => {
  const roleId = stack.getLogicalId(stack.functions[name].role.node.defaultChild as CfnRole);
  return Object.values(resourcesOf('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(propertiesOf(policy).Roles).includes(`"${roleId}"`))
    .flatMap((policy) => (propertiesOf(policy).PolicyDocument as { Statement: Statement[] }).Statement);
};

const actionsWithPrefix = (name: FunctionName, prefix: string): string[] =>
  [...new Set(statementsOf(name).flatMap(actionsOf))].filter((action) => action.startsWith(prefix)).sort();

/** The first group of the stack's id, as the template spells it. */
const STACK_ID_GROUP = {
  'Fn::Select': [0, { 'Fn::Split': ['-', { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] }] }],
};

/** The pictures' bucket name as the template spells it: stage, account and the first group of the stack id. */
const imagesBucketName = () => ({
  'Fn::Join': ['', ['jobs-api-prod-images-', { Ref: 'AWS::AccountId' }, '-', STACK_ID_GROUP]],
});

/** The ARN of the pictures' bucket, with what follows it (`/uploads/*`). */
const imagesBucketArn = (suffix = '') => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':s3:::jobs-api-prod-images-',
      { Ref: 'AWS::AccountId' },
      '-',
      STACK_ID_GROUP,
      ...(suffix === '' ? [] : [suffix]),
    ],
  ],
});

const tableLogicalId = (which: 'jobs' | 'auth'): string =>
  stack.getLogicalId((which === 'jobs' ? stack.jobsTable.table : stack.authTable.table).node.defaultChild as never);

beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...ALARM_SUBSCRIBER } });
  stack = buildJobsApi(app, TEMPLATE_ONLY);
  nagReport = new AwsSolutionsChecks(app).validateScope(app);
  template = Template.fromStack(stack);
  // A synthesis and cdk-nag's checks on a busy machine, as test/infra/observability.test.ts allows them.
}, 120_000);

describe('the search index setup at deploy time', () => {
  const setupId = () => stack.getLogicalId(stack.searchIndexSetup.resource.node.defaultChild as never);

  it('creates the index and its alias through its own function, and waits at most five minutes for it', () => {
    template.hasResource('Custom::SearchIndexSetup', {
      Properties: {
        ServiceToken: { 'Fn::GetAtt': ['SearchIndexSetupFunction', 'Arn'] },
        ServiceTimeout: '300',
        Alias: 'jobs',
        Endpoint: Match.anyValue(),
        // The auto-creation rule is a property: a stack deployed before it gets it set on its next update.
        AutoCreateIndex: '-jobs,-jobs-v*,+*',
      },
    });
  });

  it('runs before the API stage serves', () => {
    const stages = Object.values(resourcesOf('AWS::ApiGateway::Stage'));
    expect(stages).toHaveLength(1);
    expect(stages[0]?.DependsOn).toContain(setupId());
  });
});

describe('the functions', () => {
  it('runs every handler on Node.js 24 on arm64 with active tracing', () => {
    const functions = Object.values(resourcesOf('AWS::Lambda::Function')).map(propertiesOf);
    expect(functions).toHaveLength(13);
    for (const fn of functions) {
      expect(fn).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
      });
    }
  });

  it('gives each handler a function with a stable logical id that sam local invoke can name', () => {
    expect(Object.keys(resourcesOf('AWS::Lambda::Function')).sort()).toEqual([
      'EventsFunction',
      'ImagesFunction',
      'IndexerFunction',
      'JobsReadFunction',
      'JobsWriteFunction',
      'RejectFunction',
      'SearchFieldsFunction',
      'SearchFunction',
      'SearchIndexSetupFunction',
      'SessionsFunction',
      'TableProtectionFunction',
      'WebhooksFunction',
      'WebhooksSenderFunction',
    ]);
  });

  it('configures the functions for OpenSearch and Powertools through the environment', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          JOBS_TABLE: { Ref: tableLogicalId('jobs') },
          AUTH_TABLE: { Ref: tableLogicalId('auth') },
          SEARCH_ENGINE: 'opensearch',
          OPENSEARCH_URL: Match.anyValue(),
          OPENSEARCH_INDEX: 'jobs',
          POWERTOOLS_SERVICE_NAME: 'jobs-api',
          POWERTOOLS_METRICS_NAMESPACE: 'JobsApi',
          NODE_OPTIONS: '--enable-source-maps',
          DETAILED_TRACING: 'false',
        }),
      },
    });
  });

  /** Every API method's integration: the function it invokes and how long API Gateway waits for it. */
  const integrations = () =>
    Object.values(resourcesOf('AWS::ApiGateway::Method')).map((method) => {
      const integration = propertiesOf(method).Integration as Json;
      return {
        functionId: JSON.stringify(integration.Uri).match(/"(\w+Function)"/)?.[1] as string,
        waitMs: integration.TimeoutInMillis as number,
      };
    });
  const functionProperties = (id: string): Json => propertiesOf(resourcesOf('AWS::Lambda::Function')[id] as Json);

  it('lets API Gateway wait at most the 10-second ceiling of the contract for a function', () => {
    expect(integrations().length).toBeGreaterThan(0);
    for (const { functionId, waitMs } of integrations()) expect(waitMs, functionId).toBeLessThanOrEqual(10_000);
  });

  it('stops every API function at least a second before API Gateway stops waiting, so its own 503 arrives', () => {
    for (const { functionId, waitMs } of integrations()) {
      // A cold start's initialisation happens inside API Gateway's wait but outside the function's timeout.
      expect((functionProperties(functionId).Timeout as number) * 1000, functionId).toBeLessThanOrEqual(waitMs - 1000);
    }
  });

  it('bounds each API function’s dependency attempts so two hanging calls fail inside its timeout', () => {
    for (const functionId of new Set(integrations().map(({ functionId }) => functionId))) {
      const fn = functionProperties(functionId);
      const attemptMs = Number(
        (fn.Environment as { Variables: Record<string, string> }).Variables.DEPENDENCY_TIMEOUT_MS,
      );
      // Two attempts per DynamoDB call, two successive calls (an authentication lookup, then the endpoint's own).
      expect(2 * 2 * attemptMs, functionId).toBeLessThan((fn.Timeout as number) * 1000);
    }
  });
});

describe('the tables', () => {
  const keySchemaOf = (definition: typeof JOBS_TABLE | typeof AUTH_TABLE) => [
    { AttributeName: definition.partitionKey.name, KeyType: 'HASH' },
    ...('sortKey' in definition ? [{ AttributeName: definition.sortKey.name, KeyType: 'RANGE' }] : []),
  ];

  it('builds the jobs table from its shared definition, with a new-and-old-images stream, the sparse file index, the review index and a TTL', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: keySchemaOf(JOBS_TABLE),
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byFileId',
          KeySchema: [{ AttributeName: JOBS_TABLE.globalSecondaryIndexes[0].partitionKey.name, KeyType: 'HASH' }],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
        {
          IndexName: 'byReview',
          KeySchema: [
            { AttributeName: JOBS_TABLE.globalSecondaryIndexes[1].partitionKey.name, KeyType: 'HASH' },
            { AttributeName: JOBS_TABLE.globalSecondaryIndexes[1].sortKey.name, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
      // Idempotency records of POST /jobs expire by TTL.
      TimeToLiveSpecification: { AttributeName: JOBS_TABLE.timeToLiveAttribute, Enabled: true },
      BillingMode: 'PAY_PER_REQUEST',
    });
  });

  it('expires auth items by TTL on the attribute of the shared definition', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: keySchemaOf(AUTH_TABLE),
      TimeToLiveSpecification: { AttributeName: AUTH_TABLE.timeToLiveAttribute, Enabled: true },
    });
  });

  it('keeps both tables with the stack and point-in-time recovery on by default, and creates them unprotected', () => {
    const tables = resourcesOf('AWS::DynamoDB::GlobalTable');
    expect(Object.keys(tables)).toHaveLength(2);
    for (const table of Object.values(tables)) {
      // Kept when the stack is deleted or the table replaced, deleted when its own first deployment rolls back.
      expect(table.DeletionPolicy).toBe('RetainExceptOnCreate');
      expect(table.UpdateReplacePolicy).toBe('Retain');
      // Protection comes from the deployment's last step (below), never from the template.
      expect(propertiesOf(table).Replicas).toEqual([
        expect.objectContaining({
          DeletionProtectionEnabled: false,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        }),
      ]);
    }
  });
});

describe('a first deployment that fails', () => {
  const resources = () => template.toJSON().Resources as Record<string, TemplateResource>;
  const protectionId = () => stack.getLogicalId(stack.tableDeletionProtection.resource.node.defaultChild as never);

  it('switches deletion protection on as the last step, on both tables, through UpdateTable only', () => {
    const [id, ...others] = Object.keys(resourcesOf('Custom::TableDeletionProtection'));
    expect(others).toEqual([]);
    expect(id).toBe(protectionId());
    expect(propertiesOf(resourcesOf('Custom::TableDeletionProtection')[id!]!)).toMatchObject({
      ServiceToken: { 'Fn::GetAtt': ['TableProtectionFunction', 'Arn'] },
      TableNames: [{ Ref: tableLogicalId('jobs') }, { Ref: tableLogicalId('auth') }],
      DeletionProtection: 'true',
      // A digest of what the stack sets on the tables: their every change runs the step again.
      Tables: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const roleId = stack.getLogicalId(stack.tableDeletionProtection.handler.role.node.defaultChild as CfnRole);
    const statements = Object.values(resourcesOf('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(propertiesOf(policy).Roles).includes(`"${roleId}"`))
      .flatMap((policy) => (propertiesOf(policy).PolicyDocument as { Statement: Statement[] }).Statement);
    const dynamo = statements.filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('dynamodb:')),
    );
    expect(dynamo).toEqual([
      expect.objectContaining({
        Action: 'dynamodb:UpdateTable',
        Resource: [
          { 'Fn::GetAtt': [tableLogicalId('jobs'), 'Arn'] },
          { 'Fn::GetAtt': [tableLogicalId('auth'), 'Arn'] },
        ],
      }),
    ]);
  });

  it('starts the protection only once every other resource is complete, so nothing can fail after it', () => {
    // CloudFormation starts a resource once all it depends on (DependsOn, Ref, GetAtt, Sub) is complete.
    const graph = dependenciesOf(resources());
    const before = completedBefore(graph, protectionId());
    const after = Object.keys(resources()).filter((id) => id !== protectionId() && !before.has(id));
    expect(after).toEqual([]);
    // Nothing waits for it, so no dependency cycle, and it is the one step after the rest.
    const waiting = [...graph].filter(([, dependencies]) => dependencies.has(protectionId())).map(([id]) => id);
    expect(waiting).toEqual([]);
  });

  it('rolls back through unprotected tables: whichever resource fails, every resource created is deleted', () => {
    // No table is protected by the template; only the last step protects them, and it starts after the rest.
    const graph = dependenciesOf(resources());
    const protectedByTemplate = Object.entries(resources())
      .filter(([, resource]) => JSON.stringify(resource.Properties ?? {}).includes('"DeletionProtectionEnabled":true'))
      .map(([id]) => id);
    expect(protectedByTemplate).toEqual([]);
    for (const failing of Object.keys(resources())) {
      if (failing === protectionId()) continue;
      // When `failing` fails, the protection step has not started: it waits for `failing`.
      expect(completedBefore(graph, protectionId()).has(failing), failing).toBe(true);
    }
    // The rollback deletes what the deployment created: no resource's deletion policy keeps it
    // (RetainExceptOnCreate deletes a resource its own creating deployment rolls back).
    expect(leftByRollback(resources())).toEqual([]);
  });
});

describe('the search domain', () => {
  it('runs the current OpenSearch engine, encrypted at rest and between nodes, HTTPS only with TLS 1.2+', () => {
    template.hasResourceProperties('AWS::OpenSearchService::Domain', {
      EngineVersion: 'OpenSearch_3.7',
      EncryptionAtRestOptions: { Enabled: true },
      NodeToNodeEncryptionOptions: { Enabled: true },
      DomainEndpointOptions: { EnforceHTTPS: true, TLSSecurityPolicy: 'Policy-Min-TLS-1-2-PFS-2023-10' },
    });
  });

  it('sizes the cluster for a small production deployment that survives a zone: three nodes in three zones', () => {
    template.hasResourceProperties('AWS::OpenSearchService::Domain', {
      ClusterConfig: Match.objectLike({
        InstanceType: 'm6g.large.search',
        InstanceCount: 3,
        ZoneAwarenessEnabled: true,
        ZoneAwarenessConfig: { AvailabilityZoneCount: 3 },
        DedicatedMasterEnabled: false,
      }),
      EBSOptions: Match.objectLike({ EBSEnabled: true, VolumeType: 'gp3', VolumeSize: 20 }),
    });
  });

  it('leaves the account-wide API Gateway CloudWatch role to the shared JobsApi-account stack it depends on', () => {
    expect(Object.keys(resourcesOf('AWS::ApiGateway::Account'))).toEqual([]);
    const account = stack.dependencies.find((dependency) => dependency.stackName === 'JobsApi-account');
    expect(account).toBeDefined();
    const shared = Template.fromStack(account as Stack);
    shared.resourceCountIs('AWS::ApiGateway::Account', 1);
    shared.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
      }),
    });
  });

  it('goes with the stack on cdk destroy (derived data), and takes a name unique to the stack instance', () => {
    const [domain] = Object.values(resourcesOf('AWS::OpenSearchService::Domain')) as Json[];
    expect(domain?.DeletionPolicy).toBe('Delete');
    const name = JSON.stringify(propertiesOf(domain as Json).DomainName);
    // jobs-prod- and the first group of the stack id's UUID, drawn anew when a destroyed stage is deployed again.
    expect(name).toContain('"jobs-prod-"');
    expect(name).toContain('{"Ref":"AWS::StackId"}');
    const policy = JSON.stringify(propertiesOf(domain as Json).AccessPolicies);
    expect(policy).toContain('{"Ref":"AWS::StackId"}');
  });

  it('lets only the search, indexer and index setup roles in, on the index paths they use', () => {
    const domain = Object.values(resourcesOf('AWS::OpenSearchService::Domain'))[0] as Json;
    const policy = propertiesOf(domain).AccessPolicies as { Statement: (Statement & { Principal: unknown })[] };
    const roleId = (name: FunctionName) => stack.getLogicalId(stack.functions[name].role.node.defaultChild as CfnRole);
    const setupRole = stack.getLogicalId(stack.searchIndexSetup.handler.role.node.defaultChild as CfnRole);
    expect(policy.Statement.map((statement) => statement.Principal)).toEqual([
      { AWS: { 'Fn::GetAtt': [roleId('Search'), 'Arn'] } },
      { AWS: { 'Fn::GetAtt': [roleId('Indexer'), 'Arn'] } },
      { AWS: { 'Fn::GetAtt': [roleId('Indexer'), 'Arn'] } },
      { AWS: { 'Fn::GetAtt': [setupRole, 'Arn'] } },
      { AWS: { 'Fn::GetAtt': [setupRole, 'Arn'] } },
    ]);
    const paths = policy.Statement.map((statement) =>
      [statement.Resource as Json[] | Json]
        .flat()
        .map((resource) => JSON.stringify(resource).match(/"\/((?:jobs|_cluster)[^"]*)"\]/)?.[1]),
    );
    // The setup also sets the cluster's action.auto_create_index (PUT /_cluster/settings).
    expect(paths).toEqual([['jobs/_search'], ['jobs/_bulk'], ['jobs-v0'], ['jobs'], ['jobs-v0', '_cluster/settings']]);
    expect(policy.Statement.map((statement) => statement.Action)).toEqual([
      'es:ESHttpPost',
      'es:ESHttpPost',
      'es:ESHttpPut',
      'es:ESHttpHead',
      'es:ESHttpPut',
    ]);
    expect(JSON.stringify(policy)).not.toContain('"*"');
  });

  it('refuses bulk bodies that name an index, so a grant on one index path cannot write another', () => {
    template.hasResourceProperties('AWS::OpenSearchService::Domain', {
      AdvancedOptions: { 'rest.action.multi.allow_explicit_index': 'false' },
    });
  });

  it('publishes slow logs and application logs to CloudWatch', () => {
    template.hasResourceProperties('AWS::OpenSearchService::Domain', {
      LogPublishingOptions: {
        SEARCH_SLOW_LOGS: Match.objectLike({ Enabled: true }),
        INDEX_SLOW_LOGS: Match.objectLike({ Enabled: true }),
        ES_APPLICATION_LOGS: Match.objectLike({ Enabled: true }),
      },
    });
  });
});

describe('least privilege', () => {
  it('never grants a wildcard action, and never a table action on every resource', () => {
    for (const policy of Object.values(resourcesOf('AWS::IAM::Policy'))) {
      for (const statement of (propertiesOf(policy).PolicyDocument as { Statement: Statement[] }).Statement) {
        for (const action of actionsOf(statement)) expect(action).not.toMatch(/\*/);
        if (actionsOf(statement).some((action) => action.startsWith('dynamodb:'))) {
          expect(statement.Resource).not.toBe('*');
        }
      }
    }
  });

  it('lets the search function read the auth table and search the index, nothing more', () => {
    expect(actionsWithPrefix('Search', 'dynamodb:')).toEqual(['dynamodb:GetItem']);
    expect(actionsWithPrefix('Search', 'es:')).toEqual(['es:ESHttpPost']);
  });

  it('lets the search-fields function only read the auth table', () => {
    expect(actionsWithPrefix('SearchFields', 'dynamodb:')).toEqual(['dynamodb:GetItem']);
    expect(actionsWithPrefix('SearchFields', 'es:')).toEqual([]);
    expect(JSON.stringify(statementsOf('SearchFields'))).not.toContain(tableLogicalId('jobs'));
  });

  it('lets the sessions function read credentials and write and delete only sessions, keyed by LeadingKeys', () => {
    const statements = statementsOf('Sessions').filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('dynamodb:')),
    );
    const byActions = Object.fromEntries(
      statements.map((statement) => [actionsOf(statement).sort().join(','), statement.Condition]),
    );
    expect(byActions).toEqual({
      'dynamodb:GetItem': {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['CLIENT#*', 'SECRET#*', 'SESSION#*'] },
      },
      'dynamodb:DeleteItem,dynamodb:PutItem': {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['SESSION#*'] },
      },
    });
    expect(JSON.stringify(statements)).not.toContain(tableLogicalId('jobs'));
  });

  it('keeps the search and reject functions read-only on the auth table, on client and session keys', () => {
    for (const name of ['Search', 'SearchFields', 'Reject'] as const) {
      const onAuth = statementsOf(name).filter((statement) =>
        JSON.stringify(statement).includes(tableLogicalId('auth')),
      );
      expect(onAuth.map((statement) => [actionsOf(statement), statement.Condition])).toEqual([
        [['dynamodb:GetItem'], { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['CLIENT#*', 'SESSION#*'] } }],
      ]);
    }
  });

  it('lets the reject function query the file index and write files and jobs transactionally', () => {
    expect(actionsWithPrefix('Reject', 'dynamodb:')).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    const query = statementsOf('Reject').find((statement) => actionsOf(statement).includes('dynamodb:Query'));
    expect(JSON.stringify(query?.Resource)).toContain('/index/byFileId');
    expect(actionsWithPrefix('Reject', 'es:')).toEqual([]);
  });

  it('lets the indexer query jobs, read the stream and write the index with bulk requests', () => {
    expect(actionsWithPrefix('Indexer', 'dynamodb:')).toEqual([
      'dynamodb:DescribeStream',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:ListStreams',
      'dynamodb:Query',
    ]);
    expect(actionsWithPrefix('Indexer', 'es:')).toEqual(['es:ESHttpPost', 'es:ESHttpPut']);
    expect(JSON.stringify(statementsOf('Indexer'))).not.toContain(tableLogicalId('auth'));
  });

  it('writes function logs only to the function’s own log group', () => {
    for (const name of ['Search', 'SearchFields', 'Reject', 'Indexer'] as const) {
      const logs = statementsOf(name).filter((statement) => actionsOf(statement).some((a) => a.startsWith('logs:')));
      expect(logs).toHaveLength(1);
      expect(logs[0]?.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(new RegExp(`^${name}Logs`)), 'Arn'] });
    }
    template.resourcePropertiesCountIs(
      'AWS::IAM::Role',
      {
        ManagedPolicyArns: Match.anyValue(),
        AssumeRolePolicyDocument: Match.objectLike({
          Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })],
        }),
      },
      0,
    );
  });
});

describe('the stream event source', () => {
  it('reports batch failures, bisects, retries a failing record until it is 24 hours old, then dead-letters to SQS', () => {
    const queueId = stack.getLogicalId(stack.streamIndexer.deadLetterQueue.node.defaultChild as never);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: 'IndexerFunction' },
      EventSourceArn: { 'Fn::GetAtt': [tableLogicalId('jobs'), 'StreamArn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: -1,
      MaximumRecordAgeInSeconds: 86_400,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
      StartingPosition: 'TRIM_HORIZON',
    });
  });

  it('tells the indexer where its dead-letter queue is and lets it send there', () => {
    const queueId = stack.getLogicalId(stack.streamIndexer.deadLetterQueue.node.defaultChild as never);
    const indexer = propertiesOf(resourcesOf('AWS::Lambda::Function').IndexerFunction as Json);
    expect((indexer.Environment as { Variables: Json }).Variables.DEAD_LETTER_QUEUE_URL).toEqual({ Ref: queueId });
    const sends = statementsOf('Indexer').filter((statement) => actionsOf(statement).includes('sqs:SendMessage'));
    expect(sends.map((statement) => statement.Resource)).toEqual([{ 'Fn::GetAtt': [queueId, 'Arn'] }]);
  });

  it('gives the indexer a longer time budget per bulk write than the API, and a function timeout that fits two', () => {
    const indexer = propertiesOf(resourcesOf('AWS::Lambda::Function').IndexerFunction as Json);
    const variables = (indexer.Environment as { Variables: Json }).Variables;
    const writeMs = Number(variables.INDEX_WRITE_TIMEOUT_MS);
    expect(writeMs).toBe(15_000);
    expect(writeMs).toBeGreaterThan(Number(variables.DEPENDENCY_TIMEOUT_MS));
    // Two writes of their whole budget and the indexer's 5-second reserve fit in the function's timeout.
    expect(Number(indexer.Timeout) * 1_000).toBeGreaterThanOrEqual(2 * writeMs + 5_000);
    expect(indexer.Timeout).toBe(60);
  });

  it('invokes the indexer for job items only', () => {
    const mapping = Object.values(resourcesOf('AWS::Lambda::EventSourceMapping')).find(
      (candidate) =>
        JSON.stringify(propertiesOf(candidate).FunctionName) === JSON.stringify({ Ref: 'IndexerFunction' }),
    )!;
    const filters = (propertiesOf(mapping).FilterCriteria as { Filters: { Pattern: string }[] }).Filters;
    expect(filters.map((filter) => JSON.parse(filter.Pattern))).toEqual([
      { dynamodb: { Keys: { [JOBS_TABLE.sortKey.name]: { S: [jobKeys.jobSk] } } } },
    ]);
    expect(jobKeys.jobSk).toBe('JOB');
  });

  it('encrypts the dead-letter queue and refuses plain HTTP to it', () => {
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('the events', () => {
  const busId = () => stack.getLogicalId(stack.eventPublishing.bus.node.defaultChild as never);
  const queueId = () => stack.getLogicalId(stack.eventPublishing.deadLetterQueue.node.defaultChild as never);
  const mappingOf = (functionId: string): Json =>
    propertiesOf(
      Object.values(resourcesOf('AWS::Lambda::EventSourceMapping')).find(
        (mapping) => JSON.stringify(propertiesOf(mapping).FunctionName) === JSON.stringify({ Ref: functionId }),
      )!,
    );
  const eventsFunction = () => propertiesOf(resourcesOf('AWS::Lambda::Function').EventsFunction as Json);

  it('creates the stage’s own bus, named after the stage, with the webhooks’ rule only and no archive of the stack’s', () => {
    expect(Object.values(resourcesOf('AWS::Events::EventBus')).map(propertiesOf)).toEqual([
      expect.objectContaining({ Name: 'jobs-api-prod' }),
    ]);
    template.resourceCountIs('AWS::Events::Rule', 1);
    template.resourceCountIs('AWS::Events::Archive', 0);
  });

  it('reads the stream with a second mapping of its own, beside the indexer’s, for the job partitions only', () => {
    // The stream's two readers; the stack's other mapping is the webhooks' sender's, on its queue.
    const mappings = Object.values(resourcesOf('AWS::Lambda::EventSourceMapping'))
      .map(propertiesOf)
      .filter((mapping) => JSON.stringify(mapping.EventSourceArn).includes('StreamArn'));
    expect(mappings.map((mapping) => mapping.FunctionName)).toEqual(
      expect.arrayContaining([{ Ref: 'IndexerFunction' }, { Ref: 'EventsFunction' }]),
    );
    expect(mappings).toHaveLength(2);
    const filters = (mappingOf('EventsFunction').FilterCriteria as { Filters: { Pattern: string }[] }).Filters;
    expect(filters.map((filter) => JSON.parse(filter.Pattern))).toEqual([
      { dynamodb: { Keys: { [JOBS_TABLE.partitionKey.name]: { S: [{ prefix: jobKeys.jobPrefix }] } } } },
    ]);
  });

  it('reports batch failures, bisects, retries a bounded number of times for at most six hours, one batch per shard, then dead-letters to SQS', () => {
    expect(mappingOf('EventsFunction')).toEqual({
      FunctionName: { Ref: 'EventsFunction' },
      EventSourceArn: { 'Fn::GetAtt': [tableLogicalId('jobs'), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 1_000,
      MaximumRecordAgeInSeconds: 6 * 3_600,
      ParallelizationFactor: 1,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId(), 'Arn'] } } },
      FilterCriteria: expect.anything(),
    });
    // Records are held back no longer than the stream keeps them, with time left to read them again.
    expect(Number(mappingOf('EventsFunction').MaximumRecordAgeInSeconds)).toBeLessThan(24 * 3_600);
  });

  it('tells the function its bus and its events’ source, the stage’s API URL without a trailing slash', () => {
    const variables = (eventsFunction().Environment as { Variables: Json }).Variables;
    expect(variables.EVENT_BUS_NAME).toEqual({ Ref: busId() });
    expect(variables).not.toHaveProperty('EVENTS_FILE');
    expect(variables.EVENT_SOURCE).toEqual({
      'Fn::Join': [
        '',
        [
          'https://',
          { Ref: stack.getLogicalId(stack.restApi.api.node.defaultChild as never) },
          '.execute-api.',
          { Ref: 'AWS::Region' },
          '.',
          { Ref: 'AWS::URLSuffix' },
          '/prod',
        ],
      ],
    });
    expect(eventsFunction()).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: 60 });
  });

  it('lets the function put events on its bus only, read job items by key, read the stream and dead-letter', () => {
    const puts = statementsOf('Events').filter((statement) => actionsOf(statement).includes('events:PutEvents'));
    expect(puts.map((statement) => [actionsOf(statement), statement.Resource])).toEqual([
      [['events:PutEvents'], { 'Fn::GetAtt': [busId(), 'Arn'] }],
    ]);
    expect(actionsWithPrefix('Events', 'events:')).toEqual(['events:PutEvents']);
    expect(actionsWithPrefix('Events', 'dynamodb:')).toEqual([
      'dynamodb:DescribeStream',
      'dynamodb:GetItem',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:ListStreams',
    ]);
    const reads = statementsOf('Events').filter((statement) => actionsOf(statement).includes('dynamodb:GetItem'));
    expect(reads).toEqual([
      expect.objectContaining({
        Resource: { 'Fn::GetAtt': [tableLogicalId('jobs'), 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${jobKeys.jobPrefix}*`] } },
      }),
    ]);
    const sends = statementsOf('Events').filter((statement) => actionsOf(statement).includes('sqs:SendMessage'));
    expect(sends.map((statement) => statement.Resource)).toEqual([{ 'Fn::GetAtt': [queueId(), 'Arn'] }]);
    expect(actionsWithPrefix('Events', 'es:')).toEqual([]);
    expect(actionsWithPrefix('Events', 's3:')).toEqual([]);
    expect(JSON.stringify(statementsOf('Events'))).not.toContain(tableLogicalId('auth'));
    // No other role may put events on the bus.
    for (const name of Object.keys(stack.functions) as FunctionName[]) {
      if (name !== 'Events') expect(actionsWithPrefix(name, 'events:'), name).toEqual([]);
    }
  });

  it('alarms on the events falling a minute behind the stream, and on the first dead letter', () => {
    const alarmOf = (id: string): Json => {
      const alarm = stack.alarms.alarms.find((candidate) => candidate.node.id === id);
      expect(alarm, id).toBeDefined();
      return propertiesOf(
        resourcesOf('AWS::CloudWatch::Alarm')[stack.getLogicalId(alarm!.node.defaultChild as never)]!,
      );
    };
    expect(alarmOf('EventsIteratorAge')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'EventsFunction' } }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 60_000,
      EvaluationPeriods: 5,
    });
    expect(alarmOf('EventsDeadLetters')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId(), 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('names the bus and its dead-letter queue in the outputs', () => {
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    expect(outputs[STACK_OUTPUTS.eventBusName]).toMatchObject({ Value: { Ref: busId() } });
    expect(outputs[STACK_OUTPUTS.eventBusArn]).toMatchObject({ Value: { 'Fn::GetAtt': [busId(), 'Arn'] } });
    expect(outputs[STACK_OUTPUTS.eventsDeadLetterQueueUrl]).toMatchObject({ Value: { Ref: queueId() } });
  });
});

describe('the webhooks’ delivery', () => {
  const delivery = () => stack.webhookDelivery;
  const idOf = (construct: { node: { defaultChild?: unknown } }): string =>
    stack.getLogicalId(construct.node.defaultChild as never);
  const queueId = () => idOf(delivery().queue);
  const deadLettersId = () => idOf(delivery().deadLetterQueue);
  const queueProperties = (id: string): Json => propertiesOf(resourcesOf('AWS::SQS::Queue')[id] as Json);
  const sender = () => propertiesOf(resourcesOf('AWS::Lambda::Function').WebhooksSenderFunction as Json);

  it('keeps the deliveries in an encrypted queue, six sender timeouts invisible, four days, with a dead-letter queue after 30 receives', () => {
    expect(queueProperties(queueId())).toEqual({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 180,
      MessageRetentionPeriod: 4 * 86_400,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLettersId(), 'Arn'] }, maxReceiveCount: 30 },
    });
    expect(Number(queueProperties(queueId()).VisibilityTimeout)).toBeGreaterThanOrEqual(6 * Number(sender().Timeout));
    expect(queueProperties(deadLettersId())).toMatchObject({ SqsManagedSseEnabled: true });
  });

  it('refuses plain HTTP to the queue and its dead-letter queue, and lets only its rule send, from the stage’s bus', () => {
    const policies = Object.values(resourcesOf('AWS::SQS::QueuePolicy')).map(propertiesOf);
    const policyOf = (id: string) =>
      policies.find((policy) => JSON.stringify(policy.Queues) === JSON.stringify([{ Ref: id }]));
    for (const id of [queueId(), deadLettersId()]) {
      expect(policyOf(id)?.PolicyDocument, id).toMatchObject({
        Statement: expect.arrayContaining([
          expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      });
    }
    const allows = (policyOf(queueId())!.PolicyDocument as { Statement: Json[] }).Statement.filter(
      (statement) => statement.Effect === 'Allow',
    );
    const ruleId = idOf(delivery().rule);
    expect(allows).toEqual([
      expect.objectContaining({
        Principal: { Service: 'events.amazonaws.com' },
        // What the SqsQueue target grants EventBridge: sending, and finding the queue.
        Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
        Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
      }),
    ]);
  });

  it('puts every event type of the API, and nothing else, from the stage’s bus on the queue', () => {
    const rule = propertiesOf(resourcesOf('AWS::Events::Rule')[idOf(delivery().rule)] as Json);
    expect(rule).toMatchObject({
      EventBusName: { Ref: idOf(stack.eventPublishing.bus) },
      State: 'ENABLED',
      EventPattern: {
        'detail-type': [
          'job.created',
          'job.updated',
          'job.status_changed',
          'job.files_delivered',
          'file.rejected',
          'file.accepted',
          'file.image_ready',
          'file.image_invalid',
        ],
      },
      Targets: [expect.objectContaining({ Arn: { 'Fn::GetAtt': [queueId(), 'Arn'] } })],
    });
  });

  it('runs the sender on arm64 Node.js 24 for 30 s, ten messages a batch, failures per message, at most five at once', () => {
    expect(sender()).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: 30 });
    const variables = (sender().Environment as { Variables: Json }).Variables;
    expect(variables).toMatchObject({
      WEBHOOK_QUEUE_URL: { Ref: queueId() },
      AUTH_TABLE: { Ref: tableLogicalId('auth') },
    });
    expect(variables).not.toHaveProperty('ALLOW_LOCAL_WEBHOOKS');
    const mappings = Object.values(resourcesOf('AWS::Lambda::EventSourceMapping'))
      .map(propertiesOf)
      .filter((mapping) => JSON.stringify(mapping.FunctionName) === JSON.stringify({ Ref: 'WebhooksSenderFunction' }));
    expect(mappings).toEqual([
      {
        FunctionName: { Ref: 'WebhooksSenderFunction' },
        EventSourceArn: { 'Fn::GetAtt': [queueId(), 'Arn'] },
        BatchSize: 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: 5 },
      },
    ]);
    // No other function reads or writes the queue.
    for (const name of Object.keys(stack.functions) as FunctionName[]) {
      if (name === 'WebhooksSender') continue;
      expect(JSON.stringify(statementsOf(name)), name).not.toContain(`"${queueId()}"`);
    }
  });

  it('lets the sender read clients and webhook items, write webhook items, and send to and defer on its queue only', () => {
    const conditionOf = (prefixes: string[]) => ({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) },
    });
    const tableStatements = statementsOf('WebhooksSender')
      .filter((statement) => actionsOf(statement).some((action) => action.startsWith('dynamodb:')))
      .map((statement) => ({
        actions: actionsOf(statement),
        resource: statement.Resource,
        condition: statement.Condition,
      }));
    const auth = { 'Fn::GetAtt': [tableLogicalId('auth'), 'Arn'] };
    expect(tableStatements).toEqual([
      { actions: ['dynamodb:GetItem'], resource: auth, condition: conditionOf(['CLIENT#', 'WEBHOOK#']) },
      { actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'], resource: auth, condition: conditionOf(['WEBHOOK#']) },
    ]);
    const queueArn = { 'Fn::GetAtt': [queueId(), 'Arn'] };
    const sqsStatements = statementsOf('WebhooksSender').filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('sqs:')),
    );
    for (const statement of sqsStatements) expect(statement.Resource).toEqual(queueArn);
    expect(actionsWithPrefix('WebhooksSender', 'sqs:')).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
      'sqs:SendMessage',
    ]);
    expect(actionsWithPrefix('WebhooksSender', 'es:')).toEqual([]);
    expect(actionsWithPrefix('WebhooksSender', 's3:')).toEqual([]);
    expect(actionsWithPrefix('WebhooksSender', 'events:')).toEqual([]);
    expect(JSON.stringify(statementsOf('WebhooksSender'))).not.toContain(tableLogicalId('jobs'));
  });

  it('alarms on the first dead letter and names the dead-letter queue in the outputs', () => {
    const alarm = stack.alarms.alarms.find((candidate) => candidate.node.id === 'WebhooksDeadLetters');
    expect(alarm).toBeDefined();
    expect(
      propertiesOf(resourcesOf('AWS::CloudWatch::Alarm')[stack.getLogicalId(alarm!.node.defaultChild as never)]!),
    ).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLettersId(), 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    expect(outputs[STACK_OUTPUTS.webhooksDeadLetterQueueUrl]).toMatchObject({ Value: { Ref: deadLettersId() } });
  });
});

describe('the pictures', () => {
  const bucketId = () => stack.getLogicalId(stack.imagesBucket.bucket.node.defaultChild as never);
  const logsId = () => stack.getLogicalId(stack.imagesBucket.accessLogs.node.defaultChild as never);
  const queueId = () => stack.getLogicalId(stack.imageRenditions.deadLetterQueue.node.defaultChild as never);
  const bucketOf = (id: string): Json => resourcesOf('AWS::S3::Bucket')[id] as Json;
  const policyOf = (id: string): Statement[] =>
    (
      propertiesOf(
        Object.values(resourcesOf('AWS::S3::BucketPolicy')).find(
          (policy) => JSON.stringify(propertiesOf(policy).Bucket) === JSON.stringify({ Ref: id }),
        )!,
      ).PolicyDocument as { Statement: Statement[] }
    ).Statement;
  const objectsOf = (prefix: string) => imagesBucketArn(`/${prefix}*`);
  const environmentOf = (id: string): Json =>
    (propertiesOf(resourcesOf('AWS::Lambda::Function')[id] as Json).Environment as { Variables: Json }).Variables;

  it('keeps them in one private bucket: public access blocked, no ACLs, encrypted, TLS 1.2 only', () => {
    for (const id of [bucketId(), logsId()]) {
      expect(propertiesOf(bucketOf(id))).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
      });
      expect(propertiesOf(bucketOf(id))).not.toHaveProperty('AccessControl');
      const denials = policyOf(id).filter((statement) => statement.Effect === 'Deny');
      expect(denials.map((statement) => statement.Condition)).toEqual([
        { Bool: { 'aws:SecureTransport': 'false' } },
        { NumericLessThan: { 's3:TlsVersion': 1.2 } },
      ]);
    }
  });

  it('aborts incomplete multipart uploads after a day and expires nothing else', () => {
    expect(propertiesOf(bucketOf(bucketId())).LifecycleConfiguration).toEqual({
      Rules: [{ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }],
    });
  });

  it('names the bucket after the stage, the account and the stack instance, and answers no CORS by default', () => {
    expect(propertiesOf(bucketOf(bucketId())).BucketName).toEqual(imagesBucketName());
    expect(propertiesOf(bucketOf(bucketId()))).not.toHaveProperty('CorsConfiguration');
  });

  it('keeps the bucket and its logs with a protected stage, deleting them only with a failed first deployment', () => {
    for (const id of [bucketId(), logsId()]) {
      expect(bucketOf(id)).toMatchObject({ DeletionPolicy: 'RetainExceptOnCreate', UpdateReplacePolicy: 'Retain' });
    }
  });

  it('logs every request to the bucket in a log bucket that S3 alone may write, for this bucket, kept retentionDays', () => {
    expect(propertiesOf(bucketOf(bucketId())).LoggingConfiguration).toEqual({
      DestinationBucketName: { Ref: logsId() },
      LogFilePrefix: 'images/',
    });
    expect(propertiesOf(bucketOf(logsId())).LifecycleConfiguration).toEqual({
      Rules: [{ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, ExpirationInDays: 90, Status: 'Enabled' }],
    });
    const allowed = policyOf(logsId()).filter((statement) => statement.Effect === 'Allow');
    expect(allowed).toEqual([
      expect.objectContaining({
        Action: 's3:PutObject',
        Principal: { Service: 'logging.s3.amazonaws.com' },
        Condition: {
          ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [bucketId(), 'Arn'] } },
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        },
      }),
    ]);
  });

  it('invokes the images function for every object created under uploads/, and only there', () => {
    expect(propertiesOf(bucketOf(bucketId())).NotificationConfiguration).toEqual({
      LambdaConfigurations: [
        {
          Event: 's3:ObjectCreated:*',
          Filter: { S3Key: { Rules: [{ Name: 'prefix', Value: 'uploads/' }] } },
          Function: { 'Fn::GetAtt': ['ImagesFunction', 'Arn'] },
        },
      ],
    });
    const permissions = Object.entries(resourcesOf('AWS::Lambda::Permission')).filter(
      ([, permission]) => propertiesOf(permission).Principal === 's3.amazonaws.com',
    );
    expect(permissions.map(([, permission]) => propertiesOf(permission))).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': ['ImagesFunction', 'Arn'] },
        Principal: 's3.amazonaws.com',
        SourceAccount: { Ref: 'AWS::AccountId' },
        SourceArn: imagesBucketArn(),
      },
    ]);
    // S3 checks the permission when it stores the notification: the bucket waits for it.
    expect(bucketOf(bucketId()).DependsOn).toEqual([permissions[0]![0]]);
  });

  it('retries a failed upload event twice, keeps one waiting six hours at most, then dead-letters it', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: 'ImagesFunction' },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 6 * 3_600,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId(), 'Arn'] } } },
    });
    const queue = propertiesOf(resourcesOf('AWS::SQS::Queue')[queueId()] as Json);
    expect(queue).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
    const queuePolicy = Object.values(resourcesOf('AWS::SQS::QueuePolicy')).find((policy) =>
      JSON.stringify(propertiesOf(policy).Queues).includes(`"${queueId()}"`),
    );
    expect(JSON.stringify(propertiesOf(queuePolicy!).PolicyDocument)).toContain('"aws:SecureTransport":"false"');
  });

  it('gives the images function room for a 100-megapixel picture: 2,048 MB, two minutes, no reserved concurrency by default', () => {
    const images = propertiesOf(resourcesOf('AWS::Lambda::Function').ImagesFunction as Json);
    expect(images).toMatchObject({ MemorySize: 2_048, Timeout: 120 });
    expect(images).not.toHaveProperty('ReservedConcurrentExecutions');
  });

  it('tells the bucket’s name to the functions that sign its URLs and to the images function, and to no other', () => {
    const named = Object.keys(resourcesOf('AWS::Lambda::Function')).filter(
      (id) => 'IMAGES_BUCKET' in environmentOf(id),
    );
    expect(named.sort()).toEqual(['ImagesFunction', 'JobsReadFunction', 'JobsWriteFunction']);
    for (const id of named) expect(environmentOf(id).IMAGES_BUCKET).toEqual(imagesBucketName());
  });

  it('lets the images function read uploads, write renditions and read and update job partitions, nothing more', () => {
    const s3 = statementsOf('Images').filter((statement) => actionsOf(statement).some((a) => a.startsWith('s3:')));
    expect(s3.map((statement) => [statement.Action, statement.Resource])).toEqual([
      ['s3:GetObject', objectsOf('uploads/')],
      ['s3:PutObject', objectsOf('renditions/')],
    ]);
    expect(actionsWithPrefix('Images', 'dynamodb:')).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    const table = statementsOf('Images').find((statement) => actionsOf(statement).includes('dynamodb:UpdateItem'));
    expect(table).toMatchObject({
      Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      Resource: { 'Fn::GetAtt': [tableLogicalId('jobs'), 'Arn'] },
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['JOB#*'] } },
    });
    expect(actionsWithPrefix('Images', 'sqs:')).toEqual([
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
    ]);
    expect(actionsWithPrefix('Images', 'es:')).toEqual([]);
  });

  it('lets the write function sign uploads and the read function sign downloads, and no other function touch S3', () => {
    const s3Of = (name: FunctionName) =>
      statementsOf(name)
        .filter((statement) => actionsOf(statement).some((action) => action.startsWith('s3:')))
        .map((statement) => [statement.Action, statement.Resource]);
    expect(s3Of('JobsWrite')).toEqual([['s3:PutObject', objectsOf('uploads/')]]);
    expect(s3Of('JobsRead')).toEqual([['s3:GetObject', [objectsOf('uploads/'), objectsOf('renditions/')]]]);
    for (const name of ['Search', 'SearchFields', 'Reject', 'Sessions', 'Indexer'] as const)
      expect(s3Of(name)).toEqual([]);
  });
});

describe('the REST API', () => {
  const resourcePaths = (): Map<string, string> => {
    const resources = resourcesOf('AWS::ApiGateway::Resource');
    const pathOf = (id: string): string => {
      const properties = propertiesOf(resources[id] as Json);
      const parent = properties.ParentId as { Ref?: string };
      const prefix = parent.Ref !== undefined && parent.Ref in resources ? pathOf(parent.Ref) : '';
      return `${prefix}/${properties.PathPart as string}`;
    };
    return new Map(Object.keys(resources).map((id) => [id, pathOf(id)]));
  };

  it("routes each route-table path to its functions by proxy integration: ANY to the first route's, other functions' methods to theirs", () => {
    const paths = resourcePaths();
    const methods = Object.values(resourcesOf('AWS::ApiGateway::Method')).map(propertiesOf);
    const routed = methods.map((method) => ({
      path: paths.get((method.ResourceId as { Ref: string }).Ref),
      httpMethod: method.HttpMethod,
      type: (method.Integration as Json).Type,
      function: JSON.stringify((method.Integration as Json).Uri).match(/"(\w+Function)"/)?.[1],
    }));
    const functionOf = (route: Route): string =>
      `${route.functionName
        .split('-')
        .map((part) => part[0]?.toUpperCase() + part.slice(1))
        .join('')}Function`;
    const expected = pathsOf().flatMap((path) => {
      const routes = ROUTES.filter((route) => route.path === path);
      const first = routes[0]!;
      return [
        { path, httpMethod: 'ANY', type: 'AWS_PROXY', function: functionOf(first) },
        ...routes
          .filter((route) => route.functionName !== first.functionName)
          .map((route) => ({ path, httpMethod: route.method, type: 'AWS_PROXY', function: functionOf(route) })),
      ];
    });
    expect(routed).toEqual(expect.arrayContaining(expected));
    expect(routed).toHaveLength(expected.length);
  });

  it('hands every request body to the functions as its bytes, base64-encoded, and converts no answer', () => {
    // Every media type is binary, so API Gateway turns no body into text before the function sees it
    // (lib/rest-api.ts, BINARY_MEDIA_TYPES); no integration converts content on its own.
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
    const integrations = Object.values(resourcesOf('AWS::ApiGateway::Method')).map(
      (method) => propertiesOf(method).Integration as Json,
    );
    expect(integrations.filter((integration) => 'ContentHandling' in integration)).toEqual([]);
  });

  it('answers unknown paths 404 with the contract error body and API Gateway’s request id', () => {
    for (const type of ['MISSING_AUTHENTICATION_TOKEN', 'RESOURCE_NOT_FOUND']) {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: '404',
        ResponseParameters: {
          'gatewayresponse.header.Content-Type': "'application/json; charset=utf-8'",
          'gatewayresponse.header.Cache-Control': "'no-store'",
        },
        ResponseTemplates: {
          'application/json': JSON.stringify({
            code: 'not_found',
            message: ERROR_CATALOGUE.not_found.message,
            requestId: '$context.requestId',
          }),
        },
      });
    }
  });

  it('answers its own failures and throttling 503 with Retry-After, never 500', () => {
    for (const type of ['DEFAULT_5XX', 'INTEGRATION_TIMEOUT', 'INTEGRATION_FAILURE', 'THROTTLED']) {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: '503',
        ResponseParameters: Match.objectLike({ 'gatewayresponse.header.Retry-After': "'1'" }),
      });
    }
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'REQUEST_TOO_LARGE',
      StatusCode: '413',
    });
  });

  /** Every gateway response of the template: type, status, contract code, Retry-After, headers. */
  const gatewayResponses = () =>
    Object.values(resourcesOf('AWS::ApiGateway::GatewayResponse'))
      .map(propertiesOf)
      .map((response) => {
        const parameters = response.ResponseParameters as Record<string, string>;
        const retryAfter = parameters['gatewayresponse.header.Retry-After'];
        return {
          type: response.ResponseType as string,
          status: Number(response.StatusCode),
          code: (JSON.parse((response.ResponseTemplates as Record<string, string>)['application/json'] ?? '{}') as Json)
            .code as string,
          retryAfter: retryAfter === undefined ? undefined : Number(retryAfter.replaceAll("'", '')),
          parameters,
        };
      })
      .sort((a, b) => a.type.localeCompare(b.type));

  it('puts API Gateway’s request id into an X-Request-Id header of every answer it gives itself', () => {
    const responses = gatewayResponses();
    expect(responses.length).toBeGreaterThan(0);
    for (const response of responses) {
      expect(response.parameters, response.type).toMatchObject({
        'gatewayresponse.header.X-Request-Id': 'context.requestId',
        'gatewayresponse.header.Content-Type': "'application/json; charset=utf-8'",
        'gatewayresponse.header.Cache-Control': "'no-store'",
      });
    }
  });

  it('answers a body Lambda cannot take 413, and a function that runs out of time 503, never 408 or 504', () => {
    const byType = new Map(gatewayResponses().map((response) => [response.type, response]));
    expect(byType.get('REQUEST_TOO_LARGE')).toMatchObject({ status: 413, code: 'payload_too_large' });
    for (const type of ['INTEGRATION_TIMEOUT', 'INTEGRATION_FAILURE', 'DEFAULT_5XX']) {
      expect(byType.get(type), type).toMatchObject({ status: 503, code: 'service_unavailable', retryAfter: 1 });
    }
    expect(gatewayResponses().map((response) => response.status)).not.toContain(408);
    expect(gatewayResponses().map((response) => response.status)).not.toContain(504);
  });

  it('gives exactly the gateway answers openapi.yaml and docs/deploy.md describe', () => {
    const described = (loadOpenApiDocument() as Json)['x-gateway-responses'] as Json;
    const fromOpenApi = (described.responses as Json[])
      .map((entry) => ({
        type: entry.type as string,
        status: entry.status as number,
        code: entry.code as string,
        retryAfter: entry.retryAfter as number | undefined,
      }))
      .sort((a, b) => a.type.localeCompare(b.type));
    const fromTemplate = gatewayResponses().map(({ type, status, code, retryAfter }) => ({
      type,
      status,
      code,
      retryAfter,
    }));
    expect(fromOpenApi).toEqual(fromTemplate);

    const deployGuide = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'deploy.md'), 'utf8');
    const rows = [
      ...deployGuide.matchAll(/^\| `([A-Z_0-9]+)` \| `(\d{3})` \| `([a-z_]+)` \| (?:`Retry-After: (\d+)`|—) \|/gm),
    ]
      .map(([, type, status, code, retryAfter]) => ({
        type: type as string,
        status: Number(status),
        code: code as string,
        retryAfter: retryAfter === undefined ? undefined : Number(retryAfter),
      }))
      .sort((a, b) => a.type.localeCompare(b.type));
    expect(rows).toEqual(fromTemplate);
  });

  it('traces and writes access logs on its stage', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
    });
  });

  interface MethodSetting {
    ResourcePath: string;
    HttpMethod: string;
    ThrottlingRateLimit: number;
    ThrottlingBurstLimit: number;
    LoggingLevel?: string;
    MetricsEnabled?: boolean;
    DataTraceEnabled?: boolean;
  }
  const methodSettings = (): MethodSetting[] =>
    propertiesOf(Object.values(resourcesOf('AWS::ApiGateway::Stage'))[0]!).MethodSettings as MethodSetting[];
  /** The stage's methods as API Gateway addresses them in method settings: `/~1jobs~1{id}` and `PATCH`. */
  const stageMethods = (): { ResourcePath: string; HttpMethod: string }[] => {
    const paths = resourcePaths();
    return Object.values(resourcesOf('AWS::ApiGateway::Method'))
      .map(propertiesOf)
      .map((method) => ({
        ResourcePath: paths
          .get((method.ResourceId as { Ref: string }).Ref)!
          .replaceAll('/', '~1')
          .replace(/^/, '/'),
        HttpMethod: method.HttpMethod as string,
      }));
  };

  it('admits at most the stage throttle in all (100 requests a second, a burst of 200), not that much per method', () => {
    const perMethod = methodSettings().filter((setting) => setting.ResourcePath !== '/*');
    expect(perMethod.length).toBe(stageMethods().length);
    expect(perMethod.reduce((sum, setting) => sum + setting.ThrottlingRateLimit, 0)).toBeLessThanOrEqual(100);
    expect(perMethod.reduce((sum, setting) => sum + setting.ThrottlingBurstLimit, 0)).toBeLessThanOrEqual(200);
    // The stage default, which a method without a setting of its own would get, is no larger than any share.
    const [stageDefault] = methodSettings().filter((setting) => setting.ResourcePath === '/*');
    expect(stageDefault).toMatchObject({ HttpMethod: '*' });
    for (const setting of perMethod) {
      expect(stageDefault!.ThrottlingRateLimit).toBeLessThanOrEqual(setting.ThrottlingRateLimit);
      expect(stageDefault!.ThrottlingBurstLimit).toBeLessThanOrEqual(setting.ThrottlingBurstLimit);
    }
  });

  it('gives every method of the stage its own share, at least one request a second, search the largest', () => {
    const byMethod = new Map(
      methodSettings().map((setting) => [`${setting.HttpMethod} ${setting.ResourcePath}`, setting] as const),
    );
    for (const method of stageMethods()) {
      const setting = byMethod.get(`${method.HttpMethod} ${method.ResourcePath}`);
      expect(setting, `${method.HttpMethod} ${method.ResourcePath}`).toBeDefined();
      expect(setting!.ThrottlingRateLimit).toBeGreaterThanOrEqual(1);
      expect(setting!.ThrottlingBurstLimit).toBeGreaterThanOrEqual(1);
    }
    const search = byMethod.get('ANY /~1search')!;
    for (const setting of byMethod.values()) {
      expect(search.ThrottlingRateLimit).toBeGreaterThanOrEqual(setting.ThrottlingRateLimit);
    }
  });

  it('keeps metrics and error logging on for every method that has its own throttle', () => {
    for (const setting of methodSettings()) {
      expect(setting, `${setting.HttpMethod} ${setting.ResourcePath}`).toMatchObject({
        LoggingLevel: 'ERROR',
        MetricsEnabled: true,
        DataTraceEnabled: false,
      });
    }
  });
});

describe('the access log', () => {
  /** One access log line as API Gateway would write it, every variable replaced by a sample value. */
  const sampleLine = (): Record<string, string> => {
    const [stage] = Object.values(resourcesOf('AWS::ApiGateway::Stage')).map(propertiesOf);
    const format = (stage!.AccessLogSetting as { Format: string }).Format;
    // $context.error.messageString is the message already quoted; every other variable is written as is.
    const line = format
      .replaceAll('$context.error.messageString', JSON.stringify('Too Many Requests'))
      .replaceAll(/\$context\.[A-Za-z.]+/g, (variable) => `<${variable}>`);
    return JSON.parse(line) as Record<string, string>;
  };

  it('writes each request as one JSON object with the caller, the route, the status and the latency', () => {
    expect(sampleLine()).toMatchObject({
      requestId: '<$context.requestId>',
      ip: '<$context.identity.sourceIp>',
      httpMethod: '<$context.httpMethod>',
      resourcePath: '<$context.resourcePath>',
      status: '<$context.status>',
      responseLatency: '<$context.responseLatency>',
    });
  });

  it('tells a throttle, a WAF block, a function that crashed or timed out and a gateway timeout apart', () => {
    expect(sampleLine()).toMatchObject({
      // API Gateway's own answer: THROTTLED, WAF_FILTERED, INTEGRATION_TIMEOUT, DEFAULT_5XX, …
      errorResponseType: '<$context.error.responseType>',
      errorMessage: 'Too Many Requests',
      // What Lambda answered, what the function answered, and a function's error (threw, timed out).
      integrationServiceStatus: '<$context.integration.integrationStatus>',
      integrationStatus: '<$context.integration.status>',
      integrationError: '<$context.integration.error>',
      integrationErrorMessage: '<$context.integrationErrorMessage>',
      integrationLatency: '<$context.integration.latency>',
      integrationRequestId: '<$context.integration.requestId>',
      // What AWS WAF decided (set only with the per-client limits).
      wafResponseCode: '<$context.wafResponseCode>',
      wafStatus: '<$context.waf.status>',
      wafError: '<$context.waf.error>',
    });
  });

  it('never logs the caller’s identity beyond its address, nor a header', () => {
    const variables = Object.values(sampleLine()).join(' ');
    expect(variables).not.toMatch(/identity\.(caller|user|apiKey)|\.header\.|authorizer/);
  });
});

describe('alarms', () => {
  const alarms = () => Object.values(resourcesOf('AWS::CloudWatch::Alarm')).map(propertiesOf);
  const metricNames = () => alarms().map((alarm) => `${alarm.Namespace}/${alarm.MetricName}`);

  it('alarms on errors and throttles of every function', () => {
    for (const id of [
      'SearchFunction',
      'SearchFieldsFunction',
      'RejectFunction',
      'SessionsFunction',
      'JobsReadFunction',
      'JobsWriteFunction',
      'IndexerFunction',
      'ImagesFunction',
      'EventsFunction',
    ]) {
      const mine = alarms().filter((alarm) => JSON.stringify(alarm.Dimensions ?? []).includes(`"${id}"`));
      expect(mine.map((alarm) => alarm.MetricName)).toEqual(expect.arrayContaining(['Errors', 'Throttles']));
    }
  });

  it('alarms on refused POST /sessions requests, counted from the sessions function’s log lines', () => {
    // API Gateway's per-method metrics name the method of the resource, and /sessions has one method: ANY.
    const [sessionsResource] = Object.entries(resourcesOf('AWS::ApiGateway::Resource'))
      .filter(([, resource]) => propertiesOf(resource).PathPart === 'sessions')
      .map(([id]) => id);
    const methods = Object.values(resourcesOf('AWS::ApiGateway::Method'))
      .map(propertiesOf)
      .filter((method) => JSON.stringify(method.ResourceId) === JSON.stringify({ Ref: sessionsResource }))
      .map((method) => method.HttpMethod);
    expect(methods).toEqual(['ANY']);
    const sessionsId = 'SessionsFunction';
    const logGroupId = (propertiesOf(resourcesOf('AWS::Lambda::Function')[sessionsId]!).LoggingConfig as Json)
      .LogGroup as Json;
    const [filter, ...others] = Object.values(resourcesOf('AWS::Logs::MetricFilter')).map(propertiesOf);
    expect(others).toEqual([]);
    expect(filter).toEqual({
      LogGroupName: logGroupId,
      FilterPattern: '{ ($.message = "Request refused") && ($.method = "POST") }',
      MetricTransformations: [
        {
          MetricNamespace: REFUSED_SESSIONS_METRIC.namespace,
          MetricName: REFUSED_SESSIONS_METRIC.metricName,
          MetricValue: '1',
          Dimensions: [{ Key: REFUSED_SESSIONS_METRIC.dimension, Value: '$.function_name' }],
        },
      ],
    });
    const [alarm] = alarms().filter((candidate) => candidate.MetricName === REFUSED_SESSIONS_METRIC.metricName);
    expect(alarm).toMatchObject({
      Namespace: REFUSED_SESSIONS_METRIC.namespace,
      Statistic: 'Sum',
      Period: 300,
      Threshold: 50,
      Dimensions: [{ Name: REFUSED_SESSIONS_METRIC.dimension, Value: { Ref: sessionsId } }],
    });
  });

  // Each metric is the one its function emits, in the function's namespace and with its service name: the
  // sessions function's audit records, the sender's deliveries.
  it.each([
    ['an audit record the audit log group refused', AUDIT_WRITE_FAILED_METRIC, 'SessionsFunction'],
    ['a webhook delivery given up on', WEBHOOK_DELIVERIES_FAILED_METRIC, 'WebhooksSenderFunction'],
  ])('alarms on %s, counted by the %s metric of %s, on the alarm topic', (_what, metricName, functionId) => {
    const [topicId] = Object.keys(resourcesOf('AWS::SNS::Topic'));
    const [alarm, ...others] = alarms().filter((candidate) => candidate.MetricName === metricName);
    expect(others).toEqual([]);
    expect(alarm).toMatchObject({
      Namespace: POWERTOOLS_ENVIRONMENT.POWERTOOLS_METRICS_NAMESPACE,
      Dimensions: [{ Name: 'service', Value: POWERTOOLS_ENVIRONMENT.POWERTOOLS_SERVICE_NAME }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topicId }],
      OKActions: [{ Ref: topicId }],
    });
    expect(propertiesOf(resourcesOf('AWS::Lambda::Function')[functionId]!).Environment).toMatchObject({
      Variables: {
        POWERTOOLS_METRICS_NAMESPACE: POWERTOOLS_ENVIRONMENT.POWERTOOLS_METRICS_NAMESPACE,
        POWERTOOLS_SERVICE_NAME: POWERTOOLS_ENVIRONMENT.POWERTOOLS_SERVICE_NAME,
      },
    });
  });

  it('alarms on iterator age and dead letters', () => {
    expect(metricNames()).toEqual(
      expect.arrayContaining(['AWS/Lambda/IteratorAge', 'AWS/SQS/ApproximateNumberOfMessagesVisible']),
    );
  });

  it('alarms on the first upload event the images function gave up on', () => {
    const alarm = alarmNamed('ImagesDeadLetters');
    const queueId = stack.getLogicalId(stack.imageRenditions.deadLetterQueue.node.defaultChild as never);
    expect(alarm).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
    });
  });

  /** The alarm of a construct id, as the template has it. */
  const alarmNamed = (id: string): Json => {
    const alarm = stack.alarms.alarms.find((candidate) => candidate.node.id === id);
    expect(alarm, id).toBeDefined();
    return propertiesOf(resourcesOf('AWS::CloudWatch::Alarm')[stack.getLogicalId(alarm!.node.defaultChild as never)]!);
  };

  interface MetricDataQuery {
    Id: string;
    Expression?: string;
    MetricStat?: { Metric: { Namespace: string; MetricName: string }; Period: number; Stat: string };
  }

  /**
   * Whether the Api5xx alarm's one period breaches for five minutes of `requests` requests, `errors` of them
   * 5xx: its metric (or metric math, `IF` and `FILL` as CloudWatch evaluates them) against its threshold.
   */
  const api5xxBreaches = (errors: number, requests: number): boolean => {
    const alarm = alarmNamed('Api5xx');
    const valueOf = (metricName: string): number => ({ '5XXError': errors, Count: requests })[metricName] ?? NaN;
    let value: number;
    const queries = alarm.Metrics as MetricDataQuery[] | undefined;
    if (queries === undefined) {
      value = valueOf(alarm.MetricName as string);
    } else {
      const expression = queries.find((query) => query.Expression !== undefined)!.Expression!;
      const inputs = queries.filter((query) => query.MetricStat !== undefined);
      const evaluate = new Function('IF', 'FILL', ...inputs.map((query) => query.Id), `return ${expression};`) as (
        ...args: unknown[]
      ) => number;
      value = evaluate(
        (condition: boolean, then: number, otherwise: number) => (condition ? then : otherwise),
        (series: number | undefined, fill: number) => series ?? fill,
        ...inputs.map((query) => valueOf(query.MetricStat!.Metric.MetricName)),
      );
    }
    const threshold = alarm.Threshold as number;
    expect(alarm.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
    expect(alarm.EvaluationPeriods).toBe(1);
    return value >= threshold;
  };

  it('does not page for one 5xx on a quiet stage, nor for a handful among many requests', () => {
    expect(api5xxBreaches(1, 1)).toBe(false);
    expect(api5xxBreaches(1, 20)).toBe(false);
    expect(api5xxBreaches(4, 99)).toBe(false);
    expect(api5xxBreaches(4, 1000)).toBe(false);
    expect(api5xxBreaches(0, 0)).toBe(false);
  });

  it('pages when 5 % or more of at least 100 requests in five minutes were 5xx', () => {
    expect(api5xxBreaches(5, 100)).toBe(true);
    expect(api5xxBreaches(100, 100)).toBe(true);
    expect(api5xxBreaches(60, 1200)).toBe(true);
  });

  it('counts the 5xx share from the API’s own 5XXError and Count sums over five minutes', () => {
    const queries = alarmNamed('Api5xx').Metrics as MetricDataQuery[];
    expect(
      queries
        .filter((query) => query.MetricStat !== undefined)
        .map((query) => ({
          metric: `${query.MetricStat!.Metric.Namespace}/${query.MetricStat!.Metric.MetricName}`,
          stat: query.MetricStat!.Stat,
          period: query.MetricStat!.Period,
        }))
        .sort((a, b) => a.metric.localeCompare(b.metric)),
    ).toEqual([
      { metric: 'AWS/ApiGateway/5XXError', stat: 'Sum', period: 300 },
      { metric: 'AWS/ApiGateway/Count', stat: 'Sum', period: 300 },
    ]);
  });

  it('alarms when a search node’s free storage falls to a quarter of its volume', () => {
    expect(alarmNamed('SearchFreeStorageLow')).toMatchObject({
      Namespace: 'AWS/ES',
      MetricName: 'FreeStorageSpace',
      Statistic: 'Minimum',
      Period: 60,
      EvaluationPeriods: 1,
      // 20 GiB volumes by default: a quarter is 5,120 MiB (the metric's unit).
      Threshold: 5120,
      ComparisonOperator: 'LessThanOrEqualToThreshold',
    });
  });

  it('alarms when a search node’s JVM memory pressure stays at 80 % or more for fifteen minutes', () => {
    expect(alarmNamed('SearchJvmMemoryPressure')).toMatchObject({
      Namespace: 'AWS/ES',
      MetricName: 'JVMMemoryPressure',
      Statistic: 'Maximum',
      Period: 300,
      EvaluationPeriods: 3,
      Threshold: 80,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('alarms when the search cluster is red or blocks writes', () => {
    expect(alarmNamed('SearchClusterRed')).toMatchObject({ MetricName: 'ClusterStatus.red', Threshold: 1 });
    expect(alarmNamed('SearchWritesBlocked')).toMatchObject({ MetricName: 'ClusterIndexWritesBlocked', Threshold: 1 });
  });
});

describe('the audit log', () => {
  const auditGroupId = (): string => stack.getLogicalId(stack.auditLog.logGroup.node.defaultChild as never);

  it('is a log group of its own, kept 400 days by default and kept when the stack is deleted', () => {
    const group = resourcesOf('AWS::Logs::LogGroup')[auditGroupId()];
    // Kept on delete and replacement; only the rollback of the deployment that created it (no records yet) deletes it.
    expect(group).toMatchObject({
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
      Properties: { RetentionInDays: 400 },
    });
    expect(propertiesOf(group!)).not.toHaveProperty('LogGroupName');
  });

  it('is written by the sessions function alone, which learns its name from AUDIT_LOG_GROUP', () => {
    const writers = (Object.keys(stack.functions) as FunctionName[]).filter((name) =>
      JSON.stringify(statementsOf(name)).includes(auditGroupId()),
    );
    expect(writers).toEqual(['Sessions']);
    const writes = statementsOf('Sessions').filter((statement) => JSON.stringify(statement).includes(auditGroupId()));
    expect(writes.flatMap(actionsOf).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    const sessions = Object.values(resourcesOf('AWS::Lambda::Function')).filter((fn) =>
      JSON.stringify(propertiesOf(fn).Environment).includes('AUDIT_LOG_GROUP'),
    );
    expect(sessions).toHaveLength(1);
    expect(JSON.stringify(propertiesOf(sessions[0]!).Environment)).toContain(`{"Ref":"${auditGroupId()}"}`);
  });

  it('is named by the AuditLogGroupName output, for the CLI and for queries', () => {
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    expect(outputs[STACK_OUTPUTS.auditLogGroup]).toMatchObject({ Value: { Ref: auditGroupId() } });
  });
});

describe('outputs', () => {
  it('exports the tables, the search endpoint and the index under stable keys', () => {
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    for (const key of Object.values(STACK_OUTPUTS)) expect(outputs).toHaveProperty(key);
    expect(outputs[STACK_OUTPUTS.jobsTable]).toMatchObject({ Value: { Ref: tableLogicalId('jobs') } });
    expect(outputs[STACK_OUTPUTS.authTable]).toMatchObject({ Value: { Ref: tableLogicalId('auth') } });
    expect(outputs[STACK_OUTPUTS.imagesBucket]).toMatchObject({ Value: imagesBucketName() });
    expect(outputs[STACK_OUTPUTS.imagesDeadLetterQueueUrl]).toMatchObject({
      Value: { Ref: stack.getLogicalId(stack.imageRenditions.deadLetterQueue.node.defaultChild as never) },
    });
  });
});

describe('docs/deploy.md', () => {
  const ROOT = join(import.meta.dirname, '..', '..');
  const routes = () =>
    API_ENDPOINTS.map((endpoint) => ({
      method: endpoint.method,
      path: endpoint.path,
      functionId: `${endpoint.name}Function`,
    }));
  const alarmIds = () => stack.alarms.alarms.map((alarm) => alarm.node.id);

  it('lists exactly the outputs, routes, functions and alarms of the synthesized template', () => {
    expect(Object.keys(resourcesOf('AWS::CloudWatch::Alarm'))).toHaveLength(alarmIds().length);
    expect(guideDifferences(readGuide(ROOT), template.toJSON() as GuideTemplate, routes(), alarmIds())).toEqual([]);
  });

  it('names the row to add when the guide misses an endpoint, a function, an alarm or an output', () => {
    const guide = readGuide(ROOT)
      .replace(/^\| `DELETE` \| `\/sessions\/current` .*\n/m, '')
      .replace(/^\| `TableProtectionFunction` .*\n/m, '')
      .replace(/^\| `SessionsRefused` .*\n/m, '')
      .replace(/^\| `DashboardUrl` .*\n/m, '');
    expect(guideDifferences(guide, template.toJSON() as GuideTemplate, routes(), alarmIds())).toEqual([
      'docs/deploy.md, outputs table: no row for DashboardUrl; add | `DashboardUrl` | … |',
      'docs/deploy.md, functions table: no row for TableProtectionFunction; add | `TableProtectionFunction` | … |',
      'docs/deploy.md, routes table: no row for DELETE /sessions/current; add | `DELETE` | `/sessions/current` | `SessionsFunction` |',
      'docs/deploy.md, alarms table: no row for SessionsRefused; add | `SessionsRefused` | … |',
    ]);
  });
});

describe('cdk-nag', () => {
  it('reports no AwsSolutions finding that is not acknowledged with a reason', () => {
    const findings = nagReport.violations.flatMap((violation) =>
      violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.resourceLogicalId}`),
    );
    expect(findings).toEqual([]);
  });

  it('carries a written reason on every acknowledgement', () => {
    const acknowledgements = stack.node
      .findAll()
      .flatMap((construct) => construct.node.metadata)
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>));
    // CDK records plain ids under the `Annotation::` namespace, which is where cdk-nag looks them up.
    expect(acknowledgements.map(([id]) => id.replace(/^annotation::/i, ''))).toEqual(
      expect.arrayContaining(['AwsSolutions-OS1', 'AwsSolutions-APIG4', 'AwsSolutions-IAM5[Resource::*]']),
    );
    for (const [, reason] of acknowledgements) expect(reason.length).toBeGreaterThan(40);
  });

  it('leaves no CDK error annotation on the stack', () => {
    expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toEqual([]);
    expect(stack).toBeInstanceOf(Stack);
  });
});

/**
 * Configuration by context: defaults, validation of every value, and a stack built from a
 * non-default configuration (synthesized once, without bundling).
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildJobsApi } from '../../lib/app';
import { alarmDeliveries } from '../support/alarm-delivery';
import { ALARM_SUBSCRIBER, TEMPLATE_ONLY } from './template-only';
import {
  type ContextReader,
  DEFAULT_CONFIG,
  readStackConfig,
  StackConfigError,
  stackNameFor,
} from '../../lib/stack-config';

const ROOT = resolve(import.meta.dirname, '..', '..');

const from =
  (context: Record<string, unknown>): ContextReader =>
  (key) =>
    context[key];

describe('reading the configuration from context', () => {
  it('uses the small-production defaults for everything but whom the alarms reach', () => {
    expect(readStackConfig(from({ ...ALARM_SUBSCRIBER }))).toEqual({ ...DEFAULT_CONFIG, ...ALARM_SUBSCRIBER });
    expect(DEFAULT_CONFIG).toMatchObject({
      stage: 'prod',
      deletionProtection: true,
      retainSearchDomain: false,
      searchInstanceCount: 3,
      searchZoneCount: 3,
    });
  });

  it('accepts values given on the command line as strings', () => {
    const config = readStackConfig(
      from({
        stage: 'staging',
        searchInstanceCount: '3',
        searchZoneCount: '3',
        searchInstanceType: 't3.medium.search',
        searchVolumeSizeGiB: '50',
        retentionDays: '30',
        auditRetentionDays: '731',
        deletionProtection: 'false',
        retainSearchDomain: 'true',
        throttleRateLimit: '20',
        throttleBurstLimit: '40',
        apiMemoryMiB: '512',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops-alerts',
        detailedTracing: 'true',
        ipRateLimit: '600',
        clientRateLimit: '3000',
        sessionRateLimit: '120',
        imagesConcurrency: '50',
        imagesCorsOrigins: 'https://app.example.com, https://admin.example.com:8443',
      }),
    );
    expect(config).toEqual({
      stage: 'staging',
      searchInstanceCount: 3,
      searchZoneCount: 3,
      searchInstanceType: 't3.medium.search',
      searchVolumeSizeGiB: 50,
      retentionDays: 30,
      auditRetentionDays: 731,
      deletionProtection: false,
      retainSearchDomain: true,
      throttleRateLimit: 20,
      throttleBurstLimit: 40,
      apiMemoryMiB: 512,
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops-alerts',
      detailedTracing: true,
      ipRateLimit: 600,
      clientRateLimit: 3000,
      sessionRateLimit: 120,
      imagesConcurrency: 50,
      imagesCorsOrigins: ['https://app.example.com', 'https://admin.example.com:8443'],
    });
  });

  it('reserves no images concurrency and admits no CORS origin unless asked, and takes * or a JSON list of origins', () => {
    expect(readStackConfig(from({ ...ALARM_SUBSCRIBER }))).toMatchObject({
      imagesConcurrency: undefined,
      imagesCorsOrigins: [],
    });
    expect(readStackConfig(from({ ...ALARM_SUBSCRIBER, imagesCorsOrigins: '*' })).imagesCorsOrigins).toEqual(['*']);
    expect(
      readStackConfig(from({ ...ALARM_SUBSCRIBER, imagesCorsOrigins: ['https://app.example.com'] })).imagesCorsOrigins,
    ).toEqual(['https://app.example.com']);
  });

  it('refuses an images concurrency out of bounds and an origin with a path, a wildcard host or beside *', () => {
    for (const imagesConcurrency of ['0', '1001', 'many'])
      expect(() => readStackConfig(from({ ...ALARM_SUBSCRIBER, imagesConcurrency }))).toThrow(StackConfigError);
    for (const imagesCorsOrigins of [
      'https://app.example.com/',
      'https://*.example.com',
      '*,https://a.example.com',
      'app.example.com',
    ])
      expect(() => readStackConfig(from({ ...ALARM_SUBSCRIBER, imagesCorsOrigins }))).toThrow(
        /Context "imagesCorsOrigins" must be "\*" or a list of origins/,
      );
  });

  it('takes an address for the alarm topic, and none by default', () => {
    expect(DEFAULT_CONFIG.alarmEmail).toBeUndefined();
    expect(readStackConfig(from({ alarmEmail: 'ops@example.com' })).alarmEmail).toBe('ops@example.com');
    expect(readStackConfig(from({ alarmEmail: '', deletionProtection: 'false' })).alarmEmail).toBeUndefined();
  });

  it('refuses a protected stage whose alarms would reach nobody, saying what to set', () => {
    for (const context of [{}, { deletionProtection: 'true' }, { alarmEmail: '', alarmTopicArn: '' }]) {
      expect(() => readStackConfig(from(context)), JSON.stringify(context)).toThrow(StackConfigError);
      expect(() => readStackConfig(from(context)), JSON.stringify(context)).toThrow(
        /deletionProtection=true.*-c alarmEmail=<address>.*-c alarmTopicArn=<SNS topic ARN>.*-c deletionProtection=false/,
      );
    }
  });

  it('accepts a protected stage with an address or a topic for its alarms, and an unprotected one with neither', () => {
    expect(readStackConfig(from({ alarmEmail: 'ops@example.com' })).deletionProtection).toBe(true);
    expect(readStackConfig(from({ alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops' })).deletionProtection).toBe(
      true,
    );
    expect(readStackConfig(from({ deletionProtection: 'false' }))).toMatchObject({
      deletionProtection: false,
      alarmEmail: undefined,
      alarmTopicArn: undefined,
    });
  });

  it('stops synthesis of a protected stage without an alarm subscriber before building anything', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => buildJobsApi(app, TEMPLATE_ONLY)).toThrow(/A protected stage \(deletionProtection=true/);
    expect(app.node.children).toEqual([]);
  });

  it('leaves the per-client limits off unless asked for', () => {
    expect(DEFAULT_CONFIG.ipRateLimit).toBeUndefined();
    expect(DEFAULT_CONFIG.clientRateLimit).toBeUndefined();
    expect(readStackConfig(from({ ...ALARM_SUBSCRIBER, ipRateLimit: '', clientRateLimit: '' }))).toMatchObject({
      ipRateLimit: undefined,
      clientRateLimit: undefined,
    });
  });

  it.each([
    [{ stage: 'Prod' }, 'stage'],
    [{ stage: 'a'.repeat(21) }, 'stage'],
    [{ searchInstanceCount: '0' }, 'searchInstanceCount'],
    [{ searchInstanceCount: 'two' }, 'searchInstanceCount'],
    [{ searchInstanceCount: 4 }, 'searchInstanceCount'],
    [{ retainSearchDomain: 'keep' }, 'retainSearchDomain'],
    [{ searchZoneCount: 4 }, 'searchZoneCount'],
    [{ searchInstanceType: 'm6g.large' }, 'searchInstanceType'],
    [{ retentionDays: 45 }, 'retentionDays'],
    [{ deletionProtection: 'yes' }, 'deletionProtection'],
    [{ detailedTracing: 'on' }, 'detailedTracing'],
    [{ throttleRateLimit: 1.5 }, 'throttleRateLimit'],
    [{ alarmTopicArn: 'ops-alerts' }, 'alarmTopicArn'],
    [{ alarmEmail: 'ops' }, 'alarmEmail'],
    [{ alarmEmail: 'ops@example.com', alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops' }, 'alarmEmail'],
    [{ ipRateLimit: '9' }, 'ipRateLimit'],
    [{ ipRateLimit: 'many' }, 'ipRateLimit'],
    [{ clientRateLimit: 2.5 }, 'clientRateLimit'],
    [{ clientRateLimit: '0' }, 'clientRateLimit'],
  ])('refuses %j, naming %s', (context, key) => {
    expect(() => readStackConfig(from(context))).toThrow(StackConfigError);
    expect(() => readStackConfig(from(context))).toThrow(`"${key}"`);
  });

  it('names the stack after the stage', () => {
    expect(stackNameFor('staging')).toBe('JobsApi-staging');
  });
});

describe('a stack built from a non-default configuration', () => {
  let template: Template;

  beforeAll(() => {
    const app = new App({
      context: {
        'aws:cdk:bundling-stacks': [],
        stage: 'dev',
        searchInstanceType: 't3.small.search',
        searchInstanceCount: '1',
        searchZoneCount: '1',
        deletionProtection: 'false',
        retentionDays: '14',
        alarmTopicArn: 'arn:aws:sns:us-east-1:123456789012:ops',
        detailedTracing: 'true',
        imagesConcurrency: '25',
        imagesCorsOrigins: 'https://app.example.com',
      },
    });
    const stack = buildJobsApi(app, TEMPLATE_ONLY);
    expect(stack.stackName).toBe('JobsApi-dev');
    template = Template.fromStack(stack);
    // A synthesis on a busy machine, as test/infra/observability.test.ts allows it.
  }, 120_000);

  it('sizes the domain from context, without zone awareness for a single node', () => {
    template.hasResourceProperties('AWS::OpenSearchService::Domain', {
      DomainName: {
        'Fn::Join': ['', ['jobs-dev-', Match.objectLike({ 'Fn::Select': Match.arrayWith([0]) })]],
      },
      ClusterConfig: {
        InstanceType: 't3.small.search',
        InstanceCount: 1,
        ZoneAwarenessEnabled: false,
        DedicatedMasterEnabled: false,
        MultiAZWithStandbyEnabled: false,
      },
    });
  });

  it('retains the search domain only when asked to', () => {
    const retained = Template.fromStack(
      buildJobsApi(
        new App({ context: { 'aws:cdk:bundling-stacks': [], ...ALARM_SUBSCRIBER, retainSearchDomain: 'true' } }),
        TEMPLATE_ONLY,
      ),
    );
    expect(Object.values(retained.findResources('AWS::OpenSearchService::Domain'))[0]?.DeletionPolicy).toBe('Retain');
    expect(Object.values(template.findResources('AWS::OpenSearchService::Domain'))[0]?.DeletionPolicy).toBe('Delete');
  });

  it('lets the tables be deleted with the stack when deletion protection is off', () => {
    for (const table of Object.values(template.findResources('AWS::DynamoDB::GlobalTable'))) {
      expect(table.DeletionPolicy).toBe('Delete');
      expect(table.Properties.Replicas[0].DeletionProtectionEnabled).toBe(false);
    }
    // The deployment's last step switches protection off (on a stage that had it on, before a destroy).
    template.hasResourceProperties('Custom::TableDeletionProtection', { DeletionProtection: 'false' });
  });

  it('lets the pictures bucket and its logs be deleted with the stack when deletion protection is off', () => {
    const buckets = Object.values(template.findResources('AWS::S3::Bucket'));
    expect(buckets).toHaveLength(2);
    for (const bucket of buckets) expect(bucket.DeletionPolicy).toBe('Delete');
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketName: { 'Fn::Join': ['', Match.arrayWith(['jobs-api-dev-images-'])] },
    });
  });

  it('reserves the images function’s concurrency and lets the configured origin use the pictures’ URLs', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Jobs API images'),
      ReservedConcurrentExecutions: 25,
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      CorsConfiguration: {
        CorsRules: [
          {
            AllowedOrigins: ['https://app.example.com'],
            AllowedMethods: ['PUT', 'POST', 'GET', 'HEAD'],
            AllowedHeaders: ['*'],
            ExposedHeaders: ['ETag'],
            MaxAge: 3_000,
          },
        ],
      },
    });
  });

  it('keeps logs for the configured retention, and the audit log its own 400 days by default', () => {
    const groups = Object.values(template.findResources('AWS::Logs::LogGroup'));
    const audit = groups.filter((group) => group.DeletionPolicy === 'RetainExceptOnCreate');
    expect(audit.map((group) => group.Properties.RetentionInDays)).toEqual([DEFAULT_CONFIG.auditRetentionDays]);
    expect(
      new Set(groups.filter((group) => !audit.includes(group)).map((group) => group.Properties.RetentionInDays)),
    ).toEqual(new Set([14]));
  });

  it('sends every alarm to the configured topic, when it fires and when it recovers, creating none', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual(['arn:aws:sns:us-east-1:123456789012:ops']);
      expect(alarm.Properties.OKActions).toEqual(['arn:aws:sns:us-east-1:123456789012:ops']);
    }
    template.resourceCountIs('AWS::SNS::Topic', 0);
  });

  it('delivers every alarm to the configured topic once its policy holds the statement docs/deploy.md gives', async () => {
    // The topic is the operator's: the stack cannot write its policy, so the guide says what it must allow.
    const statement = readFileSync(join(ROOT, 'docs/alarm-topic-statement.json'), 'utf8')
      .replaceAll('<TOPIC_ARN>', 'arn:aws:sns:us-east-1:123456789012:ops')
      .replaceAll('<ACCOUNT_ID>', '123456789012')
      .replaceAll('<REGION>', 'us-east-1');
    const target = { account: '123456789012', region: 'us-east-1' };
    const documented = { Version: '2012-10-17', Statement: [JSON.parse(statement) as Record<string, unknown>] };
    const withStatement = await alarmDeliveries(template.toJSON() as never, {
      ...target,
      externalTopicPolicy: () => documented,
    });
    expect(withStatement.length).toBeGreaterThan(0);
    expect(withStatement.filter((delivery) => delivery.verdict !== 'Allowed')).toEqual([]);
    // Without it (a policy allowing only the account's own principals), CloudWatch is refused.
    const ownerOnly = {
      Statement: [
        {
          Effect: 'Allow',
          Principal: { AWS: 'arn:aws:iam::123456789012:root' },
          Action: 'sns:Publish',
          Resource: 'arn:aws:sns:us-east-1:123456789012:ops',
        },
      ],
    };
    const [refused] = await alarmDeliveries(template.toJSON() as never, {
      ...target,
      externalTopicPolicy: () => ownerOnly,
    });
    expect(refused?.verdict).toBe('ImplicitlyDenied');
  });

  it('names the API stage after the stage', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'dev' });
  });

  it('switches detailed tracing on in every function', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(functions).toHaveLength(13);
    for (const fn of functions) expect(fn.Properties.Environment.Variables.DETAILED_TRACING).toBe('true');
  });
});

describe('per-client limits switched on by context', () => {
  let template: Template;
  let defaults: Template;
  let nagFindings: string[];

  const findingsOf = (app: App): string[] =>
    new AwsSolutionsChecks(app)
      .validateScope(app)
      .violations.flatMap((violation) =>
        violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.resourceLogicalId}`),
      );

  beforeAll(() => {
    const app = new App({
      context: { 'aws:cdk:bundling-stacks': [], ...ALARM_SUBSCRIBER, ipRateLimit: '600', clientRateLimit: '3000' },
    });
    template = Template.fromStack(buildJobsApi(app, TEMPLATE_ONLY));
    nagFindings = findingsOf(app);
    defaults = Template.fromStack(
      buildJobsApi(new App({ context: { 'aws:cdk:bundling-stacks': [], ...ALARM_SUBSCRIBER } }), TEMPLATE_ONLY),
    );
  });

  const rules = (): Record<string, unknown>[] =>
    Object.values(template.findResources('AWS::WAFv2::WebACL'))[0]?.Properties.Rules as Record<string, unknown>[];

  it('deploys no web ACL by default', () => {
    defaults.resourceCountIs('AWS::WAFv2::WebACL', 0);
    defaults.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
  });

  it('puts a regional web ACL that allows by default in front of the API stage', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    template.hasResourceProperties('AWS::WAFv2::WebACL', { Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    const stageId = Object.keys(template.findResources('AWS::ApiGateway::Stage'))[0] as string;
    const association = Object.values(template.findResources('AWS::WAFv2::WebACLAssociation'))[0];
    expect(JSON.stringify(association?.Properties.ResourceArn)).toContain(stageId);
  });

  it('limits each source address to ipRateLimit requests a minute', () => {
    expect(rules()).toContainEqual(
      expect.objectContaining({
        Action: { Block: {} },
        Statement: { RateBasedStatement: { Limit: 600, EvaluationWindowSec: 60, AggregateKeyType: 'IP' } },
      }),
    );
  });

  it('limits each client token from each source address to clientRateLimit requests a minute', () => {
    expect(rules()).toContainEqual(
      expect.objectContaining({
        Name: 'PerClientTokenAndAddress',
        Action: { Block: {} },
        Statement: {
          RateBasedStatement: {
            Limit: 3000,
            EvaluationWindowSec: 60,
            AggregateKeyType: 'CUSTOM_KEYS',
            CustomKeys: [
              { Header: { Name: 'x-client-token', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } },
              { IP: {} },
            ],
          },
        },
      }),
    );
  });

  it('lets no client-token flood block the real application: no rule counts the token alone', () => {
    // WAF counts a rate-based rule per unique combination of its aggregation keys (a request missing one is
    // not counted). Played over the synthesized rules: someone who extracted the token from the public app
    // floods from their own address; the application's backend signs its users in from its own.
    const token = 'public-app-token';
    const flood = Array.from({ length: 5_000 }, () => ({ token, ip: '198.51.100.66', path: '/prod/sessions' }));
    const backend = Array.from({ length: 50 }, () => ({ token, ip: '203.0.113.10', path: '/prod/sessions' }));
    type Request = (typeof flood)[number];
    interface RateRule {
      Statement: {
        RateBasedStatement: { Limit: number; AggregateKeyType: string; CustomKeys?: Record<string, unknown>[] };
      };
    }
    const rateRules = rules() as unknown as RateRule[];
    const keyOf = (rule: RateRule, request: Request): string => {
      const statement = rule.Statement.RateBasedStatement;
      if (statement.AggregateKeyType === 'IP') return request.ip;
      return (statement.CustomKeys ?? []).map((key) => ('IP' in key ? request.ip : request.token)).join('|');
    };
    const blocked = (request: Request, counts: Map<string, number>[]): boolean =>
      rateRules.some(
        (rule, index) => (counts[index]!.get(keyOf(rule, request)) ?? 0) > rule.Statement.RateBasedStatement.Limit,
      );
    const counts = rateRules.map(() => new Map<string, number>());
    for (const request of [...flood, ...backend]) {
      rateRules.forEach((rule, index) => {
        const key = keyOf(rule, request);
        counts[index]!.set(key, (counts[index]!.get(key) ?? 0) + 1);
      });
    }
    expect(blocked(flood[0]!, counts)).toBe(true);
    expect(blocked(backend[0]!, counts)).toBe(false);
  });

  it('never samples requests, which would show client and session tokens in the console', () => {
    const acl = Object.values(template.findResources('AWS::WAFv2::WebACL'))[0]?.Properties;
    const configs = [acl.VisibilityConfig, ...rules().map((rule) => rule.VisibilityConfig)];
    expect(configs).toHaveLength(4);
    for (const config of configs)
      expect(config).toMatchObject({ SampledRequestsEnabled: false, CloudWatchMetricsEnabled: true });
  });

  it('answers a blocked request 503 with Retry-After and the contract body, not WAF’s bare 403', () => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'WAF_FILTERED',
      StatusCode: '503',
      ResponseParameters: Match.objectLike({ 'gatewayresponse.header.Retry-After': "'60'" }),
    });
    expect(JSON.stringify(rules())).not.toContain('CustomResponse');
  });

  it('passes cdk-nag with the web ACL in place', () => {
    expect(nagFindings).toEqual([]);
  });

  it('limits POST /sessions per client token and source address apart, to sessionRateLimit requests a minute', () => {
    expect(rules()).toContainEqual(
      expect.objectContaining({
        Name: 'SessionsPerClientTokenAndAddress',
        Action: { Block: {} },
        Statement: {
          RateBasedStatement: {
            Limit: DEFAULT_CONFIG.sessionRateLimit,
            EvaluationWindowSec: 60,
            AggregateKeyType: 'CUSTOM_KEYS',
            CustomKeys: [
              { Header: { Name: 'x-client-token', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } },
              { IP: {} },
            ],
            ScopeDownStatement: {
              AndStatement: {
                Statements: [
                  {
                    ByteMatchStatement: {
                      FieldToMatch: { Method: {} },
                      SearchString: 'POST',
                      PositionalConstraint: 'EXACTLY',
                      TextTransformations: [{ Priority: 0, Type: 'NONE' }],
                    },
                  },
                  {
                    ByteMatchStatement: {
                      FieldToMatch: { UriPath: {} },
                      SearchString: '/sessions',
                      PositionalConstraint: 'ENDS_WITH',
                      TextTransformations: [{ Priority: 0, Type: 'NONE' }],
                    },
                  },
                ],
              },
            },
          },
        },
      }),
    );
  });

  it('adds one rule per limit that is set, besides the sessions rule', () => {
    const one = Template.fromStack(
      buildJobsApi(
        new App({ context: { 'aws:cdk:bundling-stacks': [], ...ALARM_SUBSCRIBER, ipRateLimit: '100' } }),
        TEMPLATE_ONLY,
      ),
    );
    const only = Object.values(one.findResources('AWS::WAFv2::WebACL'))[0]?.Properties.Rules as { Name: string }[];
    expect(only.map((rule) => rule.Name)).toEqual(['PerSourceAddress', 'SessionsPerClientTokenAndAddress']);
  });
});

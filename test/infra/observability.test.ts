/**
 * What an operator finds after `cdk deploy`: alarms that reach somebody (a protected stage must name whom), API Gateway's
 * execution logs in a log group the stack owns, and a dashboard covering every endpoint and function.
 */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { pathsOf } from '../../functions/http/routes';
import { buildJobsApi } from '../../lib/app';
import { TEMPLATE_ONLY } from './template-only';
import type { JobsApiStack } from '../../lib/jobs-api-stack';
import { STACK_OUTPUTS } from '../../lib/stack-outputs';
import { alarmDeliveries, judgePublish, resolverFor, topicPoliciesOf } from '../support/alarm-delivery';

type Json = Record<string, unknown>;

const synthesize = (context: Json = {}): { stack: JobsApiStack; template: Template } => {
  const stack = buildJobsApi(new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } }), TEMPLATE_ONLY);
  return { stack, template: Template.fromStack(stack) };
};

let stack: JobsApiStack;
let template: Template;

const resourcesOf = (from: Template, type: string): Record<string, Json> =>
  from.findResources(type) as Record<string, Json>;
const propertiesOf = (resource: Json | undefined): Json => (resource?.Properties ?? {}) as Json;

/** A `Fn::Join` of strings and references as one string, each reference written `<<LogicalId>>`. */
const joined = (value: unknown): string => {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join === undefined) {
    const reference = value as { Ref?: string; 'Fn::GetAtt'?: string[] };
    return `<<${reference.Ref ?? reference['Fn::GetAtt']?.join('.') ?? JSON.stringify(value)}>>`;
  }
  return join[1].map(joined).join(join[0]);
};

/** How long one synthesis may take on a busy machine. */
const SYNTHESIS_TIMEOUT = 120_000;

beforeAll(() => {
  // The default (protected) stage, with the address it must have for its alarms.
  ({ stack, template } = synthesize({ alarmEmail: 'ops@example.com' }));
}, SYNTHESIS_TIMEOUT);

describe('alarm notifications', () => {
  it('creates a topic for the alarms when no alarmTopicArn is given, encrypted in transit only', () => {
    const topics = resourcesOf(template, 'AWS::SNS::Topic');
    expect(Object.keys(topics)).toHaveLength(1);
    expect(propertiesOf(Object.values(topics)[0]).DisplayName).toBe('Jobs API prod alarms');
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('subscribes the alarmEmail address to the stack’s topic', () => {
    const [topicId] = Object.keys(resourcesOf(template, 'AWS::SNS::Topic'));
    template.resourceCountIs('AWS::SNS::Subscription', 1);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: topicId },
    });
  });

  it('gives every alarm an action when it fires and when it recovers, on the stack’s topic', () => {
    const [topicId] = Object.keys(resourcesOf(template, 'AWS::SNS::Topic'));
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map(propertiesOf);
    expect(alarms.length).toBe(stack.alarms.alarms.length);
    expect(alarms.length).toBeGreaterThanOrEqual(13);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions, alarm.AlarmDescription as string).toEqual([{ Ref: topicId }]);
      expect(alarm.OKActions, alarm.AlarmDescription as string).toEqual([{ Ref: topicId }]);
      expect(alarm.ActionsEnabled).not.toBe(false);
    }
  });

  // alarmTopicArn in place of the topic: test/infra/stack-config.test.ts.
});

describe('alarm delivery, as SNS judges CloudWatch publishing to the topic', () => {
  const target = { account: '123456789012', region: 'eu-west-1' };
  const resources = () => template.toJSON().Resources as Record<string, { Type: string; Properties?: Json }>;
  const topicPolicy = () => {
    const resolve = resolverFor(resources(), target);
    const [topicArn, policy] = [...topicPoliciesOf(resources(), resolve)][0]!;
    return { topicArn, policy, resolve };
  };

  it('lets cloudwatch.amazonaws.com publish every action of every alarm under the synthesized topic policy', async () => {
    const deliveries = await alarmDeliveries(template.toJSON() as never, target);
    expect(deliveries.length).toBe(2 * stack.alarms.alarms.length);
    const undelivered = deliveries.filter((delivery) => delivery.verdict !== 'Allowed');
    expect(undelivered.map((delivery) => `${delivery.alarm} → ${delivery.topicArn}: ${delivery.verdict}`)).toEqual([]);
  });

  it('encrypts the topic with no KMS key, whose key policy CloudWatch would also need to be allowed by', () => {
    // A customer managed key would need kms:Decrypt and kms:GenerateDataKey* for cloudwatch.amazonaws.com in
    // its key policy, and SNS's AWS-managed key cannot grant them: alarms could not publish.
    for (const topic of Object.values(resourcesOf(template, 'AWS::SNS::Topic'))) {
      expect(propertiesOf(topic).KmsMasterKeyId).toBeUndefined();
    }
  });

  it('keeps the deny without TLS beside the statement that lets the alarms publish', async () => {
    const { topicArn, policy, resolve } = topicPolicy();
    const alarm = {
      arn: resolve({
        'Fn::GetAtt': [Object.keys(resourcesOf(template, 'AWS::CloudWatch::Alarm'))[0], 'Arn'],
      }) as string,
      account: target.account,
    };
    expect(await judgePublish(topicArn, policy, alarm, false)).toBe('ExplicitlyDenied');
  });

  it('lets only this stack’s alarms in this account publish', async () => {
    const { topicArn, policy } = topicPolicy();
    const foreign = `arn:aws:cloudwatch:${target.region}:${target.account}:alarm:someone-elses-alarm`;
    expect(await judgePublish(topicArn, policy, { arn: foreign, account: target.account })).toBe('ImplicitlyDenied');
    const [alarmId] = Object.keys(resourcesOf(template, 'AWS::CloudWatch::Alarm'));
    const otherAccount = `arn:aws:cloudwatch:${target.region}:210987654321:alarm:${alarmId}`;
    expect(await judgePublish(topicArn, policy, { arn: otherAccount, account: '210987654321' })).toBe(
      'ImplicitlyDenied',
    );
  });

  it('would fail delivery under the TLS deny alone, as SNS answers a policy that replaces its default one', async () => {
    const { topicArn, policy, resolve } = topicPolicy();
    const denyOnly = { ...policy, Statement: policy.Statement.filter((statement) => statement.Effect === 'Deny') };
    const [alarmId] = Object.keys(resourcesOf(template, 'AWS::CloudWatch::Alarm'));
    const alarm = { arn: resolve({ 'Fn::GetAtt': [alarmId, 'Arn'] }) as string, account: target.account };
    expect(await judgePublish(topicArn, denyOnly, alarm)).toBe('ImplicitlyDenied');
  });
});

describe('an unprotected stage without an alarm subscriber', () => {
  let unwatched: Template;

  beforeAll(() => {
    // A throw-away stage may leave its topic without a subscriber (a protected one may not: stack-config.test.ts).
    ({ template: unwatched } = synthesize({ deletionProtection: 'false' }));
  }, SYNTHESIS_TIMEOUT);

  it('still creates the topic every alarm notifies, with no subscription', () => {
    const [topicId] = Object.keys(resourcesOf(unwatched, 'AWS::SNS::Topic'));
    expect(topicId).toBeDefined();
    unwatched.resourceCountIs('AWS::SNS::Subscription', 0);
    for (const alarm of Object.values(resourcesOf(unwatched, 'AWS::CloudWatch::Alarm')).map(propertiesOf)) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
    }
  });
});

describe('API Gateway’s execution logs', () => {
  it('go to a log group the stack creates under API Gateway’s own name for the stage, with retention, deleted with the stack', () => {
    const apiId = stack.getLogicalId(stack.restApi.api.node.defaultChild as never);
    const groups = Object.entries(resourcesOf(template, 'AWS::Logs::LogGroup')).filter(([, group]) =>
      joined(propertiesOf(group).LogGroupName).startsWith('API-Gateway-Execution-Logs_'),
    );
    expect(groups).toHaveLength(1);
    const [id, group] = groups[0] as [string, Json];
    expect(joined(propertiesOf(group).LogGroupName)).toBe(`API-Gateway-Execution-Logs_<<${apiId}>>/prod`);
    // The configured retentionDays (90 by default; every log group keeps another value: stack-config.test.ts).
    expect(propertiesOf(group).RetentionInDays).toBe(90);
    expect(group.DeletionPolicy).toBe('Delete');
    expect(group.UpdateReplacePolicy).toBe('Delete');
    // The stage logs from its creation on, so the group must exist before it or API Gateway creates its own.
    const [stage] = Object.values(resourcesOf(template, 'AWS::ApiGateway::Stage'));
    expect(stage?.DependsOn).toContain(id);
  });
});

describe('the dashboard', () => {
  interface Widget {
    type: string;
    properties: {
      title?: string;
      metrics?: unknown[][];
      markdown?: string;
      annotations?: { horizontal?: { value: number; label?: string }[] };
    };
  }
  let widgets: Widget[];
  /** Every metric line of the dashboard, as text: the expression, or namespace, name and dimensions. */
  let lines: string[];

  beforeAll(() => {
    const dashboards = Object.values(resourcesOf(template, 'AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    widgets = (JSON.parse(joined(propertiesOf(dashboards[0]).DashboardBody)) as { widgets: Widget[] }).widgets;
    lines = widgets.flatMap((widget) => (widget.properties.metrics ?? []).map((line) => JSON.stringify(line)));
  });

  const linesOf = (title: RegExp): string[] =>
    widgets
      .filter((widget) => title.test(widget.properties.title ?? ''))
      .flatMap((widget) => (widget.properties.metrics ?? []).map((line) => JSON.stringify(line)));

  it('shows requests, p50 and p99 latency, 4xx and 5xx for every endpoint of the route table', () => {
    const figures = [
      [/^Requests per endpoint/, 'Count', 'Sum'],
      [/^Latency p50/, 'Latency', 'p50'],
      [/^Latency p99/, 'Latency', 'p99'],
      [/^4xx/, '4XXError', 'Sum'],
      [/^5xx/, '5XXError', 'Sum'],
    ] as const;
    const paths = pathsOf();
    expect(paths.length).toBeGreaterThan(0);
    for (const [title, metric, statistic] of figures) {
      const shown = linesOf(title);
      expect(shown, String(title)).toHaveLength(paths.length);
      for (const route of paths.map((path) => ({ path }))) {
        const search =
          `SEARCH('{AWS/ApiGateway,ApiName,Method,Resource,Stage} MetricName="${metric}" ApiName="jobs-api-prod" ` +
          `Stage="prod" Resource="${route.path}"', '${statistic}', 60)`;
        expect(shown, `${metric} ${statistic} of ${route.path}`).toContainEqual(
          expect.stringContaining(JSON.stringify(search).slice(1, -1)),
        );
      }
    }
  });

  it('shows errors, throttles and concurrency of every function', () => {
    const functionIds = Object.keys(resourcesOf(template, 'AWS::Lambda::Function'));
    expect(functionIds.length).toBeGreaterThanOrEqual(4);
    for (const [title, metric] of [
      [/^Function errors/, 'Errors'],
      [/^Function throttles/, 'Throttles'],
      [/^Function concurrency/, 'ConcurrentExecutions'],
    ] as const) {
      const shown = linesOf(title);
      for (const id of functionIds) {
        expect(shown, `${metric} of ${id}`).toContainEqual(
          expect.stringContaining(`"AWS/Lambda","${metric}","FunctionName","<<${id}>>"`),
        );
      }
    }
  });

  it('shows the search lag (the stream’s iterator age) and the dead letters', () => {
    expect(linesOf(/^Search lag/)).toEqual([
      expect.stringContaining('"AWS/Lambda","IteratorAge","FunctionName","<<IndexerFunction>>"'),
    ]);
    const queueId = stack.getLogicalId(stack.streamIndexer.deadLetterQueue.node.defaultChild as never);
    expect(linesOf(/^Dead letters/)).toEqual([
      expect.stringContaining(`"AWS/SQS","ApproximateNumberOfMessagesVisible","QueueName","<<${queueId}.QueueName>>"`),
    ]);
  });

  it('shows the events’ batches, their lag behind the stream with the alarm’s threshold, and their dead letters', () => {
    expect(linesOf(/^Events: stream batches/)).toEqual(
      ['Invocations', 'Errors', 'Throttles'].map((metric) =>
        expect.stringContaining(`"AWS/Lambda","${metric}","FunctionName","<<EventsFunction>>"`),
      ),
    );
    expect(linesOf(/^Events lag/)).toEqual([
      expect.stringContaining('"AWS/Lambda","IteratorAge","FunctionName","<<EventsFunction>>"'),
    ]);
    const marked = widgets
      .filter((widget) => /^Events lag/.test(widget.properties.title ?? ''))
      .flatMap((widget) => widget.properties.annotations?.horizontal ?? []);
    expect(marked).toEqual([expect.objectContaining({ value: 60_000, label: 'Alarm' })]);
    const queueId = stack.getLogicalId(stack.eventPublishing.deadLetterQueue.node.defaultChild as never);
    expect(linesOf(/^Events: dead letters/)).toEqual([
      expect.stringContaining(`"AWS/SQS","ApproximateNumberOfMessagesVisible","QueueName","<<${queueId}.QueueName>>"`),
    ]);
  });

  it('shows the webhooks’ sender batches and the dead letters it gave up on', () => {
    expect(linesOf(/^Webhooks: sender batches/)).toEqual(
      ['Invocations', 'Errors', 'Throttles'].map((metric) =>
        expect.stringContaining(`"AWS/Lambda","${metric}","FunctionName","<<WebhooksSenderFunction>>"`),
      ),
    );
    const queueId = stack.getLogicalId(stack.webhookDelivery.deadLetterQueue.node.defaultChild as never);
    expect(linesOf(/^Webhooks: dead letters/)).toEqual([
      expect.stringContaining(`"AWS/SQS","ApproximateNumberOfMessagesVisible","QueueName","<<${queueId}.QueueName>>"`),
    ]);
  });

  it('shows the search cluster’s status, blocked writes, JVM memory pressure and free storage', () => {
    const shown = lines.filter((line) => line.includes('"AWS/ES"'));
    for (const metric of [
      'ClusterStatus.green',
      'ClusterStatus.yellow',
      'ClusterStatus.red',
      'ClusterIndexWritesBlocked',
      'JVMMemoryPressure',
      'FreeStorageSpace',
    ]) {
      expect(shown, metric).toContainEqual(expect.stringContaining(`"AWS/ES","${metric}"`));
    }
  });

  it('marks the alarm thresholds on the 5xx share, JVM memory pressure and free storage graphs', () => {
    const alarmLine = (title: RegExp): number[] =>
      widgets
        .filter((widget) => title.test(widget.properties.title ?? ''))
        .flatMap((widget) => widget.properties.annotations?.horizontal ?? [])
        .filter((annotation) => annotation.label === 'Alarm')
        .map((annotation) => annotation.value);
    expect(alarmLine(/^API 5xx share of requests/)).toEqual([5]);
    expect(alarmLine(/^Search JVM memory pressure/)).toEqual([80]);
    // A quarter of the default 20 GiB volume, in MiB.
    expect(alarmLine(/^Search free storage/)).toEqual([5120]);
  });

  it('graphs the 5xx share the Api5xx alarm watches', () => {
    const shown = linesOf(/^API 5xx share of requests/).join('\n');
    expect(shown).toContain('IF(FILL(requests, 0) >= 100');
    expect(shown).toContain('"AWS/ApiGateway","5XXError"');
    expect(shown).toContain('"AWS/ApiGateway","Count"');
  });

  it('is named by the DashboardUrl output', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    const [dashboardId] = Object.keys(resourcesOf(template, 'AWS::CloudWatch::Dashboard'));
    expect(joined(outputs[STACK_OUTPUTS.dashboardUrl]?.Value)).toBe(
      `https://console.aws.amazon.com/cloudwatch/home?region=<<AWS::Region>>#dashboards/dashboard/<<${dashboardId}>>`,
    );
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', {
      DashboardName: { 'Fn::Join': ['', ['jobs-api-prod-', { Ref: 'AWS::Region' }]] },
    });
  });
});

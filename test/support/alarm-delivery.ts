/**
 * Whether each alarm of a synthesized stack can deliver its notifications: every action of every alarm
 * (`AlarmActions`, `OKActions`) is judged as SNS judges CloudWatch's `sns:Publish` on the topic, by AWS's
 * policy evaluation (`@cloud-copilot/iam-simulate`, the rehearsals' evaluator): the service principal
 * `cloudwatch.amazonaws.com`, over TLS, with the alarm's ARN and account as `aws:SourceArn` and
 * `aws:SourceAccount`, under the topic's resource policy (the template's `AWS::SNS::TopicPolicy`, or the
 * policy given for a topic the stack does not own).
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';

type Json = Record<string, unknown>;

/** An IAM policy document. */
export interface PolicyDocument {
  Version?: string;
  Statement: Json[];
}

/** Where the template is deployed, for resolving its references. */
export interface DeliveryTarget {
  account: string;
  region: string;
  /** The policy of a topic the template does not hold a policy for (a topic given by `alarmTopicArn`). */
  externalTopicPolicy?: (topicArn: string) => PolicyDocument;
}

/** One alarm action and the evaluation's verdict on CloudWatch publishing it. */
export interface Delivery {
  alarm: string;
  alarmArn: string;
  topicArn: string;
  /** `Allowed`, `ImplicitlyDenied`, `ExplicitlyDenied`, or why it could not be judged. */
  verdict: string;
}

interface Resource {
  Type: string;
  Properties?: Json;
}

/** The template's references resolved as CloudFormation would in `target`'s account and region. */
export const resolverFor = (resources: Record<string, Resource>, target: DeliveryTarget) => {
  const arnOf = (id: string): string => {
    switch (resources[id]?.Type) {
      case 'AWS::SNS::Topic':
        return `arn:aws:sns:${target.region}:${target.account}:${id}`;
      case 'AWS::CloudWatch::Alarm':
        return `arn:aws:cloudwatch:${target.region}:${target.account}:alarm:${id}`;
      default:
        throw new Error(`No ARN known for ${id} (${resources[id]?.Type ?? 'not in the template'})`);
    }
  };
  const pseudo: Record<string, string> = {
    'AWS::AccountId': target.account,
    'AWS::Region': target.region,
    'AWS::Partition': 'aws',
    'AWS::URLSuffix': 'amazonaws.com',
  };
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (typeof value !== 'object' || value === null) return value;
    const node = value as Json;
    if ('Ref' in node) return pseudo[String(node.Ref)] ?? arnOf(String(node.Ref));
    if ('Fn::GetAtt' in node) return arnOf((node['Fn::GetAtt'] as string[])[0] as string);
    if ('Fn::Join' in node) {
      const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
      return (resolve(parts) as unknown[]).join(separator);
    }
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, resolve(child)]));
  };
  return resolve;
};

/** CloudWatch's `sns:Publish` for one alarm, judged under a topic policy. */
export const judgePublish = async (
  topicArn: string,
  policy: PolicyDocument,
  alarm: { arn: string; account: string },
  overTls = true,
): Promise<string> => {
  const response = await runSimulation(
    {
      identityPolicies: [],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      resourcePolicy: policy,
      request: {
        principal: 'cloudwatch.amazonaws.com',
        action: 'sns:Publish',
        resource: { resource: topicArn, accountId: topicArn.split(':')[4] ?? '' },
        contextVariables: {
          'aws:SourceArn': alarm.arn,
          'aws:SourceAccount': alarm.account,
          'aws:SecureTransport': String(overTls),
        },
      },
    },
    {},
  );
  if (response.resultType === 'error') return `not evaluable: ${JSON.stringify(response.errors)}`;
  return response.overallResult;
};

/** The topic policies of the template, by the ARN of each topic they apply to. */
export const topicPoliciesOf = (
  resources: Record<string, Resource>,
  resolve: (value: unknown) => unknown,
): Map<string, PolicyDocument> => {
  const policies = new Map<string, PolicyDocument>();
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::SNS::TopicPolicy') continue;
    const document = resolve(resource.Properties?.PolicyDocument) as PolicyDocument;
    for (const topic of resolve(resource.Properties?.Topics) as string[]) {
      const statements = policies.get(topic)?.Statement ?? [];
      policies.set(topic, { ...document, Statement: [...statements, ...document.Statement] });
    }
  }
  return policies;
};

/** Every action of every alarm of `template`, with the verdict on its delivery. */
export const alarmDeliveries = async (
  template: { Resources: Record<string, Resource> },
  target: DeliveryTarget,
): Promise<Delivery[]> => {
  const resources = template.Resources;
  const resolve = resolverFor(resources, target);
  const policies = topicPoliciesOf(resources, resolve);
  const deliveries: Delivery[] = [];
  for (const [id, resource] of Object.entries(resources)) {
    if (resource.Type !== 'AWS::CloudWatch::Alarm') continue;
    const alarmArn = resolve({ 'Fn::GetAtt': [id, 'Arn'] }) as string;
    const properties = resource.Properties ?? {};
    const actions = [
      ...((properties.AlarmActions as unknown[] | undefined) ?? []),
      ...((properties.OKActions as unknown[] | undefined) ?? []),
    ].map((action) => String(resolve(action)));
    for (const topicArn of actions) {
      const policy = policies.get(topicArn) ?? target.externalTopicPolicy?.(topicArn);
      const verdict = !topicArn.startsWith('arn:aws:sns:')
        ? `not a topic: ${topicArn}`
        : policy === undefined
          ? 'no topic policy'
          : await judgePublish(topicArn, policy, { arn: alarmArn, account: target.account });
      deliveries.push({ alarm: id, alarmArn, topicArn, verdict });
    }
  }
  return deliveries;
};

/**
 * The synthesized stack as the rehearsal reads it: CloudFormation intrinsics resolved to a fixed test
 * account and region, each function's role with its identity policies and environment, and the search
 * domain's access policy.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import { buildJobsApi } from '../../lib/app';
import { ALARM_SUBSCRIBER, TEMPLATE_ONLY } from '../infra/template-only';
import type { HandlerFunction } from '../../lib/handler-function';
import type { FunctionName, JobsApiStack } from '../../lib/jobs-api-stack';

import { ACCOUNT, type PolicyDocument, REGION } from './account';

export { ACCOUNT, REGION, type PolicyDocument };

type Json = Record<string, unknown>;
interface Resource {
  Type: string;
  Properties?: Json;
}

/**
 * The functions the rehearsal runs: the stack's handlers, the deploy-time search index setup and the
 * tables' deletion protection.
 */
export type RehearsedName = FunctionName | 'SearchIndexSetup' | 'TableProtection';

/** What the rehearsal needs of one function. */
export interface RehearsedFunction {
  name: RehearsedName;
  roleArn: string;
  identityPolicies: PolicyDocument[];
  environment: Record<string, string>;
}

/** The synthesized stack, resolved. */
export interface RehearsalTemplate {
  functions: Record<RehearsedName, RehearsedFunction>;
  domainName: string;
  domainArn: string;
  domainAccessPolicy: PolicyDocument;
  /** The ARN of a table by its stack role (`jobs` or `auth`). */
  tableArn: (which: 'jobs' | 'auth') => string;
  stackName: string;
  /** The stack's ARN (`AWS::StackId`). */
  stackId: string;
  /** The stack's outputs, resolved. */
  outputs: Record<string, string>;
  /** The operator's managed policy (`OperatorPolicyArn`), resolved. */
  operatorPolicy: PolicyDocument;
}

/**
 * Synthesizes the app (without bundling) and resolves what the rehearsal needs. Tables get the physical
 * names the test created them under on DynamoDB Local.
 */
export const synthesizeForRehearsal = (tableNames: { jobs: string; auth: string }): RehearsalTemplate => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...ALARM_SUBSCRIBER } });
  // Control Tower's rules are test/infra/control-tower.test.ts's witness; the rehearsal needs the template.
  const stack: JobsApiStack = buildJobsApi(app, TEMPLATE_ONLY);
  const synthesized = Template.fromStack(stack).toJSON() as {
    Resources: Record<string, Resource>;
    Outputs: Record<string, { Value: unknown }>;
  };
  const resources = synthesized.Resources;
  const logicalIdOf = (construct: { node: { defaultChild?: unknown } }): string =>
    stack.getLogicalId(construct.node.defaultChild as CfnRole);
  const jobsId = logicalIdOf(stack.jobsTable.table);
  const authId = logicalIdOf(stack.authTable.table);
  const domainId = logicalIdOf(stack.searchDomain.domain);
  let domainName = domainId.toLowerCase();

  const nameOf = (id: string): string => {
    if (id === jobsId) return tableNames.jobs;
    if (id === authId) return tableNames.auth;
    if (id === domainId) return domainName;
    // A queue's Ref is its URL.
    if (resources[id]?.Type === 'AWS::SQS::Queue') return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${id}`;
    // An event bus's Ref is its name.
    if (resources[id]?.Type === 'AWS::Events::EventBus') return String(resources[id]?.Properties?.Name ?? id);
    // A managed policy's Ref is its ARN.
    if (resources[id]?.Type === 'AWS::IAM::ManagedPolicy') return `arn:aws:iam::${ACCOUNT}:policy/${id}`;
    // A secret's Ref is its ARN (its name and six random characters).
    if (resources[id]?.Type === 'AWS::SecretsManager::Secret') {
      return `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${id}-AbCdEf`;
    }
    return id;
  };
  const arnOf = (id: string, attribute: string): string => {
    const type = resources[id]?.Type;
    switch (type) {
      case 'AWS::DynamoDB::Table':
      case 'AWS::DynamoDB::GlobalTable':
        return attribute === 'StreamArn'
          ? `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${nameOf(id)}/stream/2026-01-01T00:00:00.000`
          : `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${nameOf(id)}`;
      case 'AWS::IAM::Role':
        return `arn:aws:iam::${ACCOUNT}:role/${id}`;
      case 'AWS::OpenSearchService::Domain':
        if (attribute === 'DomainEndpoint') return `search-${domainName}-rehearsal.${REGION}.es.amazonaws.com`;
        return `arn:aws:es:${REGION}:${ACCOUNT}:domain/${domainName}`;
      case 'AWS::Logs::LogGroup':
        return `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${id}:*`;
      case 'AWS::SQS::Queue':
        return attribute === 'QueueName' ? id : `arn:aws:sqs:${REGION}:${ACCOUNT}:${id}`;
      case 'AWS::SNS::Topic':
        return `arn:aws:sns:${REGION}:${ACCOUNT}:${id}`;
      case 'AWS::Events::EventBus':
        return attribute === 'Name' ? nameOf(id) : `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${nameOf(id)}`;
      case 'AWS::Lambda::Function':
        return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${id}`;
      default:
        return `arn:aws:rehearsal:${REGION}:${ACCOUNT}:${id}/${attribute}`;
    }
  };
  const pseudo: Record<string, string> = {
    'AWS::AccountId': ACCOUNT,
    'AWS::Region': REGION,
    'AWS::Partition': 'aws',
    'AWS::URLSuffix': 'amazonaws.com',
    'AWS::StackName': stack.stackName,
    'AWS::NoValue': '',
    'AWS::StackId': `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${stack.stackName}/3f9a1c2b-7d4e-4a8b-9c0d-1e2f3a4b5c6d`,
  };
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (typeof value !== 'object' || value === null) return value;
    const node = value as Json;
    if ('Ref' in node) {
      const id = String(node.Ref);
      return pseudo[id] ?? nameOf(id);
    }
    if ('Fn::GetAtt' in node) {
      const [id, attribute] = node['Fn::GetAtt'] as [string, string];
      return arnOf(id, attribute);
    }
    if ('Fn::Join' in node) {
      const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
      return (resolve(parts) as unknown[]).join(separator);
    }
    if ('Fn::Sub' in node) {
      const [text, variables] = (Array.isArray(node['Fn::Sub']) ? node['Fn::Sub'] : [node['Fn::Sub'], {}]) as [
        string,
        Json,
      ];
      return text.replace(/\$\{([^}]+)\}/g, (_, reference: string) => {
        if (reference in variables) return String(resolve(variables[reference]));
        if (reference in pseudo) return pseudo[reference] as string;
        const [id, attribute] = reference.split('.');
        return attribute === undefined ? nameOf(id as string) : arnOf(id as string, attribute);
      });
    }
    if ('Fn::Select' in node) {
      const [index, list] = node['Fn::Select'] as [number, unknown];
      return (resolve(list) as unknown[])[Number(index)];
    }
    if ('Fn::Split' in node) {
      const [separator, text] = node['Fn::Split'] as [string, unknown];
      return String(resolve(text)).split(separator);
    }
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, resolve(child)]));
  };

  domainName = String(resolve(resources[domainId]?.Properties?.DomainName ?? domainName));

  const functions = {} as Record<RehearsedName, RehearsedFunction>;
  const rehearsed: Record<RehearsedName, HandlerFunction> = {
    ...stack.functions,
    SearchIndexSetup: stack.searchIndexSetup.handler,
    TableProtection: stack.tableDeletionProtection.handler,
  };
  for (const [name, fn] of Object.entries(rehearsed) as [RehearsedName, HandlerFunction][]) {
    const roleId = stack.getLogicalId(fn.role.node.defaultChild as CfnRole);
    const functionId = Object.keys(resources).find(
      (id) =>
        resources[id]?.Type === 'AWS::Lambda::Function' &&
        JSON.stringify(resources[id]?.Properties?.Role) === JSON.stringify({ 'Fn::GetAtt': [roleId, 'Arn'] }),
    );
    if (functionId === undefined) throw new Error(`No function runs as ${roleId}`);
    const identityPolicies = Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::IAM::Policy')
      .filter((resource) => JSON.stringify(resource.Properties?.Roles).includes(`"${roleId}"`))
      .map((resource) => resolve(resource.Properties?.PolicyDocument) as PolicyDocument);
    const variables = (resources[functionId]?.Properties?.Environment as { Variables?: Json } | undefined)?.Variables;
    functions[name] = {
      name,
      roleArn: arnOf(roleId, 'Arn'),
      identityPolicies,
      environment: Object.fromEntries(
        Object.entries((resolve(variables ?? {}) as Json) ?? {}).map(([key, value]) => [key, String(value)]),
      ),
    };
  }
  return {
    functions,
    domainName,
    domainArn: arnOf(domainId, 'Arn'),
    domainAccessPolicy: resolve(resources[domainId]?.Properties?.AccessPolicies) as PolicyDocument,
    tableArn: (which) => arnOf(which === 'jobs' ? jobsId : authId, 'Arn'),
    stackName: stack.stackName,
    stackId: pseudo['AWS::StackId'] as string,
    outputs: Object.fromEntries(
      Object.entries(synthesized.Outputs).map(([key, output]) => [key, String(resolve(output.Value))]),
    ),
    operatorPolicy: resolve(
      resources[logicalIdOf(stack.operatorPolicy.policy)]?.Properties?.PolicyDocument,
    ) as PolicyDocument,
  };
};

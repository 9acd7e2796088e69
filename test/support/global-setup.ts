/**
 * One DynamoDB Local (in memory) for the whole test run, on a free port. Test files read its endpoint
 * with `inject('dynamodbEndpoint')` and create their own uniquely named tables. Beside it, the scripts the
 * tests run as processes are bundled once (test/support/script-bundles.ts; `inject('scriptBundles')`).
 */
import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local';
import { bundleScripts, type ScriptBundles } from './script-bundles';

let dynamo: DynamoDbLocal | undefined;
let bundles: ScriptBundles | undefined;

export async function setup(project: TestProject): Promise<void> {
  [dynamo, bundles] = await Promise.all([startDynamoDbLocal({ port: 0 }), bundleScripts()]);
  project.provide('dynamodbEndpoint', dynamo.endpoint);
  project.provide('scriptBundles', bundles.scripts);
}

export async function teardown(): Promise<void> {
  await Promise.all([dynamo?.stop(), bundles?.remove()]);
}

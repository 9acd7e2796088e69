/**
 * DynamoDB Local (in memory) for the whole test run, on free ports: one instance per worker of the project, so
 * that one file's heavy request (DynamoDB Local keeps all tables in one database) never holds up the file the
 * other worker runs. Test files find their worker's instance with `sharedDynamodbEndpoint()`
 * (test/support/dynamo.ts) and create their own uniquely named tables. Beside them, the scripts the tests run
 * as processes are bundled once (test/support/script-bundles.ts; `inject('scriptBundles')`).
 */
import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local';
import { bundleScripts, type ScriptBundles } from './script-bundles';

let instances: DynamoDbLocal[] = [];
let bundles: ScriptBundles | undefined;

export async function setup(project: TestProject): Promise<void> {
  // The project whose files run one at a time needs one; the others one per worker.
  const workers = project.name === 'integration-alone' ? 1 : Math.max(1, Number(project.config.maxWorkers) || 1);
  [instances, bundles] = await Promise.all([
    Promise.all(Array.from({ length: workers }, () => startDynamoDbLocal({ port: 0 }))),
    bundleScripts(),
  ]);
  project.provide(
    'dynamodbEndpoints',
    instances.map((instance) => instance.endpoint),
  );
  project.provide('scriptBundles', bundles.scripts);
}

export async function teardown(): Promise<void> {
  await Promise.all([...instances.map((instance) => instance.stop()), bundles?.remove()]);
}

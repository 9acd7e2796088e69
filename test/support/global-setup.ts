/**
 * A temporary directory for the whole run (`TMPDIR`, which the workers and every process they start inherit),
 * removed when the run ends: whatever a test, the code it runs or a process it starts puts under the system's
 * temporary directory (a CDK app's `cdk.out`, a launcher's class file, a scratch copy) goes with it, even where a
 * test forgot to clean up.
 *
 * DynamoDB Local for the whole test run, on free ports: one instance per worker of the project, so that one
 * file's heavy request (DynamoDB Local keeps all tables in one database) never holds up the file the other
 * worker runs. Each keeps its database in a file in memory (`/dev/shm` where there is one, else the run's
 * temporary directory) rather than with `-inMemory`: only a file gets the index DynamoDB Local lacks on its stream
 * records (local/dynamodb/stream-records-index.ts), without which every write costs more than the last as the
 * run's files write and delete their tables. Test files find their worker's instance with
 * `sharedDynamodbEndpoint()` (test/support/dynamo.ts) and create their own uniquely named tables. Beside them, the scripts the tests run
 * as processes are bundled once (test/support/script-bundles.ts; `inject('scriptBundles')`).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local';
import { bundleScripts, type ScriptBundles } from './script-bundles';

let instances: DynamoDbLocal[] = [];
/** The instances' database directories. */
let databases: string[] = [];
let bundles: ScriptBundles | undefined;
/** The run's temporary directory and the one it replaced, when this project's setup made it. */
let runTmp: { own: string; outer: string | undefined } | undefined;

export async function setup(project: TestProject): Promise<void> {
  // The projects' setups share the main process: the first one makes the directory.
  if (!process.env.TMPDIR?.includes('jobs-api-test-run-')) {
    const outer = process.env.TMPDIR;
    const own = mkdtempSync(join(tmpdir(), 'jobs-api-test-run-'));
    process.env.TMPDIR = own;
    runTmp = { own, outer };
  }
  // One per worker.
  const workers = Math.max(1, Number(project.config.maxWorkers) || 1);
  const memory = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  databases = Array.from({ length: workers }, () => mkdtempSync(join(memory, 'jobs-api-test-dynamodb-')));
  [instances, bundles] = await Promise.all([
    Promise.all(databases.map((dataDir) => startDynamoDbLocal({ port: 0, dataDir }))),
    bundleScripts(),
  ]);
  project.provide(
    'dynamodbEndpoints',
    instances.map((instance) => instance.endpoint),
  );
  project.provide('dynamodbDatabases', databases);
  project.provide('scriptBundles', bundles.scripts);
}

export async function teardown(): Promise<void> {
  await Promise.all([...instances.map((instance) => instance.stop()), bundles?.remove()]);
  for (const dataDir of databases) rmSync(dataDir, { recursive: true, force: true });
  databases = [];
  if (runTmp !== undefined) {
    if (runTmp.outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = runTmp.outer;
    rmSync(runTmp.own, { recursive: true, force: true });
    runTmp = undefined;
  }
}

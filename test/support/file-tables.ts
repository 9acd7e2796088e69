/**
 * Setup of the projects that run on DynamoDB Local: the tables a test file creates on its worker's instance
 * (test/support/dynamo.ts: `createTestTables`, `fileJobsTable`, a local stack's own) are deleted when the file
 * ends. The instance is the worker's alone and its files run one after another, so the tables present at a file's
 * end that were not there at its start are that file's. Left in place they would pile up over the run (hundreds
 * per instance), and DynamoDB Local keeps working on every table it holds while no request comes: about
 * 0.05 CPU-seconds a second with a hundred tables against nothing with none.
 */
import { DeleteTableCommand, ListTablesCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { localClient } from './dynamo';

/** Every table of the instance, page by page. */
const listTables = async (client: DynamoDBClient): Promise<string[]> => {
  const names: string[] = [];
  let start: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    names.push(...(page.TableNames ?? []));
    start = page.LastEvaluatedTableName;
  } while (start !== undefined);
  return names;
};

let client: DynamoDBClient | undefined;
let before = new Set<string>();

beforeAll(async () => {
  client = localClient();
  before = new Set(await listTables(client));
});

afterAll(async () => {
  if (client === undefined) return;
  const created = (await listTables(client)).filter((name) => !before.has(name));
  for (const name of created) await client.send(new DeleteTableCommand({ TableName: name }));
  client.destroy();
  client = undefined;
});

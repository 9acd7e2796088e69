/**
 * One DynamoDB Local (in memory) for the whole test run, on a free port. Test files read its endpoint
 * with `inject('dynamodbEndpoint')` and create their own uniquely named tables.
 */
import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local';

let dynamo: DynamoDbLocal | undefined;

export async function setup(project: TestProject): Promise<void> {
  dynamo = await startDynamoDbLocal({ port: 0 });
  project.provide('dynamodbEndpoint', dynamo.endpoint);
}

export async function teardown(): Promise<void> {
  await dynamo?.stop();
}

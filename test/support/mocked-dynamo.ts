/**
 * The document client of unit tests on a mocked DynamoDB: built as the functions build theirs
 * (`createDocumentClient`), pointed at an address nothing listens on, so a call that no mock answers fails
 * at once instead of reaching AWS. Mock it with `mockClient(DynamoDBDocumentClient)`, which stubs every
 * document client's `send`.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../functions/aws/dynamodb';

export const unreachableDocumentClient = (): DynamoDBDocumentClient =>
  createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: 'http://127.0.0.1:9', dependencyTimeoutMs: 1_000 });

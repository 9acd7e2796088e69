/**
 * The DynamoDB clients of a container, created once from the configuration. Bounded timeouts and
 * retries keep every request inside the API's 10-second budget.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Config, config } from '../config';

/** Builds a document client for a configuration (tests pass their own). */
export const createDocumentClient = (settings: Pick<Config, 'region' | 'dynamodbEndpoint' | 'dependencyTimeoutMs'>) =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: settings.region,
      ...(settings.dynamodbEndpoint === undefined ? {} : { endpoint: settings.dynamodbEndpoint }),
      // Two attempts of at most DEPENDENCY_TIMEOUT_MS each (default 3 s): a hanging DynamoDB fails the call in
      // about 6 s, well inside the 10 s answer budget. Without throwOnRequestTimeout the SDK would only warn.
      maxAttempts: 2,
      requestHandler: {
        requestTimeout: settings.dependencyTimeoutMs,
        throwOnRequestTimeout: true,
        connectionTimeout: 1_000,
      },
    }),
    { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false } },
  );

let client: DynamoDBDocumentClient | undefined;

/** The container's document client, created on first use. */
export const documentClient = (): DynamoDBDocumentClient => (client ??= createDocumentClient(config()));

/** Forgets the container's client (the local runtime and tests switch endpoints). */
export const resetDocumentClient = (): void => {
  client?.destroy();
  client = undefined;
};

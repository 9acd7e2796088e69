/**
 * The indexer's dead letters in AWS: one SQS message per job given up on, in the stack's dead-letter queue.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../config';
import type { DeadLetterSink } from './dead-letters';

/** An SQS client with the container's bounded timeouts. */
export const createSqsClient = (settings: Pick<Config, 'region' | 'dependencyTimeoutMs'>): SQSClient =>
  new SQSClient({
    region: settings.region,
    // Requests go to the region's endpoint (or AWS_ENDPOINT_URL_SQS), never to a host a queue URL names.
    useQueueUrlAsEndpoint: false,
    maxAttempts: 2,
    requestHandler: {
      requestTimeout: settings.dependencyTimeoutMs,
      throwOnRequestTimeout: true,
      connectionTimeout: 1_000,
    },
  });

/** Sends each letter as one message (its JSON) to the queue. */
export const sqsDeadLetters = (
  queueUrl: string,
  settings: Pick<Config, 'region' | 'dependencyTimeoutMs'>,
  client: SQSClient = createSqsClient(settings),
): DeadLetterSink => {
  return async (letter) => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(letter) }));
  };
};

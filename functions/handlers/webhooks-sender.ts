/**
 * Lambda entry of the webhooks' sender (docs/contract.md §6c): the SQS event source of the webhooks' queue invokes
 * it with batches of messages. An event from the stage bus is routed into one delivery message per webhook that
 * asked for its type; a delivery is attempted once. A delivery to try again is made invisible until its next
 * attempt and reported failed (`batchItemFailures`), as is any message whose work DynamoDB or SQS refused, so the
 * queue offers it again; a message that is neither is dropped with a log line. A delivery given up on (its 24 hours
 * over, or its webhook disabled for failing) counts one `WebhookDeliveriesFailed` (EMF), which the stack alarms on.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { AuthStore } from '../auth/store';
import { documentClient } from '../aws/dynamodb';
import { config, ConfigError } from '../config';
import { createSqsClient } from '../indexing/sqs-dead-letters';
import { logger, metrics } from '../observability';
import { authKeys } from '../tables';
import {
  attemptDelivery,
  type DeliveryDependencies,
  type DeliveryQueue,
  routeEvents,
  WEBHOOK_DELIVERIES_FAILED_METRIC,
} from '../webhooks/delivery';
import { sendWebhook } from '../webhooks/send';
import { attemptNumberOf, readMessage, retryLater, sqsDeliveryQueue } from '../webhooks/sqs-queue';
import { WebhookStore } from '../webhooks/store';
import type { SQSClient } from '@aws-sdk/client-sqs';

/** What the sender works with; the handler builds it from the container's configuration. */
export interface SenderParts {
  deliveries: DeliveryDependencies;
  queue: DeliveryQueue;
  sqs: SQSClient;
  queueUrl: string;
}

/** The sender over its parts: one result per batch. */
export const createSender =
  (parts: () => SenderParts) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const { deliveries, queue, sqs, queueUrl } = parts();
    const handle = async (record: SQSRecord): Promise<boolean> => {
      const message = readMessage(record.body);
      if (message === undefined) {
        logger.warn('Webhook queue message dropped: neither an event nor a delivery', { messageId: record.messageId });
        return true;
      }
      try {
        if (message.kind === 'event') {
          await routeEvents([message.event], deliveries.store, queue);
          return true;
        }
        const outcome = await attemptDelivery(message.delivery, attemptNumberOf(record, Date.now()), deliveries);
        if (!outcome.retry) {
          if (outcome.failed) metrics.addMetric(WEBHOOK_DELIVERIES_FAILED_METRIC, MetricUnit.Count, 1);
          return true;
        }
        await retryLater(sqs, queueUrl, record, outcome.delayMs);
        return false;
      } catch (error) {
        logger.error('Webhook queue message not handled; the queue offers it again', {
          messageId: record.messageId,
          error: (error as Error).name,
        });
        return false;
      }
    };
    const done = await Promise.all(event.Records.map(handle));
    return {
      batchItemFailures: event.Records.filter((_, index) => !done[index]).map((record) => ({
        itemIdentifier: record.messageId,
      })),
    };
  };

let made: SenderParts | undefined;

/** The parts of this container, over its configured table and queue. */
const containerParts = (): SenderParts => {
  if (made !== undefined) return made;
  const settings = config();
  const queueUrl = settings.webhooks.queueUrl;
  if (queueUrl === undefined) throw new ConfigError('The webhooks sender needs WEBHOOK_QUEUE_URL');
  const client = documentClient();
  const auth = new AuthStore(client, settings.authTable, { timeoutMs: settings.dependencyTimeoutMs });
  const sqs = createSqsClient(settings);
  made = {
    deliveries: {
      store: new WebhookStore(client, settings.authTable, { timeoutMs: settings.dependencyTimeoutMs }),
      readClient: (clientKey) => auth.getClient(clientKey.slice(authKeys.clientPrefix.length)),
      send: sendWebhook,
      policy: settings.webhooks,
      disableAfterMs: settings.webhooks.disableAfterMs,
      allowLocal: false,
      timeoutMs: settings.webhooks.timeoutMs,
    },
    queue: sqsDeliveryQueue(sqs, queueUrl),
    sqs,
    queueUrl,
  };
  return made;
};

/** The Lambda handler. */
export const handler = middy(createSender(containerParts)).use(injectLambdaContext(logger)).use(logMetrics(metrics));

/**
 * The webhooks' queue in AWS (docs/contract.md §6c): the stage bus's rule puts every event on an SQS queue as an
 * EventBridge envelope; the sender function routes it into one message per webhook on the same queue
 * ({@link sqsDeliveryQueue}); each of those is one delivery, whose retries are the queue's own — after a failed
 * attempt the sender makes the message invisible until the next attempt is due (`ChangeMessageVisibility`, at
 * most 12 hours, longer than the longest delay) and reports it failed, so no function ever sleeps. The receive
 * count is the attempt's number and the message's sent time starts the 24-hour window.
 */
import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { JobsEvent } from '../events/cloud-event';
import type { AttemptNumber, Delivery, DeliveryQueue } from './delivery';

/** The most entries of one SendMessageBatch call. */
const BATCH_ENTRIES = 10;

/** Puts each delivery on the queue as one message (its JSON), ten to a call. */
export const sqsDeliveryQueue = (client: SQSClient, queueUrl: string): DeliveryQueue => ({
  enqueue: async (deliveries) => {
    for (let start = 0; start < deliveries.length; start += BATCH_ENTRIES) {
      const batch = deliveries.slice(start, start + BATCH_ENTRIES);
      const { Failed } = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((delivery, index) => ({ Id: String(index), MessageBody: JSON.stringify(delivery) })),
        }),
      );
      // The event's own message is then offered again: a webhook may get it twice, never not at all.
      if (Failed !== undefined && Failed.length > 0) throw new Error(`SQS refused ${Failed.length} deliveries`);
    }
  },
});

/** Makes a message invisible until its next attempt is due. */
export const retryLater = async (
  client: SQSClient,
  queueUrl: string,
  record: Pick<SQSRecord, 'receiptHandle'>,
  delayMs: number,
): Promise<void> => {
  await client.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: record.receiptHandle,
      VisibilityTimeout: Math.min(43_200, Math.max(0, Math.ceil(delayMs / 1000))),
    }),
  );
};

/** What one message of the queue holds. */
export type QueueMessage = { kind: 'event'; event: JobsEvent } | { kind: 'delivery'; delivery: Delivery } | undefined;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Reads a message: an event from the bus (its envelope's `detail`), a delivery, or nothing usable. */
export const readMessage = (body: string): QueueMessage => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isObject(parsed)) return undefined;
  if (isObject(parsed.detail) && typeof parsed['detail-type'] === 'string') {
    return { kind: 'event', event: parsed.detail as unknown as JobsEvent };
  }
  if (typeof parsed.webhookId === 'string' && isObject(parsed.event)) {
    return { kind: 'delivery', delivery: parsed as unknown as Delivery };
  }
  return undefined;
};

/** The attempt a message's receipt is: its receive count, and its sent time as the window's start. */
export const attemptNumberOf = (record: Pick<SQSRecord, 'attributes'>, nowMs: number): AttemptNumber => {
  const received = Number(record.attributes.ApproximateReceiveCount);
  const sent = Number(record.attributes.SentTimestamp);
  return {
    attempt: Number.isInteger(received) && received > 0 ? received : 1,
    firstAttemptAtMs: Number.isFinite(sent) && sent > 0 ? sent : nowMs,
  };
};

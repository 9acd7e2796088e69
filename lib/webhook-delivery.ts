/**
 * Webhook delivery in AWS (docs/contract.md §6c): a rule on the stage's bus puts every event of this API on the
 * webhooks' queue, and the sender function consumes it. The sender routes an event into one message per webhook
 * that asked for its type (on the same queue) and attempts each delivery once; a delivery to try again is made
 * invisible until its next attempt is due and reported failed, so retries are the queue's own and no function
 * sleeps (functions/webhooks/sqs-queue.ts).
 *
 * A message the sender cannot get through after {@link WEBHOOK_QUEUE.maxReceiveCount} receives — far more than the
 * eight attempts of a delivery, since a refused DynamoDB or SQS call counts as a receive too — goes to the
 * dead-letter queue, which has an alarm.
 */
import { Duration } from 'aws-cdk-lib';
import { type IEventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_TYPES } from '../functions/events/cloud-event';
import { deadLetterQueue } from './dead-letter-queue';
import { WEBHOOKS_SENDER_TIMEOUT } from './timeouts';

/**
 * The webhooks' queue.
 *
 * - **Visibility timeout** six times the sender's timeout, as AWS recommends for a queue feeding a function, so a
 *   message is not offered again while a batch holding it still runs (or waits on a throttled invocation).
 * - **Retention** four days: every delivery's retry window is 24 hours from its event, and the longest single
 *   delay (12 hours of invisibility) fits well inside; the rest is room for an outage of the sender.
 * - **Receives before the dead-letter queue**: thirty, against eight attempts of a delivery.
 */
export const WEBHOOK_QUEUE = {
  visibilityTimeout: Duration.seconds(6 * WEBHOOKS_SENDER_TIMEOUT.toSeconds()),
  retentionPeriod: Duration.days(4),
  maxReceiveCount: 30,
} as const;

/**
 * How the event source hands messages to the sender: ten at a time, failures reported per message (the retries),
 * and at most five senders at once, so a burst of events reaches the endpoints — and the auth table — at a
 * bounded rate.
 */
export const WEBHOOK_DELIVERY = {
  batchSize: 10,
  reportBatchItemFailures: true,
  maxConcurrency: 5,
} as const;

/** The sender's environment variable naming the queue it sends deliveries and retries to (`functions/config.ts`). */
export const WEBHOOK_QUEUE_URL = 'WEBHOOK_QUEUE_URL';

export interface WebhookDeliveryProps {
  /** The stage's bus the events come from. */
  bus: IEventBus;
  /** The sender function. */
  sender: LambdaFunction;
  /** How long dead letters are kept, in days (SQS keeps at most 14). */
  deadLetterRetentionDays: number;
}

/** The webhooks' queue, its dead-letter queue, the bus's rule that feeds it and the sender's event source. */
export class WebhookDelivery extends Construct {
  public readonly queue: Queue;
  public readonly deadLetterQueue: Queue;
  public readonly rule: Rule;
  public readonly eventSource: SqsEventSource;

  public constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetters', props.deadLetterRetentionDays);
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: WEBHOOK_QUEUE.visibilityTimeout,
      retentionPeriod: WEBHOOK_QUEUE.retentionPeriod,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: WEBHOOK_QUEUE.maxReceiveCount },
    });
    // Every event type of this API, whatever its source; the queue's policy lets this rule alone send.
    this.rule = new Rule(this, 'Events', {
      eventBus: props.bus,
      description: 'Jobs API: every event to the webhooks queue',
      eventPattern: { detailType: [...EVENT_TYPES] },
      targets: [new SqsQueue(this.queue)],
    });
    this.eventSource = new SqsEventSource(this.queue, { ...WEBHOOK_DELIVERY });
    props.sender.addEventSource(this.eventSource);
    props.sender.addEnvironment(WEBHOOK_QUEUE_URL, this.queue.queueUrl);
  }
}

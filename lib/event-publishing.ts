/**
 * The events of docs/contract.md §6c in AWS: the stage's own EventBridge bus, and the events function on a stream
 * subscription of its own — a second reader of the jobs table's stream beside the indexer, so neither one's
 * failures hold up the other. The stack's one rule on the bus feeds the webhooks' queue (lib/webhook-delivery.ts);
 * other rules and archives are the operator's to add.
 *
 * The subscription reports failures per record (the function answers `batchItemFailures`), bisects a failing
 * batch, and retries a failing record a bounded number of times and for a bounded time, then sends what it gave
 * up on — the shard and the sequence numbers of the records, never their data — to an SQS dead-letter queue with
 * an alarm. The bounds leave the stream's 24 hours room for an operator to read those records again.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { FilterCriteria, FilterRule, type Function as LambdaFunction, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { JOBS_TABLE, jobKeys } from '../functions/tables';
import { deadLetterQueue } from './dead-letter-queue';

/**
 * How the event source mapping delivers and retries the events function's stream records.
 *
 * - **No batching window**: a change is published as soon as the stream has it (the delay to a webhook is
 *   measured); batches still grow to 100 records under load.
 * - **Parallelization factor 1**: one batch per shard at a time, in the shard's order. With more, Lambda keeps
 *   order only per item (partition and sort key), so a job's file items and its job item — one partition, several
 *   items — could be published out of order, and "per job in `version` order" would no longer hold.
 * - **Bounded retries**: the publisher already sends a refused event again a few times within the invocation, so a
 *   record that still fails after 1,000 invocations (at a few seconds per failed invocation, an EventBridge outage
 *   of roughly an hour) or is six hours old goes to the dead-letter queue rather than hold its shard — every job
 *   in it — back any longer. Six hours leave the stream's other 18 hours for an operator to read those records
 *   again (docs/deploy.md, "Events").
 */
export const EVENT_DELIVERY = {
  batchSize: 100,
  retryAttempts: 1_000,
  maxRecordAge: Duration.hours(6),
  parallelizationFactor: 1,
} as const;

/** The events function's environment variable naming the bus (`functions/config.ts`). */
export const EVENT_BUS_NAME = 'EVENT_BUS_NAME';

/** The events function's environment variable naming every event's `source`: the stage's API. */
export const EVENT_SOURCE = 'EVENT_SOURCE';

/**
 * The event filter that lets only the items of job partitions (`pk` beginning `JOB#`: job items and file items)
 * through. The id allocator's counter and the idempotency records of `POST /jobs` make no event, so their
 * records need not invoke the function at all.
 */
export const JOB_PARTITION_FILTER = FilterCriteria.filter({
  dynamodb: { Keys: { [JOBS_TABLE.partitionKey.name]: { S: FilterRule.beginsWith(jobKeys.jobPrefix) } } },
});

export interface EventPublishingProps {
  /** The stage's name: the bus is `jobs-api-<stage>`. */
  stage: string;
  table: ITableV2;
  /** The events function. */
  publisher: LambdaFunction;
  /** Every event's `source`: the stage's API URL. */
  source: string;
  /** How long dead letters are kept, in days (SQS keeps at most 14). */
  deadLetterRetentionDays: number;
}

/** The stage's bus, the events function's stream subscription and its dead-letter queue. */
export class EventPublishing extends Construct {
  public readonly bus: EventBus;
  public readonly deadLetterQueue: Queue;
  public readonly eventSource: DynamoEventSource;

  public constructor(scope: Construct, id: string, props: EventPublishingProps) {
    super(scope, id);
    this.bus = new EventBus(this, 'Bus', {
      eventBusName: `jobs-api-${props.stage}`,
      description: `Jobs API ${props.stage}: the events of every change of a job or a file`,
    });
    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetters', props.deadLetterRetentionDays);
    this.eventSource = new DynamoEventSource(props.table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      ...EVENT_DELIVERY,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(this.deadLetterQueue),
      filters: [JOB_PARTITION_FILTER],
    });
    props.publisher.addEventSource(this.eventSource);
    props.publisher.addEnvironment(EVENT_BUS_NAME, this.bus.eventBusName);
    props.publisher.addEnvironment(EVENT_SOURCE, props.source);
  }
}

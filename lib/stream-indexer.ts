/**
 * Feeds the indexer function from the jobs table's stream: only job items invoke it, failures are
 * reported per record, a failing batch is split to isolate the bad record, retries and record age are
 * bounded, and what still fails is recorded in an SQS dead-letter queue.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, type IFunction, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { JOBS_TABLE, jobKeys } from '../functions/tables';

/** How the event source mapping delivers and retries stream records. */
export const STREAM_DELIVERY = {
  batchSize: 100,
  maxBatchingWindow: Duration.seconds(1),
  retryAttempts: 10,
  maxRecordAge: Duration.hours(12),
  parallelizationFactor: 1,
} as const;

/**
 * The event filter that lets only job items (`sk = "JOB"`) through. Every write to a file also
 * increments its job's `version` in the same transaction, so the job item's record is enough.
 */
export const JOB_ITEM_FILTER = FilterCriteria.filter({
  dynamodb: { Keys: { [JOBS_TABLE.sortKey.name]: { S: FilterRule.isEqual(jobKeys.jobSk) } } },
});

export interface StreamIndexerProps {
  table: ITableV2;
  indexer: IFunction;
  /** How long dead letters are kept, in days (SQS keeps at most 14). */
  deadLetterRetentionDays: number;
}

/** The indexer's stream subscription and its dead-letter queue. */
export class StreamIndexer extends Construct {
  public readonly deadLetterQueue: Queue;
  public readonly eventSource: DynamoEventSource;

  public constructor(scope: Construct, id: string, props: StreamIndexerProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(Math.min(14, props.deadLetterRetentionDays)),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.eventSource = new DynamoEventSource(props.table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      ...STREAM_DELIVERY,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(this.deadLetterQueue),
      filters: [JOB_ITEM_FILTER],
    });
    props.indexer.addEventSource(this.eventSource);
  }
}

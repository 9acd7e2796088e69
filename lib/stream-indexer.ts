/**
 * Feeds the indexer function from the jobs table's stream: only job items invoke it, failures are
 * reported per record, a failing batch is split to isolate the bad record, and a failing record is retried
 * until it is as old as the stream keeps records (24 hours), so an unavailable search domain costs a delay,
 * never a manual reindex. A record whose job the index refuses for good (a document OpenSearch cannot take) is
 * sent to the SQS dead-letter queue by the indexer itself and reported done, so it never holds its shard;
 * a record that outlives its retry window goes there from the event source.
 */
import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, type Function as LambdaFunction, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { JOBS_TABLE, jobKeys } from '../functions/tables';
import { deadLetterQueue } from './dead-letter-queue';

/**
 * How the event source mapping delivers and retries stream records: a failing record is retried without a
 * count (`-1`) until it is 24 hours old, the time DynamoDB Streams keeps it, then dead-lettered. Records of the
 * same shard wait behind it meanwhile (the iterator-age alarm tells), which is why the indexer itself
 * dead-letters what can never be indexed and reports only transient failures.
 */
export const STREAM_DELIVERY = {
  batchSize: 100,
  maxBatchingWindow: Duration.seconds(1),
  retryAttempts: -1,
  maxRecordAge: Duration.hours(24),
  parallelizationFactor: 1,
} as const;

/**
 * The time budget of one `_bulk` request of the indexer (`INDEX_WRITE_TIMEOUT_MS`): longer than the API's
 * 3-second budget of a request, since no caller waits on it and a bulk of several MiB on a small domain
 * takes seconds. The indexer's function timeout leaves room for two of them and the indexer's reserve.
 */
export const INDEX_WRITE_TIMEOUT = Duration.seconds(15);

/** The indexer's environment variable naming the dead-letter queue it sends refused records to. */
export const DEAD_LETTER_QUEUE_URL = 'DEAD_LETTER_QUEUE_URL';

/**
 * The event filter that lets only job items (`sk = "JOB"`) through. Every write to a file also
 * increments its job's `version` in the same transaction, so the job item's record is enough.
 */
export const JOB_ITEM_FILTER = FilterCriteria.filter({
  dynamodb: { Keys: { [JOBS_TABLE.sortKey.name]: { S: FilterRule.isEqual(jobKeys.jobSk) } } },
});

export interface StreamIndexerProps {
  table: ITableV2;
  indexer: LambdaFunction;
  /** How long dead letters are kept, in days (SQS keeps at most 14). */
  deadLetterRetentionDays: number;
}

/**
 * The indexer's stream subscription and its dead-letter queue, which the indexer is told of
 * ({@link DEAD_LETTER_QUEUE_URL}) and may send to.
 */
export class StreamIndexer extends Construct {
  public readonly deadLetterQueue: Queue;
  public readonly eventSource: DynamoEventSource;

  public constructor(scope: Construct, id: string, props: StreamIndexerProps) {
    super(scope, id);
    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetters', props.deadLetterRetentionDays);
    this.eventSource = new DynamoEventSource(props.table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      ...STREAM_DELIVERY,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(this.deadLetterQueue),
      filters: [JOB_ITEM_FILTER],
    });
    props.indexer.addEventSource(this.eventSource);
    props.indexer.addEnvironment(DEAD_LETTER_QUEUE_URL, this.deadLetterQueue.queueUrl);
    this.deadLetterQueue.grantSendMessages(props.indexer);
  }
}

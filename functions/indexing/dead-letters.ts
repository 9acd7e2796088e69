/**
 * The indexer's own dead letters: the stream records of a job the search index can never take (a document
 * OpenSearch refuses with a 400-class error, a job item the document cannot be built from). Retrying such a
 * record cannot help, and the event source would retry it for 24 hours while every later record of its shard
 * waits, so the indexer sends the records' identity to the dead-letter queue and reports them done.
 *
 * In AWS the letters go to the stack's SQS dead-letter queue (`DEAD_LETTER_QUEUE_URL`), beside the event
 * source's own messages for records that outlived their retry window; locally, the runtime plugs in its
 * dead-letter file ({@link useDeadLetterSink}). A letter names the records, not the job's data: `reindex`
 * repairs the index from the table once the job is fixed.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { config } from '../config';

/** One stream record, as a dead letter names it. */
export interface RecordIdentity {
  eventID: string | undefined;
  eventName: string | undefined;
  /** The stream the record came from. */
  eventSourceARN: string | undefined;
  sequenceNumber: string | undefined;
  /** The item's key, as the record carries it (DynamoDB's attribute-value shape). */
  keys: Record<string, unknown> | undefined;
  /** When the change was written, in epoch seconds. */
  approximateCreationDateTime: number | undefined;
}

/** The message the indexer sends for a job whose records it gives up on. */
export interface IndexerDeadLetter {
  /** Tells it from the event source's own messages, which name a batch by shard and sequence numbers. */
  source: 'indexer';
  /** When the indexer gave up (ISO 8601). */
  at: string;
  jobId: number;
  /** Why the job cannot be indexed (the engine's error type and reason, at most {@link MAX_REASON_LENGTH}). */
  reason: string;
  records: RecordIdentity[];
}

/** Sends one dead letter; rejects when it could not be kept (the records are then retried). */
export type DeadLetterSink = (letter: IndexerDeadLetter) => Promise<void>;

/** The longest reason a letter carries, in characters (an engine's reason may quote the document). */
export const MAX_REASON_LENGTH = 2_000;

/** What a dead letter keeps of a stream record: its identity, not its images. */
export const recordIdentity = (record: DynamoDBRecord): RecordIdentity => ({
  eventID: record.eventID,
  eventName: record.eventName,
  eventSourceARN: record.eventSourceARN,
  sequenceNumber: record.dynamodb?.SequenceNumber,
  keys: record.dynamodb?.Keys,
  approximateCreationDateTime: record.dynamodb?.ApproximateCreationDateTime,
});

/** The letter of a job's records. */
export const deadLetterOf = (
  jobId: number,
  reason: string,
  records: readonly DynamoDBRecord[],
  now: Date = new Date(),
): IndexerDeadLetter => ({
  source: 'indexer',
  at: now.toISOString(),
  jobId,
  reason: reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH - 1)}…` : reason,
  records: records.map(recordIdentity),
});

let plugged: DeadLetterSink | undefined;
let queue: { url: string; sink: Promise<DeadLetterSink> } | undefined;

/** Plugs in where dead letters go in this process (the local runtime's file); `undefined` unplugs it. */
export const useDeadLetterSink = (sink: DeadLetterSink | undefined): void => {
  plugged = sink;
};

/**
 * Where this container's dead letters go: the plugged-in sink, else the SQS queue the configuration names
 * (`DEAD_LETTER_QUEUE_URL`), else nowhere (`undefined`: the records are reported failed and retried).
 */
export const deadLetterSink = (): DeadLetterSink | undefined => {
  if (plugged !== undefined) return plugged;
  const settings = config();
  const url = settings.deadLetterQueueUrl;
  if (url === undefined) return undefined;
  if (queue?.url !== url) {
    // The SQS client is loaded only where a queue is configured.
    const sink = import('./sqs-dead-letters').then(({ sqsDeadLetters }) => sqsDeadLetters(url, settings));
    queue = { url, sink };
  }
  const { sink } = queue;
  return async (letter) => (await sink)(letter);
};

/**
 * A dead-letter queue as the stack keeps every one: encrypted by SQS, reachable over TLS only, and holding a
 * message as long as the stage's retention asks, up to SQS's own limit of 14 days. It holds copies of events,
 * never the only copy of data, so it goes with the stack.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** SQS keeps a message at most 14 days. */
const SQS_MAX_RETENTION_DAYS = 14;

export const deadLetterQueue = (scope: Construct, id: string, retentionDays: number): Queue =>
  new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(Math.min(SQS_MAX_RETENTION_DAYS, retentionDays)),
    removalPolicy: RemovalPolicy.DESTROY,
  });

/**
 * Grants a function's role holds for AWS itself rather than for the function's code: the Lambda runtime
 * writes the function's logs and traces, and the indexer's event source mapping reads the stream and
 * sends what it gives up on to the dead-letter queue. The cloud rehearsal (test/rehearsal/) requires
 * every other granted action to be used by a call the function's code makes.
 *
 * Plain data: imports nothing, so tests read it without loading the CDK.
 */
export const RUNTIME_GRANTS: readonly { actions: readonly string[]; reason: string }[] = [
  {
    actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    reason: 'The Lambda runtime writes the function’s logs to its own log group.',
  },
  {
    actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
    reason: 'Active X-Ray tracing: the Lambda runtime sends the trace segments.',
  },
  {
    actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
    reason: 'The indexer’s event source mapping reads the jobs table’s stream on the function’s behalf.',
  },
  {
    actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
    reason: 'The event source mapping sends stream records it gave up on to the dead-letter queue.',
  },
];

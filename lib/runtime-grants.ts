/**
 * Grants a function's role holds for AWS itself rather than for the function's code: the Lambda runtime
 * writes the function's logs and traces, Lambda's asynchronous invocation sends the images function's failed
 * events to its dead-letter queue, and the indexer's event source mapping reads the stream and
 * looks up the dead-letter queue it sends what it gives up on to (the sending itself the indexer's code does
 * too, which the rehearsal sees). The cloud rehearsal (test/rehearsal/) requires
 * every other granted action to be used by a call the function's code makes.
 *
 * Plain data: imports nothing, so tests read it without loading the CDK.
 */
export const RUNTIME_GRANTS: readonly {
  actions: readonly string[];
  reason: string;
  /** The functions (by construct name) whose roles hold them for the runtime; every function's when unset. */
  functions?: readonly string[];
}[] = [
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
    // sqs:SendMessage is not among them: the indexer's own code sends to the queue too, so the rehearsal
    // proves that grant by a call.
    actions: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
    reason: 'The event source mapping finds the dead-letter queue to send stream records it gave up on.',
  },
  {
    actions: ['sqs:SendMessage'],
    functions: ['Images'],
    reason:
      'Lambda sends an upload event the images function gave up on to its on-failure destination, the ' +
      'dead-letter queue, with the function’s role; the function’s own code sends nothing there.',
  },
];

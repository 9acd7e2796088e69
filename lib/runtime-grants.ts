/**
 * Grants a function's role holds for AWS itself rather than for the function's code: the Lambda runtime
 * writes the function's logs and traces, Lambda's asynchronous invocation sends the images function's failed
 * events to its dead-letter queue, and the indexer's and the events function's event source mappings read the
 * stream and look up the dead-letter queue they send what they give up on to (the indexer's code sends there too,
 * which the rehearsal sees; the events function's does not), and the webhooks' sender's event source mapping
 * receives and deletes its queue's messages. The cloud rehearsal (test/rehearsal/) requires every
 * other granted action to be used by a call the function's code makes.
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
    reason:
      'The indexer’s and the events function’s event source mappings read the jobs table’s stream on the ' +
      'function’s behalf.',
  },
  {
    // sqs:SendMessage is not among them: the indexer's own code sends to the queue too, so the rehearsal
    // proves that grant by a call.
    actions: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
    reason: 'The event source mapping finds the dead-letter queue to send stream records it gave up on.',
  },
  {
    actions: ['sqs:SendMessage'],
    functions: ['Images', 'Events'],
    reason:
      'Lambda sends an upload event the images function gave up on, and the event source mapping the stream ' +
      'records whose events the events function gave up on, to their on-failure destinations, the dead-letter ' +
      'queues, with the function’s role; neither function’s own code sends anything there.',
  },
  {
    actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage'],
    functions: ['WebhooksSender'],
    reason:
      'The webhooks’ sender’s event source mapping receives the queue’s messages and deletes those the function ' +
      'reports done, with the function’s role.',
  },
];

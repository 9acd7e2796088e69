/**
 * The keys of the stack's CloudFormation outputs. Tools that target a deployed stack (the CLI's
 * `--stack`) find the tables and the search domain by these keys, so they never change.
 *
 * Plain data: imports nothing, so `local/` can read it without loading the CDK.
 */
export const STACK_OUTPUTS = {
  /** Name of the jobs table. */
  jobsTable: 'JobsTableName',
  /** Name of the auth table. */
  authTable: 'AuthTableName',
  /** The OpenSearch domain endpoint, `https://…`. */
  opensearchUrl: 'OpenSearchUrl',
  /** The OpenSearch domain's name, for the control plane (`DescribeDomain`). */
  opensearchDomain: 'OpenSearchDomainName',
  /** The OpenSearch index (alias) the functions read and write. */
  opensearchIndex: 'OpenSearchIndex',
  /** The REST API's base URL, including the stage. */
  apiUrl: 'ApiUrl',
  /** The managed policy that grants exactly what the CLI's `--stack` commands call. */
  operatorPolicyArn: 'OperatorPolicyArn',
  /** The SQS queue that holds stream records the indexer gave up on. */
  deadLetterQueueUrl: 'IndexerDeadLetterQueueUrl',
  /** The CloudWatch Logs group of the audit records (kept when the stack is deleted). */
  auditLogGroup: 'AuditLogGroupName',
  /** The stack's CloudWatch dashboard in the console. */
  dashboardUrl: 'DashboardUrl',
  /** The ARN of the secret that signs file-page cursors (`CURSOR_KEY_SECRET_ARN` of the read function). */
  cursorKeySecretArn: 'CursorKeySecretArn',
  /** The pictures' private bucket (`IMAGES_BUCKET` of the job and images functions). */
  imagesBucket: 'ImagesBucketName',
  /** The SQS queue that holds the upload events the images function gave up on. */
  imagesDeadLetterQueueUrl: 'ImagesDeadLetterQueueUrl',
  /** The stage's EventBridge bus the events function puts every event on (`EVENT_BUS_NAME`). */
  eventBusName: 'EventBusName',
  /** The bus's ARN, for the operator's rules and archives. */
  eventBusArn: 'EventBusArn',
  /** The SQS queue that holds the stream records whose events the events function gave up on. */
  eventsDeadLetterQueueUrl: 'EventsDeadLetterQueueUrl',
  /** The SQS queue that holds the webhook events and deliveries the webhooks' sender gave up on. */
  webhooksDeadLetterQueueUrl: 'WebhooksDeadLetterQueueUrl',
} as const;

export type StackOutputKey = (typeof STACK_OUTPUTS)[keyof typeof STACK_OUTPUTS];

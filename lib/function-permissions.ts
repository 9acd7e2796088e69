/**
 * What each function of the stack may do: exactly the table actions, key prefixes, search paths, objects and
 * secrets its code uses, each beside the calls that need it. The cloud rehearsal (test/rehearsal/) judges every
 * call the code makes against these grants with an IAM evaluator, and reports a grant no call uses. The indexer's
 * and the events function's stream read access, and the events function's dead-letter queue, come with their
 * event sources.
 */
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { authKeys, JOBS_TABLE, jobKeys, webhookKeys } from '../functions/tables';
import type { AuditLog } from './audit-log';
import type { AuthTable } from './auth-table';
import type { HandlerFunction } from './handler-function';
import type { FunctionName } from './stack-functions';
import { type ImagesBucket, RENDITIONS_PREFIX, UPLOADS_PREFIX } from './images-bucket';
import type { JobsTable } from './jobs-table';
import type { SearchDomain } from './search-domain';

const dynamodb = (...actions: string[]): string[] => actions.map((action) => `dynamodb:${action}`);

/** The parts of the stack the functions reach. */
export interface FunctionResources {
  functions: Record<FunctionName, HandlerFunction>;
  jobsTable: JobsTable;
  authTable: AuthTable;
  auditLog: AuditLog;
  searchDomain: SearchDomain;
  /** The search alias the functions address. */
  searchIndex: string;
  cursorKey: Secret;
  imagesBucket: ImagesBucket;
  /** The stage's event bus. */
  eventBus: IEventBus;
  /** The webhooks' queue the sender consumes, and sends deliveries and retries to. */
  webhookQueue: IQueue;
}

/** Grants each function what its code uses, and nothing more. */
export const grantLeastPrivilege = (parts: FunctionResources): void => {
  const {
    Search,
    SearchFields,
    Reject,
    Sessions,
    JobsRead,
    JobsWrite,
    Webhooks,
    Indexer,
    Images,
    Events,
    WebhooksSender,
  } = parts.functions;
  const jobs = parts.jobsTable.table.tableArn;
  const auth = parts.authTable.table.tableArn;
  const byFileId = parts.jobsTable.indexArn(JOBS_TABLE.globalSecondaryIndexes[0].indexName);
  const allow = (fn: HandlerFunction, actions: string[], resources: string[], keyPrefixes?: string[]): void => {
    const conditions =
      keyPrefixes === undefined
        ? undefined
        : { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': keyPrefixes.map((prefix) => `${prefix}*`) } };
    fn.role.addToPolicy(new PolicyStatement({ actions, resources, ...(conditions ? { conditions } : {}) }));
  };
  const { clientPrefix, secretPrefix, sessionPrefix } = authKeys;

  // Authentication reads a client and a session by key; nothing else of the auth table.
  for (const fn of [Search, SearchFields, Reject, JobsRead, JobsWrite])
    allow(fn, dynamodb('GetItem'), [auth], [clientPrefix, sessionPrefix]);

  // The sessions function reads clients, secrets and sessions by key, and writes and deletes sessions
  // only: the one function that writes the auth table.
  allow(Sessions, dynamodb('GetItem'), [auth], [clientPrefix, secretPrefix, sessionPrefix]);
  allow(Sessions, dynamodb('PutItem', 'DeleteItem'), [auth], [sessionPrefix]);
  // ... and writes the audit records of what it opened, ended and refused to the audit log group.
  parts.auditLog.grantWrite(Sessions.role);

  // The webhooks function authenticates a client's backend by its token and secret (GetItem of both), and
  // touches webhook items only: it reads a webhook, the client's list and the attempts by key (GetItem,
  // BatchGetItem), and registers or removes a webhook in one transaction of Put, Update and Delete items.
  allow(Webhooks, dynamodb('GetItem'), [auth], [clientPrefix, secretPrefix]);
  allow(
    Webhooks,
    dynamodb('GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'),
    [auth],
    [webhookKeys.prefix],
  );

  // Search sends one request: POST /{alias}/_search.
  parts.searchDomain.grantPaths(Search.role, ['es:ESHttpPost'], [`${parts.searchIndex}/_search`]);

  // The review (reject and accept) finds files through the sparse index, reads them with BatchGetItem and writes them
  // and their jobs in one transaction of Update and ConditionCheck items.
  allow(Reject, dynamodb('Query'), [byFileId]);
  allow(Reject, dynamodb('BatchGetItem', 'UpdateItem', 'ConditionCheckItem'), [jobs]);
  // A job item written before review counts existed is counted from its partition (one Query) first; a
  // delivery committed but not yet written to every file is finished first (its partition read with one
  // Query, its files and job item written with Updates).
  allow(Reject, dynamodb('Query'), [jobs]);

  // The read function gets a job item by key, lists a job's files of a review state in the byReview index,
  // reads a page of files by key, and counts the files of a job item written before review counts (one
  // Query of its partition); it writes nothing. It reads the cursor key, cached per container.
  const byReview = parts.jobsTable.indexArn(JOBS_TABLE.globalSecondaryIndexes[1].indexName);
  allow(JobsRead, dynamodb('GetItem', 'BatchGetItem', 'Query'), [jobs], [jobKeys.jobPrefix]);
  allow(JobsRead, dynamodb('Query'), [byReview]);
  allow(JobsRead, ['secretsmanager:GetSecretValue'], [parts.cursorKey.secretArn]);

  // The job writes touch job partitions, the id counter and idempotency records only: a create claims
  // its key (PutItem), reserves ids (UpdateItem on the counter), writes its job in transactions of
  // conditional Puts (a large job's files first) whose last also stores its answer in the key's record
  // (UpdateItem), or releases the key (UpdateItem) and reads it back (GetItem);
  // an edit reads the job item (GetItem) and updates it; a delivery reads the job item (GetItem), then the
  // partition (Query), and updates files and job in transactions of Updates. Nothing on the search domain.
  allow(
    JobsWrite,
    dynamodb('GetItem', 'PutItem', 'UpdateItem', 'Query'),
    [jobs],
    [jobKeys.jobPrefix, jobKeys.counter.pk, jobKeys.idempotencyPrefix],
  );

  // Pictures: the write function signs upload targets (a presigned PUT or POST is honoured only if its signer may
  // put the object), the read function signs downloads of uploads and renditions; neither touches a byte. The
  // images function reads each upload once, writes its two renditions, and records them on the file item: it reads
  // the item (GetItem), then writes it with one conditional UpdateItem (the item lives in its job's partition).
  const images = parts.imagesBucket;
  allow(JobsWrite, ['s3:PutObject'], [images.objectsArn(UPLOADS_PREFIX)]);
  allow(JobsRead, ['s3:GetObject'], [images.objectsArn(UPLOADS_PREFIX), images.objectsArn(RENDITIONS_PREFIX)]);
  allow(Images, ['s3:GetObject'], [images.objectsArn(UPLOADS_PREFIX)]);
  allow(Images, ['s3:PutObject'], [images.objectsArn(RENDITIONS_PREFIX)]);
  allow(Images, dynamodb('GetItem', 'UpdateItem'), [jobs], [jobKeys.jobPrefix]);

  // The indexer reads each touched job (its item and its files) with one query per job.
  allow(Indexer, dynamodb('Query'), [jobs]);
  // The indexer writes with POST /{alias}/_bulk and, should the alias be missing (an index deleted by
  // hand), creates the first concrete index behind it with PUT /{alias}-v0, as the deploy-time setup
  // does. Rebuilds (reindex) run with the operator's credentials.
  parts.searchDomain.grantPaths(Indexer.role, ['es:ESHttpPost'], [`${parts.searchIndex}/_bulk`]);
  parts.searchDomain.grantPaths(Indexer.role, ['es:ESHttpPut'], [`${parts.searchIndex}-v0`]);

  // The events function reads the job item of changed files (one strongly consistent GetItem per job and batch:
  // their events carry its account, version and status) and puts the events on the stage's bus, that one only.
  allow(Events, dynamodb('GetItem'), [jobs], [jobKeys.jobPrefix]);
  allow(Events, ['events:PutEvents'], [parts.eventBus.eventBusArn]);

  // The webhooks' sender reads the registry, a webhook (GetItem) and its client (GetItem of a CLIENT# item), and
  // records an attempt: the webhook's counters (UpdateItem) and the attempt's slot (PutItem). It puts the
  // deliveries an event makes on its queue (SendMessage, in batches) and defers a retry by making its message
  // invisible (ChangeMessageVisibility); receiving and deleting come with the event source.
  allow(WebhooksSender, dynamodb('GetItem'), [auth], [clientPrefix, webhookKeys.prefix]);
  allow(WebhooksSender, dynamodb('PutItem', 'UpdateItem'), [auth], [webhookKeys.prefix]);
  allow(WebhooksSender, ['sqs:SendMessage', 'sqs:ChangeMessageVisibility'], [parts.webhookQueue.queueArn]);
};

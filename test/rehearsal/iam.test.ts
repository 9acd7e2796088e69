/**
 * The cloud rehearsal: every function runs as its real handler module, with the environment the
 * synthesized template gives it (tables on DynamoDB Local, the search domain replaced by a recording HTTP
 * stand-in), through representative events. Every AWS call it makes is judged, as AWS judges it, by an IAM
 * policy evaluator (`@cloud-copilot/iam-simulate`) over the role's identity policies and, for OpenSearch,
 * the domain's access policy, all taken from the template. A call that is not allowed fails, naming its
 * action and resource; so does a granted action that no call uses and that `lib/runtime-grants.ts` does
 * not explain. No AWS account and no network are involved.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyResult, DynamoDBRecord, DynamoDBStreamEvent, SQSRecord } from 'aws-lambda';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useAuditSink } from '../../functions/auth/audit-sink';
import { resetDefaultAuthenticator } from '../../functions/auth/authenticate';
import { AuthStore } from '../../functions/auth/store';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, resetDocumentClient } from '../../functions/aws/dynamodb';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Event } from 'aws-lambda';
import sharp from 'sharp';
import { picturesBucket, resetPicturesBucket } from '../../functions/aws/s3';
import { config, resetConfig } from '../../functions/config';
import { newUploadId, uploadKey } from '../../functions/images/object-keys';
import { memoryObjectStore } from '../../local/s3/object-store';
import { type LocalS3, startLocalS3 } from '../../local/s3/server';
import { LOCAL_S3_CREDENTIAL, localS3Client } from '../support/local-s3';
import type { IndexerDeadLetter } from '../../functions/indexing/dead-letters';
import type { Job } from '../../functions/jobs/model/model';
import { JobRepository } from '../../functions/jobs/store/repository';
import { toSearchDocument } from '../../functions/search/search-document';
import { resetSearchIndex } from '../../functions/search/engine';
import { AUTH_TABLE, authKeys, JOBS_TABLE, jobKeys } from '../../functions/tables';
import { hashToken } from '../../functions/auth/tokens';
import { WebhookStore } from '../../functions/webhooks/store';
import { RUNTIME_GRANTS } from '../../lib/runtime-grants';
import { ensureTable } from '../../local/dynamodb/tables';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local';
import { apiEvent, lambdaContext } from '../support/api-event';
import { AwsStandIns } from '../support/aws-stand-ins';
import { setupEvent } from '../support/cloudformation-events';
import { FakeOpenSearchCluster, FakeOpenSearchNode, type RecordedRequest } from '../support/fake-opensearch';
import { makeFile, makeJob } from '../support/jobs';
import { streamRecord as itemRecord } from '../support/stream-records';
import type { JobsEvent } from '../../functions/events/cloud-event';
import { toFileItem, toJobItem } from '../../functions/jobs/store/items';
import { readyEdits, readyOriginals } from '../support/pictures';
import { judgeCall, unusedGrants as unusedGrantsOf } from './judge';
import { type AuthorizedCall, CallRecorder } from './recorder';
import {
  ACCOUNT,
  REGION,
  type RehearsalTemplate,
  type RehearsedFunction,
  type RehearsedName,
  synthesizeForRehearsal,
} from './template';

const suffix = crypto.randomUUID().slice(0, 8);
const TABLES = { jobs: `rehearsal-jobs-${suffix}`, auth: `rehearsal-auth-${suffix}` };
const ACCOUNT_ID = 4242;

let template: RehearsalTemplate;
/** The pictures' bucket, as the local S3 stand-in plays it under the template's bucket name. */
let s3: LocalS3;
/** The object-created events the stand-in announced, for the images function. */
const objectEvents: S3Event[] = [];
let node: FakeOpenSearchNode;
let nodeUrl: string;
const recorder = new CallRecorder();
/**
 * CloudWatch Logs, where the sessions function writes its audit records (AUDIT_LOG_GROUP), and EventBridge, where
 * the events function puts its events (EVENT_BUS_NAME).
 */
let logs: AwsStandIns;
let logsUrl: string;
/** Every call each function made, over all its scenarios. */
const made = new Map<RehearsedName, AuthorizedCall[]>();
let tokens: { client: string; secret: string; user: string; operator: string };
/**
 * A Secrets Manager and SQS stand-in (the cursor key, the indexer's dead letters): it answers GetSecretValue
 * and SendMessage and records each call.
 */
let secrets: Server;
let secretsUrl: string;
/** The dead letters the indexer sent to SQS. */
const sentDeadLetters: IndexerDeadLetter[] = [];
/** The bodies the webhooks' sender put on its queue (SendMessageBatch), and the visibility changes it asked for. */
const sentToWebhookQueue: string[] = [];
const visibilityChanges: { QueueUrl: string; ReceiptHandle: string; VisibilityTimeout: number }[] = [];
/** Jobs whose items were written before review counts existed: one to review, one to read. */
let legacyJob: Job;
let legacyReadJob: Job;
/** A job whose one rejected file comes after two pending ones: its page of one rejected file reads the index. */
let sparseReadJob: Job;
let jobs: Job[];
/** Whether the stand-in answers as a domain without the alias yet (the first bulk of a new domain). */
let aliasMissing = false;
/** Whether searches find no alias (a domain nothing created an index on). */
let searchIndexMissing = false;
/** Jobs whose documents the stand-in refuses as OpenSearch refuses an unparsable document (400). */
const refusedJobs = new Set<string>();

/** The stand-in answers as OpenSearch does, and records each request as IAM sees it. */
const answer = (request: RecordedRequest) => {
  recorder.openSearch(request.method, request.path, template.domainArn);
  if (request.path.endsWith('/_bulk')) {
    const actions = request.body
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => 'index' in line || 'delete' in line);
    if (aliasMissing) {
      aliasMissing = false;
      const missing = { status: 404, error: { type: 'index_not_found_exception', reason: '[jobs] is not an alias' } };
      return {
        status: 200,
        body: { took: 1, errors: true, items: actions.map((line) => ({ [Object.keys(line)[0]!]: missing })) },
      };
    }
    const refused = { status: 400, error: { type: 'mapper_parsing_exception', reason: 'failed to parse' } };
    const items = actions.map((line) => {
      const [action] = Object.keys(line) as [string];
      const id = (line[action] as { _id: string })._id;
      return { [action]: refusedJobs.has(id) ? refused : { status: 201, result: 'created' } };
    });
    return { status: 200, body: { took: 2, errors: items.some((item) => 'error' in Object.values(item)[0]!), items } };
  }
  if (request.path.endsWith('/_search') && searchIndexMissing) {
    return { status: 404, body: { error: { type: 'index_not_found_exception', reason: 'no such index [jobs]' } } };
  }
  if (request.path.endsWith('/_search')) {
    const hits = jobs
      .slice(0, 2)
      .map((job) => ({ _id: String(job.id), _source: { document: { summary: summaryOf(job) } } }));
    return { status: 200, body: { took: 1, hits: { total: { value: hits.length, relation: 'eq' }, hits } } };
  }
  if (request.method === 'PUT')
    return { status: 200, body: { acknowledged: true, shards_acknowledged: true, index: 'jobs-v0' } };
  return { status: 404, body: { error: { type: 'index_not_found_exception' }, status: 404 } };
};

const summaryOf = (job: Job) => toSearchDocument(job, 1).summary;

/** A Lambda context with a minute left: a 1,000-file create on the shared DynamoDB Local can take seconds. */
const invocationContext = () => lambdaContext({ getRemainingTimeInMillis: () => 60_000 });

/**
 * The pictures a scenario's gates need (an offer needs ready originals, a delivery ready edited versions), written
 * as the images function would, by a client of the test's own: set-up, not a call of the rehearsed function.
 */
const pictureSetup = (): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'setup', secretAccessKey: 'setup' },
    }),
  );

/** Points the function modules at one function's environment, as its container would see it. */
const becomeFunction = async (fn: RehearsedFunction): Promise<void> => {
  Object.assign(process.env, fn.environment, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsUrl,
    AWS_ENDPOINT_URL_SQS: secretsUrl,
    OPENSEARCH_URL: nodeUrl,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: logsUrl,
    AWS_ENDPOINT_URL_EVENTBRIDGE: logsUrl,
    // The rehearsal counts each operation's requests: the longest request budget the configuration allows,
    // so that DynamoDB Local, shared with the other test files on a busy machine, never makes one time out
    // and be sent again (the roles, not the timings, are what is rehearsed).
    DEPENDENCY_TIMEOUT_MS: '9000',
  });
  // The functions that hold the pictures' bucket reach it at the stand-in (path-style); no other may name one.
  if (process.env.IMAGES_BUCKET) process.env.S3_ENDPOINT = s3.endpoint;
  else delete process.env.S3_ENDPOINT;
  resetConfig();
  resetPicturesBucket();
  if (config().images !== undefined) recorder.watchS3(picturesBucket().client);
  useAuditSink(undefined);
  resetDocumentClient();
  resetDefaultAuthenticator();
  await resetSearchIndex();
  recorder.watchDynamo(documentClient(), (name) =>
    name === TABLES.jobs
      ? template.tableArn('jobs')
      : name === TABLES.auth
        ? template.tableArn('auth')
        : `unknown-table/${name}`,
  );
};

const run = async (name: RehearsedName, work: () => Promise<unknown>): Promise<void> => {
  await becomeFunction(template.functions[name]);
  const from = logs.calls.length;
  const calls = await recorder.during(work);
  made.set(name, [...(made.get(name) ?? []), ...calls, ...logs.calls.slice(from)]);
};

const http = async (
  handler: (event: never, context: never) => Promise<unknown>,
  options: {
    method: string;
    path: string;
    session?: 'user' | 'operator';
    /** A session token of its own, or the client secret instead of a session (`POST /sessions`). */
    credentials?: { sessionToken: string } | { secret: string };
    body?: unknown;
    form?: string;
    /** More request headers (`If-Match`, `Idempotency-Key`). */
    headers?: Record<string, string>;
  },
): Promise<APIGatewayProxyResult> => {
  const credentials = options.credentials ?? {
    sessionToken: options.session === 'operator' ? tokens.operator : tokens.user,
  };
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'X-Client-Token': tokens.client,
    ...('secret' in credentials
      ? { 'X-Client-Secret': credentials.secret }
      : { 'X-Session-Token': credentials.sessionToken }),
    ...options.headers,
  };
  if (options.method === 'POST' || options.method === 'PATCH') {
    headers['Content-Type'] = options.form === undefined ? 'application/json' : 'application/x-www-form-urlencoded';
  }
  const [path = options.path, query] = options.path.split('?');
  const event = apiEvent({
    method: options.method,
    path,
    ...(query === undefined ? {} : { queryStringParameters: Object.fromEntries(new URLSearchParams(query)) }),
    headers,
    body: options.form ?? (options.body as object) ?? null,
  });
  const response = (await handler(event as never, invocationContext() as never)) as APIGatewayProxyResult;
  // A presigned URL in the answer is a request its signer (this function's role) authorizes.
  recorder.presigned(response.body);
  return response;
};

let sequence = 0;
const streamRecord = (job: Job, eventName: 'INSERT' | 'MODIFY' | 'REMOVE', version: number): DynamoDBRecord => {
  sequence += 1;
  const keys = { pk: { S: `JOB#${job.id}` }, sk: { S: 'JOB' } };
  const image = { ...keys, version: { N: String(version) } };
  return {
    eventID: `rehearsal-${sequence}`,
    eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-west-1',
    eventSourceARN: `${template.tableArn('jobs')}/stream/2026-01-01T00:00:00.000`,
    dynamodb: {
      Keys: keys,
      ...(eventName === 'REMOVE' ? { OldImage: image } : { NewImage: image }),
      SequenceNumber: String(sequence).padStart(21, '0'),
      SizeBytes: 100,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
};

/**
 * A DynamoDB Local of the rehearsal's own: it counts every request of each operation, and the run's shared
 * instance, busy with the other files, has held a single request for longer than the longest budget the
 * configuration allows, which would answer 503 where the count was wanted.
 */
let dynamo: DynamoDbLocal;

beforeAll(async () => {
  dynamo = await startDynamoDbLocal({ port: 0 });
  template = synthesizeForRehearsal(TABLES);
  s3 = await startLocalS3({
    store: memoryObjectStore(),
    buckets: [template.functions.Images.environment.IMAGES_BUCKET!],
    credential: LOCAL_S3_CREDENTIAL,
    region: process.env.AWS_REGION ?? 'us-east-1',
    onObjectCreated: async (event) => {
      objectEvents.push(event);
    },
  });
  logs = new AwsStandIns({
    account: ACCOUNT,
    region: REGION,
    stacks: [],
    domains: new Map(),
    logGroups: [template.functions.Sessions.environment.AUDIT_LOG_GROUP!],
    eventBuses: [template.functions.Events.environment.EVENT_BUS_NAME!],
  });
  logsUrl = await logs.start();
  node = new FakeOpenSearchNode(answer);
  nodeUrl = await node.start();
  secrets = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      if (target.startsWith('AmazonSQS.')) {
        const request = JSON.parse(body || '{}') as {
          QueueUrl?: string;
          MessageBody?: string;
          Entries?: { Id: string; MessageBody: string }[];
          ReceiptHandle?: string;
          VisibilityTimeout?: number;
        };
        const { QueueUrl, MessageBody } = request;
        const [, account, name] = new URL(String(QueueUrl)).pathname.split('/');
        const operation = target.split('.').at(-1)!;
        if (recorder.recording) {
          recorder.calls.push({
            // IAM authorizes SendMessageBatch as sqs:SendMessage.
            action: `sqs:${operation === 'SendMessageBatch' ? 'SendMessage' : operation}`,
            resource: `arn:aws:sqs:${REGION}:${account}:${name}`,
            origin: `SQS ${target}`,
            request: true,
          });
        }
        if (operation === 'SendMessageBatch') {
          const entries = request.Entries ?? [];
          sentToWebhookQueue.push(...entries.map((entry) => entry.MessageBody));
          response.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' });
          response.end(
            JSON.stringify({
              Successful: entries.map((entry) => ({
                Id: entry.Id,
                MessageId: crypto.randomUUID(),
                MD5OfMessageBody: createHash('md5').update(entry.MessageBody).digest('hex'),
              })),
              Failed: [],
            }),
          );
          return;
        }
        if (operation === 'ChangeMessageVisibility') {
          visibilityChanges.push({
            QueueUrl: String(QueueUrl),
            ReceiptHandle: String(request.ReceiptHandle),
            VisibilityTimeout: Number(request.VisibilityTimeout),
          });
          response.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' });
          response.end('{}');
          return;
        }
        sentDeadLetters.push(JSON.parse(String(MessageBody)) as IndexerDeadLetter);
        const md5 = createHash('md5').update(String(MessageBody)).digest('hex');
        response.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify({ MessageId: crypto.randomUUID(), MD5OfMessageBody: md5 }));
        return;
      }
      const { SecretId } = JSON.parse(body || '{}') as { SecretId?: string };
      if (recorder.recording) {
        recorder.calls.push({
          action: `secretsmanager:${target.split('.').at(-1)}`,
          resource: String(SecretId),
          origin: `Secrets Manager ${target}`,
          request: true,
        });
      }
      response.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ ARN: SecretId, Name: 'CursorKey', SecretString: 'k'.repeat(64), VersionId: 'v1' }));
    });
  });
  await new Promise<void>((resolve) => secrets.listen(0, '127.0.0.1', resolve));
  secretsUrl = `http://127.0.0.1:${(secrets.address() as { port: number }).port}`;
  const client = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'eu-west-1' });
  await ensureTable(client, JOBS_TABLE, TABLES.jobs);
  await ensureTable(client, AUTH_TABLE, TABLES.auth);
  // Setting up data is not part of any function's calls.
  await becomeFunction(template.functions.Search);
  const store = new AuthStore(documentClient(), TABLES.auth);
  const created = await store.createClient({
    name: 'Rehearsal',
    grants: ['search', 'reject', 'jobs', 'sessions', 'webhooks'],
    sessionRoles: ['user', 'operator'],
  });
  const user = await store.createSession({
    clientToken: created.token,
    accountId: ACCOUNT_ID,
    role: 'user',
    ttlSeconds: 3_600,
  });
  const operator = await store.createSession({
    clientToken: created.token,
    accountId: 1,
    role: 'operator',
    ttlSeconds: 3_600,
  });
  tokens = { client: created.token, secret: created.secret, user: user.token, operator: operator.token };
  const repository = new JobRepository(documentClient(), TABLES.jobs);
  jobs = Array.from({ length: 104 }, (_, index) =>
    makeJob({ accountId: ACCOUNT_ID, status: index < 4 ? 'CJ_REVIEWING' : 'CJ_NEW', files: [makeFile(), makeFile()] }),
  );
  for (const job of jobs) await repository.putJob(job);
  sparseReadJob = makeJob({
    accountId: ACCOUNT_ID,
    status: 'CJ_REJECT_READY',
    files: [makeFile(), makeFile(), makeFile({ isRejected: true, isReviewed: true, rejectionReason: 'Too dark' })],
  });
  await repository.putJob(sparseReadJob);
  legacyJob = makeJob({ accountId: ACCOUNT_ID, status: 'CJ_REVIEWING', files: [makeFile(), makeFile()] });
  legacyReadJob = makeJob({ accountId: ACCOUNT_ID, status: 'CJ_REVIEWING', files: [makeFile()] });
  for (const legacy of [legacyJob, legacyReadJob]) {
    await repository.putJob(legacy);
    await documentClient().send(
      new UpdateCommand({
        TableName: TABLES.jobs,
        Key: { pk: `JOB#${legacy.id}`, sk: 'JOB' },
        UpdateExpression: 'REMOVE reviewPending, reviewRejected, reviewAccepted',
      }),
    );
  }
  // DynamoDB Local's start, a synthesis and 106 jobs written take over two minutes on a busy machine.
}, 300_000);

afterAll(async () => {
  useAuditSink(undefined);
  await resetSearchIndex();
  await node?.stop();
  await logs?.stop();
  await new Promise((resolve) => secrets?.close(resolve));
  await dynamo?.stop();
  await s3?.stop();
});

/** A DynamoDB call on one partition key of a table, as a test of a role's bounds makes up (its code never makes it). */
const keyCall = (action: string, key: string, table: 'jobs' | 'auth'): AuthorizedCall => ({
  action: `dynamodb:${action}`,
  resource: template.tableArn(table),
  origin: 'a call its code never makes',
  leadingKeys: [key],
});

const judge = (fn: RehearsedFunction, call: AuthorizedCall): Promise<string> =>
  judgeCall(
    {
      principal: fn.roleArn,
      identityPolicies: fn.identityPolicies.map((policy, index) => ({ name: `${fn.name}-${index}`, policy })),
      domainAccessPolicy: template.domainAccessPolicy,
    },
    call,
  );

const expectAllowed = async (name: RehearsedName): Promise<void> => {
  const calls = made.get(name) ?? [];
  expect(calls.length, `${name} made no AWS call`).toBeGreaterThan(0);
  const refused: string[] = [];
  for (const call of calls) {
    const verdict = await judge(template.functions[name], call);
    if (verdict !== 'Allowed') refused.push(`${call.action} on ${call.resource} (${call.origin}): ${verdict}`);
  }
  expect(refused, `${name}'s role refuses calls its code makes`).toEqual([]);
};

/** Granted action/resource pairs no recorded call uses and no runtime grant explains. */
const unusedGrants = (name: RehearsedName): string[] =>
  unusedGrantsOf(
    template.functions[name].identityPolicies,
    made.get(name) ?? [],
    new Set(
      RUNTIME_GRANTS.filter((grant) => grant.functions === undefined || grant.functions.includes(name)).flatMap(
        (grant) => grant.actions,
      ),
    ),
  );

describe('the cloud rehearsal: each function under its synthesized role', { timeout: 120_000 }, () => {
  it('search: every filter, each text mode, both roles, a first and a deep page', async () => {
    const { handler } = await import('../../functions/handlers/search');
    const bodies: ['user' | 'operator', object][] = [
      ['user', {}],
      [
        'user',
        {
          field: 'JobName',
          query: 'spr cat',
          statuses: ['CJ_NEW', 'CJ_ACCEPT'],
          dateFrom: '2016-01-01',
          dateTo: '2030-01-01',
        },
      ],
      [
        'user',
        {
          field: 'Global',
          query: 'catalogue',
          deliveredDateFrom: '2016-01-01',
          deliveredDateTo: '2030-01-01T00:00:00Z',
        },
      ],
      ['user', { field: 'JobNumber', query: String(jobs[0]!.id), page: 49, pageSize: 100 }],
      ['user', { field: 'Guid', query: jobs[0]!.guid }],
      ['operator', { field: 'AccountNumber', query: String(ACCOUNT_ID) }],
      ['operator', { field: 'Global', query: 'spring', page: 0, pageSize: 100 }],
    ];
    await run('Search', async () => {
      for (const [session, body] of bodies) {
        const response = await http(handler, { method: 'POST', path: '/search', session, body });
        expect(response.statusCode, JSON.stringify(body)).toBe(200);
      }
      const form = await http(handler, {
        method: 'POST',
        path: '/search',
        form: 'field=JobName&query=spring&statuses=CJ_NEW',
      });
      expect(form.statusCode).toBe(200);
    });
    await expectAllowed('Search');
  });

  it('search: a domain without the alias answers 200 with the empty page, and creates nothing', async () => {
    const { handler } = await import('../../functions/handlers/search');
    searchIndexMissing = true;
    try {
      await run('Search', async () => {
        const response = await http(handler, { method: 'POST', path: '/search', body: { query: 'spring' } });
        expect(response.statusCode).toBe(200);
        expect(JSON.parse(response.body)).toEqual({ _type: 'SearchResponseBody', totalJobs: 0, jobs: [] });
      });
    } finally {
      searchIndexMissing = false;
    }
    await expectAllowed('Search');
  });

  it('search index setup: a create on a new domain, an update where the alias exists, a delete', async () => {
    const { handler } = await import('../../functions/handlers/search-index-setup');
    const cluster = new FakeOpenSearchCluster();
    // The pre-signed S3 URL CloudFormation waits on (a PUT to it needs no IAM permission).
    const cloudFormation = new FakeOpenSearchNode(() => ({ status: 200 }));
    const responseUrl = await cloudFormation.start();
    const events = (['Create', 'Update', 'Delete'] as const).map((type) => setupEvent(type, responseUrl));
    node.reply = (request) => {
      recorder.openSearch(request.method, request.path, template.domainArn);
      return cluster.reply(request);
    };
    try {
      await run('SearchIndexSetup', async () => {
        for (const event of events) await handler(event, invocationContext() as never);
      });
    } finally {
      node.reply = answer;
      await cloudFormation.stop();
    }
    const answers = cloudFormation.requests.map((request) => JSON.parse(request.body) as Record<string, unknown>);
    expect(answers.map((sent) => [sent.RequestId, sent.Status, sent.PhysicalResourceId])).toEqual([
      ['request-Create', 'SUCCESS', 'jobs'],
      ['request-Update', 'SUCCESS', 'jobs'],
      ['request-Delete', 'SUCCESS', 'jobs'],
    ]);
    expect(cloudFormation.requests.every((request) => request.method === 'PUT' && request.contentType === '')).toBe(
      true,
    );
    expect(cluster.aliasTargets('jobs')).toEqual(['jobs-v0']);
    await expectAllowed('SearchIndexSetup');
  });

  it('table deletion protection: on as a first deployment ends, off again by an update, a delete', async () => {
    const { handler, PHYSICAL_ID } = await import('../../functions/handlers/table-protection');
    // The pre-signed S3 URL CloudFormation waits on (a PUT to it needs no IAM permission).
    const cloudFormation = new FakeOpenSearchNode(() => ({ status: 200 }));
    const responseUrl = await cloudFormation.start();
    const event = (type: 'Create' | 'Update' | 'Delete', protection: string) => ({
      ...setupEvent(type, responseUrl),
      LogicalResourceId: 'TableDeletionProtection',
      ResourceType: 'Custom::TableDeletionProtection',
      ResourceProperties: {
        ServiceToken: 'token',
        TableNames: [TABLES.jobs, TABLES.auth],
        DeletionProtection: protection,
      },
      ...(type === 'Create' ? {} : { PhysicalResourceId: PHYSICAL_ID }),
    });
    const client = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'eu-west-1' });
    const protection = async () =>
      Promise.all(
        [TABLES.jobs, TABLES.auth].map(
          async (name) =>
            (await client.send(new DescribeTableCommand({ TableName: name }))).Table?.DeletionProtectionEnabled,
        ),
      );
    const seen: unknown[] = [];
    try {
      await run('TableProtection', async () => {
        await handler(event('Create', 'true') as never, invocationContext() as never);
        seen.push(await protection());
        await handler(event('Update', 'false') as never, invocationContext() as never);
        await handler(event('Delete', 'false') as never, invocationContext() as never);
      });
    } finally {
      await cloudFormation.stop();
    }
    expect(seen).toEqual([[true, true]]);
    expect(await protection()).toEqual([false, false]);
    const answers = cloudFormation.requests.map((request) => JSON.parse(request.body) as Record<string, unknown>);
    expect(answers.map((sent) => sent.Status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
    await expectAllowed('TableProtection');
  });

  it('search-fields: both roles', async () => {
    const { handler } = await import('../../functions/handlers/search-fields');
    await run('SearchFields', async () => {
      for (const session of ['user', 'operator'] as const) {
        expect((await http(handler, { method: 'GET', path: '/search/fields', session })).statusCode).toBe(200);
      }
    });
    await expectAllowed('SearchFields');
  });

  it('reject: a new rejection, the same again, the same with a new file, a conflicting one and a form body', async () => {
    const { handler } = await import('../../functions/handlers/reject');
    const [first, second, third] = jobs;
    const review = {
      customRejection: 'Shadow missing',
      rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 0.5 }] }],
    };
    await run('Reject', async () => {
      const fresh = await http(handler, {
        method: 'POST',
        path: '/reject',
        body: {
          files: [
            { fileId: first!.files[0]!.id, ...review },
            { fileId: second!.files[0]!.id, ...review },
          ],
        },
      });
      expect(fresh.statusCode, fresh.body).toBe(200);
      const repeated = await http(handler, {
        method: 'POST',
        path: '/reject',
        body: { files: [{ fileId: first!.files[0]!.id, ...review }] },
      });
      expect(repeated.statusCode).toBe(200);
      // A retry that adds a file: the unchanged file is only checked (ConditionCheck), the new one written.
      const widened = await http(handler, {
        method: 'POST',
        path: '/reject',
        body: {
          files: [
            { fileId: first!.files[0]!.id, ...review },
            { fileId: third!.files[0]!.id, ...review },
          ],
        },
      });
      expect(widened.statusCode, widened.body).toBe(200);
      const notInReview = await http(handler, {
        method: 'POST',
        path: '/reject',
        body: { files: [{ fileId: jobs[10]!.files[0]!.id, ...review }] },
      });
      expect(notInReview.statusCode).toBe(409);
      const form = await http(handler, {
        method: 'POST',
        path: '/reject',
        form: `fileId=${third!.files[1]!.id}&reason=Colour`,
      });
      expect(form.statusCode, form.body).toBe(200);
      // The other review action on the same path, and a job whose item predates review counts.
      const accepted = await http(handler, {
        method: 'POST',
        path: '/accept',
        body: { fileIds: [jobs[3]!.files[0]!.id, legacyJob.files[0]!.id] },
      });
      expect(accepted.statusCode, accepted.body).toBe(200);
      const acceptedForm = await http(handler, {
        method: 'POST',
        path: '/accept',
        form: `fileId=${jobs[3]!.files[0]!.id}`,
      });
      expect(acceptedForm.statusCode, acceptedForm.body).toBe(200);
    });
    await expectAllowed('Reject');
  });

  it('images: an upload made ready, one that is no picture made invalid, then the files with their URLs', async () => {
    const { handler } = await import('../../functions/handlers/images');
    const job = jobs[6]!;
    const [pictureFile, textFile] = job.files as [Job['files'][number], Job['files'][number]];
    const upload = async (fileId: number, body: Buffer): Promise<void> => {
      const key = uploadKey({
        accountId: ACCOUNT_ID,
        jobId: job.id,
        fileId,
        variant: 'original',
        uploadId: newUploadId(),
      });
      await localS3Client(s3.endpoint).send(
        new PutObjectCommand({ Bucket: template.functions.Images.environment.IMAGES_BUCKET, Key: key, Body: body }),
      );
    };
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#a05030' } })
      .jpeg()
      .toBuffer();
    objectEvents.length = 0;
    await upload(pictureFile.id, jpeg);
    await upload(textFile.id, Buffer.from('not a picture'));
    await s3.settled();
    expect(objectEvents).toHaveLength(2);
    await run('Images', async () => {
      for (const event of objectEvents) await handler(event, invocationContext() as never);
    });
    await expectAllowed('Images');
    const read = await import('../../functions/handlers/jobs-read');
    let files: { id: number; original: { status: string } | null }[] = [];
    await run('JobsRead', async () => {
      const page = await http(read.handler, { method: 'GET', path: `/jobs/${job.id}/files` });
      expect(page.statusCode, page.body).toBe(200);
      files = (JSON.parse(page.body) as { files: typeof files }).files;
    });
    expect(files.map((file) => [file.id, file.original?.status])).toEqual([
      [pictureFile.id, 'ready'],
      [textFile.id, 'invalid'],
    ]);
    // The ready picture's thumbnail, preview and download: three GET URLs the read role signed.
    const signed = (made.get('JobsRead') ?? []).filter((call) => call.origin === 'presigned GET URL');
    expect(signed.map((call) => call.resource.replace(/^.*\/original\/[^/]+/, '…')).sort()).toEqual([
      '…',
      '…/preview.webp',
      '…/thumbnail.webp',
    ]);
    await expectAllowed('JobsRead');
  });

  it('jobs-read: a job and its 304, pages of files with and without a filter and a cursor, a sparse state, a job from before review counts, the statuses', async () => {
    const { handler } = await import('../../functions/handlers/jobs-read');
    const get = (path: string, session: 'user' | 'operator' = 'user', headers: Record<string, string> = {}) =>
      http(handler, { method: 'GET', path, session, headers });
    await run('JobsRead', async () => {
      const job = await get(`/jobs/${jobs[0]!.id}`);
      expect(job.statusCode, job.body).toBe(200);
      const etag = String(job.headers?.ETag);
      expect((await get(`/jobs/${jobs[0]!.id}`, 'user', { 'If-None-Match': etag })).statusCode).toBe(304);
      expect((await get(`/jobs/${jobs[1]!.id}`, 'operator')).statusCode).toBe(200);
      const legacy = await get(`/jobs/${legacyReadJob.id}`);
      expect(JSON.parse(legacy.body).job.review).toEqual({ pending: 1, rejected: 0, accepted: 0 });
      const first = await get(`/jobs/${jobs[1]!.id}/files?limit=1`);
      expect(first.statusCode, first.body).toBe(200);
      const { nextCursor } = JSON.parse(first.body) as { nextCursor: string };
      const next = await get(`/jobs/${jobs[1]!.id}/files?limit=1&cursor=${encodeURIComponent(nextCursor)}`);
      expect(next.statusCode, next.body).toBe(200);
      expect((await get(`/jobs/${jobs[1]!.id}/files?review=rejected`)).statusCode).toBe(200);
      // A sparse state: the Query reads the two pending files, the index lists the rejected one, read by key.
      const sparse = await get(`/jobs/${sparseReadJob.id}/files?review=rejected&limit=1`);
      expect(JSON.parse(sparse.body).files.map((file: { id: number }) => file.id)).toEqual([
        sparseReadJob.files[2]!.id,
      ]);
      expect((await get('/statuses', 'operator')).statusCode).toBe(200);
    });
    await expectAllowed('JobsRead');
  });

  it('sessions: open a user and an operator session, a refused secret, a logout and its replay', async () => {
    const { handler } = await import('../../functions/handlers/sessions');
    await run('Sessions', async () => {
      const secret = { secret: tokens.secret };
      const open = (body: object, credentials: { secret: string } = secret) =>
        http(handler, { method: 'POST', path: '/sessions', credentials, body });
      const user = await open({ userId: 'anna@example.com', accountId: ACCOUNT_ID, ttlSeconds: 600 });
      expect(user.statusCode, user.body).toBe(201);
      const operator = await open({ userId: 'staff', accountId: 1, role: 'operator' });
      expect(operator.statusCode, operator.body).toBe(201);
      expect((await open({ userId: 'x', accountId: 1 }, { secret: `jsk_${'A'.repeat(43)}` })).statusCode).toBe(401);
      const sessionToken = (JSON.parse(user.body) as { token: string }).token;
      const logout = () =>
        http(handler, { method: 'DELETE', path: '/sessions/current', credentials: { sessionToken } });
      expect((await logout()).statusCode).toBe(200);
      expect((await logout()).statusCode).toBe(401);
    });
    await expectAllowed('Sessions');
    // Its audit records reached the audit log group, under its own role.
    const actions = logs.logEvents.map((event) => (JSON.parse(event.message) as { action: string }).action);
    expect(actions).toEqual(expect.arrayContaining(['session.opened', 'session.refused', 'session.ended']));
    expect(logs.unexpected).toEqual([]);
  });

  it('webhooks: register, list, read the deliveries of, and remove a webhook; refuse another id', async () => {
    const { handler } = await import('../../functions/handlers/webhooks');
    await run('Webhooks', async () => {
      const credentials = { secret: tokens.secret };
      const created = await http(handler, {
        method: 'POST',
        path: '/webhooks',
        credentials,
        body: { url: 'https://93.184.216.34/hooks', events: ['job.created', 'job.status_changed'] },
      });
      expect(created.statusCode, created.body).toBe(201);
      const { id } = JSON.parse(created.body) as { id: string };
      expect((await http(handler, { method: 'GET', path: '/webhooks', credentials })).statusCode).toBe(200);
      const deliveries = await http(handler, { method: 'GET', path: `/webhooks/${id}/deliveries`, credentials });
      expect(deliveries.statusCode, deliveries.body).toBe(200);
      const removed = await http(handler, { method: 'DELETE', path: `/webhooks/${id}`, credentials });
      expect(removed.statusCode, removed.body).toBe(200);
      const again = await http(handler, { method: 'DELETE', path: `/webhooks/${id}`, credentials });
      expect(again.statusCode).toBe(404);
    });
    await expectAllowed('Webhooks');
  });

  it('webhooks: its role reaches webhook items only, and reads clients and secrets but never writes them', async () => {
    const fn = template.functions.Webhooks;
    const call = (action: string, key: string): AuthorizedCall => keyCall(action, key, 'auth');
    expect(await judge(fn, call('PutItem', 'WEBHOOK#wh_1'))).toBe('Allowed');
    expect(await judge(fn, call('GetItem', 'SECRET#abc'))).toBe('Allowed');
    expect(await judge(fn, call('GetItem', 'SESSION#abc'))).not.toBe('Allowed');
    expect(await judge(fn, call('PutItem', 'CLIENT#abc'))).not.toBe('Allowed');
    expect(await judge(fn, call('UpdateItem', 'SECRET#abc'))).not.toBe('Allowed');
    expect(await judge(fn, call('DeleteItem', 'SESSION#abc'))).not.toBe('Allowed');
    expect(await judge(fn, call('GetItem', 'JOB#1'))).not.toBe('Allowed');
    expect(await judge(template.functions.Sessions, call('PutItem', 'WEBHOOK#wh_1'))).not.toBe('Allowed');
  });

  it('sessions: its role refuses a write outside session keys and a read of anything but credentials', async () => {
    const fn = template.functions.Sessions;
    const call = (action: string, key: string): AuthorizedCall => keyCall(action, key, 'auth');
    expect(await judge(fn, call('PutItem', 'SESSION#abc'))).toBe('Allowed');
    expect(await judge(fn, call('PutItem', 'CLIENT#abc'))).not.toBe('Allowed');
    expect(await judge(fn, call('DeleteItem', 'SECRET#abc'))).not.toBe('Allowed');
    expect(await judge(fn, call('UpdateItem', 'CLIENT#abc'))).not.toBe('Allowed');
    expect(await judge(fn, call('GetItem', 'JOB#1'))).not.toBe('Allowed');
    expect(await judge(template.functions.Search, call('GetItem', 'SECRET#abc'))).not.toBe('Allowed');
    expect(await judge(template.functions.Search, call('PutItem', 'SESSION#abc'))).not.toBe('Allowed');
  });

  it('jobs-write: creates (small, 150 files, a replayed key), edits, a stale edit, deliveries of 2 and 150 files', async () => {
    const { handler } = await import('../../functions/handlers/jobs-write');
    const files = (count: number) => Array.from({ length: count }, (_, index) => ({ fileName: `f_${index}.jpg` }));
    type Answer = { job: { id: number; version: number } };
    const bodyOf = (response: APIGatewayProxyResult) => JSON.parse(response.body) as Answer;
    /** Moves a job from CJ_NEW to CJ_WORK_PROGRESS as staff would, answering its last version. */
    const toWork = async (job: Answer['job']): Promise<number> => {
      let version = job.version;
      for (const status of ['CJ_ACCEPT', 'CJ_JOB_PAID', 'CJ_WORK_PROGRESS']) {
        const moved = await http(handler, {
          method: 'PATCH',
          path: `/jobs/${job.id}`,
          session: 'operator',
          headers: { 'If-Match': `"${version}"` },
          body: { status },
        });
        expect(moved.statusCode, moved.body).toBe(200);
        version = bodyOf(moved).job.version;
      }
      return version;
    };
    await run('JobsWrite', async () => {
      const key = { 'Idempotency-Key': 'rehearsal-order-1' };
      const small = await http(handler, {
        method: 'POST',
        path: '/jobs',
        headers: key,
        body: { name: 'Small', files: files(2) },
      });
      expect(small.statusCode, small.body).toBe(201);
      const replayed = await http(handler, {
        method: 'POST',
        path: '/jobs',
        headers: key,
        body: { name: 'Small', files: files(2) },
      });
      // The first answer again, each file with a fresh upload target (a stored target may have expired).
      const withoutTargets = (body: string) => {
        const answer = JSON.parse(body) as { files: { upload?: unknown }[] };
        return { ...answer, files: answer.files.map(({ upload: _, ...file }) => file) };
      };
      expect(withoutTargets(replayed.body)).toEqual(withoutTargets(small.body));
      const large = await http(handler, { method: 'POST', path: '/jobs', body: { name: 'Large', files: files(150) } });
      expect(large.statusCode, large.body).toBe(201);
      const stale = await http(handler, {
        method: 'PATCH',
        path: `/jobs/${bodyOf(small).job.id}`,
        headers: { 'If-Match': '"1"' },
        body: { name: 'Renamed' },
      });
      expect(stale.statusCode).toBe(412);
      // A fresh upload target for the customer's original while the job is new, then for staff's edited version.
      const smallJob = bodyOf(small).job;
      const fileId = (JSON.parse(small.body) as { files: { id: number }[] }).files[0]!.id;
      const target = (variant: string, session: 'user' | 'operator') =>
        http(handler, {
          method: 'POST',
          path: `/jobs/${smallJob.id}/files/${fileId}/upload`,
          session,
          body: { variant },
        });
      const original = await target('original', 'user');
      expect(original.statusCode, original.body).toBe(200);
      for (const created of [small, large]) {
        await toWork(bodyOf(created).job);
        const createdFiles = (JSON.parse(created.body) as { files: { id: number }[] }).files.map((file) => file.id);
        await readyEdits(pictureSetup(), config().jobsTable, bodyOf(created).job.id, createdFiles);
        if (created === small) {
          const edited = await target('edited', 'operator');
          expect(edited.statusCode, edited.body).toBe(200);
        }
        const delivered = await http(handler, {
          method: 'POST',
          path: `/jobs/${bodyOf(created).job.id}/delivery`,
          session: 'operator',
          body: {},
        });
        expect(delivered.statusCode, delivered.body).toBe(200);
      }
    });
    await expectAllowed('JobsWrite');
  });

  it('jobs-write: its role refuses keys outside job partitions, the id counter and idempotency records', async () => {
    const fn = template.functions.JobsWrite;
    const call = (action: string, key: string, table: 'jobs' | 'auth' = 'jobs'): AuthorizedCall =>
      keyCall(action, key, table);
    expect(await judge(fn, call('PutItem', 'JOB#1'))).toBe('Allowed');
    expect(await judge(fn, call('UpdateItem', 'IDS'))).toBe('Allowed');
    expect(await judge(fn, call('PutItem', 'CLIENT#abc', 'auth'))).not.toBe('Allowed');
    expect(await judge(fn, call('PutItem', 'SOMETHING#1'))).not.toBe('Allowed');
    expect(await judge(fn, call('DeleteItem', 'JOB#1'))).not.toBe('Allowed');
    expect(await judge(fn, call('Scan', 'JOB#1'))).not.toBe('Allowed');
  });

  it('indexer: a job OpenSearch refuses goes to the dead-letter queue, its record reported done', async () => {
    const { handler } = await import('../../functions/handlers/indexer');
    const refused = jobs[2]!;
    const record = streamRecord(refused, 'MODIFY', 2);
    await run('Indexer', async () => {
      refusedJobs.add(String(refused.id));
      try {
        const result = await handler({ Records: [record] } as DynamoDBStreamEvent, invocationContext() as never);
        expect(result).toEqual({ batchItemFailures: [] });
      } finally {
        refusedJobs.clear();
      }
    });
    expect(sentDeadLetters).toEqual([
      expect.objectContaining({
        source: 'indexer',
        jobId: refused.id,
        reason: expect.stringContaining('mapper_parsing_exception'),
        records: [expect.objectContaining({ sequenceNumber: record.dynamodb?.SequenceNumber })],
      }),
    ]);
    const sends = (made.get('Indexer') ?? []).filter((call) => call.action === 'sqs:SendMessage');
    expect(sends.map((call) => call.resource)).toEqual([
      expect.stringMatching(new RegExp(`^arn:aws:sqs:${REGION}:${ACCOUNT}:`)),
    ]);
    await expectAllowed('Indexer');
  });

  it('indexer: insert, modify, remove, a full batch of 100, a redelivered batch, a new domain', async () => {
    const { handler } = await import('../../functions/handlers/indexer');
    const invoke = async (Records: DynamoDBRecord[]) => {
      const result = (await handler({ Records } as DynamoDBStreamEvent, invocationContext() as never)) as {
        batchItemFailures: unknown[];
      };
      expect(result.batchItemFailures).toEqual([]);
    };
    const gone = makeJob({ accountId: ACCOUNT_ID });
    await run('Indexer', async () => {
      aliasMissing = true;
      await invoke([streamRecord(jobs[0]!, 'INSERT', 1)]);
      await invoke([streamRecord(jobs[1]!, 'MODIFY', 2), streamRecord(gone, 'REMOVE', 3)]);
      const hundred = jobs.slice(4, 104).map((job) => streamRecord(job, 'INSERT', 1));
      await invoke(hundred);
      await invoke(hundred);
    });
    await expectAllowed('Indexer');
  });

  it('events: a job created, renamed and moved on, two files rejected, a batch delivered again, the id counter', async () => {
    const { handler } = await import('../../functions/handlers/events');
    const [renamed, moved, reviewed] = [jobs[10]!, jobs[11]!, jobs[12]!];
    const created = makeJob({ accountId: ACCOUNT_ID, files: [makeFile()] });
    const rejected = (file: Job['files'][number]) => {
      const pending = toFileItem(reviewed.id, file, true);
      return itemRecord(pending, {
        ...pending,
        isRejected: true,
        rejectionReason: 'Blurred',
        reviewDate: '2026-11-28T12:00:00.000Z',
      });
    };
    const records = [
      itemRecord(undefined, toJobItem(created, 1)),
      itemRecord(toJobItem(renamed, 1), toJobItem({ ...renamed, name: 'Renamed in the rehearsal' }, 2)),
      itemRecord(toJobItem(moved, 1), toJobItem({ ...moved, status: 'CJ_REQUEST_OFFER' }, 2)),
      ...reviewed.files.map(rejected),
      itemRecord(undefined, { ...jobKeys.counter, next: 5 }),
    ];
    const from = logs.busEntries.length;
    await run('Events', async () => {
      for (const batch of [records, structuredClone(records)]) {
        const answer = await handler({ Records: batch } as DynamoDBStreamEvent, invocationContext() as never);
        expect(answer).toEqual({ batchItemFailures: [] });
      }
    });
    const environment = template.functions.Events.environment;
    const entries = logs.busEntries.slice(from);
    const events = entries.map((entry) => JSON.parse(entry.Detail) as JobsEvent);
    const once = [
      `jobs/${created.id}/v1/job.created`,
      `jobs/${renamed.id}/v2/job.updated`,
      `jobs/${moved.id}/v2/job.status_changed`,
      ...reviewed.files.map((file) => `jobs/${reviewed.id}/files/${file.id}/file.rejected/2026-11-28T12:00:00.000Z`),
    ];
    // The batch delivered again puts the same events again, with the same ids.
    expect(events.map((event) => event.id).sort()).toEqual([...once, ...once].sort());
    for (const [index, entry] of entries.entries()) {
      expect(entry.EventBusName).toBe(environment.EVENT_BUS_NAME);
      expect(entry.Source).toBe(environment.EVENT_SOURCE);
      expect(entry.DetailType).toBe(events[index]!.type);
    }
    expect(environment.EVENT_SOURCE).toMatch(/^https:\/\/[^/]+\.execute-api\.eu-west-1\.amazonaws\.com\/prod$/);
    await expectAllowed('Events');
  });

  it('events: the role may put events on the stage’s bus only, and read job items only', async () => {
    const fn = template.functions.Events;
    const bus = (name: string) => ({
      action: 'events:PutEvents',
      resource: `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${name}`,
      origin: 'PutEvents',
    });
    expect(await judge(fn, bus(fn.environment.EVENT_BUS_NAME!))).toBe('Allowed');
    expect(await judge(fn, bus('default'))).not.toBe('Allowed');
    expect(await judge(fn, bus('jobs-api-other'))).not.toBe('Allowed');
    const get = (pk: string) => keyCall('GetItem', pk, 'jobs');
    expect(await judge(fn, get('JOB#1'))).toBe('Allowed');
    expect(await judge(fn, get(jobKeys.counter.pk))).not.toBe('Allowed');
    expect(await judge(fn, { ...get('JOB#1'), action: 'dynamodb:UpdateItem' })).not.toBe('Allowed');
    expect(await judge(fn, { ...get('CLIENT#1'), resource: template.tableArn('auth') })).not.toBe('Allowed');
  });

  it('webhooks sender: an event from the bus routed to its webhook, then that delivery refused and deferred', async () => {
    const { handler } = await import('../../functions/handlers/webhooks-sender');
    const environment = template.functions.WebhooksSender.environment;
    const queueUrl = environment.WEBHOOK_QUEUE_URL!;
    // Set up outside the function's calls: a webhook of the rehearsal's client whose host is a private address,
    // which the sender refuses to connect to, so the attempt fails and is retried without any network.
    await becomeFunction(template.functions.Webhooks);
    const webhook = await new WebhookStore(documentClient(), TABLES.auth).create({
      clientId: (await new AuthStore(documentClient(), TABLES.auth).getClient(hashToken(tokens.client)))!.clientId,
      clientKey: authKeys.client(hashToken(tokens.client)),
      url: 'https://10.0.0.1/hooks',
      events: ['job.created'],
    });
    const event = {
      specversion: '1.0',
      id: 'jobs/1/v1/job.created',
      type: 'job.created',
      source: 'https://api.example/prod',
      time: '2026-11-28T12:00:00.000Z',
      datacontenttype: 'application/json',
      data: { accountId: ACCOUNT_ID, jobId: 1, version: 1, status: 'CJ_NEW' },
    } as unknown as JobsEvent;
    const message = (messageId: string, body: unknown): SQSRecord =>
      ({
        messageId,
        receiptHandle: `receipt-${messageId}`,
        body: JSON.stringify(body),
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:webhooks',
        awsRegion: REGION,
      }) as unknown as SQSRecord;
    sentToWebhookQueue.length = 0;
    visibilityChanges.length = 0;
    await run('WebhooksSender', async () => {
      const routed = await handler(
        { Records: [message('event-1', { 'detail-type': 'job.created', source: event.source, detail: event })] },
        invocationContext() as never,
      );
      expect(routed).toEqual({ batchItemFailures: [] });
      expect(sentToWebhookQueue.map((body) => JSON.parse(body) as unknown)).toEqual([
        { webhookId: webhook.webhookId, event },
      ]);
      const deferred = await handler(
        { Records: [message('delivery-1', JSON.parse(sentToWebhookQueue[0]!))] },
        invocationContext() as never,
      );
      expect(deferred).toEqual({ batchItemFailures: [{ itemIdentifier: 'delivery-1' }] });
    });
    // The first retry is due five seconds later: the message stays invisible that long.
    expect(visibilityChanges).toEqual([
      { QueueUrl: queueUrl, ReceiptHandle: 'receipt-delivery-1', VisibilityTimeout: 5 },
    ]);
    await expectAllowed('WebhooksSender');
  });

  it('webhooks sender: its role may not write clients, touch the jobs table or send to another queue', async () => {
    const fn = template.functions.WebhooksSender;
    const item = (action: string, pk: string, table: 'jobs' | 'auth' = 'auth') => keyCall(action, pk, table);
    expect(await judge(fn, item('GetItem', 'CLIENT#abc'))).toBe('Allowed');
    expect(await judge(fn, item('UpdateItem', 'WEBHOOK#wh_1'))).toBe('Allowed');
    expect(await judge(fn, item('PutItem', 'CLIENT#abc'))).not.toBe('Allowed');
    expect(await judge(fn, item('UpdateItem', 'CLIENT#abc'))).not.toBe('Allowed');
    expect(await judge(fn, item('GetItem', 'SESSION#abc'))).not.toBe('Allowed');
    expect(await judge(fn, item('DeleteItem', 'WEBHOOK#wh_1'))).not.toBe('Allowed');
    expect(await judge(fn, item('GetItem', 'JOB#1', 'jobs'))).not.toBe('Allowed');
    const [, account, name] = new URL(fn.environment.WEBHOOK_QUEUE_URL!).pathname.split('/');
    const send = (queue: string) => ({
      action: 'sqs:SendMessage',
      resource: `arn:aws:sqs:${REGION}:${account}:${queue}`,
      origin: 'SendMessageBatch',
    });
    expect(await judge(fn, send(name!))).toBe('Allowed');
    expect(await judge(fn, send('another-queue'))).not.toBe('Allowed');
  });

  it('uses every grant it holds, except those the runtime itself uses (lib/runtime-grants.ts)', () => {
    for (const name of [
      'Search',
      'SearchFields',
      'Reject',
      'JobsRead',
      'Sessions',
      'JobsWrite',
      'Webhooks',
      'Indexer',
      'Images',
      'Events',
      'WebhooksSender',
      'SearchIndexSetup',
      'TableProtection',
    ] as const) {
      expect(unusedGrants(name), `${name} holds grants no call uses`).toEqual([]);
    }
  });

  it('records DynamoDB calls per item and OpenSearch calls per request', () => {
    const actions = (name: RehearsedName) => [...new Set((made.get(name) ?? []).map((call) => call.action))].sort();
    expect(actions('Search')).toEqual(['dynamodb:GetItem', 'es:ESHttpPost']);
    expect(actions('SearchFields')).toEqual(['dynamodb:GetItem']);
    expect(actions('Reject')).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    expect(actions('JobsRead')).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:Query',
      's3:GetObject',
      'secretsmanager:GetSecretValue',
    ]);
    expect(actions('Images')).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem', 's3:GetObject', 's3:PutObject']);
    expect(actions('Sessions')).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
    expect(actions('Webhooks')).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    expect(actions('JobsWrite')).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      's3:PutObject',
    ]);
    expect(actions('Indexer')).toEqual(['dynamodb:Query', 'es:ESHttpPost', 'es:ESHttpPut', 'sqs:SendMessage']);
    expect(actions('Events')).toEqual(['dynamodb:GetItem', 'events:PutEvents']);
    expect(actions('WebhooksSender')).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'sqs:ChangeMessageVisibility',
      'sqs:SendMessage',
    ]);
    expect(actions('SearchIndexSetup')).toEqual(['es:ESHttpHead', 'es:ESHttpPut']);
    expect(actions('TableProtection')).toEqual(['dynamodb:UpdateTable']);
  });
});

/** The most AWS requests each operation may make: the rehearsal fails when a change makes one dearer. */
const COST_BUDGETS = [
  {
    operation: 'search, first request of a container (client and session looked up)',
    dynamodb: 2,
    opensearch: 1,
    s3: 0,
  },
  { operation: 'search, auth cache warm', dynamodb: 0, opensearch: 1, s3: 0 },
  // A user's review reads the job items of the files it located (one BatchGetItem) before any file: whose they are.
  { operation: 'reject of one file, auth cache warm', dynamodb: 4, opensearch: 0, s3: 0 },
  { operation: 'POST /sessions (client and secret read, session written)', dynamodb: 3, opensearch: 0, s3: 0 },
  { operation: 'DELETE /sessions/current, first request of a container', dynamodb: 3, opensearch: 0, s3: 0 },
  { operation: 'indexer batch of 1 job', dynamodb: 1, opensearch: 1, s3: 0 },
  { operation: 'indexer batch of 100 jobs', dynamodb: 100, opensearch: 1, s3: 0 },
  { operation: 'accept of one file, auth cache warm', dynamodb: 4, opensearch: 0, s3: 0 },
  { operation: 'GET /jobs/{id}, auth cache warm', dynamodb: 1, opensearch: 0, s3: 0 },
  // One Query of the padded file keys, filtered to the state, beside the job item's GetItem: the files it read
  // hold the page.
  { operation: 'GET /jobs/{id}/files, a page of one review state, auth cache warm', dynamodb: 2, opensearch: 0, s3: 0 },
  // The same, then the byReview index after the files read, then the page's other files by key (BatchGetItem).
  {
    operation: 'GET /jobs/{id}/files, a page of a review state sparse among the files read, auth cache warm',
    dynamodb: 4,
    opensearch: 0,
    s3: 0,
  },
  // One Query of the padded file keys beside the job item's GetItem.
  { operation: 'GET /jobs/{id}/files, a page of every file, auth cache warm', dynamodb: 2, opensearch: 0, s3: 0 },
  // A create's ids come from the container's block; one create in 1,024 ids also moves the counter (+1).
  { operation: 'POST /jobs, 1 file, auth cache warm', dynamodb: 2, opensearch: 0, s3: 0 },
  { operation: 'POST /jobs, 1 file with an Idempotency-Key, auth cache warm', dynamodb: 3, opensearch: 0, s3: 0 },
  {
    operation: 'POST /jobs, 100 files (files in a transaction of conditional puts, the job item last)',
    dynamodb: 3,
    opensearch: 0,
    s3: 0,
  },
  {
    operation: 'POST /jobs, 1,000 files (files in transactions of 100 conditional puts, the job item last)',
    dynamodb: 12,
    opensearch: 0,
    s3: 0,
  },
  // A user's move to CJ_REQUEST_OFFER also reads its files' originals (one projected Query): the offer waits for them.
  { operation: 'PATCH /jobs/{id} to CJ_REQUEST_OFFER, auth cache warm', dynamodb: 3, opensearch: 0, s3: 0 },
  // Signing the target is local: no request besides the job item's read and the file's.
  {
    operation: 'POST /jobs/{id}/files/{fileId}/upload, the original of a new job, auth cache warm',
    dynamodb: 2,
    opensearch: 0,
    s3: 0,
  },
  // Per upload: the object read once, its preview and thumbnail written; the file item read, then written once.
  {
    operation: 'images function, one upload made ready (a 64 × 48 JPEG)',
    dynamodb: 2,
    opensearch: 0,
    s3: 3,
  },
  // A job's own change carries its account, version and status: no read, one PutEvents.
  { operation: 'events of one job change (one stream record)', dynamodb: 0, opensearch: 0, s3: 0, eventbridge: 1 },
  // The files' job is read once (GetItem); 100 file events and the job's in PutEvents calls of at most 10 entries.
  {
    operation: 'events of a review of 100 files (100 file records and the job item’s)',
    dynamodb: 1,
    opensearch: 0,
    s3: 0,
    eventbridge: 11,
  },
] as const;

/** An operation's EventBridge budget: none but the events function's put any event. */
const eventBridgeBudget = (budget: (typeof COST_BUDGETS)[number]): number =>
  'eventbridge' in budget ? budget.eventbridge : 0;

const BENCHMARKS = join(import.meta.dirname, '..', '..', 'BENCHMARKS.md');
const BEGIN = '<!-- cost:begin -->';
const END = '<!-- cost:end -->';

interface CostRow {
  operation: string;
  dynamodb: number;
  capacityUnits: number;
  opensearch: number;
  eventbridge: number;
  /** The function's own S3 requests (a URL it signs is a request of whoever uses it, not of the function). */
  s3: number;
}

const costOf = (operation: string, calls: AuthorizedCall[]): CostRow => {
  const requests = calls.filter((call) => call.request === true);
  return {
    operation,
    dynamodb: requests.filter((call) => call.action.startsWith('dynamodb:')).length,
    capacityUnits: requests.reduce((sum, call) => sum + (call.capacityUnits ?? 0), 0),
    opensearch: requests.filter((call) => call.action.startsWith('es:')).length,
    eventbridge: requests.filter((call) => call.action.startsWith('events:')).length,
    s3: requests.filter((call) => call.action.startsWith('s3:') && !call.origin.startsWith('presigned')).length,
  };
};

const costTable = (rows: CostRow[]): string =>
  [
    '| Operation | DynamoDB requests | DynamoDB capacity units | OpenSearch requests | S3 requests | EventBridge requests | Budget (DynamoDB / OpenSearch / S3 / EventBridge requests) |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => {
      const budget = COST_BUDGETS.find((entry) => entry.operation === row.operation)!;
      return `| ${row.operation} | ${row.dynamodb} | ${row.capacityUnits} | ${row.opensearch} | ${row.s3} | ${row.eventbridge} | ${budget.dynamodb} / ${budget.opensearch} / ${budget.s3} / ${eventBridgeBudget(budget)} |`;
    }),
  ].join('\n');

describe('the cost of each operation, counted from the rehearsal', { timeout: 120_000 }, () => {
  it('stays within its request budget, and BENCHMARKS.md shows the counts this run measured', async () => {
    const search = await import('../../functions/handlers/search');
    const reject = await import('../../functions/handlers/reject');
    const indexer = await import('../../functions/handlers/indexer');
    const sessions = await import('../../functions/handlers/sessions');
    const rows: CostRow[] = [];
    const measure = async (
      operation: string,
      fn: RehearsedName,
      work: () => Promise<unknown>,
      warm?: () => Promise<unknown>,
    ) => {
      await becomeFunction(template.functions[fn]);
      if (warm !== undefined) await warm();
      // EventBridge's calls are the stand-in's to record.
      const from = logs.calls.length;
      const calls = await recorder.during(work);
      rows.push(costOf(operation, [...calls, ...logs.calls.slice(from)]));
    };
    const searchOnce = async () => {
      const response = await http(search.handler, { method: 'POST', path: '/search', body: { query: 'spring' } });
      expect(response.statusCode).toBe(200);
    };
    await measure(COST_BUDGETS[0].operation, 'Search', searchOnce);
    await measure(COST_BUDGETS[1].operation, 'Search', searchOnce, searchOnce);
    const rejectable = jobs[3]!.files[1]!.id;
    await measure(
      COST_BUDGETS[2].operation,
      'Reject',
      async () => {
        const response = await http(reject.handler, {
          method: 'POST',
          path: '/reject',
          body: { files: [{ fileId: rejectable, customRejection: 'Too dark' }] },
        });
        expect(response.statusCode, response.body).toBe(200);
      },
      // A refused request authenticates too: it warms the cache without touching the jobs table.
      () => http(reject.handler, { method: 'POST', path: '/reject', body: { files: [] } }),
    );
    const acceptable = jobs[3]!.files[1]!.id;
    await measure(
      'accept of one file, auth cache warm',
      'Reject',
      async () => {
        const response = await http(reject.handler, {
          method: 'POST',
          path: '/accept',
          body: { fileIds: [acceptable] },
        });
        expect(response.statusCode, response.body).toBe(200);
      },
      () => http(reject.handler, { method: 'POST', path: '/accept', body: { fileIds: [] } }),
    );
    const read = await import('../../functions/handlers/jobs-read');
    const readOnce = (path: string) => async () => {
      const response = await http(read.handler, { method: 'GET', path });
      expect(response.statusCode, response.body).toBe(200);
    };
    await measure(
      'GET /jobs/{id}, auth cache warm',
      'JobsRead',
      readOnce(`/jobs/${jobs[2]!.id}`),
      readOnce('/statuses'),
    );
    await measure(
      'GET /jobs/{id}/files, a page of one review state, auth cache warm',
      'JobsRead',
      readOnce(`/jobs/${jobs[2]!.id}/files?review=pending`),
      readOnce(`/jobs/${jobs[2]!.id}/files?review=accepted`),
    );
    await measure(
      'GET /jobs/{id}/files, a page of a review state sparse among the files read, auth cache warm',
      'JobsRead',
      readOnce(`/jobs/${sparseReadJob.id}/files?review=rejected&limit=1`),
      readOnce(`/jobs/${sparseReadJob.id}/files?review=accepted`),
    );
    await measure(
      'GET /jobs/{id}/files, a page of every file, auth cache warm',
      'JobsRead',
      readOnce(`/jobs/${jobs[2]!.id}/files`),
      readOnce(`/jobs/${jobs[2]!.id}/files?review=accepted`),
    );
    const write = await import('../../functions/handlers/jobs-write');
    const createdFileIds = new Map<number, number[]>();
    const createOnce =
      (count: number, headers: Record<string, string> = {}) =>
      async (): Promise<{ id: number; version: number }> => {
        const files = Array.from({ length: count }, (_, index) => ({ fileName: `cost_${index}.jpg` }));
        const response = await http(write.handler, {
          method: 'POST',
          path: '/jobs',
          headers,
          body: { name: 'Cost', files },
        });
        expect(response.statusCode, response.body).toBe(201);
        const answer = JSON.parse(response.body) as { job: { id: number; version: number }; files: { id: number }[] };
        createdFileIds.set(
          answer.job.id,
          answer.files.map((file) => file.id),
        );
        return answer.job;
      };
    const warmCreate = createOnce(1);
    await measure('POST /jobs, 1 file, auth cache warm', 'JobsWrite', createOnce(1), warmCreate);
    await measure(
      'POST /jobs, 1 file with an Idempotency-Key, auth cache warm',
      'JobsWrite',
      createOnce(1, { 'Idempotency-Key': `cost-${crypto.randomUUID()}` }),
      warmCreate,
    );
    await measure(
      'POST /jobs, 100 files (files in a transaction of conditional puts, the job item last)',
      'JobsWrite',
      createOnce(100),
      warmCreate,
    );
    await measure(
      'POST /jobs, 1,000 files (files in transactions of 100 conditional puts, the job item last)',
      'JobsWrite',
      createOnce(1_000),
      warmCreate,
    );
    let edited = { id: 0, version: 0 };
    await measure(
      'PATCH /jobs/{id} to CJ_REQUEST_OFFER, auth cache warm',
      'JobsWrite',
      async () => {
        const response = await http(write.handler, {
          method: 'PATCH',
          path: `/jobs/${edited.id}`,
          headers: { 'If-Match': `"${edited.version}"` },
          body: { status: 'CJ_REQUEST_OFFER' },
        });
        expect(response.statusCode, response.body).toBe(200);
      },
      async () => {
        edited = await warmCreate();
        await readyOriginals(pictureSetup(), config().jobsTable, edited.id, createdFileIds.get(edited.id) ?? []);
      },
    );
    let target = { jobId: 0, fileId: 0 };
    await measure(
      'POST /jobs/{id}/files/{fileId}/upload, the original of a new job, auth cache warm',
      'JobsWrite',
      async () => {
        const response = await http(write.handler, {
          method: 'POST',
          path: `/jobs/${target.jobId}/files/${target.fileId}/upload`,
          body: { variant: 'original' },
        });
        expect(response.statusCode, response.body).toBe(200);
        expect(JSON.parse(response.body)).toMatchObject({ upload: { url: expect.any(String) } });
      },
      async () => {
        const { id } = await warmCreate();
        target = { jobId: id, fileId: createdFileIds.get(id)![0]! };
      },
    );
    // The customer's upload through that target, as S3 takes it (set-up, not a call of the rehearsed function).
    objectEvents.length = 0;
    await localS3Client(s3.endpoint).send(
      new PutObjectCommand({
        Bucket: template.functions.Images.environment.IMAGES_BUCKET,
        Key: uploadKey({ accountId: ACCOUNT_ID, ...target, variant: 'original', uploadId: newUploadId() }),
        Body: await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3060a0' } })
          .jpeg()
          .toBuffer(),
      }),
    );
    await s3.settled();
    expect(objectEvents).toHaveLength(1);
    const images = await import('../../functions/handlers/images');
    await measure('images function, one upload made ready (a 64 × 48 JPEG)', 'Images', () =>
      images.handler(objectEvents[0]!, invocationContext() as never),
    );
    const { Item: recorded } = await pictureSetup().send(
      new GetCommand({
        TableName: config().jobsTable,
        Key: { pk: jobKeys.pk(target.jobId), sk: jobKeys.fileSk(target.fileId) },
        ConsistentRead: true,
      }),
    );
    expect(recorded).toMatchObject({ original: { status: 'ready', width: 64, height: 48 } });
    let opened = '';
    await measure(COST_BUDGETS[3].operation, 'Sessions', async () => {
      const response = await http(sessions.handler, {
        method: 'POST',
        path: '/sessions',
        credentials: { secret: tokens.secret },
        body: { userId: 'cost', accountId: ACCOUNT_ID },
      });
      expect(response.statusCode, response.body).toBe(201);
      opened = (JSON.parse(response.body) as { token: string }).token;
    });
    const logout = () =>
      http(sessions.handler, { method: 'DELETE', path: '/sessions/current', credentials: { sessionToken: opened } });
    await measure(COST_BUDGETS[4].operation, 'Sessions', async () => expect((await logout()).statusCode).toBe(200));
    const index = async (records: DynamoDBRecord[]) => {
      const result = (await indexer.handler(
        { Records: records } as DynamoDBStreamEvent,
        invocationContext() as never,
      )) as {
        batchItemFailures: unknown[];
      };
      expect(result.batchItemFailures).toEqual([]);
    };
    await measure(COST_BUDGETS[5].operation, 'Indexer', () => index([streamRecord(jobs[5]!, 'MODIFY', 2)]));
    await measure(COST_BUDGETS[6].operation, 'Indexer', () =>
      index(jobs.slice(4, 104).map((job) => streamRecord(job, 'MODIFY', 2))),
    );
    const events = await import('../../functions/handlers/events');
    const publish = async (records: DynamoDBRecord[]) => {
      const result = await events.handler({ Records: records } as DynamoDBStreamEvent, invocationContext() as never);
      expect(result).toEqual({ batchItemFailures: [] });
    };
    const changed = jobs[20]!;
    await measure('events of one job change (one stream record)', 'Events', () =>
      publish([itemRecord(toJobItem(changed, 1), toJobItem({ ...changed, name: 'Renamed for the cost' }, 2))]),
    );
    const reviewed = jobs[21]!;
    const files = Array.from({ length: 100 }, () => makeFile());
    await measure('events of a review of 100 files (100 file records and the job item’s)', 'Events', () =>
      publish([
        ...files.map((file) => {
          const pending = toFileItem(reviewed.id, file, true);
          return itemRecord(pending, { ...pending, isRejected: true, reviewDate: '2026-11-28T12:00:00.000Z' });
        }),
        itemRecord(
          toJobItem({ ...reviewed, status: 'CJ_REVIEWING' }, 1),
          toJobItem({ ...reviewed, status: 'CJ_REJECT_READY' }, 2),
        ),
      ]),
    );

    for (const row of rows) {
      const budget = COST_BUDGETS.find((entry) => entry.operation === row.operation)!;
      expect(row.dynamodb, `${row.operation}: DynamoDB requests`).toBeLessThanOrEqual(budget.dynamodb);
      expect(row.opensearch, `${row.operation}: OpenSearch requests`).toBeLessThanOrEqual(budget.opensearch);
      expect(row.s3, `${row.operation}: S3 requests`).toBeLessThanOrEqual(budget.s3);
      expect(row.eventbridge, `${row.operation}: EventBridge requests`).toBeLessThanOrEqual(eventBridgeBudget(budget));
    }

    const table = costTable(rows);
    const current = readFileSync(BENCHMARKS, 'utf8');
    const section = new RegExp(`${BEGIN}[\\s\\S]*?${END}`);
    const generated = `${BEGIN}\n${table}\n${END}`;
    if (process.env.WRITE_COST_TABLE === '1') writeFileSync(BENCHMARKS, current.replace(section, generated));
    else expect(current.match(section)?.[0], 'BENCHMARKS.md: run npm run cost:table').toBe(generated);
  });
});

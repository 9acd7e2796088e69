/**
 * POST /reject at DynamoDB's size limits, through the real handler on DynamoDB Local: a file's review
 * history grows by appending, and a rejection that would outgrow an item or a transaction is refused
 * with 409 before anything is written — never a 500. POST /accept, on the same path, is bounded alike.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetDefaultAuthenticator } from '../../functions/auth/authenticate';
import { AuthStore } from '../../functions/auth/store';
import { createDocumentClient, resetDocumentClient } from '../../functions/aws/dynamodb';
import { resetConfig } from '../../functions/config';
import { toFileItems, toJobItem } from '../../functions/jobs/store/items';
import { type Job, MAX_PREVIOUS_REVIEWS, type Review } from '../../functions/jobs/model/model';
import { logger } from '../../functions/observability';
import { handler } from '../../functions/handlers/reject';
import { jobKeys } from '../../functions/tables';
import { apiEvent, lambdaContext, passingHeaders } from '../support/api-event';
import { createTestTables, handlerEnv } from '../support/dynamo';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { makeFile, makeJob } from '../support/jobs';

const ACCOUNT_ID = 42;
const saved = { ...process.env };
let client: ReturnType<typeof createDocumentClient>;
let tableName: string;
let tokens: { clientToken: string; sessionToken: string };

/**
 * A DynamoDB Local of this file's own: its requests move megabytes, and the run's shared instance, busy with
 * the other files, has held a single request past the longest budget the configuration allows.
 */
let dynamo: DynamoDbLocal;

beforeAll(async () => {
  dynamo = await startDynamoDbLocal({ port: 0 });
  const tables = await createTestTables(
    new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    dynamo.endpoint,
  );
  tableName = tables.jobsTable;
  // Items of several hundred KB and transactions of megabytes take DynamoDB Local seconds on a busy machine: this
  // file tests sizes, not speed, so a request may take a minute (the ceiling a local endpoint allows is 120 s).
  Object.assign(process.env, handlerEnv(tables), { DEPENDENCY_TIMEOUT_MS: '60000' });
  resetConfig();
  resetDocumentClient();
  resetDefaultAuthenticator();
  logger.setLogLevel('SILENT');
  client = createDocumentClient({
    region: 'us-east-1',
    dynamodbEndpoint: tables.endpoint,
    dependencyTimeoutMs: 60_000,
  });
  const store = new AuthStore(client, tables.authTable);
  const rejecter = await store.createClient({ name: 'Limits', grants: ['reject'] });
  const session = await store.createSession({
    clientToken: rejecter.token,
    accountId: ACCOUNT_ID,
    role: 'user',
    ttlSeconds: 600,
  });
  tokens = { clientToken: rejecter.token, sessionToken: session.token };
});

afterAll(async () => {
  process.env = saved;
  resetConfig();
  resetDocumentClient();
  resetDefaultAuthenticator();
  await dynamo?.stop();
});

const review = async (path: '/reject' | '/accept', body: object) => {
  const event = apiEvent({ method: 'POST', path, headers: passingHeaders(tokens, 'POST'), body });
  // Two minutes of invocation time (the default test context has 10 s): a request reads and writes
  // megabytes, which DynamoDB Local on a busy 2-core machine can take longer than 10 s to do.
  const context = lambdaContext({ getRemainingTimeInMillis: () => 120_000 });
  const result = (await handler(event, context)) as APIGatewayProxyResult;
  return { status: result.statusCode, json: JSON.parse(result.body) as Record<string, unknown> };
};
const reject = (files: unknown[]) => review('/reject', { files });
const accept = (fileIds: number[]) => review('/accept', { fileIds });

/**
 * Stores a job and its files item by item (large files would not fit one transaction together), each file as
 * an import writes it (a job in review has been delivered).
 */
const store = async (job: Job): Promise<void> => {
  await client.send(new PutCommand({ TableName: tableName, Item: toJobItem(job, 1) }));
  for (const item of toFileItems(job)) {
    await client.send(new PutCommand({ TableName: tableName, Item: item }));
  }
};

const fileItem = async (jobId: number, fileId: number) =>
  (
    await client.send(
      new GetCommand({
        TableName: tableName,
        Key: { pk: jobKeys.pk(jobId), sk: jobKeys.fileSk(fileId) },
        ConsistentRead: true,
      }),
    )
  ).Item;

/** Every stored item of a job: its job item, then its files in order. */
const storedItems = async (job: Job) => [
  (
    await client.send(
      new GetCommand({
        TableName: tableName,
        Key: { pk: jobKeys.pk(job.id), sk: jobKeys.jobSk },
        ConsistentRead: true,
      }),
    )
  ).Item,
  ...(await Promise.all(job.files.map((file) => fileItem(job.id, file.id)))),
];

/**
 * A review at docs/contract.md §5's every maximum: a 1000-character custom rejection, 20 reasons of 100
 * characters with 50 positions each. `text` fills the texts (a 4-byte character makes them largest).
 */
const maximumReview = (round: number, text: string) => ({
  customRejection: `${round} `.padEnd(1_000, text),
  rejects: Array.from({ length: 20 }, (_, reason) => ({
    reason: `${round}.${reason} `.padEnd(100, text),
    positions: Array.from({ length: 50 }, (_, position) => ({
      xPercent: 0.1234567890123456 + position / 1e6,
      yPercent: 0.9876543210987654 - reason / 1e6,
    })),
  })),
});

/** `prefix`, then 4-byte characters up to `length` code points. */
const filled = (prefix: string, length: number): string => `${prefix}${'📷'.repeat(length - [...prefix].length)}`;

/**
 * A review of the contract's largest texts and few positions: a 1000-character custom rejection and 20 reasons
 * of 100 characters, each character a 4-byte one (the contract counts code points), so 12,000 bytes of text; the
 * first `reasonsWithPositions` reasons hold 50 positions each. The transaction tests fill their budget with such
 * reviews: DynamoDB Local spends about ten times more CPU on an item of nested numbers than on the same bytes
 * of text, and the positions' share of an item's size is the item-size test's (above) to cross.
 */
const largeTextReview = (round: number, reasonsWithPositions = 0) => ({
  customRejection: filled(`${round} `, 1_000),
  rejects: Array.from({ length: 20 }, (_, reason) => ({
    reason: filled(`${round}.${reason} `, 100),
    positions: reason < reasonsWithPositions ? maximumReview(round, 'x').rejects[reason]!.positions : [],
  })),
});

/** What a stored review holds for a request's review, given the review date the answer reported. */
const storedReview = (review: ReturnType<typeof maximumReview>, reviewDate: unknown): Review => ({
  ...review,
  reviewDate: reviewDate as string,
});

// Items of several hundred KB through DynamoDB Local take seconds on a busy machine: a generous bound.
describe('POST /reject at the size limits of DynamoDB', { timeout: 300_000 }, () => {
  it('rejects one file with maximum-size reviews any number of times, keeping the five most recent earlier ones', async () => {
    const job = makeJob({ accountId: ACCOUNT_ID, status: 'CJ_REVIEWING', files: [makeFile()] });
    await store(job);
    const fileId = job.files[0]!.id;
    const accepted: Review[] = [];

    // Before the history was bounded, the eighth such rejection answered 409 and the file was locked for good.
    for (let round = 1; round <= 14; round += 1) {
      const review = maximumReview(round, '📷');
      const answer = await reject([{ fileId, ...review }]);
      expect(answer.status, `round ${round}`).toBe(200);
      const [file] = answer.json.files as Array<{ reviewDate: string }>;
      accepted.push(storedReview(review, file!.reviewDate));
      const item = await fileItem(job.id, fileId);
      expect(item?.reviews).toEqual(accepted.at(-1));
      expect(item?.previousReviews).toEqual(accepted.slice(0, -1).slice(-MAX_PREVIOUS_REVIEWS));
    }
  });

  it('refuses a request whose files would outgrow the transaction budget, naming the file that crosses it, and accepts fewer files', async () => {
    // Each file holds six reviews of the largest texts (about 14 KB each as estimated); rejected again with
    // another, it keeps that one and the five most recent earlier ones: about 83 KB. Forty-two such files stay
    // under the 3,500,000-byte budget with the job's item; the forty-third crosses it (a request's cap is 50).
    const history = Array.from({ length: 6 }, (_, index) =>
      storedReview(largeTextReview(index), new Date(Date.UTC(2024, 0, 1, 0, 0, index)).toISOString()),
    );
    const CROSSING = 42;
    const files = Array.from({ length: CROSSING + 2 }, () =>
      makeFile({
        isRejected: true,
        isReviewed: true,
        reviewDate: history.at(-1)!.reviewDate,
        rejectionReason: ' - 5.0',
        reviews: history.at(-1)!,
        previousReviews: history.slice(0, -1),
      }),
    );
    const job = makeJob({ accountId: ACCOUNT_ID, status: 'CJ_REJECT_READY', files });
    await store(job);
    const rejection = (fileId: number) => ({ fileId, ...largeTextReview(7) });
    const before = await storedItems(job);

    const refused = await reject(files.map((file) => rejection(file.id)));

    expect(refused).toMatchObject({
      status: 409,
      json: { code: 'file_not_rejectable', fileId: files[CROSSING]!.id },
    });
    expect(await storedItems(job)).toEqual(before);

    const fitting = await reject(files.slice(0, CROSSING).map((file) => rejection(file.id)));

    expect(fitting.status).toBe(200);
    for (const file of files.slice(0, CROSSING)) {
      const item = await fileItem(job.id, file.id);
      expect(item?.reviews).toMatchObject({ customRejection: largeTextReview(7).customRejection });
      expect(item?.previousReviews).toEqual(history.slice(-MAX_PREVIOUS_REVIEWS));
    }
    expect(await fileItem(job.id, files[CROSSING]!.id)).toEqual(before[CROSSING + 1]);
  });

  it('refuses an acceptance whose files would outgrow the transaction budget, and accepts the files before the one named', async () => {
    // Delivered again after six rejections of the largest texts, two reasons of each with 50 positions: each
    // file keeps its five most recent reviews (about 85 KB), and an acceptance leaves them as they are. Forty-one
    // such files fit the budget with the job's item; the forty-second crosses it.
    const history = Array.from({ length: 5 }, (_, index) =>
      storedReview(largeTextReview(index, 2), new Date(Date.UTC(2024, 0, 2, 0, 0, index)).toISOString()),
    );
    const files = Array.from({ length: 50 }, () => makeFile({ previousReviews: history }));
    const job = makeJob({ accountId: ACCOUNT_ID, status: 'CJ_REVIEWING', files });
    await store(job);
    const before = await storedItems(job);

    const refused = await accept(files.map((file) => file.id));

    expect(refused).toMatchObject({ status: 409, json: { code: 'file_not_acceptable' } });
    const named = files.findIndex((file) => file.id === refused.json.fileId);
    expect(named).toBe(41);
    expect(await storedItems(job)).toEqual(before);

    const fitting = await accept(files.slice(0, named).map((file) => file.id));

    expect(fitting.status).toBe(200);
    for (const file of files.slice(0, named)) {
      const item = await fileItem(job.id, file.id);
      expect(item).toMatchObject({ acceptedByUser: true, isReviewed: true, previousReviews: history });
    }
    expect(await fileItem(job.id, files[named]!.id)).toEqual(before[named + 1]);
  });
});

/**
 * The demo data of `npm start`: seeded into an empty store (clients, sessions and jobs, written with a
 * patient client of its own), or, on an existing data directory, the demo tokens of the earlier start read
 * back and renewed; and the curl commands printed for them.
 */
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AuthStore } from '../../functions/auth/store';
import type { AuditSink } from '../../functions/auth/audit';
import { OPERATOR_RETRY_POLICY } from '../../functions/jobs/store/jobs-table';
import { JobRepository } from '../../functions/jobs/store/repository';
import { words } from '../../functions/search/text';
import {
  createDemoAuth,
  type DemoAuthStore,
  type DemoCommand,
  type DemoTokens,
  demoCommands,
  demoSessionsExpiring,
  LegacyDemoTokensError,
  loadDemoTokens,
  renewDemoSessions,
  saveDemoTokens,
} from './auth';
import { DEMO_REJECTABLE_FILE_IDS, demoJobs } from './data';
import type { Job } from '../../functions/jobs/model/model';
import type { ObjectStore } from '../s3/object-store';
import { batchDocumentClient } from '../dynamodb/batch-client';
import { type DataPaths, LOCAL_REGION, type LocalTables } from '../paths';

/** Demo job writes in flight at once (as many as an import's). */
const DEMO_WRITE_CONCURRENCY = 8;

/** Whether a table holds no item at all. */
export const isEmpty = async (client: DynamoDBClient, tableName: string): Promise<boolean> => {
  const { Items } = await client.send(new ScanCommand({ TableName: tableName, Limit: 1 }));
  return (Items ?? []).length === 0;
};

/** The two accounts demo sessions belong to: the first two accounts of the demo jobs. */
export const demoAccounts = (): { first: number; other: number } => {
  const accounts = [...new Set(demoJobs().map((job) => job.accountId))].sort((a, b) => a - b);
  const first = accounts[0] ?? 1;
  return { first, other: accounts[1] ?? first + 1 };
};

/**
 * The document client seeding writes with. Seeding is a start-up batch job, not an API request: it is
 * not bound by the answer budget the handlers' client keeps (3 s per request), and a DynamoDB Local
 * that has just started on a busy machine can be slower than that for its first writes.
 */
const seedingClient = (endpoint: string): DynamoDBDocumentClient =>
  batchDocumentClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

/** How the local stack prepares its demo. */
export interface DemoOptions {
  /** Whether an empty store is seeded. */
  seedDemo: boolean;
  /** Where the audit records of the demo clients and sessions go (the stack's own audit). */
  audit: AuditSink;
  /** Progress messages. */
  log: (message: string) => void;
  /** The pictures' bucket the seeded demo jobs get their pictures in (none without it). */
  pictures?: { store: ObjectStore; bucket: string };
}

/** Seeds demo auth and jobs into an empty store, or reads back the demo tokens of an earlier start. */
export const prepareDemo = async (
  client: DynamoDBClient,
  endpoint: string,
  tables: LocalTables,
  paths: DataPaths,
  options: DemoOptions,
): Promise<{ demo: DemoTokens | undefined; seeded: boolean }> => {
  const documents = seedingClient(endpoint);
  try {
    return await seedOrLoadDemo(client, documents, tables, paths, options);
  } finally {
    documents.destroy();
  }
};

/** Keeps issued demo tokens in the data directory's tokens file (nowhere when it is in memory). */
const keepIn =
  (paths: DataPaths) =>
  async (tokens: DemoTokens): Promise<void> => {
    if (paths.demoTokens !== undefined) await saveDemoTokens(paths.demoTokens, tokens);
  };

const seedOrLoadDemo = async (
  client: DynamoDBClient,
  documents: DynamoDBDocumentClient,
  tables: LocalTables,
  paths: DataPaths,
  { seedDemo, audit, log, pictures }: DemoOptions,
): Promise<{ demo: DemoTokens | undefined; seeded: boolean }> => {
  const store = new AuthStore(documents, tables.authTable, { audit });
  const empty = (await isEmpty(client, tables.jobsTable)) && (await isEmpty(client, tables.authTable));
  if (!empty || !seedDemo) {
    let demo: DemoTokens | undefined;
    try {
      demo = paths.demoTokens === undefined ? undefined : await loadDemoTokens(paths.demoTokens);
    } catch (error) {
      if (!(error instanceof LegacyDemoTokensError) || !seedDemo) throw error;
      log('The demo tokens predate client secrets: issuing new demo clients and sessions (the jobs stay)…');
      const reissued = await createDemoAuth(store, demoAccounts());
      await keepIn(paths)(reissued);
      return { demo: reissued, seeded: false };
    }
    if (demo !== undefined && demoSessionsExpiring(demo) && paths.demoTokens !== undefined) {
      demo = await renewDemoSessions(store, demo);
      await saveDemoTokens(paths.demoTokens, demo);
      log('Demo sessions renewed.');
    }
    return { demo, seeded: false };
  }
  log('Seeding demo clients, sessions and jobs…');
  let jobs = demoJobs();
  let withPictures = '';
  if (pictures !== undefined) {
    // The pictures module (and sharp, which draws them) is loaded only to seed with pictures.
    const { DEMO_PICTURE_COUNT, withDemoPictures } = await import('./pictures');
    jobs = await withDemoPictures(jobs, pictures);
    withPictures = `, their files with pictures (${DEMO_PICTURE_COUNT} scenes)`;
  }
  const demo = await seedDemoData(
    store,
    new JobRepository(documents, tables.jobsTable, { retry: OPERATOR_RETRY_POLICY }),
    keepIn(paths),
    jobs,
  );
  log(`Seeded ${jobs.length} demo jobs${withPictures}.`);
  return { demo, seeded: true };
};

/** What an error says of itself, its causes included (`DependencyUnavailableError: … ← TimeoutError: …`). */
const describeFailure = (error: unknown): string => {
  const parts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && depth < 4; depth++) {
    if (!(current instanceof Error)) {
      parts.push(String(current));
      break;
    }
    parts.push(`${current.name}: ${current.message}`);
    current = current.cause;
  }
  return parts.join(' ← ');
};

/** Some demo jobs were not written: how many, and the first one's failure (the others' causes are alike). */
export class DemoJobsNotWrittenError extends Error {
  public constructor(failed: number, total: number, firstJobId: number, firstReason: unknown) {
    super(
      `${failed} of ${total} demo jobs were not written; the first, job ${firstJobId}: ${describeFailure(firstReason)}. ` +
        'The jobs written stay (each whole); running the command again writes the rest.',
      { cause: firstReason },
    );
    this.name = 'DemoJobsNotWrittenError';
  }
}

/**
 * Writes the demo clients and sessions, hands their tokens to `keep` (only hashes are stored), then upserts
 * the demo jobs (`jobs`: locally, with their pictures): what `npm start` seeds into an empty store and
 * `seed-demo` into a deployed stack.
 */
export const seedDemoData = async (
  store: DemoAuthStore,
  repository: Pick<JobRepository, 'importJobs' | 'existingJobIds'>,
  keep: (tokens: DemoTokens) => Promise<void> = async () => undefined,
  jobs: readonly Job[] = demoJobs(),
): Promise<DemoTokens> => {
  const demo = await createDemoAuth(store, demoAccounts());
  await keep(demo);
  // The demo jobs are valid by construction: written as an import writes a batch, without its line checks.
  // Over a stack that already holds the demo (`seed-demo --force`), its jobs are read and compared one by one;
  // sending them in shared transactions first would only have every transaction cancelled, their items locked
  // together (DynamoDB Local answers transactions that wait on each other's locks too long with a 500).
  const existing = await repository.existingJobIds(jobs.map((job) => job.id));
  const settled = await repository.importJobs(jobs, {
    concurrency: DEMO_WRITE_CONCURRENCY,
    fallbackConcurrency: DEMO_WRITE_CONCURRENCY,
    existing,
  });
  const failed = settled.flatMap((outcome, position) =>
    outcome.status === 'rejected' ? [{ jobId: jobs[position]?.id, reason: outcome.reason as unknown }] : [],
  );
  const [first] = failed;
  if (first !== undefined) {
    throw new DemoJobsNotWrittenError(failed.length, jobs.length, first.jobId ?? 0, first.reason);
  }
  return demo;
};

/** A demo file in review that a session can reject: of the first account's user when there is one. */
const demoReviewFile = (demo: DemoTokens): { fileId: number; session: 'user' | 'operator' } | undefined => {
  const jobs = demoJobs();
  const firstAccount = demo.sessions.user.accountId;
  const accountOfFile = new Map(jobs.flatMap((job) => job.files.map((file) => [file.id, job.accountId] as const)));
  const ownFile = DEMO_REJECTABLE_FILE_IDS.find((fileId) => accountOfFile.get(fileId) === firstAccount);
  if (ownFile !== undefined) return { fileId: ownFile, session: 'user' };
  const anyFile = DEMO_REJECTABLE_FILE_IDS[0];
  return anyFile === undefined ? undefined : { fileId: anyFile, session: 'operator' };
};

/**
 * The curl commands to print for the demo credentials: a search for a word of the first account's
 * newest job, and the rejection of a demo file in review (of the first account when there is one).
 */
export const demoCommandsFor = (demo: DemoTokens, baseUrl: string): DemoCommand[] => {
  const firstAccount = demo.sessions.user.accountId;
  const newest = demoJobs()
    .filter((job) => job.accountId === firstAccount)
    .sort((a, b) => Date.parse(b.createdDate) - Date.parse(a.createdDate))[0];
  const query = words(newest?.name ?? '').find((word) => word.length >= 3) ?? 'a';
  const rejectable = demoReviewFile(demo);
  return demoCommands(demo, { baseUrl, query, ...(rejectable === undefined ? {} : { rejectable }) });
};

/**
 * The lines `npm start` ends with: one `export` per value the README's examples use, named as the README
 * names them, so that one paste sets a shell up. The tokens are URL-safe base64 and the URL has no quote,
 * so no value needs quoting.
 */
export const demoExportsFor = (demo: DemoTokens, baseUrl: string): string[] => {
  const reviewFile = demoReviewFile(demo);
  return [
    `export API=${baseUrl}`,
    `export CLIENT_TOKEN=${demo.clients.demoApp.clientToken}`,
    `export SESSION_TOKEN=${demo.sessions.user.sessionToken}`,
    `export OPERATOR_SESSION_TOKEN=${demo.sessions.operator.sessionToken}`,
    `export CLIENT_SECRET=${demo.clients.demoApp.clientSecret}`,
    ...(reviewFile === undefined ? [] : [`export REVIEW_FILE_ID=${reviewFile.fileId}`]),
  ];
};

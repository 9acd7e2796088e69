/**
 * The deployed handler modules, invoked in process on API Gateway events, over the run's DynamoDB Local
 * (tables of their own) and an in-memory embedded search engine. Fast enough for property tests that
 * send hundreds of requests, and exactly the code Lambda runs: the same middy chain, the same AWS SDK
 * clients, the same engine.
 *
 * Jobs are written with the real repository and put into the engine directly (no stream poller), so a
 * test sees them searchable at once.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { resetDefaultAuthenticator } from '../../../functions/auth/authenticate';
import type { Grant, Role } from '../../../functions/auth/principal';
import { AuthAdministration } from '../../../functions/auth/administration';
import { AuthStore } from '../../../functions/auth/store';
import { documentClient, resetDocumentClient } from '../../../functions/aws/dynamodb';
import { resetConfig } from '../../../functions/config';
import type { Job } from '../../../functions/jobs/model/model';
import { JobRepository } from '../../../functions/jobs/store/repository';
import { toSearchDocument } from '../../../functions/search/search-document';
import { handler as rejectHandler } from '../../../functions/handlers/reject';
import { handler as searchHandler } from '../../../functions/handlers/search';
import { resetSearchIndex, searchIndex } from '../../../functions/search/engine';
import { handler as searchFieldsHandler } from '../../../functions/handlers/search-fields';
import { apiEvent, lambdaContext } from '../../support/api-event';
import { createTestTables, handlerEnv, type TestTables } from '../../support/dynamo';

/** The three endpoints, as the API routes them. */
export const ENDPOINTS = [
  { method: 'GET', path: '/search/fields' },
  { method: 'POST', path: '/search' },
  { method: 'POST', path: '/reject' },
] as const;

export type EndpointPath = (typeof ENDPOINTS)[number]['path'];

type Handler = (event: APIGatewayProxyEvent, context: ReturnType<typeof lambdaContext>) => Promise<unknown>;

/** The Lambda entry serving a path (what API Gateway would invoke). */
const HANDLERS: Record<EndpointPath, Handler> = {
  '/search/fields': searchFieldsHandler as Handler,
  '/search': searchHandler as Handler,
  '/reject': rejectHandler as Handler,
};

/** A handler's answer with its body parsed (`json` is undefined when the body is not JSON). */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary answer bodies
  json: any;
}

export interface InvokeOptions {
  method?: string;
  headers?: Record<string, string | string[]>;
  body?: string | null;
  isBase64Encoded?: boolean;
  /** The Lambda's time left when the invocation starts, in milliseconds (default 10 s, the deployed timeout). */
  remainingTimeMs?: number;
}

/** Tokens of a client and a session issued to it. */
export interface Tokens {
  clientToken: string;
  sessionToken: string;
  /** Set for tokens the harness issued. */
  clientId?: string;
  sessionId?: string;
}

export interface IssueOptions {
  grants?: Grant[];
  role?: Role;
  accountId?: number;
  ttlSeconds?: number;
}

export interface Harness {
  tables: TestTables;
  repository: JobRepository;
  store: AuthStore;
  /** Operators' view of the auth table (disable clients, revoke sessions by id). */
  admin: AuthAdministration;
  /** Invokes the Lambda entry of `path` on an API Gateway event. */
  invoke(path: EndpointPath, options?: InvokeOptions): Promise<Answer>;
  /** Creates a client with `grants` and a session for it. */
  issue(options?: IssueOptions): Promise<Tokens>;
  /** Writes jobs to the table and puts their current state into the search index. */
  seed(jobs: readonly Job[]): Promise<void>;
  /** Every item of the jobs table, as a canonical JSON text (to prove nothing changed). */
  snapshot(): Promise<string>;
  close(): Promise<void>;
}

/** The headers a request needs to pass docs/contract.md §1 rows 2–4. */
export const validHeaders = (tokens: Tokens, method = 'POST'): Record<string, string> => ({
  Accept: 'application/json',
  ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}),
  'X-Client-Token': tokens.clientToken,
  'X-Session-Token': tokens.sessionToken,
});

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
};

/**
 * Points the handler modules at fresh tables and an in-memory engine. `env` adds variables (for
 * example `AUTH_CACHE_TTL_MS`); the process keeps them until {@link Harness.close}.
 */
export const startHarness = async (env: Record<string, string> = {}): Promise<Harness> => {
  const tables = await createTestTables();
  const applied = { ...handlerEnv(tables), ...env };
  const previous = Object.fromEntries(Object.keys(applied).map((name) => [name, process.env[name]]));
  Object.assign(process.env, applied);
  resetConfig();
  resetDocumentClient();
  resetDefaultAuthenticator();
  await resetSearchIndex();
  const repository = new JobRepository(documentClient(), tables.jobsTable);
  const store = new AuthStore(documentClient(), tables.authTable);

  const invoke = async (path: EndpointPath, options: InvokeOptions = {}): Promise<Answer> => {
    const method = options.method ?? ENDPOINTS.find((endpoint) => endpoint.path === path)?.method ?? 'POST';
    const event = apiEvent({
      method,
      path,
      headers: options.headers ?? {},
      body: options.body ?? null,
      isBase64Encoded: options.isBase64Encoded ?? false,
    });
    const deadline = Date.now() + (options.remainingTimeMs ?? 10_000);
    const context = lambdaContext({ getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) });
    const result = (await HANDLERS[path](event, context)) as APIGatewayProxyResult;
    let json: unknown;
    try {
      json = JSON.parse(result.body);
    } catch {
      json = undefined;
    }
    return {
      status: result.statusCode,
      headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)])),
      body: result.body,
      json,
    };
  };

  const issue = async (options: IssueOptions = {}): Promise<Tokens> => {
    const client = await store.createClient({
      name: 'reliability',
      grants: options.grants ?? ['search', 'reject'],
      sessionRoles: ['user', 'operator'],
    });
    const session = await store.createSession({
      clientToken: client.token,
      accountId: options.accountId ?? 1,
      role: options.role ?? 'user',
      ttlSeconds: options.ttlSeconds ?? 3600,
    });
    return {
      clientToken: client.token,
      sessionToken: session.token,
      clientId: client.clientId,
      sessionId: session.sessionId,
    };
  };

  const seed = async (jobs: readonly Job[]): Promise<void> => {
    await repository.putJobs(jobs);
    const index = await searchIndex();
    const operations = [];
    for (const job of jobs) {
      const stored = await repository.getJob(job.id, { consistent: true });
      if (stored !== undefined) {
        operations.push({ type: 'upsert' as const, document: toSearchDocument(stored.job, stored.version) });
      }
    }
    const outcomes = await index.apply(operations);
    const failed = outcomes.filter((outcome) => outcome.status !== 'indexed' && outcome.status !== 'stale');
    if (failed.length > 0) throw new Error(`Seeding the index failed: ${JSON.stringify(failed)}`);
  };

  const snapshot = async (): Promise<string> => {
    const items: unknown[] = [];
    for await (const stored of repository.scanJobs()) items.push(stored);
    items.sort((a, b) => (a as { job: Job }).job.id - (b as { job: Job }).job.id);
    return JSON.stringify(canonical(items));
  };

  const close = async (): Promise<void> => {
    await resetSearchIndex();
    resetDocumentClient();
    resetDefaultAuthenticator();
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetConfig();
  };

  const admin = new AuthAdministration(documentClient(), tables.authTable);
  return { tables, repository, store, admin, invoke, issue, seed, snapshot, close };
};

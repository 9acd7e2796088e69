/**
 * The local stack for end-to-end tests: the real HTTP server, handlers, stream poller and embedded
 * search engine (in memory), on the run's DynamoDB Local with tables of its own, on a free port.
 *
 * ```ts
 * const stack = await startTestStack();
 * const { sessionToken, clientToken } = await stack.issue({ grants: ['search'], role: 'operator' });
 * const answer = await stack.request('/search', { body: { query: 'spring' } });
 * await stack.stop();
 * ```
 *
 * It also runs the executables themselves (`npm start`, `npm run cli`, `npm run invoke`) as child processes
 * through the project's Node.js and tsx: {@link startProcess}, {@link runProcess}.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { expect, inject } from 'vitest';
import type { Grant, Role } from '../../functions/auth/principal';
import { AuthAdministration } from '../../functions/auth/administration';
import { AuthStore } from '../../functions/auth/store';
import { documentClient } from '../../functions/aws/dynamodb';
import type { Job } from '../../functions/jobs/model/model';
import { JobRepository } from '../../functions/jobs/store/repository';
import { freePort } from '../../local/dynamodb/dynamodb-local';
import { importJobs } from '../../local/operations/import';
import type { LocalTables } from '../../local/paths';
import type { IdlePolling } from '../../local/streams/poller-options';
import { type LocalStack, startLocalStack } from '../../local/stack/runtime';
import { assertMatchesOpenApi } from './openapi';
import { sharedDynamodbEndpoint } from './dynamo';
import { TEST_PICTURES } from './pictures';

/** The account the default credentials of {@link TestStack.request} belong to. */
export const DEFAULT_TEST_ACCOUNT_ID = 1001;

export interface TestStackOptions {
  /** Seed the demo clients, sessions and jobs (default false). */
  seedDemo?: boolean;
  /** The HTTP server's request timeout in milliseconds (default 10 s). */
  requestTimeoutMs?: number;
  /** Where the stack's progress and status messages go (default: nowhere), as `npm start` prints them. */
  log?: (message: string) => void;
  /** How the stream pollers slow down while nothing happens (default: as `npm start`). */
  idlePolling?: IdlePolling;
}

export interface IssueOptions {
  /** The client's grants (default search and reject). */
  grants?: Grant[];
  /** The session's role (default user). */
  role?: Role;
  /** The session's account (default {@link DEFAULT_TEST_ACCOUNT_ID}). */
  accountId?: number;
  /** The session's lifetime in seconds (default one hour). */
  ttlSeconds?: number;
  /** The roles the client may open sessions for (default both). */
  sessionRoles?: Role[];
  /** The client's own cap on session lifetimes. */
  maxSessionTtlSeconds?: number;
  /** The accounts the client serves (default every account). */
  accounts?: number[];
}

/** A client and a session issued to it. */
export interface IssuedTokens {
  clientId: string;
  clientToken: string;
  /** The client's first secret (for `POST /sessions`; the client has the grant only when asked). */
  clientSecret: string;
  clientSecretId: string;
  sessionId: string;
  sessionToken: string;
}

export interface RequestOptions {
  /** Default POST. */
  method?: string;
  /**
   * Headers added to (or replacing) the defaults: `Accept: application/json`, a JSON `Content-Type` on
   * POST, and the default credentials' tokens. A header set to `undefined` is left out.
   */
  headers?: Record<string, string | undefined>;
  /** A string is sent as is; URLSearchParams as a form body; anything else as JSON. */
  body?: unknown;
  /** Credentials to send instead of the default ones (a user of {@link DEFAULT_TEST_ACCOUNT_ID}, every grant). */
  tokens?: Pick<IssuedTokens, 'clientToken' | 'sessionToken'>;
}

/** An answer, read whole. */
export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary answer bodies
  json: any;
}

export interface TestStack {
  baseUrl: string;
  tables: LocalTables;
  /** The running stack (demo tokens, DynamoDB endpoint…). */
  stack: LocalStack;
  /** Creates a client and a session for it. */
  issue(options?: IssueOptions): Promise<IssuedTokens>;
  /** Disables a client by id (its sessions then answer 401 invalid_client, once the auth cache forgets it). */
  disableClient(clientId: string): Promise<void>;
  /** Upserts jobs into the jobs table (they reach the search index after {@link drained}). */
  importJobs(jobs: Job[]): Promise<void>;
  /** Resolves once every change written so far has reached the search index. */
  drained(): Promise<void>;
  /** The local S3's endpoint (path-style) and the pictures' bucket, for uploads with the SDK or presigned URLs. */
  s3Endpoint: string;
  imagesBucket: string;
  /** Resolves once every object uploaded so far has been processed by the images function (retries included). */
  imagesProcessed(): Promise<void>;
  /** Sends a request with valid defaults and reads the answer. */
  request(path: string, options?: RequestOptions): Promise<TestResponse>;
  stop(): Promise<void>;
}

const bodyOf = (body: unknown): { text: string | undefined; contentType: string | undefined } => {
  if (body === undefined) return { text: undefined, contentType: undefined };
  if (typeof body === 'string') return { text: body, contentType: undefined };
  if (body instanceof URLSearchParams)
    return { text: body.toString(), contentType: 'application/x-www-form-urlencoded' };
  return { text: JSON.stringify(body), contentType: 'application/json' };
};

/** Starts a local stack for one test file. Stop it in `afterAll`. */
/** The answer, once it is checked to have the expected status (its body shown when it has not). */
export const ok = (answer: TestResponse, status = 200): TestResponse => {
  expect(answer.status, answer.text).toBe(status);
  return answer;
};

export const startTestStack = async (options: TestStackOptions = {}): Promise<TestStack> => {
  // A bucket for the functions to sign for when the stack serves none of its own (a stack that does names its own).
  process.env.IMAGES_BUCKET ??= TEST_PICTURES.bucket;
  process.env.S3_ENDPOINT ??= TEST_PICTURES.endpoint;
  const stack = await startLocalStack({
    port: 0,
    s3Port: 0,
    dataDir: ':memory:',
    dynamodbEndpoint: sharedDynamodbEndpoint(),
    tablePrefix: `e2e-${randomUUID().slice(0, 8)}`,
    seedDemo: options.seedDemo ?? false,
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.idlePolling === undefined ? {} : { idlePolling: options.idlePolling }),
    log: options.log ?? (() => {}),
  });
  const store = new AuthStore(documentClient(), stack.tables.authTable);
  const repository = new JobRepository(documentClient(), stack.tables.jobsTable);

  const issue = async (issueOptions: IssueOptions = {}): Promise<IssuedTokens> => {
    const client = await store.createClient({
      name: `e2e client ${randomUUID().slice(0, 8)}`,
      grants: issueOptions.grants ?? ['search', 'reject'],
      sessionRoles: issueOptions.sessionRoles ?? (issueOptions.accounts ? ['user'] : ['user', 'operator']),
      ...(issueOptions.accounts === undefined ? {} : { accounts: issueOptions.accounts }),
      ...(issueOptions.maxSessionTtlSeconds === undefined
        ? {}
        : { maxSessionTtlSeconds: issueOptions.maxSessionTtlSeconds }),
    });
    const session = await store.createSession({
      clientToken: client.token,
      accountId: issueOptions.accountId ?? DEFAULT_TEST_ACCOUNT_ID,
      role: issueOptions.role ?? issueOptions.sessionRoles?.[0] ?? 'user',
      ttlSeconds: issueOptions.ttlSeconds ?? 3600,
    });
    return {
      clientId: client.clientId,
      clientToken: client.token,
      clientSecret: client.secret,
      clientSecretId: client.secretId,
      sessionId: session.sessionId,
      sessionToken: session.token,
    };
  };

  let defaults: Promise<IssuedTokens> | undefined;
  const defaultTokens = (): Promise<IssuedTokens> => {
    defaults ??= issue();
    return defaults;
  };

  const request = async (path: string, requestOptions: RequestOptions = {}): Promise<TestResponse> => {
    const method = requestOptions.method ?? 'POST';
    const tokens = requestOptions.tokens ?? (await defaultTokens());
    const { text, contentType } = bodyOf(requestOptions.body);
    const headers: Record<string, string | undefined> = {
      Accept: 'application/json',
      ...(method === 'POST' ? { 'Content-Type': contentType ?? 'application/json' } : {}),
      'X-Client-Token': tokens.clientToken,
      'X-Session-Token': tokens.sessionToken,
      ...requestOptions.headers,
    };
    const sent = new Headers();
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent.set(name, value);
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: sent,
      ...(text === undefined ? {} : { body: text }),
    });
    const responseText = await response.text();
    // Every answer the e2e suite sees must match openapi.yaml, so the description cannot drift from the service.
    assertMatchesOpenApi({ method, path }, { status: response.status, headers: response.headers, body: responseText });
    let json: unknown;
    try {
      json = JSON.parse(responseText);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text: responseText, json };
  };

  return {
    baseUrl: stack.baseUrl,
    tables: stack.tables,
    stack,
    issue,
    disableClient: async (clientId) => {
      await new AuthAdministration(documentClient(), stack.tables.authTable).setClientEnabled(clientId, false, {
        via: 'cli',
        who: 'os-user:test',
      });
    },
    importJobs: async (jobs) => {
      await importJobs(jobs, { repository });
    },
    drained: () => stack.drained(),
    s3Endpoint: stack.s3Endpoint,
    imagesBucket: stack.imagesBucket,
    imagesProcessed: () => stack.imagesSettled(),
    request,
    stop: () => stack.stop(),
  };
};

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '..', '..');

/** A running executable and what it printed so far. */
export interface RunningProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in standard output (or error), rejecting if the process exits first. */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr'): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
}

/**
 * How a script is run: from the run's bundle of it where there is one (test/support/script-bundles.ts: the same
 * code without compiling it again in every process), otherwise as `node --import tsx <script>`.
 */
const launch = (script: string): string[] => {
  const bundle = inject('scriptBundles')?.[script];
  return bundle === undefined ? ['--import', 'tsx', script] : [bundle];
};

/**
 * Starts `node --import tsx <script> ...args` (or the script's bundle) in the repository root with extra
 * environment variables, as `npm start` does: signals reach the script itself (no wrapper process in between).
 */
export const startProcess = (script: string, args: string[], env: Record<string, string>): RunningProcess => {
  const child = spawn(process.execPath, [...launch(script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  const notify = (): void => {
    for (const waiter of waiters) waiter();
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
    notify();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
    notify();
  });
  const exited = new Promise<number | string>((resolvePromise) => {
    child.once('exit', (code, signal) => {
      resolvePromise(code ?? signal ?? 'unknown');
      notify();
    });
  });
  const waitFor = (pattern: RegExp, stream: 'stdout' | 'stderr' = 'stdout'): Promise<RegExpMatchArray> =>
    new Promise((resolvePromise, reject) => {
      const check = (): void => {
        const match = output[stream].match(pattern);
        if (match !== null) {
          waiters.delete(check);
          resolvePromise(match);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          waiters.delete(check);
          reject(
            new Error(
              `The process exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n` +
                `${output.stdout}\n${output.stderr}`,
            ),
          );
        }
      };
      waiters.add(check);
      check();
    });
  return { child, stdout: () => output.stdout, stderr: () => output.stderr, waitFor, exited };
};

/** Runs `node --import tsx <script> ...args` (or the script's bundle, as `startProcess`) to completion. */
export const runProcess = async (
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | string; stdout: string; stderr: string }> => {
  const running = startProcess(script, args, env);
  const code = await running.exited;
  return { code, stdout: running.stdout(), stderr: running.stderr() };
};

/** Whether a process with this id exists. */
export const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** An `npm start` process a test started, and the DynamoDB Local it reported (for the test's clean-up). */
export interface StartedStack {
  running: RunningProcess;
  dynamodbPid?: number;
}

/**
 * Starts `npm start` (bin/local.ts) on free ports with `env`, recording it in `started` at once so a failed
 * test's clean-up finds it; resolves once it listens, with its port and its DynamoDB Local's.
 */
export const startNpmStart = async (env: Record<string, string>, started: StartedStack[]) => {
  const port = await freePort();
  const dynamodbPort = await freePort();
  const s3Port = await freePort();
  const running = startProcess('bin/local.ts', [], {
    PORT: String(port),
    DYNAMODB_PORT: String(dynamodbPort),
    S3_PORT: String(s3Port),
    ...env,
  });
  const entry: StartedStack = { running };
  started.push(entry);
  const [, pid] = await running.waitFor(/DynamoDB Local listens on \S+ \(pid (\d+)\)/, 'stderr');
  entry.dynamodbPid = Number(pid);
  const [, listeningPort] = await running.waitFor(/Listening on http:\/\/localhost:(\d+)/);
  await running.waitFor(/DynamoDB Local: \S+ \(pid (\d+)\)/, 'stderr');
  return { running, port: Number(listeningPort), dynamodbPort, dynamodbPid: Number(pid) };
};

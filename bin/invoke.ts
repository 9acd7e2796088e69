/**
 * `npm run invoke -- <function> <event.json>`: runs one Lambda handler module on an event against the
 * local stack of `npm start` and prints the handler's result as JSON — the Docker-free twin of
 * `sam local invoke`.
 *
 * Functions: every API function of the route table (search, search-fields, reject — also `POST /accept` —,
 * sessions, jobs-read), indexer and images (an S3 object-created event). API Gateway events get their `X-Client-Token`
 * and `X-Session-Token` headers replaced by `--client-token` / `--session-token`, else by the
 * `CLIENT_TOKEN` / `SESSION_TOKEN` environment variables, else by the demo user's tokens that
 * `npm start` saved in `$DATA_DIR/demo-tokens.json`. An event that carries `X-Client-Secret` (`POST
 * /sessions`) gets `$CLIENT_SECRET`, else the demo app's secret — never from the command line.
 *
 * Environment (each optional): DATA_DIR (default `.data`), DYNAMODB_PORT (default 8000) or
 * DYNAMODB_ENDPOINT, JOBS_TABLE / AUTH_TABLE (default `jobs-api-local-Jobs` / `jobs-api-local-Auth`),
 * SEARCH_DB_PATH (default `$DATA_DIR/search.sqlite`), S3_PORT (default 4569) or S3_ENDPOINT, IMAGES_BUCKET (default
 * `jobs-api-local-images`).
 *
 * The result goes to standard output; the handler's own logs go to standard error. The exit code is 0
 * when the handler returned (whatever the HTTP status it answered), 1 when it threw, 2 on a usage error.
 */
import { readFile } from 'node:fs/promises';
import type { Context } from 'aws-lambda';
import { type ApiFunctionName, apiFunctions } from '../functions/http/routes';
import { lambdaContext } from '../local/gateway/api-event';
import { loadDemoTokens } from '../local/demo/auth';
import { localCursorKey } from '../local/stack/cursor-key';
import { DEFAULT_DATA_DIR, dataPaths, localStackEnvironment } from '../local/paths';
import '../local/search/use-embedded-engine';

/** The handler modules `invoke` runs, by function name (the entry file under `functions/handlers/`). */
export type InvokableFunction = ApiFunctionName | 'indexer' | 'images';

/** Every API function of the route table, the indexer and the images function. */
export const INVOKABLE_FUNCTIONS: readonly InvokableFunction[] = [
  ...apiFunctions().map((fn) => fn.functionName),
  'indexer',
  'images',
];

/** What a handler module is to `invoke`: it should export `handler`. */
interface HandlerModule {
  handler?: unknown;
}

/**
 * How each function's handler module is loaded, by function name: one literal `import()` of its entry file under
 * `functions/handlers/` each, loaded only when that function is invoked (after the environment is set), and
 * visible to a bundler as any import is. The type asks for a loader for every name of `InvokableFunction`, and no
 * other; the unit tests check that the names are exactly {@link INVOKABLE_FUNCTIONS}.
 */
export const HANDLER_LOADERS: Readonly<Record<InvokableFunction, () => Promise<HandlerModule>>> = {
  search: () => import('../functions/handlers/search'),
  'search-fields': () => import('../functions/handlers/search-fields'),
  reject: () => import('../functions/handlers/reject'),
  sessions: () => import('../functions/handlers/sessions'),
  'jobs-read': () => import('../functions/handlers/jobs-read'),
  'jobs-write': () => import('../functions/handlers/jobs-write'),
  webhooks: () => import('../functions/handlers/webhooks'),
  indexer: () => import('../functions/handlers/indexer'),
  images: () => import('../functions/handlers/images'),
};

export const USAGE = [
  'Usage: npm run invoke -- <function> <event.json> [--client-token <token>] [--session-token <token>]',
  '',
  `  <function>       ${INVOKABLE_FUNCTIONS.join(', ')}`,
  '  <event.json>     an API Gateway REST (v1) proxy event, a DynamoDB stream event for indexer, an S3 event for images (see events/)',
  "  --client-token   replaces the event's X-Client-Token header (default: $CLIENT_TOKEN, else the demo user's)",
  "  --session-token  replaces the event's X-Session-Token header (default: $SESSION_TOKEN, else the demo user's)",
  "  An event's X-Client-Secret header (POST /sessions) is replaced by $CLIENT_SECRET, else the demo app's secret.",
  '',
  'Runs against the stack of `npm start` (DynamoDB Local on $DYNAMODB_PORT, default 8000; data in $DATA_DIR).',
].join('\n');

/** The command line was not understood. */
export class InvokeUsageError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'InvokeUsageError';
  }
}

/** What the command line asks for. */
export interface InvokeArgs {
  functionName: InvokableFunction;
  eventPath: string;
  clientToken?: string;
  sessionToken?: string;
  help?: boolean;
}

const isInvokable = (name: string): name is InvokableFunction =>
  (INVOKABLE_FUNCTIONS as readonly string[]).includes(name);

const TOKEN_FLAGS = { '--client-token': 'clientToken', '--session-token': 'sessionToken' } as const;

/** Parses `<function> <event.json> [--client-token T] [--session-token T]` (also `--flag=value`). */
export const parseInvokeArgs = (argv: readonly string[]): InvokeArgs => {
  const positional: string[] = [];
  const tokens: { clientToken?: string; sessionToken?: string } = {};
  const queue = [...argv];
  for (let arg = queue.shift(); arg !== undefined; arg = queue.shift()) {
    if (arg === '-h' || arg === '--help') return { functionName: 'search', eventPath: '', help: true };
    const equals = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = equals === -1 ? arg : arg.slice(0, equals);
    if (flag in TOKEN_FLAGS) {
      const value = equals === -1 ? queue.shift() : arg.slice(equals + 1);
      // A token may begin with dashes (base64url); only another option of this command is not a value.
      const isOption = equals === -1 && value !== undefined && (value.split('=')[0] as string) in TOKEN_FLAGS;
      if (value === undefined || value.trim() === '' || isOption || value === '--help') {
        throw new InvokeUsageError(`${flag} needs a value`);
      }
      tokens[TOKEN_FLAGS[flag as keyof typeof TOKEN_FLAGS]] = value.trim();
      continue;
    }
    if (arg.startsWith('-')) throw new InvokeUsageError(`Unknown option ${arg}`);
    positional.push(arg);
  }
  const [functionName, eventPath, ...rest] = positional;
  if (functionName === undefined || eventPath === undefined) {
    throw new InvokeUsageError('A function name and an event file are required');
  }
  if (rest.length > 0) throw new InvokeUsageError(`Unexpected argument ${rest[0]}`);
  if (!isInvokable(functionName)) {
    throw new InvokeUsageError(`Unknown function "${functionName}"; expected one of ${INVOKABLE_FUNCTIONS.join(', ')}`);
  }
  return { functionName, eventPath, ...tokens };
};

/** The tokens to put into an API event, and where they came from. */
export interface ResolvedTokens {
  clientToken?: string;
  sessionToken?: string;
  /** For an event that carries `X-Client-Secret` only. */
  clientSecret?: string;
  /** For each token: `flag`, `env`, `demo`, or `event` (left as the event has it). */
  sources: { clientToken: TokenSource; sessionToken: TokenSource };
}

export type TokenSource = 'flag' | 'env' | 'demo' | 'event';

/**
 * Picks each token from the command line, else the environment (`CLIENT_TOKEN`, `SESSION_TOKEN`), else
 * the demo user's tokens `npm start` saved; otherwise the event keeps its own header.
 */
export const resolveTokens = async (
  args: Pick<InvokeArgs, 'clientToken' | 'sessionToken'>,
  env: NodeJS.ProcessEnv,
  demoTokensPath: string | undefined,
): Promise<ResolvedTokens> => {
  const demoTokens = demoTokensPath === undefined ? undefined : await loadDemoTokens(demoTokensPath);
  const demo = demoTokens?.sessions.user;
  const pick = (flag: string | undefined, fromEnv: string | undefined, fromDemo: string | undefined) => {
    if (flag) return { value: flag, source: 'flag' as const };
    if (fromEnv?.trim()) return { value: fromEnv.trim(), source: 'env' as const };
    if (fromDemo) return { value: fromDemo, source: 'demo' as const };
    return { value: undefined, source: 'event' as const };
  };
  const client = pick(args.clientToken, env.CLIENT_TOKEN, demo?.clientToken);
  const session = pick(args.sessionToken, env.SESSION_TOKEN, demo?.sessionToken);
  const secret = pick(undefined, env.CLIENT_SECRET, demoTokens?.clients.demoApp.clientSecret);
  return {
    ...(client.value === undefined ? {} : { clientToken: client.value }),
    ...(session.value === undefined ? {} : { sessionToken: session.value }),
    ...(secret.value === undefined ? {} : { clientSecret: secret.value }),
    sources: { clientToken: client.source, sessionToken: session.source },
  };
};

type HeaderMap = Record<string, string | undefined>;
type MultiHeaderMap = Record<string, string[] | undefined>;

const withHeader = <T>(
  headers: Record<string, T | undefined> | null | undefined,
  name: string,
  value: T,
): Record<string, T | undefined> => {
  const kept = Object.entries(headers ?? {}).filter(([key]) => key.toLowerCase() !== name.toLowerCase());
  return Object.fromEntries([...kept, [name, value]]);
};

/** Whether an event is an API Gateway proxy event (it has an HTTP method). */
export const isApiEvent = (event: unknown): event is Record<string, unknown> & { httpMethod: string } =>
  typeof event === 'object' && event !== null && typeof (event as { httpMethod?: unknown }).httpMethod === 'string';

/**
 * An API event with its token headers replaced (in `headers` and `multiValueHeaders`, whatever the
 * case of the names it had). Other events are returned unchanged.
 */
export const applyTokens = <T>(
  event: T,
  tokens: Pick<ResolvedTokens, 'clientToken' | 'sessionToken' | 'clientSecret'>,
): T => {
  if (!isApiEvent(event)) return event;
  let headers = (event.headers ?? {}) as HeaderMap;
  let multiValueHeaders = (event.multiValueHeaders ?? {}) as MultiHeaderMap;
  const carriesSecret = Object.keys(headers).some((name) => name.toLowerCase() === 'x-client-secret');
  const replacements: [string, string | undefined][] = [
    ['X-Client-Token', tokens.clientToken],
    ['X-Session-Token', carriesSecret ? undefined : tokens.sessionToken],
    ['X-Client-Secret', carriesSecret ? tokens.clientSecret : undefined],
  ];
  for (const [name, value] of replacements) {
    if (value === undefined) continue;
    headers = withHeader(headers, name, value);
    multiValueHeaders = withHeader(multiValueHeaders, name, [value]);
  }
  return { ...event, headers, multiValueHeaders };
};

/** What an invocation gave. */
export type InvokeOutcome =
  { ok: true; result: unknown } | { ok: false; error: { errorType: string; errorMessage: string } };

type Handler = (event: unknown, context: Context) => Promise<unknown>;

/** How long the handler may run: API Gateway's budget for API functions, a minute for the indexer and images. */
const budgetOf = (name: InvokableFunction): number => (name === 'indexer' || name === 'images' ? 60_000 : 10_000);

/** Loads a handler module (after the environment is set: modules read it when first used). */
export const loadHandler = async (name: InvokableFunction): Promise<Handler> => {
  const module = await HANDLER_LOADERS[name]();
  if (typeof module.handler !== 'function') throw new Error(`functions/handlers/${name}.ts exports no handler`);
  return module.handler as Handler;
};

/**
 * Runs a handler on an event, the way the Lambda runtime would: with a context whose remaining time
 * counts down, catching what it throws as Lambda reports it (`errorType`, `errorMessage`).
 */
export const invokeHandler = async (
  name: InvokableFunction,
  handler: Handler,
  event: unknown,
): Promise<InvokeOutcome> => {
  const context = lambdaContext({ functionName: `jobs-api-local-${name}`, budgetMs: budgetOf(name) });
  try {
    return { ok: true, result: await handler(event, context) };
  } catch (error) {
    const errorType = error instanceof Error ? error.name : 'Error';
    const errorMessage = error instanceof Error ? error.message : String(error);
    return { ok: false, error: { errorType, errorMessage } };
  }
};

/** Sends everything written to standard output while `work` runs to standard error instead. */
export const withStdoutOnStderr = async <T>(work: () => Promise<T>): Promise<T> => {
  const write = process.stdout.write;
  process.stdout.write = ((...args: Parameters<typeof process.stderr.write>) =>
    process.stderr.write(...args)) as typeof process.stdout.write;
  try {
    return await work();
  } finally {
    process.stdout.write = write;
  }
};

const readEvent = async (path: string): Promise<unknown> => {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InvokeUsageError(`Cannot read the event file ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvokeUsageError(`The event file ${path} is not JSON: ${(error as Error).message}`);
  }
};

const note = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

const flushed = (text: string): Promise<void> =>
  new Promise((resolve) => {
    process.stdout.write(text, () => resolve());
  });

const main = async (): Promise<number> => {
  const args = parseInvokeArgs(process.argv.slice(2));
  if (args.help) {
    note(USAGE);
    return 0;
  }
  const event = await readEvent(args.eventPath);
  Object.assign(process.env, localStackEnvironment(process.env));
  const paths = dataPaths(process.env.DATA_DIR?.trim() || DEFAULT_DATA_DIR);
  // The cursors of GET /jobs/{id}/files are signed with the data directory's key, as under npm start.
  process.env.CURSOR_SIGNING_KEY ??= await localCursorKey(paths);
  if (paths.inMemory) note('DATA_DIR is :memory: — the search index is not shared with `npm start`.');

  let input = event;
  if (isApiEvent(event)) {
    const tokens = await resolveTokens(args, process.env, paths.demoTokens);
    input = applyTokens(event, tokens);
    if (tokens.sources.clientToken === 'event' || tokens.sources.sessionToken === 'event') {
      note(
        'No token given for some header (flags, CLIENT_TOKEN/SESSION_TOKEN, or demo tokens): the event keeps its own.',
      );
    }
  }

  const handler = await loadHandler(args.functionName);
  const outcome = await withStdoutOnStderr(() => invokeHandler(args.functionName, handler, input));
  await flushed(`${JSON.stringify(outcome.ok ? outcome.result : outcome.error, null, 2)}\n`);
  return outcome.ok ? 0 : 1;
};

if (import.meta.main) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      if (error instanceof InvokeUsageError) {
        note(`${error.message}\n\n${USAGE}`);
        process.exit(2);
      }
      note(error instanceof Error ? (error.stack ?? error.message) : String(error));
      process.exit(1);
    },
  );
}

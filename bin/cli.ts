/**
 * `npm run cli -- <command>`: administration of the local stack, or of a deployed one with
 * `--stack <name>`. JSON results go to standard output; progress and messages to standard error.
 * Exit codes: 0 success, 1 failure (or differences found by verify-index), 2 usage error.
 */
import { parseArgs } from 'node:util';
import { GRANTS, type Grant, ROLES, type Role } from '../functions/auth/principal';
import { AuthStore, InvalidAuthInputError, UnknownClientError } from '../functions/auth/store';
import { documentClient, resetDocumentClient } from '../functions/aws/dynamodb';
import { resetConfig } from '../functions/config';
import { JobRepository } from '../functions/jobs/repository';
import { resetSearchIndex, searchIndex } from '../functions/search/engine';
import { ImportAbortedError, type ImportResult, importNdjson } from '../local/import';
import {
  assertSupportedNode,
  DEFAULT_DATA_DIR,
  DEFAULT_DYNAMODB_PORT,
  dataPaths,
  localDynamoDbEndpoint,
  localTableNames,
  portFrom,
  UnsupportedNodeError,
} from '../local/paths';
import { createProgressBar } from '../local/progress';
import { reindex } from '../local/reindex';
import {
  assertSearchDomainReady,
  describeSearchDomain,
  notReadyReason,
  SearchDomainNotFoundError,
  SearchDomainNotReadyError,
} from '../local/domain-status';
import { resolveStackTarget, type StackTarget, stackTargetEnvironment } from '../local/stack-target';
import { verifyIndex } from '../local/verify-index';
import { attachDashValues } from '../local/cli-args';
import '../local/search/use-embedded-engine';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  create-client --name <name> --grants <search,reject>
      Registers a client; prints {"clientId","token"}.
  create-session --client-token <token> --account <id> [--role user|operator] [--ttl <seconds>] [--user <id>]
      Opens a session for the client (role user, 24 hours by default); prints {"sessionId","token","expiresAt"}.
  import <file.ndjson>
      Upserts jobs, one JSON job per line; bad lines are reported by line number and skipped.
  reindex
      Rebuilds the search index from the jobs table.
  verify-index
      Compares the search index with the jobs table; exits 1 on any difference.
  status
      Prints where the commands act; with --stack also the OpenSearch domain's state (endpoint, engine,
      processing); exits 1 when that domain cannot take reindex or verify-index now.

Target (default: the local stack):
  DYNAMODB_ENDPOINT (default http://localhost:$DYNAMODB_PORT, port 8000), tables jobs-api-local-Jobs and
  jobs-api-local-Auth (JOBS_TABLE / AUTH_TABLE override), search index $DATA_DIR/search.sqlite (DATA_DIR default .data).
  --stack <name> [--region <region>]   a deployed stack: tables and OpenSearch endpoint from its outputs;
  reindex and verify-index first check the domain with the OpenSearch control plane (DescribeDomain).
`;

/** The command line is not one the CLI understands (exit code 2). */
class UsageError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The command ran but found a problem it reports (exit code 1). */
class CommandFailedError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'CommandFailedError';
  }
}

const OPTIONS = {
  name: { type: 'string' },
  grants: { type: 'string' },
  'client-token': { type: 'string' },
  account: { type: 'string' },
  role: { type: 'string' },
  ttl: { type: 'string' },
  user: { type: 'string' },
  stack: { type: 'string' },
  region: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

const DEFAULT_SESSION_TTL_SECONDS = 24 * 60 * 60;

const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};
const message = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

const required = (values: Values, name: 'name' | 'grants' | 'client-token' | 'account'): string => {
  const value = values[name]?.trim();
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
};

const parseGrants = (text: string): Grant[] => {
  const grants = text
    .split(',')
    .map((grant) => grant.trim())
    .filter((grant) => grant !== '');
  for (const grant of grants) {
    if (!(GRANTS as readonly string[]).includes(grant)) {
      throw new UsageError(`Unknown grant "${grant}" (known: ${GRANTS.join(', ')})`);
    }
  }
  if (grants.length === 0) throw new UsageError('--grants needs at least one grant');
  return grants as Grant[];
};

const parseInteger = (text: string, option: string, min: number): number => {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min) {
    throw new UsageError(`--${option} must be an integer ≥ ${min}, got "${text}"`);
  }
  return Number(text);
};

const parseRole = (text: string | undefined): Role => {
  const role = text?.trim() || 'user';
  if (!(ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return role as Role;
};

/** Where the commands act: the local stack, or a deployed stack. */
interface Target {
  description: string;
  /** The deployed stack, when the commands act on one. */
  stack?: StackTarget;
  /** Whether the search index is an in-memory one no other process can see. */
  searchIndexInMemory: boolean;
}

/** Points the shared configuration (functions/config.ts) at the target, through the environment. */
const selectTarget = async (values: Values): Promise<Target> => {
  const env = process.env;
  if (values.stack !== undefined) {
    const target = await resolveStackTarget(values.stack, values.region);
    Object.assign(env, stackTargetEnvironment(target));
    delete env.DYNAMODB_ENDPOINT;
    resetConfig();
    return { description: `stack ${values.stack} (${target.region})`, stack: target, searchIndexInMemory: false };
  }
  const tables = localTableNames();
  const endpoint =
    env.DYNAMODB_ENDPOINT?.trim() || localDynamoDbEndpoint(portFrom(env, 'DYNAMODB_PORT', DEFAULT_DYNAMODB_PORT));
  const paths = dataPaths(env.DATA_DIR?.trim() || DEFAULT_DATA_DIR);
  Object.assign(env, {
    JOBS_TABLE: env.JOBS_TABLE?.trim() || tables.jobsTable,
    AUTH_TABLE: env.AUTH_TABLE?.trim() || tables.authTable,
    DYNAMODB_ENDPOINT: endpoint,
    SEARCH_ENGINE: 'embedded',
    SEARCH_DB_PATH: paths.searchDb,
  });
  env.AWS_REGION ??= 'us-east-1';
  env.AWS_ACCESS_KEY_ID ??= 'local';
  env.AWS_SECRET_ACCESS_KEY ??= 'local';
  resetConfig();
  return { description: `local stack at ${endpoint}`, searchIndexInMemory: paths.inMemory };
};

const authStore = (): AuthStore => new AuthStore(documentClient(), process.env.AUTH_TABLE as string);
const jobRepository = (): JobRepository => new JobRepository(documentClient(), process.env.JOBS_TABLE as string);

/**
 * Before a deployed index is rebuilt or verified: the domain exists, is created, is not being deleted and
 * runs a supported engine; its live endpoint is the one the commands use. A configuration change in
 * progress is said, not refused — OpenSearch serves requests during one, only slower.
 */
const checkSearchDomain = async (target: Target): Promise<void> => {
  if (target.stack === undefined) return;
  const state = await describeSearchDomain(target.stack.opensearchDomain, target.stack.region);
  assertSearchDomainReady(state);
  if (state.url !== undefined && state.url !== process.env.OPENSEARCH_URL) {
    message(`The domain's endpoint is ${state.url} (the stack output said ${process.env.OPENSEARCH_URL}); using it.`);
    process.env.OPENSEARCH_URL = state.url;
    resetConfig();
  }
  if (state.processing) {
    message(`The domain is ${state.processingStatus}: requests are served, more slowly, until it is done.`);
  }
};

const assertSharedIndex = (target: Target): void => {
  if (target.searchIndexInMemory) {
    throw new CommandFailedError(
      'DATA_DIR is :memory:, so the search index lives inside the running stack; reindex and verify-index need a ' +
        'DATA_DIR on disk (or restart the stack, which indexes the table again).',
    );
  }
};

type Command = (values: Values, positionals: string[], target: Target) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  'create-client': async (values) => {
    const created = await authStore().createClient({
      name: required(values, 'name'),
      grants: parseGrants(required(values, 'grants')),
    });
    printJson({ clientId: created.clientId, token: created.token });
    return 0;
  },

  'create-session': async (values) => {
    const created = await authStore().createSession({
      clientToken: required(values, 'client-token'),
      accountId: parseInteger(required(values, 'account'), 'account', 0),
      role: parseRole(values.role),
      ttlSeconds: values.ttl === undefined ? DEFAULT_SESSION_TTL_SECONDS : parseInteger(values.ttl.trim(), 'ttl', 1),
      ...(values.user === undefined ? {} : { userId: values.user }),
    });
    printJson({ sessionId: created.sessionId, token: created.token, expiresAt: created.expiresAt });
    return 0;
  },

  import: async (_values, positionals, target) => {
    const [file, ...extra] = positionals;
    if (file === undefined || extra.length > 0)
      throw new UsageError('import takes exactly one file: import <file.ndjson>');
    message(`Importing ${file} into ${target.description}…`);
    const bar = createProgressBar({ label: 'Importing', unit: 'bytes' });
    const started = Date.now();
    let result: ImportResult;
    try {
      result = await importNdjson(file, {
        repository: jobRepository(),
        onProgress: (progress) => {
          const jobsPerSecond = Math.round(progress.lines / Math.max(0.001, (Date.now() - started) / 1000));
          bar.update(
            progress.bytesRead,
            progress.totalBytes,
            `${progress.lines} lines (${jobsPerSecond} lines/s), ${progress.imported} imported, ${progress.failed} failed`,
          );
        },
      });
    } catch (error) {
      bar.finish('stopped');
      if (error instanceof ImportAbortedError) printJson(error.partial);
      throw error;
    }
    bar.finish(`${result.imported} imported, ${result.unchanged} unchanged, ${result.failed.length} failed`);
    for (const failure of result.failed) message(`line ${failure.line}: ${failure.message}`);
    printJson(result);
    return result.failed.length === 0 ? 0 : 1;
  },

  reindex: async (_values, positionals, target) => {
    if (positionals.length > 0) throw new UsageError('reindex takes no arguments');
    assertSharedIndex(target);
    await checkSearchDomain(target);
    message(`Rebuilding the search index of ${target.description}…`);
    const bar = createProgressBar({ label: 'Reindexing', unit: 'jobs' });
    const result = await reindex({
      repository: jobRepository(),
      index: await searchIndex(),
      onProgress: (progress) => bar.update(progress.scanned, undefined, `${progress.failed} failed`),
    });
    bar.finish(`${result.indexed} indexed, ${result.failed.length} failed`);
    for (const failure of result.failed) message(`job ${failure.jobId}: ${failure.reason}`);
    printJson(result);
    return result.failed.length === 0 ? 0 : 1;
  },

  'verify-index': async (_values, positionals, target) => {
    if (positionals.length > 0) throw new UsageError('verify-index takes no arguments');
    assertSharedIndex(target);
    await checkSearchDomain(target);
    const report = await verifyIndex({ repository: jobRepository(), index: await searchIndex() });
    printJson(report);
    if (!report.ok)
      message('The search index differs from the jobs table; run `npm run cli -- reindex` to rebuild it.');
    return report.ok ? 0 : 1;
  },

  status: async (_values, positionals, target) => {
    if (positionals.length > 0) throw new UsageError('status takes no arguments');
    const env = process.env;
    const tables = { jobsTable: env.JOBS_TABLE, authTable: env.AUTH_TABLE };
    if (target.stack === undefined) {
      printJson({
        target: target.description,
        ...tables,
        dynamodbEndpoint: env.DYNAMODB_ENDPOINT,
        searchEngine: 'embedded',
        searchIndex: target.searchIndexInMemory ? ':memory:' : env.SEARCH_DB_PATH,
      });
      return 0;
    }
    const domain = await describeSearchDomain(target.stack.opensearchDomain, target.stack.region);
    const reason = notReadyReason(domain);
    printJson({
      target: target.description,
      ...tables,
      searchEngine: 'opensearch',
      searchIndex: target.stack.opensearchIndex,
      domain: { ...domain, ready: reason === undefined, ...(reason === undefined ? {} : { notReadyReason: reason }) },
    });
    if (reason !== undefined) message(`The OpenSearch domain is not ready: ${reason}.`);
    return reason === undefined ? 0 : 1;
  },
};

/** Runs the CLI with arguments (without `node` and the script); resolves with the exit code. */
const runCli = async (argv: string[]): Promise<number> => {
  let parsed: { values: Values; positionals: string[] };
  try {
    // Tokens are base64url: one in 64 begins with a dash, which parseArgs would take for an option.
    const args = attachDashValues(argv, ['--client-token']);
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    message(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [name, ...positionals] = parsed.positionals;
  if (parsed.values.help === true || name === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const command = name === undefined ? undefined : COMMANDS[name];
  if (command === undefined) {
    message(`${name === undefined ? 'No command given.' : `Unknown command "${name}".`}\n\n${USAGE}`);
    return 2;
  }
  try {
    assertSupportedNode();
    const target = await selectTarget(parsed.values);
    return await command(parsed.values, positionals, target);
  } catch (error) {
    if (error instanceof UsageError || error instanceof InvalidAuthInputError) {
      message(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (
      error instanceof UnknownClientError ||
      error instanceof CommandFailedError ||
      error instanceof SearchDomainNotFoundError ||
      error instanceof SearchDomainNotReadyError ||
      error instanceof UnsupportedNodeError
    ) {
      message(error.message);
      return 1;
    }
    message(`Failed: ${error instanceof Error ? error.message : String(error)}`);
    if (process.env.DEBUG) message(error instanceof Error ? (error.stack ?? '') : '');
    return 1;
  } finally {
    resetDocumentClient();
    await resetSearchIndex();
  }
};

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    message(`Failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);

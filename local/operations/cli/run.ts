/**
 * `npm run cli -- <command>`: administration of the local stack, or of a deployed one with
 * `--stack <name>`. JSON results go to standard output; progress and messages to standard error.
 * Exit codes: 0 success, 1 failure (or differences found by verify-index), 2 usage error.
 *
 * A command is one {@link CliCommand} in {@link COMMANDS}; adding one is a file and a line here.
 */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { ClientNotFoundError, SecretNotFoundError } from '../../../functions/auth/administration';
import {
  AccountNotAllowedError,
  InvalidAuthInputError,
  SessionRoleNotAllowedError,
  UnknownClientError,
} from '../../../functions/auth/store';
import { resetDocumentClient } from '../../../functions/aws/dynamodb';
import { resetSearchIndex } from '../../../functions/search/engine';
import { assertSupportedNode, UnsupportedNodeError } from '../../paths';
import { SearchDomainNotFoundError, SearchDomainNotReadyError } from '../domain-status';
import { createClientCommand, createSessionCommand } from './auth-commands';
import {
  disableClientCommand,
  enableClientCommand,
  listClientsCommand,
  revokeSecretCommand,
  rotateSecretCommand,
} from './client-commands';
import { listSessionsCommand, revokeSessionCommand } from './session-commands';
import { type CliCommand, CommandFailedError, message, type OptionValues, UsageError } from './command';
import { attachDashValues } from './dash-values';
import { importCommand } from './import-command';
import { reindexCommand, verifyIndexCommand } from './index-commands';
import { seedDemoCommand } from './seed-demo-command';
import { statusCommand } from './status-command';
import { resetCommandsClient, selectTarget } from './target';
import { unreachableLocalStack } from './unreachable';

/** Every command, in the order the usage lists them. */
export const COMMANDS: readonly CliCommand[] = [
  createClientCommand,
  createSessionCommand,
  listClientsCommand,
  disableClientCommand,
  enableClientCommand,
  rotateSecretCommand,
  revokeSecretCommand,
  listSessionsCommand,
  revokeSessionCommand,
  importCommand,
  reindexCommand,
  verifyIndexCommand,
  statusCommand,
  seedDemoCommand,
];

/** The options every command takes: where it acts, and help. */
const COMMON_OPTIONS: ParseArgsOptionsConfig = {
  stack: { type: 'string' },
  region: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const indent = (text: string): string => text.replace(/^/gm, '  ');

export const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
${COMMANDS.map((command) => indent(command.usage)).join('\n')}

Target (default: the local stack):
  DYNAMODB_ENDPOINT (default http://localhost:$DYNAMODB_PORT, port 8000), tables jobs-api-local-Jobs and
  jobs-api-local-Auth (JOBS_TABLE / AUTH_TABLE override), search index $DATA_DIR/search.sqlite (DATA_DIR default .data).
  --stack <name> [--region <region>]   a deployed stack: tables and OpenSearch endpoint from its outputs;
  reindex and verify-index first check the domain with the OpenSearch control plane (DescribeDomain).
`;

interface ParsedCommandLine {
  command: CliCommand | undefined;
  name: string | undefined;
  values: OptionValues;
  positionals: string[];
}

/**
 * Reads the command's name (the first positional, wherever the common options stand), then parses the whole
 * line again against that command's own options, strictly.
 */
const parseCommandLine = (argv: readonly string[]): ParsedCommandLine => {
  const everyOption: ParseArgsOptionsConfig = Object.assign({}, COMMON_OPTIONS, ...COMMANDS.map((c) => c.options));
  const everyDashValue = COMMANDS.flatMap((command) => command.dashValues ?? []);
  const first = parseArgs({
    args: attachDashValues(argv, everyDashValue),
    options: everyOption,
    allowPositionals: true,
  });
  const [name] = first.positionals;
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) return { command, name, values: first.values, positionals: [] };
  const own = parseArgs({
    args: attachDashValues(argv, command.dashValues ?? []),
    options: { ...COMMON_OPTIONS, ...command.options },
    allowPositionals: true,
    strict: true,
  });
  return { command, name, values: own.values, positionals: own.positionals.slice(1) };
};

/** Errors that are the operator's to fix, said in one line (exit code 1). */
const REPORTED_ERRORS = [
  UnknownClientError,
  ClientNotFoundError,
  SecretNotFoundError,
  SessionRoleNotAllowedError,
  AccountNotAllowedError,
  CommandFailedError,
  SearchDomainNotFoundError,
  SearchDomainNotReadyError,
  UnsupportedNodeError,
];

/** Runs the CLI with arguments (without `node` and the script); resolves with the exit code. */
export const runCli = async (argv: readonly string[]): Promise<number> => {
  let parsed: ParsedCommandLine;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    message(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help === true || parsed.name === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const { command, name } = parsed;
  if (command === undefined) {
    message(`${name === undefined ? 'No command given.' : `Unknown command "${name}".`}\n\n${USAGE}`);
    return 2;
  }
  const stack = typeof parsed.values.stack === 'string' ? parsed.values.stack : undefined;
  // The environment as given, before the target's settings are merged into it (a refusal names what chose it).
  const given = { ...process.env };
  try {
    assertSupportedNode();
    const region = parsed.values.region;
    const target = await selectTarget(stack, typeof region === 'string' ? region : undefined);
    return await command.run({ values: parsed.values, positionals: parsed.positionals, target });
  } catch (error) {
    if (error instanceof UsageError || error instanceof InvalidAuthInputError) {
      message(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (REPORTED_ERRORS.some((type) => error instanceof type)) {
      message((error as Error).message);
      return 1;
    }
    const unreachable = unreachableLocalStack(error, process.env.DYNAMODB_ENDPOINT, given, stack);
    if (unreachable !== undefined) {
      message(unreachable);
      return 1;
    }
    message(`Failed: ${error instanceof Error ? error.message : String(error)}`);
    if (process.env.DEBUG) message(error instanceof Error ? (error.stack ?? '') : '');
    return 1;
  } finally {
    resetDocumentClient();
    resetCommandsClient();
    await resetSearchIndex();
  }
};

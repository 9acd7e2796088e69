/**
 * Where the CLI's commands act: the local stack (DynamoDB Local and the embedded index under `DATA_DIR`), or a
 * deployed stack found by `--stack <name>` from its CloudFormation outputs. Either way the target is set
 * through the environment the shared configuration (functions/config.ts) reads, so the commands use the very
 * code the functions run. Audit records of what the commands change go to the target's audit log group
 * (under `--stack`, naming the operator by the AWS identity the CLI acts as) or to `$DATA_DIR/audit.ndjson`
 * (naming the OS user).
 *
 * What only `--stack` needs — STS, CloudWatch Logs, CloudFormation and the OpenSearch control plane — is loaded
 * when it is first used, so a command on the local stack (and `--help`) loads none of those SDKs.
 */
import { AuthAdministration } from '../../../functions/auth/administration';
import { type AuditSink, type AuditSource, auditLine, localOperator } from '../../../functions/auth/audit';
import { AuthStore } from '../../../functions/auth/store';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config, resetConfig } from '../../../functions/config';
import { JobsTable, OPERATOR_RETRY_POLICY } from '../../../functions/jobs/store/jobs-table';
import { JobRepository } from '../../../functions/jobs/store/repository';
import { batchDocumentClient } from '../../dynamodb/batch-client';
import { fileAuditSink } from '../../logs/audit-file';
import { dataPaths, IN_MEMORY, localStackEnvironment } from '../../paths';
import { assertSearchDomainReady, describeSearchDomain, type SearchDomainState } from '../domain-status';
import { resolveStackTarget, type StackTarget, stackTargetEnvironment } from '../stack-target';
import { CommandFailedError, message } from './command';

/** Where the commands act: the local stack, or a deployed stack. */
export interface Target {
  description: string;
  /** The deployed stack, when the commands act on one. */
  stack?: StackTarget & { name: string };
  /** Whether the search index is an in-memory one no other process can see. */
  searchIndexInMemory: boolean;
}

/** Points the shared configuration at the target named by `--stack`/`--region`, or at the local stack. */
export const selectTarget = async (stack: string | undefined, region: string | undefined): Promise<Target> => {
  const env = process.env;
  if (stack !== undefined) {
    const target = await resolveStackTarget(stack, region);
    Object.assign(env, stackTargetEnvironment(target));
    delete env.DYNAMODB_ENDPOINT;
    resetConfig();
    audit = { sink: auditSinkFor({ ...target, name: stack }), source: undefined };
    return {
      description: `stack ${stack} (${target.region})`,
      stack: { ...target, name: stack },
      searchIndexInMemory: false,
    };
  }
  const local = localStackEnvironment(env);
  Object.assign(env, local);
  delete env.AUDIT_LOG_GROUP;
  resetConfig();
  audit = { sink: auditSinkFor(undefined), source: undefined };
  return {
    description: `local stack at ${local.DYNAMODB_ENDPOINT}`,
    searchIndexInMemory: local.SEARCH_DB_PATH === IN_MEMORY,
  };
};

/** The command line that runs `command` on the same target (`npm run cli -- reindex --stack …`). */
export const commandFor = (target: Target, command: string): string =>
  target.stack === undefined
    ? `npm run cli -- ${command}`
    : `npm run cli -- ${command} --stack ${target.stack.name} --region ${target.stack.region}`;

let audit: { sink: AuditSink; source: Promise<AuditSource> | undefined } | undefined;

let client: DynamoDBDocumentClient | undefined;

/**
 * The commands' DynamoDB client, made once per command from the target's configuration: a patient one
 * (../../dynamodb/batch-client.ts), since a command is batch work, not an API answer with a budget.
 */
const commandsClient = (): DynamoDBDocumentClient => {
  const { region, dynamodbEndpoint } = config();
  return (client ??= batchDocumentClient({ region, endpoint: dynamodbEndpoint }));
};

/** Forgets the commands' client (after each command: the next may act on another target). */
export const resetCommandsClient = (): void => {
  client?.destroy();
  client = undefined;
};

/**
 * Who the operator is: under `--stack` the AWS identity the CLI acts as (STS GetCallerIdentity, asked once
 * per run), locally the OS user.
 */
export const operatorSource = (): Promise<AuditSource> => {
  const state = (audit ??= { sink: auditSinkFor(undefined), source: undefined });
  state.source ??= process.env.AUDIT_LOG_GROUP ? awsOperator() : Promise.resolve(localOperator());
  return state.source;
};

const awsOperator = async (): Promise<AuditSource> => {
  const { GetCallerIdentityCommand, STSClient } = await import('@aws-sdk/client-sts');
  const sts = new STSClient({ region: process.env.AWS_REGION });
  try {
    const { Arn } = await sts.send(new GetCallerIdentityCommand({}));
    if (!Arn) throw new CommandFailedError('STS GetCallerIdentity named no caller; nothing was changed.');
    return { via: 'cli', who: Arn };
  } finally {
    sts.destroy();
  }
};

/**
 * The audit records of the target: its audit log group under `--stack`, `$DATA_DIR/audit.ndjson` locally. The
 * log group's writer (and CloudWatch Logs' SDK with it) is loaded with the first record.
 */
const auditSinkFor = (stack: Target['stack']): AuditSink => {
  const group = process.env.AUDIT_LOG_GROUP?.trim();
  if (stack === undefined || !group)
    return fileAuditSink(dataPaths(process.env.DATA_DIR?.trim() || undefined).auditLog);
  const region = stack.region;
  let sink: Promise<AuditSink> | undefined;
  return async (record) => {
    sink ??= import('../../../functions/auth/cloudwatch-audit').then(({ cloudWatchAuditSink, createLogsClient }) =>
      cloudWatchAuditSink({
        logGroupName: group,
        streamPrefix: 'cli',
        client: createLogsClient({ region, dependencyTimeoutMs: 9_000 }),
        fallback: (refused, error) => {
          message(`The audit log group ${group} refused this record (${(error as Error).message}); keep it:`);
          process.stderr.write(`${auditLine(refused)}\n`);
          process.exitCode = 1;
        },
      }),
    );
    return (await sink)(record);
  };
};

const cliAudit = (): AuditSink => (audit ??= { sink: auditSinkFor(undefined), source: undefined }).sink;

/** The auth table of the target; every credential issued or ended writes an audit record naming the operator. */
export const authStore = async (): Promise<AuthStore> =>
  new AuthStore(commandsClient(), process.env.AUTH_TABLE as string, {
    audit: cliAudit(),
    source: await operatorSource(),
  });

/** Operators' view of the target's auth table (clients, secrets and sessions by id). */
export const authAdministration = (): AuthAdministration =>
  new AuthAdministration(commandsClient(), process.env.AUTH_TABLE as string, { audit: cliAudit() });

/** The jobs table's gateway on the commands' client (`migrate`), under the operators' retry policy. */
export const jobsTable = (): JobsTable =>
  new JobsTable(commandsClient(), process.env.JOBS_TABLE as string, { retry: OPERATOR_RETRY_POLICY });

/** The jobs table of the target, under the operators' retry policy (batch work: no answer budget). */
export const jobRepository = (): JobRepository =>
  new JobRepository(commandsClient(), process.env.JOBS_TABLE as string, { retry: OPERATOR_RETRY_POLICY });

/**
 * Before a deployed index is rebuilt or verified: the domain exists, is created, is not being deleted and
 * runs a supported engine; its live endpoint is the one the commands use. A configuration change in
 * progress is said, not refused — OpenSearch serves requests during one, only slower.
 */
export const checkSearchDomain = async (target: Target): Promise<void> => {
  if (target.stack === undefined) return;
  const state = await describeSearchDomain(target.stack.opensearchDomain, target.stack.region);
  assertSearchDomainReady(state);
  useDomainEndpoint(state);
  if (state.processing) {
    message(`The domain is ${state.processingStatus}: requests are served, more slowly, until it is done.`);
  }
};

/** Points the data-plane requests at the endpoint the control plane reports for the domain. */
export const useDomainEndpoint = (state: SearchDomainState): void => {
  if (state.url !== undefined && state.url !== process.env.OPENSEARCH_URL) {
    message(`The domain's endpoint is ${state.url} (the stack output said ${process.env.OPENSEARCH_URL}); using it.`);
    process.env.OPENSEARCH_URL = state.url;
    resetConfig();
  }
};

/** Refuses to rebuild or verify an index that lives inside another process (`DATA_DIR=:memory:`). */
export const assertSharedIndex = (target: Target): void => {
  if (target.searchIndexInMemory) {
    throw new CommandFailedError(
      'DATA_DIR is :memory:, so the search index lives inside the running stack; reindex and verify-index need a ' +
        'DATA_DIR on disk (or restart the stack, which indexes the table again).',
    );
  }
};

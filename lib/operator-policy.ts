/**
 * The operator's managed policy: exactly what the CLI's `--stack` commands call, and nothing more. An
 * operator (or a CI role) attaches it (`OperatorPolicyArn` output) and can run every command against this
 * stack. The operator rehearsal (test/rehearsal/operator.test.ts) runs each command through the real CLI and
 * requires every call it makes to be allowed by this policy and every grant below to be used by a call.
 *
 * One {@link OperatorGrant} per purpose, each saying which commands need it: a new command adds its
 * actions to the grant of its purpose, or a grant of its own.
 */
import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import { Construct } from 'constructs';
import { AUTH_TABLE } from '../functions/tables';

export interface OperatorPolicyProps {
  jobsTable: ITableV2;
  authTable: ITableV2;
  /** The audit log group the credential commands write their records to. */
  auditLogGroup: ILogGroup;
  domain: IDomain;
  /** The alias the functions and the commands address (`jobs`); rebuilds create `<alias>-v<n>` beside it. */
  indexName: string;
  /**
   * The ARN of every upload object of the pictures' bucket (`uploads/*`): seed-demo puts the demo pictures there,
   * and the bucket's event has the images function render them as it renders any upload.
   */
  uploadObjectsArn: string;
}

/** One purpose of the CLI: the commands that need it, the actions, the resources. */
export interface OperatorGrant {
  purpose: string;
  actions: string[];
  resources: string[];
}

const dynamodb = (...actions: string[]): string[] => actions.map((action) => `dynamodb:${action}`);

/** The managed policy an operator attaches to run the CLI with `--stack`. */
export class OperatorPolicy extends Construct {
  public readonly policy: ManagedPolicy;
  public readonly grants: readonly OperatorGrant[];

  public constructor(scope: Construct, id: string, props: OperatorPolicyProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const jobs = props.jobsTable.tableArn;
    const auth = props.authTable.tableArn;
    const domain = props.domain.domainArn;
    const alias = props.indexName;
    const path = (...paths: string[]): string[] => paths.map((p) => `${domain}/${p}`);
    this.grants = [
      {
        purpose: 'Every --stack command finds the tables and the domain in the stack outputs.',
        actions: ['cloudformation:DescribeStacks'],
        resources: [stack.stackId],
      },
      {
        purpose:
          'create-client (client and first secret in one transaction) and create-session (and seed-demo) write ' +
          'clients, secrets and sessions; every command on a client by id reads its item; disable-client, ' +
          'enable-client, rotate-secret, revoke-secret and revoke-session --all update the client item (its ' +
          'secrets, revoked secrets and session generation); revoke-secret and revoke-session delete items.',
        actions: dynamodb('GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'),
        resources: [auth],
      },
      {
        purpose:
          'create-session --client-id, disable-client, enable-client, rotate-secret, revoke-secret, list-sessions, ' +
          "list-clients and revoke-session find a client's own items (client, secrets, sessions) by its id.",
        actions: dynamodb('Query'),
        resources: [`${auth}/index/${AUTH_TABLE.globalSecondaryIndexes[0].indexName}`],
      },
      {
        purpose: 'list-clients lists every client (clients have no index of their own).',
        actions: dynamodb('Scan'),
        resources: [auth],
      },
      {
        purpose:
          'Every command that creates, changes or ends a client, secret or session (and seed-demo) writes one ' +
          'audit record to the audit log group, in a log stream of its own.',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [props.auditLogGroup.logGroupArn],
      },
      {
        purpose:
          'The same commands name the operator in their audit records by the AWS identity the CLI acts as ' +
          '(STS GetCallerIdentity, which IAM authorizes on no resource).',
        actions: ['sts:GetCallerIdentity'],
        resources: ['*'],
      },
      {
        purpose:
          'import and seed-demo write jobs: items in transactions (a changed job read first and its dropped files ' +
          'deleted), the files of a job too large for one transaction in batches; seed-demo --force reads the job ' +
          'items it would write again in batches (BatchGetItem) and leaves the unchanged ones alone.',
        actions: dynamodb('PutItem', 'DeleteItem', 'BatchWriteItem', 'BatchGetItem', 'Query'),
        resources: [jobs],
      },
      {
        purpose:
          "import claims the ids of the API's range it writes: it reads the id counter and moves it past them " +
          '(never an id POST /jobs assigned); status reads whether the counter exists (it is no job).',
        actions: dynamodb('GetItem', 'UpdateItem'),
        resources: [jobs],
      },
      {
        purpose:
          'migrate moves file items written before the padded sort keys: transactions that check the job item ' +
          'still has the version read (ConditionCheckItem), delete each old item and put it at its new key; it ' +
          'reads each partition (Query), scans for the job items still to migrate and marks them (UpdateItem).',
        actions: dynamodb('ConditionCheckItem'),
        resources: [jobs],
      },
      {
        purpose:
          "seed-demo uploads the demo jobs' pictures (each file's original, and its edited version on a delivered " +
          'job) under the upload keys the images function renders from; it writes no rendition and reads nothing.',
        actions: ['s3:PutObject'],
        resources: [props.uploadObjectsArn],
      },
      {
        purpose: 'reindex and verify-index scan the jobs table; seed-demo reads one page of it (does it hold jobs?).',
        actions: dynamodb('Scan'),
        resources: [jobs],
      },
      {
        purpose:
          'status counts the jobs without a Scan: the item counts DynamoDB keeps of the table and its file index.',
        actions: dynamodb('DescribeTable'),
        resources: [jobs],
      },
      {
        purpose: 'reindex, verify-index and status ask the control plane for the domain’s state and endpoint.',
        actions: ['es:DescribeDomain'],
        resources: [domain],
      },
      {
        purpose:
          'status, verify-index and reindex read what the alias points at; status and verify-index count its documents.',
        actions: ['es:ESHttpGet'],
        resources: path(`_alias/${alias}`, `${alias}/_count`),
      },
      {
        purpose:
          'verify-index and reindex page through the alias (search_after); verify-index reads documents in ' +
          'batches (_mget); reindex writes what changed during the rebuild through the alias (_bulk).',
        actions: ['es:ESHttpPost'],
        resources: path(`${alias}/_search`, `${alias}/_mget`, `${alias}/_bulk`),
      },
      {
        purpose: 'reindex creates a new index beside the live one and deletes the ones the alias left.',
        actions: ['es:ESHttpPut', 'es:ESHttpDelete'],
        resources: path(`${alias}-v*`),
      },
      {
        purpose:
          "reindex lists the alias's concrete indices with their aliases (to delete the retired ones); status lists " +
          'them with their sizes (to show the ones the alias does not name).',
        actions: ['es:ESHttpGet'],
        resources: path(`${alias}-v*/_alias`, `_cat/indices/${alias}-v*`),
      },
      {
        purpose: 'reindex fills and refreshes the new index, then moves the alias in one _aliases request.',
        actions: ['es:ESHttpPost'],
        resources: path(`${alias}-v*/_bulk`, `${alias}-v*/_refresh`, '_aliases'),
      },
      {
        purpose: 'reindex on a domain without the alias asks whether the name is a concrete index of its own.',
        actions: ['es:ESHttpHead'],
        resources: path(alias),
      },
    ];
    this.policy = new ManagedPolicy(this, 'Policy', {
      description: `What the Jobs API CLI needs to run its --stack commands against ${stack.stackName}`,
      statements: this.grants.map(
        (grant) => new PolicyStatement({ actions: grant.actions, resources: grant.resources }),
      ),
    });
    // cdk-nag names a resource by the domain's logical id; the rebuilt indices' names end in a timestamp.
    const domainArn = `<${stack.getLogicalId(props.domain.node.defaultChild as CfnElement)}.Arn>`;
    const prefixed = this.grants
      .flatMap((grant) => grant.resources)
      .filter((resource) => resource.startsWith(`${domain}/`) && resource.includes('*'))
      .map((resource) => `${domainArn}${resource.slice(domain.length)}`);
    Validations.of(this.policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'sts:GetCallerIdentity, the only action on "*", supports no resource-level permission: IAM authorizes it ' +
        'on "*" alone. The credential commands call it to name the operator in their audit records.',
    });
    Validations.of(this.policy).acknowledge(
      ...prefixed.map((resource) => ({
        id: `AwsSolutions-IAM5[Resource::${resource}]`,
        reason:
          `reindex builds each new index under a name unknown in advance (${alias}-v<milliseconds>), so its ` +
          'requests name the indices by that prefix.',
      })),
    );
  }
}

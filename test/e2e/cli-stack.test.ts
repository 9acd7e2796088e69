/**
 * `npm run cli -- … --stack <name>` over real HTTP, against stand-ins for the two AWS control planes it
 * asks (CloudFormation's DescribeStacks, OpenSearch's DescribeDomain), reached through the SDK's
 * `AWS_ENDPOINT_URL_<SERVICE>` settings: the CLI finds the stack's domain, says why a domain cannot serve, and
 * refuses to rebuild an index on such a domain before it sends anything to the domain itself. The commands on a
 * ready domain, with its data plane and tables, are the operator rehearsal's (test/rehearsal/operator.test.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { STACK_OUTPUTS } from '../../lib/stack-outputs';
import { activeDomainStatus, AwsStandIns } from '../support/aws-stand-ins';
import { runProcess } from '../support/local-stack';

const DOMAIN = 'jobs-test-3f9a1c';
const DOMAIN_HOST = 'search-jobs-test-3f9a1c-abcdefghijklmnopqrstuvwxyz.eu-west-1.es.amazonaws.com';

let standIns: AwsStandIns;
let endpoint: string;
const domains = new Map<string, Record<string, unknown> | undefined>();

const ACTIVE = activeDomainStatus({ name: DOMAIN, account: '123456789012', region: 'eu-west-1' }, DOMAIN_HOST);

const outputs: Record<string, string> = {
  [STACK_OUTPUTS.jobsTable]: 'JobsApi-test-JobsTable-1A2B',
  [STACK_OUTPUTS.authTable]: 'JobsApi-test-AuthTable-3C4D',
  [STACK_OUTPUTS.opensearchUrl]: `https://${DOMAIN_HOST}`,
  [STACK_OUTPUTS.opensearchDomain]: DOMAIN,
  [STACK_OUTPUTS.opensearchIndex]: 'jobs',
  [STACK_OUTPUTS.apiUrl]: 'https://abc123.execute-api.eu-west-1.amazonaws.com/test/',
  [STACK_OUTPUTS.auditLogGroup]: 'JobsApi-test-audit',
};

beforeAll(async () => {
  standIns = new AwsStandIns({
    account: '123456789012',
    region: 'eu-west-1',
    stacks: [
      {
        name: 'JobsApi-test',
        id: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/JobsApi-test/1',
        status: 'CREATE_COMPLETE',
        outputs,
      },
    ],
    domains,
  });
  endpoint = await standIns.start();
});

afterAll(async () => {
  await standIns.stop();
});

/** The requests of the current test, as `<operation> <resource>`. */
let from = 0;
const recorded = () => standIns.calls.slice(from);

beforeEach(() => {
  from = standIns.calls.length;
  domains.set(DOMAIN, { ...ACTIVE });
});

const cli = (...args: string[]) =>
  runProcess('bin/cli.ts', [...args, '--stack', 'JobsApi-test', '--region', 'eu-west-1'], {
    AWS_ENDPOINT_URL_CLOUDFORMATION: endpoint,
    AWS_ENDPOINT_URL_OPENSEARCH: endpoint,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    CI: 'true',
  });

describe('npm run cli -- … --stack', { timeout: 60_000 }, () => {
  it('status exits 1 and says why when the domain is being deleted', async () => {
    domains.set(DOMAIN, { ...ACTIVE, Deleted: true, DomainProcessingStatus: 'Deleting' });
    const result = await cli('status');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).domain).toMatchObject({ ready: false, notReadyReason: 'it is being deleted' });
    expect(result.stderr).toContain('The OpenSearch domain is not ready: it is being deleted.');
  });

  it('reindex refuses a domain that is still being created, before any request reaches the domain', async () => {
    domains.set(DOMAIN, { ...ACTIVE, Created: false, Endpoint: undefined, DomainProcessingStatus: 'Creating' });
    const result = await cli('reindex');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The OpenSearch domain "${DOMAIN}" is not ready: it is still being created`);
    expect(recorded().map((call) => call.action)).toEqual(['cloudformation:DescribeStacks', 'es:DescribeDomain']);
  });

  it('verify-index names a domain the control plane does not know', async () => {
    domains.set(DOMAIN, undefined);
    const result = await cli('verify-index');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The stack's OpenSearch domain "${DOMAIN}" does not exist in eu-west-1`);
  });

  it('names a stack that does not exist', async () => {
    const result = await runProcess('bin/cli.ts', ['status', '--stack', 'JobsApi-nope', '--region', 'eu-west-1'], {
      AWS_ENDPOINT_URL_CLOUDFORMATION: endpoint,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      CI: 'true',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Stack "JobsApi-nope" was not found in eu-west-1');
  });
});

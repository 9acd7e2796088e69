/**
 * `npm run cli -- … --stack <name>` over real HTTP, against stand-ins for the two AWS control planes it
 * asks (CloudFormation's DescribeStacks, OpenSearch's DescribeDomain), reached through the SDK's
 * `AWS_ENDPOINT_URL_<SERVICE>` settings: the CLI finds the stack's domain, shows its state, and refuses to
 * rebuild an index on a domain that cannot take it before it sends anything to the domain itself.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { AUTH_TABLE } from '../../functions/tables';
import { STACK_OUTPUTS } from '../../lib/stack-outputs';
import { ensureTable } from '../../local/dynamodb/tables';
import { runProcess } from '../support/local-stack';

const DOMAIN = 'jobs-test-3f9a1c';
const DOMAIN_HOST = 'search-jobs-test-3f9a1c-abcdefghijklmnopqrstuvwxyz.eu-west-1.es.amazonaws.com';

interface Recorded {
  method: string;
  url: string;
  body: string;
}

let server: Server;
let endpoint: string;
let recorded: Recorded[] = [];
let domainStatus: Record<string, unknown> | undefined;

const ACTIVE = {
  DomainId: `123456789012/${DOMAIN}`,
  DomainName: DOMAIN,
  ARN: `arn:aws:es:eu-west-1:123456789012:domain/${DOMAIN}`,
  Created: true,
  Deleted: false,
  Processing: false,
  UpgradeProcessing: false,
  Endpoint: DOMAIN_HOST,
  EngineVersion: 'OpenSearch_3.7',
  DomainProcessingStatus: 'Active',
  ClusterConfig: { InstanceType: 'r6g.large.search', InstanceCount: 3, ZoneAwarenessEnabled: true },
};

const outputs: Record<string, string> = {
  [STACK_OUTPUTS.jobsTable]: 'JobsApi-test-JobsTable-1A2B',
  [STACK_OUTPUTS.authTable]: 'JobsApi-test-AuthTable-3C4D',
  [STACK_OUTPUTS.opensearchUrl]: `https://${DOMAIN_HOST}`,
  [STACK_OUTPUTS.opensearchDomain]: DOMAIN,
  [STACK_OUTPUTS.opensearchIndex]: 'jobs',
};

/** CloudFormation speaks the AWS query protocol: a form-encoded POST, an XML answer. */
const describeStacks = (form: URLSearchParams): { status: number; xml: string } => {
  const ns = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';
  if (form.get('StackName') !== 'JobsApi-test') {
    return {
      status: 400,
      xml:
        `<ErrorResponse xmlns="${ns}"><Error><Type>Sender</Type><Code>ValidationError</Code>` +
        `<Message>Stack with id ${form.get('StackName')} does not exist</Message></Error>` +
        '<RequestId>cfn-1</RequestId></ErrorResponse>',
    };
  }
  const members = Object.entries(outputs)
    .map(([key, value]) => `<member><OutputKey>${key}</OutputKey><OutputValue>${value}</OutputValue></member>`)
    .join('');
  return {
    status: 200,
    xml:
      `<DescribeStacksResponse xmlns="${ns}"><DescribeStacksResult><Stacks><member>` +
      '<StackName>JobsApi-test</StackName><StackId>arn:aws:cloudformation:eu-west-1:123456789012:stack/JobsApi-test/1</StackId>' +
      '<CreationTime>2026-11-01T00:00:00Z</CreationTime><StackStatus>CREATE_COMPLETE</StackStatus>' +
      `<Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult>` +
      '<ResponseMetadata><RequestId>cfn-2</RequestId></ResponseMetadata></DescribeStacksResponse>',
  };
};

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

beforeAll(async () => {
  server = createServer((request, response) => {
    void readBody(request).then((body) => {
      recorded.push({ method: request.method ?? '', url: request.url ?? '', body });
      if (request.method === 'POST' && request.url === '/') {
        const answer = describeStacks(new URLSearchParams(body));
        response.writeHead(answer.status, { 'Content-Type': 'text/xml' }).end(answer.xml);
        return;
      }
      if (request.method === 'GET' && request.url === `/2021-01-01/opensearch/domain/${DOMAIN}`) {
        if (domainStatus === undefined) {
          response
            .writeHead(409, { 'Content-Type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' })
            .end(JSON.stringify({ message: `Domain not found: ${DOMAIN}` }));
          return;
        }
        response
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ DomainStatus: domainStatus }));
        return;
      }
      response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"message":"not a control-plane call"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  recorded = [];
  domainStatus = { ...ACTIVE };
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
  it('status shows the stack’s tables and its domain’s state, and exits 0 when the domain is ready', async () => {
    const result = await cli('status');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      target: 'stack JobsApi-test (eu-west-1)',
      jobsTable: 'JobsApi-test-JobsTable-1A2B',
      authTable: 'JobsApi-test-AuthTable-3C4D',
      searchEngine: 'opensearch',
      searchIndex: 'jobs',
      domain: {
        name: DOMAIN,
        url: `https://${DOMAIN_HOST}`,
        engineVersion: 'OpenSearch_3.7',
        processingStatus: 'Active',
        processing: false,
        dataNodes: { instanceType: 'r6g.large.search', count: 3, zones: 2 },
        ready: true,
      },
    });
    expect(recorded.map((call) => `${call.method} ${call.url}`)).toEqual([
      'POST /',
      `GET /2021-01-01/opensearch/domain/${DOMAIN}`,
    ]);
  });

  it('status exits 1 and says why when the domain is being deleted', async () => {
    domainStatus = { ...ACTIVE, Deleted: true, DomainProcessingStatus: 'Deleting' };
    const result = await cli('status');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).domain).toMatchObject({ ready: false, notReadyReason: 'it is being deleted' });
    expect(result.stderr).toContain('The OpenSearch domain is not ready: it is being deleted.');
  });

  it('reindex refuses a domain that is still being created, before any request reaches the domain', async () => {
    domainStatus = { ...ACTIVE, Created: false, Endpoint: undefined, DomainProcessingStatus: 'Creating' };
    const result = await cli('reindex');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The OpenSearch domain "${DOMAIN}" is not ready: it is still being created`);
    expect(recorded.every((call) => call.url === '/' || call.url.startsWith('/2021-01-01/opensearch/'))).toBe(true);
  });

  it('verify-index names a domain the control plane does not know', async () => {
    domainStatus = undefined;
    const result = await cli('verify-index');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The stack's OpenSearch domain "${DOMAIN}" does not exist in eu-west-1`);
  });

  it('runs a client’s credentials on the stack’s auth table: create, open by id, list, revoke, disable', async () => {
    await ensureTable(
      new DynamoDBClient({ endpoint: inject('dynamodbEndpoint'), region: 'eu-west-1' }),
      AUTH_TABLE,
      outputs[STACK_OUTPUTS.authTable]!,
    );
    const onTable = async (...args: string[]) => {
      const result = await runProcess('bin/cli.ts', [...args, '--stack', 'JobsApi-test', '--region', 'eu-west-1'], {
        AWS_ENDPOINT_URL_CLOUDFORMATION: endpoint,
        AWS_ENDPOINT_URL_DYNAMODB: inject('dynamodbEndpoint'),
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        CI: 'true',
      });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout.trim() === '' ? undefined : JSON.parse(result.stdout);
    };
    const client = await onTable('create-client', '--name', 'Stack app', '--grants', 'search,sessions');
    const session = await onTable('create-session', '--client-id', client.clientId, '--account', '7', '--user', 'ann');
    expect(await onTable('list-sessions', '--client-id', client.clientId)).toEqual([
      expect.objectContaining({ sessionId: session.sessionId, userId: 'ann', accountId: 7, role: 'user' }),
    ]);
    expect(await onTable('revoke-session', '--client-id', client.clientId, '--user', 'ann')).toEqual({ revoked: 1 });
    expect(await onTable('rotate-secret', '--client-id', client.clientId)).toMatchObject({
      secretId: expect.any(String),
    });
    await onTable('disable-client', '--client-id', client.clientId);
    await onTable('enable-client', '--client-id', client.clientId);
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

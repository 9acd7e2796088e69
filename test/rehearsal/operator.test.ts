/**
 * The operator rehearsal: every `--stack` command runs through the real CLI (`bin/cli.ts`, its own process)
 * against local stand-ins reached through the AWS SDK's `AWS_ENDPOINT_URL_<SERVICE>` settings —
 * CloudFormation answering with the synthesized stack's outputs, the OpenSearch control plane, DynamoDB Local
 * holding the tables under their deployed names, S3 taking the demo's pictures into the stack's bucket, and an
 * in-memory OpenSearch node over HTTPS as the domain's endpoint. Every AWS call the commands make is recorded as IAM authorizes it and judged by the IAM evaluator
 * (`@cloud-copilot/iam-simulate`) under the stack's `OperatorPolicyArn` policy plus the domain's access
 * policy: every call must be allowed, and every grant of the policy used by some call. Every request to the
 * domain must also be one OpenSearch's published API description accepts.
 *
 * The commands are {@link STEPS}, one row each, run in order against one stack: a new `--stack` command is a
 * new row (and, when it calls something new, a grant in lib/operator-policy.ts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../functions/auth/tokens';
import { autoCreateRule } from '../../functions/search/opensearch/auto-create';
import { AUTH_TABLE, JOBS_TABLE, jobKeys } from '../../functions/tables';
import { toFileItems, toJobItem } from '../../functions/jobs/store/items';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { demoJobs } from '../../local/demo/data';
import { isDeliveredJob } from '../../functions/jobs/model/review';
import { JobRepository } from '../../functions/jobs/store/repository';
import { parseUploadKey } from '../../functions/images/object-keys';
import { sniffImageType } from '../../functions/images/image-type';
import { STACK_OUTPUTS } from '../../lib/stack-outputs';
import { ensureTable } from '../../local/dynamodb/tables';
import { activeDomainStatus, AwsStandIns } from '../support/aws-stand-ins';
import { makeFile, makeJob } from '../support/jobs';
import { runProcess } from '../support/local-stack';
import { OpenSearchStandIn } from '../support/opensearch-stand-in';
import { API_ID_RANGE } from '../../functions/jobs/store/id-allocator';
import { judgeCall, unusedGrants, verdictKey } from './judge';
import { type AuthorizedCall, openSearchCall } from './recorder';
import { ACCOUNT, REGION, type RehearsalTemplate, synthesizeForRehearsal } from './template';
import { sharedDynamodbEndpoint } from '../support/dynamo';

const suffix = crypto.randomUUID().slice(0, 8).toUpperCase();
const TABLES = { jobs: `JobsApi-JobsTable${suffix}`, auth: `JobsApi-AuthTable${suffix}` };
const OPERATOR = `arn:aws:iam::${ACCOUNT}:role/JobsApiOperator`;
/** Who the operator is to STS: a session of that role. */
const OPERATOR_CALLER = `arn:aws:sts::${ACCOUNT}:assumed-role/JobsApiOperator/rehearsal`;

let template: RehearsalTemplate;
let standIns: AwsStandIns;
let domain: OpenSearchStandIn;
let directory: string;
/** What the earlier steps produced that later ones use. */
const produced: { clientToken?: string; clientId?: string; secretId?: string; printed: string[] } = { printed: [] };

interface CliResult {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** One `--stack` command of the rehearsal. */
interface Step {
  title: string;
  /** The command line before `--stack <name> --region <region>`. */
  args: () => string[];
  /** Prepares the stand-ins (a state the command must meet). */
  before?: () => void | Promise<void>;
  check: (result: CliResult) => void | Promise<void>;
}

const json = (result: CliResult): Record<string, unknown> => {
  expect(result.stdout, result.stderr).not.toBe('');
  return JSON.parse(result.stdout) as Record<string, unknown>;
};

/**
 * The stack's bucket holds, under the upload keys the images function renders from, a JPEG original of every demo
 * file and an edited version of every file of a delivered demo job — nothing else (no rendition: the images
 * function makes those on S3's event).
 */
const expectDemoPictures = (): void => {
  const bucket = template.outputs[STACK_OUTPUTS.imagesBucket]!;
  const expected = demoJobs().flatMap((job) =>
    job.files.flatMap((file) =>
      (isDeliveredJob(job) ? (['original', 'edited'] as const) : (['original'] as const)).map(
        (variant) => `${job.accountId}/${job.id}/${file.id}/${variant}`,
      ),
    ),
  );
  // What is wrong with each object, gathered and asserted once: an assertion per object of thousands costs
  // seconds of the rehearsal's CPU.
  const wrong: string[] = [];
  const uploaded = [...standIns.objects.entries()].map(([path, object]) => {
    const address = path.startsWith(`${bucket}/`) ? parseUploadKey(path.slice(bucket.length + 1)) : undefined;
    if (address === undefined) {
      wrong.push(`${path}: not under an upload key of ${bucket}`);
      return path;
    }
    if (object.contentType !== 'image/jpeg') wrong.push(`${path}: put as ${object.contentType}`);
    if (sniffImageType(object.head) !== 'image/jpeg') wrong.push(`${path}: not a JPEG`);
    return `${address.accountId}/${address.jobId}/${address.fileId}/${address.variant}`;
  });
  expect(wrong).toEqual([]);
  expect(uploaded.sort()).toEqual(expected.sort());
  expect(expected.some((name) => name.endsWith('/edited'))).toBe(true);
};

/**
 * Every demo job is in the stack's table with its status and all its files. Seeded a second time over the same
 * tables, each demo job's write meets the one already there: DynamoDB Local answers such contended
 * transactions with "took too long waiting for a lock", which the operators' retry policy must wait out.
 */
const expectDemoJobsWhole = async (): Promise<void> => {
  const client = new DynamoDBClient({ endpoint: sharedDynamodbEndpoint(), region: REGION });
  const repository = new JobRepository(DynamoDBDocumentClient.from(client), TABLES.jobs);
  const missing: string[] = [];
  for (const job of demoJobs()) {
    const stored = (await repository.getJob(job.id, { consistent: true }))?.job;
    const files = stored?.files.length ?? 0;
    if (stored === undefined || stored.status !== job.status || files !== job.files.length) {
      missing.push(`${job.id}: ${stored === undefined ? 'missing' : `${stored.status}, ${files} files`}`);
    }
  }
  client.destroy();
  expect(missing).toEqual([]);
};

/** An index a rebuild left behind (started in 2020, never swapped in). */
const LEFTOVER = 'jobs-v1600000000000-0a1b2c3d';

/** The index as the stand-in holds it: the alias's indices. */
const aliasIndices = (): string[] => domain.cluster.aliasTargets('jobs');

const STEPS: Step[] = [
  {
    title: 'status on a new stack shows its one empty index, created at deploy time',
    args: () => ['status'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      expect(json(result).index).toEqual({
        name: 'jobs',
        indices: ['jobs-v0'],
        documents: 0,
        unaliased: [],
        tableJobs: 0,
        tableCounts: { items: 0, fileItems: 0, refreshed: 'about every six hours' },
        healthy: true,
      });
    },
  },
  {
    title: 'seed-demo loads the demo data, uploads its pictures and prints curl commands for the stage URL',
    args: () => ['seed-demo'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      const base = template.outputs[STACK_OUTPUTS.apiUrl]!.replace(/\/+$/, '');
      expect(result.stdout).toContain(`curl -sS -X POST '${base}/search'`);
      expect(result.stdout).toContain(`'${base}/reject'`);
      expectDemoPictures();
    },
  },
  {
    title: 'seed-demo refuses a stack that already holds jobs',
    args: () => ['seed-demo'],
    check: (result) => {
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('already holds jobs');
      expect(result.stdout).toBe('');
    },
  },
  {
    title: 'seed-demo --force loads them again beside what is there, its pictures under the same keys',
    before: () => standIns.objects.clear(),
    args: () => ['seed-demo', '--force'],
    check: async (result) => {
      expect(result.code, result.stderr).toBe(0);
      expectDemoPictures();
      await expectDemoJobsWhole();
    },
  },
  {
    title: 'create-client registers a client with a secret',
    args: () => [
      'create-client',
      '--name',
      'Rehearsal app',
      '--grants',
      'search,reject,sessions',
      '--accounts',
      '4242',
    ],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      const created = json(result);
      expect(created).toMatchObject({ secret: expect.stringMatching(/^jsk_/) });
      produced.clientToken = String(created.token);
      produced.clientId = String(created.clientId);
    },
  },
  {
    title: 'list-clients lists it with its grants, accounts and secret, never a token, a secret or a hash',
    args: () => ['list-clients'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      const clients = JSON.parse(result.stdout) as Record<string, unknown>[];
      expect(clients).toContainEqual(
        expect.objectContaining({
          clientId: produced.clientId,
          accounts: [4242],
          grants: ['search', 'reject', 'sessions'],
        }),
      );
      expect(result.stdout).not.toContain(produced.clientToken);
      expect(result.stdout).not.toMatch(/jsk_|[0-9a-f]{64}/);
    },
  },
  {
    title: 'create-session opens a session for it by its token',
    args: () => ['create-session', '--client-token', produced.clientToken ?? '', '--account', '4242'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      expect(json(result)).toMatchObject({ token: expect.any(String), expiresAt: expect.any(String) });
    },
  },
  {
    title: 'create-session --client-id opens a session for a user without the token on the command line',
    args: () => ['create-session', '--client-id', produced.clientId ?? '', '--account', '4242', '--user', 'ann'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      expect(json(result)).toMatchObject({ sessionId: expect.any(String), token: expect.any(String) });
    },
  },
  {
    title: "list-sessions lists the client's live sessions, never a token",
    args: () => ['list-sessions', '--client-id', produced.clientId ?? ''],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      const sessions = JSON.parse(result.stdout) as Record<string, unknown>[];
      expect(sessions).toHaveLength(2);
      expect(sessions).toContainEqual(expect.objectContaining({ userId: 'ann', accountId: 4242, role: 'user' }));
      expect(result.stdout).not.toMatch(/token|hash/i);
    },
  },
  {
    title: 'revoke-session ends every session of one user',
    args: () => ['revoke-session', '--client-id', produced.clientId ?? '', '--user', 'ann'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      expect(json(result)).toEqual({ revoked: 1 });
    },
  },
  {
    title: 'rotate-secret issues a new secret',
    args: () => ['rotate-secret', '--client-id', produced.clientId ?? '', '--overlap', '60'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      const rotated = json(result);
      expect(rotated).toMatchObject({ secretId: expect.any(String), secret: expect.stringMatching(/^jsk_/) });
      produced.secretId = String(rotated.secretId);
    },
  },
  {
    title: 'revoke-secret ends that secret now',
    args: () => ['revoke-secret', '--client-id', produced.clientId ?? '', '--secret-id', produced.secretId ?? ''],
    check: (result) => expect(result.code, result.stderr).toBe(0),
  },
  {
    title: 'revoke-session --all ends every session of the client',
    args: () => ['revoke-session', '--client-id', produced.clientId ?? '', '--all'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      expect(json(result)).toEqual({ revoked: 1 });
    },
  },
  {
    title: 'disable-client disables the client',
    args: () => ['disable-client', '--client-id', produced.clientId ?? ''],
    check: (result) => expect(result.code, result.stderr).toBe(0),
  },
  {
    title: 'enable-client enables it again',
    args: () => ['enable-client', '--client-id', produced.clientId ?? ''],
    check: (result) => expect(result.code, result.stderr).toBe(0),
  },
  {
    title:
      'import writes a new job, one with more files than a transaction holds, a changed demo job, and one with ' +
      "ids of the API's range (claimed from the id counter)",
    args: () => {
      const file = join(directory, 'jobs.ndjson');
      const [demo] = demoJobs();
      // A demo job renamed and without its last file: a careful rewrite that deletes the file's item.
      const changed = { ...demo!, name: `${demo!.name} (revised)`, files: demo!.files.slice(0, -1) };
      const many = makeJob({ files: Array.from({ length: 120 }, () => makeFile()) });
      const claimed = makeJob({
        id: API_ID_RANGE.first + 900_000,
        files: [makeFile({ id: API_ID_RANGE.first + 900_001 })],
      });
      const jobs = [makeJob({ files: [makeFile(), makeFile()] }), many, changed, claimed];
      writeFileSync(file, `${jobs.map((job) => JSON.stringify(job)).join('\n')}\n`);
      return ['import', file];
    },
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      expect(json(result)).toMatchObject({ imported: 4, failed: [] });
    },
  },
  {
    title: 'migrate moves the files of a job written before the padded keys and gives it its review counts',
    before: async () => {
      const documents = DynamoDBDocumentClient.from(
        new DynamoDBClient({
          endpoint: sharedDynamodbEndpoint(),
          region: REGION,
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
      );
      const job = makeJob({ files: [makeFile(), makeFile()] });
      const { fileKeys: _mark, reviewPending: _pending, ...jobItem } = toJobItem(job, 1);
      await documents.send(new PutCommand({ TableName: TABLES.jobs, Item: jobItem }));
      for (const item of toFileItems(job)) {
        await documents.send(
          new PutCommand({ TableName: TABLES.jobs, Item: { ...item, sk: jobKeys.legacyFileSk(item.fileId) } }),
        );
      }
      documents.destroy();
    },
    args: () => ['migrate'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      expect(json(result)).toEqual({ found: 1, migrated: 1, filesMoved: 2, countsWritten: 1, failed: [] });
    },
  },
  {
    title: 'status lists an index the alias does not name, with its size and the command that removes it',
    // What a rebuild interrupted before its swap (the process killed) leaves behind.
    before: () => domain.cluster.createIndex(LEFTOVER),
    args: () => ['status'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      expect(json(result).index).toMatchObject({
        indices: ['jobs-v0'],
        healthy: true,
        unaliased: [{ name: LEFTOVER, documents: 0, bytes: expect.any(Number) }],
      });
      expect(result.stderr).toContain(`${LEFTOVER} (0 documents,`);
      expect(result.stderr).toContain(`npm run cli -- reindex --stack ${template.stackName}`);
    },
  },
  {
    title: 'reindex builds a new index from the table, moves the alias onto it and deletes the older ones',
    args: () => ['reindex'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      expect(aliasIndices()).toHaveLength(1);
      expect([...domain.cluster.indices.keys()]).toEqual(aliasIndices());
    },
  },
  {
    title: 'status reports one index holding a document per job',
    args: () => ['status'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      expect(json(result)).toMatchObject({
        target: `stack ${template.stackName} (${REGION})`,
        jobsTable: TABLES.jobs,
        authTable: TABLES.auth,
        searchEngine: 'opensearch',
        domain: { name: template.domainName, processingStatus: 'Active', ready: true },
      });
      const index = json(result).index as { documents: number; tableJobs: number };
      expect(index).toMatchObject({ name: 'jobs', indices: aliasIndices(), healthy: true });
      expect(index.documents).toBe(index.tableJobs);
    },
  },
  {
    title: 'verify-index finds the index equal to the table',
    args: () => ['verify-index'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      expect(json(result)).toMatchObject({ ok: true, missing: [], stale: [], extra: [] });
    },
  },
  {
    title: 'status says plainly that an alias on two indices is broken and names the repair',
    // An alias on two indices, as a hand-made alias action (or a release before write indices) leaves it.
    before: () => domain.cluster.createIndex('jobs-v1', { jobs: {} }),
    args: () => ['status'],
    check: (result) => {
      expect(result.code).toBe(1);
      expect(json(result).index).toMatchObject({ indices: aliasIndices(), healthy: false });
      expect(result.stderr).toContain('points at 2 indices');
      expect(result.stderr).toContain(`npm run cli -- reindex --stack ${template.stackName}`);
    },
  },
  {
    title: 'verify-index reports the broken alias as a finding, not a raw engine error',
    args: () => ['verify-index'],
    check: (result) => {
      expect(result.code).toBe(1);
      expect(json(result)).toMatchObject({ ok: false, problem: expect.stringContaining('points at 2 indices') });
      expect(result.stderr).toContain('points at 2 indices');
      expect(result.stderr).not.toContain('illegal_argument_exception');
    },
  },
  {
    title: 'reindex repairs it: the alias on one new index, the old ones deleted',
    args: () => ['reindex'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      expect(aliasIndices()).toHaveLength(1);
      expect([...domain.cluster.indices.keys()]).toEqual(aliasIndices());
    },
  },
  {
    title: 'verify-index agrees after the repair',
    args: () => ['verify-index'],
    check: (result) => expect(result.code, result.stderr).toBe(0),
  },
  {
    title: 'status says plainly that an index deleted by hand leaves the alias on no index',
    before: () => {
      for (const name of [...domain.cluster.indices.keys()]) domain.cluster.indices.delete(name);
    },
    args: () => ['status'],
    check: (result) => {
      expect(result.code).toBe(1);
      expect(json(result).index).toMatchObject({ indices: [], healthy: false });
      expect(result.stderr).toContain('points at no index');
    },
  },
  {
    title: 'reindex builds a new index and puts the alias on it',
    args: () => ['reindex'],
    check: (result) => {
      expect(result.code, result.stderr).toBe(0);
      expect(aliasIndices()).toHaveLength(1);
    },
  },
  {
    title: 'verify-index agrees after the rebuild',
    args: () => ['verify-index'],
    check: (result) => expect(result.code, result.stderr).toBe(0),
  },
];

const cli = (args: string[]): Promise<CliResult> =>
  runProcess('bin/cli.ts', [...args, '--stack', template.stackName, '--region', REGION], {
    AWS_ENDPOINT_URL_CLOUDFORMATION: standInsUrl,
    AWS_ENDPOINT_URL_OPENSEARCH: standInsUrl,
    AWS_ENDPOINT_URL_DYNAMODB: standInsUrl,
    AWS_ENDPOINT_URL_STS: standInsUrl,
    AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: standInsUrl,
    AWS_ENDPOINT_URL_S3: standInsUrl,
    AWS_ACCESS_KEY_ID: 'rehearsal',
    AWS_SECRET_ACCESS_KEY: 'rehearsal',
    NODE_EXTRA_CA_CERTS: domain.certificateFile ?? '',
    // The stand-ins answer from this test's process, checking each request against the API description; on
    // a busy 2-core machine that can outlast the 3-second budget meant for the API's own answers.
    DEPENDENCY_TIMEOUT_MS: '9000',
    CI: 'true',
  });

let standInsUrl: string;

beforeAll(async () => {
  template = synthesizeForRehearsal(TABLES);
  directory = mkdtempSync(join(tmpdir(), 'operator-rehearsal-'));
  const client = new DynamoDBClient({ endpoint: sharedDynamodbEndpoint(), region: REGION });
  await ensureTable(client, JOBS_TABLE, TABLES.jobs);
  await ensureTable(client, AUTH_TABLE, TABLES.auth);
  client.destroy();

  domain = new OpenSearchStandIn({ tls: true });
  // As deployed: the first index and the alias exist before the API serves.
  domain.cluster.createIndex('jobs-v0', { jobs: { is_write_index: true } });
  domain.cluster.autoCreateIndex = autoCreateRule('jobs');
  const domainUrl = await domain.start();
  domain.onRequest = (request) => standIns.calls.push(openSearchCall(request.method, request.path, template.domainArn));
  const host = new URL(domainUrl).host;
  const tableArn = (name: string): string =>
    name === TABLES.jobs
      ? template.tableArn('jobs')
      : name === TABLES.auth
        ? template.tableArn('auth')
        : `unknown-table/${name}`;
  standIns = new AwsStandIns({
    account: ACCOUNT,
    region: REGION,
    stacks: [
      {
        name: template.stackName,
        id: template.stackId,
        status: 'CREATE_COMPLETE',
        // The domain's endpoint is the stand-in's address; every other output is the template's own.
        outputs: { ...template.outputs, [STACK_OUTPUTS.opensearchUrl]: domainUrl },
      },
    ],
    domains: new Map([
      [template.domainName, activeDomainStatus({ name: template.domainName, account: ACCOUNT, region: REGION }, host)],
    ]),
    dynamodb: { endpoint: sharedDynamodbEndpoint(), tableArn },
    callerArn: OPERATOR_CALLER,
    logGroups: [template.outputs[STACK_OUTPUTS.auditLogGroup]!],
    buckets: [template.outputs[STACK_OUTPUTS.imagesBucket]!],
  });
  standInsUrl = await standIns.start();
}, 120_000);

afterAll(async () => {
  await standIns?.stop();
  await domain?.stop();
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
});

const judge = (call: AuthorizedCall): Promise<string> =>
  judgeCall(
    {
      principal: OPERATOR,
      identityPolicies: [{ name: 'OperatorPolicy', policy: template.operatorPolicy }],
      domainAccessPolicy: template.domainAccessPolicy,
    },
    call,
  );

/**
 * How long one step may take. `seed-demo` writes 243 jobs and puts the demo's 5,646 pictures, each put judged
 * afterwards: under a load of 15 on two cores one such step outlasted two minutes. The limit ends a hang; it does
 * not measure speed.
 */
const STEP_TIMEOUT = 300_000;

describe('the operator rehearsal: each --stack command under OperatorPolicyArn', { timeout: STEP_TIMEOUT }, () => {
  const stepCalls = new Map<string, AuthorizedCall[]>();

  for (const step of STEPS) {
    it(step.title, async () => {
      await step.before?.();
      const from = standIns.calls.length;
      const result = await cli(step.args());
      produced.printed.push(result.stdout, result.stderr);
      stepCalls.set(step.title, standIns.calls.slice(from));
      await step.check(result);
    });
  }

  it('every call each command made is allowed by the operator policy', async () => {
    const refused: string[] = [];
    // Calls that must get the same verdict are judged once (judge.ts, verdictKey).
    const verdicts = new Map<string, Promise<string>>();
    const policies = [template.operatorPolicy, template.domainAccessPolicy];
    for (const [title, calls] of stepCalls) {
      expect(calls.length, `${title}: no AWS call recorded`).toBeGreaterThan(0);
      for (const call of calls) {
        const key = verdictKey(policies, call);
        if (!verdicts.has(key)) verdicts.set(key, judge(call));
        const verdict = await verdicts.get(key);
        if (verdict !== 'Allowed')
          refused.push(`${title}: ${call.action} on ${call.resource} (${call.origin}): ${verdict}`);
      }
    }
    expect(refused).toEqual([]);
  });

  it('every grant of the operator policy is used by some command', () => {
    expect(template.operatorPolicy.Statement.every((statement) => statement.Effect === 'Allow')).toBe(true);
    expect(unusedGrants([template.operatorPolicy], [...stepCalls.values()].flat())).toEqual([]);
  });

  it('the credential commands wrote one audit record each to the audit log group, naming the operator', () => {
    const group = template.outputs[STACK_OUTPUTS.auditLogGroup];
    const records = standIns.logEvents.map((event) => {
      expect(event.logGroupName).toBe(group);
      return JSON.parse(event.message) as Record<string, unknown>;
    });
    for (const record of records) expect(record).toMatchObject({ via: 'cli', who: OPERATOR_CALLER });
    const ofClient = records.filter((record) => record.clientId === produced.clientId).map((record) => record.action);
    expect(ofClient).toEqual(
      expect.arrayContaining([
        'client.created',
        'secret.issued',
        'session.opened',
        'session.revoked',
        'secret.revoked',
        'client.disabled',
        'client.enabled',
      ]),
    );
    // seed-demo's clients are audited too.
    expect(records.filter((record) => record.action === 'client.created').length).toBeGreaterThan(1);
    const audit = standIns.logEvents.map((event) => event.message).join('\n');
    const printedTokens = produced.printed.join('\n').match(/jsk_[A-Za-z0-9_-]{43}|\b[A-Za-z0-9_-]{43}\b/g) ?? [];
    expect(printedTokens.length).toBeGreaterThan(0);
    for (const credential of printedTokens) {
      expect(audit.includes(credential)).toBe(false);
      expect(audit.includes(hashToken(credential))).toBe(false);
    }
  });

  it('every request to the domain is one OpenSearch’s published API description accepts', () => {
    expect(domain.requests.length).toBeGreaterThan(0);
    expect(domain.problems).toEqual([]);
    expect(standIns.unexpected).toEqual([]);
  });
});

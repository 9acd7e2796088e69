/**
 * The typed client as another project gets it: `npm pack` of the client workspace (which builds it), the
 * tarball installed into a scratch project — its dependency resolved from a registry on the loopback holding
 * the versions this repository installs (test/support/package-registry.ts), so nothing is downloaded — a
 * backend program type-checked by the repository's TypeScript as a strict NodeNext project, then run against
 * the local stack.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../functions/jobs/model/model';
import { makeFile, makeJob } from '../support/jobs';
import { type IssuedTokens, ROOT, startTestStack, type TestStack } from '../support/local-stack';
import {
  type CommandResult,
  npm,
  runCommand,
  type PackageRegistry,
  startPackageRegistry,
  succeeded,
} from '../support/package-registry';

const CLIENT = join(ROOT, 'client');
const clientManifest = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
};

/** What the backend program is given: where the API is, whose session it calls with, and the test's job. */
interface Given {
  baseUrl: string;
  tokens: Pick<IssuedTokens, 'clientToken' | 'sessionToken'>;
  /** The application's own credentials, for opening its users' sessions. */
  backend: { clientToken: string; clientSecret: string };
  accountId: number;
  jobId: number;
  fileId: number;
  unknownFileId: number;
}

/**
 * The backend's calls, one block each. A block runs with `api` (a client of the issued session) and `given`,
 * and stores what the test checks in `results.<its name>`; a call of another endpoint is one more block here
 * and one more expectation in the last test.
 */
const CALLS: Record<string, string> = {
  fields: `
    const { data, error } = await api.GET('/search/fields');
    if (error) throw new Error(\`fields: \${error.code}\`);
    results.fields = data.fields.map((field) => field.id).includes('JobName');`,
  search: `
    const { data, error } = await api.POST('/search', { body: { field: 'JobName', query: 'tarball' } });
    if (error) throw new Error(\`search: \${error.code}\`);
    const jobs: JobSummary[] = data.jobs;
    results.search = { totalJobs: data.totalJobs, ids: jobs.map((job) => job.id) };`,
  reject: `
    const { data, error } = await api.POST('/reject', {
      body: { files: [{ fileId: given.fileId, rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 0.5 }] }] }] },
    });
    if (error) throw new Error(\`reject: \${error.code}\`);
    results.reject = { files: data.files.map((file) => [file.fileId, file.isRejected]), jobs: data.jobs };`,
  filesPage: `
    // The customer's review screen: the job's rejected files, a page at a time.
    const { data, error } = await api.GET('/jobs/{id}/files', {
      params: { path: { id: given.jobId }, query: { review: 'rejected', limit: 10 } },
    });
    if (error) throw new Error(\`filesPage: \${error.code}\`);
    const cursor: string | null = data.nextCursor;
    results.filesPage = { files: data.files.map((file) => [file.id, file.isRejected, file.reviews?.rejects.length]), cursor };`,
  rejectUnknownFile: `
    const { error, response } = await api.POST('/reject', {
      body: { files: [{ fileId: given.unknownFileId, rejects: [{ reason: 'Cropping', positions: [] }] }] },
    });
    const body: ApiErrorBody | undefined = error;
    // Narrowing on \`code\` reaches the fields of that one error body.
    if (body?.code === 'file_not_found') results.rejectUnknownFile = { status: response.status, fileId: body.fileId };`,
  createJob: `
    // A customer's portal creates a job with its files, safe to retry with the same key.
    const { data, error, response } = await api.POST('/jobs', {
      params: { header: { 'Idempotency-Key': 'portal-order-1' } },
      body: { name: 'From the package', files: [{ fileName: 'a.jpg' }, { fileName: 'b.jpg', tags: ['front'] }] },
    });
    if (error) throw new Error(\`createJob: \${error.code}\`);
    results.createJob = {
      status: response.status,
      location: response.headers.get('location') === \`/jobs/\${data.job.id}\`,
      status0: data.job.status,
      files: data.files.map((file) => file.fileName),
    };`,
  sessions: `
    // A backend signs a user in, the user's session searches, and the backend signs it out.
    const backend = createJobsApiBackendClient(given.baseUrl, given.backend);
    const opened = await backend.POST('/sessions', { body: { userId: 'ann@example.com', accountId: given.accountId } });
    if (opened.error) throw new Error(\`sessions: \${opened.error.code}\`);
    const session: { sessionId: string; token: string; expiresAt: string } = opened.data;
    const user = createJobsApiClient(given.baseUrl, { clientToken: given.backend.clientToken, sessionToken: session.token });
    const fields = await user.GET('/search/fields');
    const ended = await user.DELETE('/sessions/current');
    const replayed = await user.DELETE('/sessions/current');
    results.sessions = {
      opened: opened.response.status,
      fields: fields.response.status,
      ended: ended.data?.sessionId === session.sessionId ? ended.response.status : 'another session',
      replayed: replayed.error?.code,
    };`,
};

/** Lines the compiler must refuse: each one under `@ts-expect-error`, which itself fails when nothing is refused. */
const REFUSED = [
  `api.POST('/search', { body: { pageSize: 'ten' } });`,
  `api.GET('/no-such-path');`,
  `api.POST('/reject', { body: { files: [{ fileId: '300650' }] } });`,
  `api.POST('/jobs', { body: { files: [{ fileName: 'a.jpg' }] } });`,
  `api.GET('/jobs/{id}/files', { params: { path: { id: 1 }, query: { review: 'done' } } });`,
];

const program = (given: Given): string => `import {
  type ApiErrorBody,
  createJobsApiBackendClient,
  createJobsApiClient,
  type JobSummary,
} from '${clientManifest.name}';

const given = ${JSON.stringify(given)} as const;
const api = createJobsApiClient(given.baseUrl, given.tokens);
const results: Record<string, unknown> = {};
${Object.entries(CALLS)
  .map(([name, code]) => `\n// ${name}\n{${code}\n}`)
  .join('\n')}

export const neverCalled = (): void => {
${REFUSED.map((line) => `  // @ts-expect-error a call the API does not take\n  void ${line}`).join('\n')}
};

console.log(JSON.stringify(results));
`;

/**
 * The scratch project's compiler settings: a strict Node.js backend. Declaration files are not checked again
 * (the package's own build checks them), but one that fails to resolve leaves the calls untyped, and then the
 * `@ts-expect-error` lines of the program fail the check.
 */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    typeRoots: [join(ROOT, 'node_modules', '@types')],
    types: ['node'],
    rootDir: 'src',
    outDir: 'dist',
  },
  include: ['src'],
};

/** Runs the project's Node.js on `args` in `cwd`. */
const node = (args: string[], cwd: string): Promise<CommandResult> => runCommand(process.execPath, args, cwd);

let stack: TestStack;
let registry: PackageRegistry;
let scratch: string;
let packedFiles: string[];
let job: Job;
let compiled: CommandResult;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'client-package-'));
  const [started, startedRegistry, packed] = await Promise.all([
    startTestStack(),
    startPackageRegistry(ROOT, Object.keys(clientManifest.dependencies)),
    npm(['pack', '--workspace', 'client', '--json', '--pack-destination', scratch], ROOT),
  ]);
  stack = started;
  registry = startedRegistry;
  const [tarball] = JSON.parse(succeeded('npm pack of the client', packed).stdout) as {
    filename: string;
    files: { path: string }[];
  }[];
  if (tarball === undefined) throw new Error('npm pack packed nothing');
  packedFiles = tarball.files.map((file) => file.path).sort();

  const project = join(scratch, 'backend');
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'backend', private: true, type: 'module' }));
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  succeeded(
    'npm install of the packed client',
    await npm(
      [
        'install',
        join(scratch, tarball.filename),
        `--registry=${registry.url}`,
        `--cache=${join(scratch, 'npm-cache')}`,
        '--no-audit',
        '--no-fund',
        '--no-update-notifier',
        // Anything but the loopback registry goes to a closed port: the test fails rather than download.
        '--proxy=http://127.0.0.1:9',
        '--https-proxy=http://127.0.0.1:9',
        '--noproxy=127.0.0.1',
      ],
      project,
    ),
  );

  job = makeJob({ status: 'CJ_REVIEWING', name: 'Installed from a tarball', files: [makeFile(), makeFile()] });
  await stack.importJobs([job]);
  await stack.drained();
  const tokens = await stack.issue({ accountId: job.accountId, grants: ['search', 'reject', 'jobs', 'sessions'] });
  const given: Given = {
    baseUrl: stack.baseUrl,
    tokens: { clientToken: tokens.clientToken, sessionToken: tokens.sessionToken },
    backend: { clientToken: tokens.clientToken, clientSecret: tokens.clientSecret },
    accountId: job.accountId,
    jobId: job.id,
    fileId: job.files[0]!.id,
    unknownFileId: 1,
  };
  writeFileSync(join(project, 'src', 'main.ts'), program(given));
  compiled = await node([join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], project);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await registry?.stop();
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe('the packed client', () => {
  it('holds the built ESM code, its declarations with the generated schema types, and its manifest', () => {
    expect(packedFiles).toEqual(['README.md', 'dist/index.d.ts', 'dist/index.js', 'dist/schema.d.ts', 'package.json']);
  });

  it('installs into a project with openapi-fetch, its one dependency, at the version the repository locks', () => {
    const installed = join(scratch, 'backend', 'node_modules');
    const manifest = JSON.parse(readFileSync(join(installed, clientManifest.name, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: clientManifest.name, version: clientManifest.version, type: 'module' });
    expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch']);
    const fetchVersion = JSON.parse(readFileSync(join(installed, 'openapi-fetch', 'package.json'), 'utf8')).version;
    expect(fetchVersion).toBe(registry.packages.get('openapi-fetch')?.version);
  });

  it("type-checks a backend's calls under strict NodeNext settings, and refuses the ill-typed ones", () => {
    expect({ status: compiled.status, output: compiled.stdout + compiled.stderr }).toEqual({ status: 0, output: '' });
  });

  it('calls the local stack from the installed package: fields, search, reject, a page of files, a typed error, a create, and a sign-in and sign-out', async () => {
    const run = await node([join('dist', 'main.js')], join(scratch, 'backend'));
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      fields: true,
      search: { totalJobs: 1, ids: [job.id] },
      reject: {
        files: [[job.files[0]!.id, true]],
        jobs: [{ id: job.id, status: 'CJ_REJECT_READY' }],
      },
      filesPage: { files: [[job.files[0]!.id, true, 1]], cursor: null },
      rejectUnknownFile: { status: 404, fileId: 1 },
      createJob: { status: 201, location: true, status0: 'CJ_NEW', files: ['a.jpg', 'b.jpg'] },
      sessions: { opened: 201, fields: 200, ended: 200, replayed: 'invalid_session' },
    });
  });
});

/**
 * The documentation is executable: every shell example of README.md and docs/*.md is checked, and every
 * curl command runs for real (the machine's curl, through bash) against a local stack freshly seeded
 * with the demo data, with the demo tokens `npm start` prints (the "Demo app" client, the session of a
 * user of the first demo account) in `$API`, `$CLIENT_TOKEN` and `$SESSION_TOKEN`, the "Demo app" client's
 * secret in `$CLIENT_SECRET`, or in place of the `<ApiUrl>`, `<CLIENT_TOKEN>`, `<CLIENT_SECRET>` and
 * `<SESSION_TOKEN>` placeholders of pages about a deployed stack. A session a page opens with
 * `POST /sessions` is handed to the commands after it in `$USER_SESSION_TOKEN`, as the page's backend would
 * hand it to its app.
 *
 * - A curl command must answer 200 and what its answer type promises (a search finds at least one job,
 *   the search fields are listed, a rejection rejects), unless a JSON answer is shown after it: then the
 *   real answer must have the shown one's shape (the same fields, all the way down) and values (a value
 *   written `…` and the time of a datetime excepted), and a shown error `code` must be the real one.
 * - Every JSON block must be the answer of a curl command above it on the same page.
 * - Every TypeScript program (the typed client's examples) runs with tsx against the same stack, with
 *   `clientToken`/`sessionToken` (or `process.env.CLIENT_TOKEN`/`SESSION_TOKEN`) set to the demo tokens,
 *   and must exit 0 without writing to standard error (the examples report failures there).
 * - `npm run <script>` names a script of package.json, `npm run cli -- <command>` a CLI command,
 *   `npm run invoke -- <function>` an invokable function, and every `events/…` file exists. The sample
 *   events themselves run in test/e2e/invoke.test.ts, the local commands of the CLI in test/e2e/cli.test.ts.
 *
 * Pages run in a fixed order on one stack (README.md, then docs/ by name); the rejections of different
 * pages touch different files, so each page's promises hold in that order.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVOKABLE_FUNCTIONS } from '../../bin/invoke';
import { ROOT, startTestStack, type TestStack } from '../support/local-stack';
import {
  type Example,
  examplesOf,
  type JsonExample,
  type ShellExample,
  type TypeScriptExample,
} from './markdown-examples';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers and shown answers are arbitrary JSON
type Json = any;

const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** A curl example and the answer shown after it, if any. */
interface Request {
  command: ShellExample;
  shown: JsonExample | undefined;
}

const examples: Example[] = PAGES.flatMap((page) => examplesOf(join(ROOT, page), page));

/** Pairs every curl command with the JSON block that follows it (before the next curl), per page. */
const pair = (): { requests: Request[]; orphans: JsonExample[] } => {
  const requests: Request[] = [];
  const orphans: JsonExample[] = [];
  let last: Request | undefined;
  let page = '';
  for (const example of examples) {
    if (example.page !== page) {
      page = example.page;
      last = undefined;
    }
    if (example.kind === 'shell') {
      if (/^curl\s/.test(example.text)) {
        last = { command: example, shown: undefined };
        requests.push(last);
      }
    } else if (example.kind === 'json') {
      if (last !== undefined && last.shown === undefined) last.shown = example;
      else orphans.push(example);
    }
  }
  return { requests, orphans };
};
const { requests, orphans } = pair();
const where = (example: Example): string => `${example.page}:${example.line}`;

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The differences between a shown answer and the real one (empty when the real one keeps the promise). */
const differences = (shown: Json, real: Json, path = 'answer'): string[] => {
  if (typeof shown === 'string' && shown.includes('…')) {
    return real === undefined || real === null ? [`${path} is missing`] : [];
  }
  if (typeof shown === 'string' && ISO_UTC.test(shown)) {
    return typeof real === 'string' && ISO_UTC.test(real) ? [] : [`${path}: a UTC datetime was shown, got ${real}`];
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(real)) return [`${path}: a list was shown, got ${JSON.stringify(real)}`];
    if (real.length !== shown.length) return [`${path}: ${shown.length} elements shown, ${real.length} answered`];
    return shown.flatMap((element, index) => differences(element, real[index], `${path}[${index}]`));
  }
  if (typeof shown === 'object' && shown !== null) {
    if (typeof real !== 'object' || real === null || Array.isArray(real)) {
      return [`${path}: an object was shown, got ${JSON.stringify(real)}`];
    }
    const missing = Object.keys(real)
      .filter((key) => !(key in shown))
      .map((key) => `${path}.${key} is answered but not shown`);
    return [
      ...missing,
      ...Object.keys(shown).flatMap((key) =>
        key in real
          ? differences(shown[key], real[key], `${path}.${key}`)
          : [`${path}.${key} is shown but not answered`],
      ),
    ];
  }
  return Object.is(shown, real) ? [] : [`${path}: ${JSON.stringify(shown)} shown, ${JSON.stringify(real)} answered`];
};

let stack: TestStack;
let directory: string;
let variables: {
  API: string;
  CLIENT_TOKEN: string;
  SESSION_TOKEN: string;
  CLIENT_SECRET: string;
  USER_SESSION_TOKEN: string;
  /** The demo operator's session (staff), of the same client as `SESSION_TOKEN`. */
  OPERATOR_SESSION_TOKEN: string;
  /** The id of the job the page's `POST /jobs` created, and its version as the last change answered it. */
  JOB_ID: string;
  JOB_VERSION: string;
  /** The ids of the created job's first two files. */
  FILE_ID_1: string;
  FILE_ID_2: string;
};

beforeAll(async () => {
  stack = await startTestStack({ seedDemo: true });
  const demo = stack.stack.demo;
  if (demo === undefined) throw new Error('The stack seeded no demo credentials');
  variables = {
    API: stack.baseUrl,
    CLIENT_TOKEN: demo.sessions.user.clientToken,
    SESSION_TOKEN: demo.sessions.user.sessionToken,
    CLIENT_SECRET: demo.clients.demoApp.clientSecret,
    USER_SESSION_TOKEN: '',
    OPERATOR_SESSION_TOKEN: demo.sessions.operator.sessionToken,
    JOB_ID: '',
    JOB_VERSION: '',
    FILE_ID_1: '',
    FILE_ID_2: '',
  };
  directory = mkdtempSync(join(tmpdir(), 'docs-examples-'));
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
});

/** Runs a command without blocking this process (whose stack must keep answering); resolves when it ends. */
const runAsync = (
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, ...output });
    });
  });

/** Runs a TypeScript example with tsx, importing the client package's source, against the stack. */
const runTypeScript = async (example: TypeScriptExample, index: number) => {
  const declares = (name: string): boolean => new RegExp(`\\b(const|let)\\s+${name}\\b`).test(example.text);
  const preamble = ['clientToken', 'sessionToken']
    .filter((name) => example.text.includes(name) && !declares(name))
    .map((name) => `const ${name} = process.env.${name === 'clientToken' ? 'CLIENT_TOKEN' : 'SESSION_TOKEN'}!;`);
  const program = [
    ...preamble,
    example.text
      .replaceAll(`from '@jobs-api/client'`, `from '${join(ROOT, 'client', 'index.ts')}'`)
      .replaceAll('http://localhost:3000', variables.API),
  ].join('\n');
  const file = join(directory, `example-${index}.mts`);
  writeFileSync(file, program);
  return runAsync(process.execPath, ['--import', 'tsx', file], { ...process.env, ...variables });
};

/**
 * Runs a curl command of a page with bash and the machine's curl; answers its status and body. (Never
 * spawnSync here: the stack's server runs in this process and must keep answering meanwhile.)
 */
const runCurl = async (command: ShellExample): Promise<{ status: number; body: string }> => {
  const bodyFile = join(directory, 'body');
  rmSync(bodyFile, { force: true });
  const text = command.text
    .replaceAll('<ApiUrl>', `${variables.API}/`)
    .replaceAll('<CLIENT_TOKEN>', variables.CLIENT_TOKEN)
    .replaceAll('<CLIENT_SECRET>', variables.CLIENT_SECRET)
    .replaceAll('<SESSION_TOKEN>', variables.SESSION_TOKEN);
  const script = `curl() { command curl -o "$DOCS_BODY" -w '%{http_code}' "$@"; }\n${text}\n`;
  const result = await runAsync('bash', ['-c', script], { ...process.env, ...variables, DOCS_BODY: bodyFile });
  if (result.status !== 0) {
    throw new Error(`${where(command)}: the command failed (${result.status}): ${result.stderr}\n${command.text}`);
  }
  return { status: Number(result.stdout.trim()), body: existsSync(bodyFile) ? readFileSync(bodyFile, 'utf8') : '' };
};

/** What an answer of this type promises when no answer is shown. */
const promiseOf = (answer: Json): string[] => {
  switch (answer?._type) {
    case 'SearchResponseBody':
      return answer.totalJobs >= 1 && answer.jobs.length >= 1 ? [] : ['the search found no job'];
    case 'SearchFieldsResponseBody':
      return answer.fields.length >= 1 ? [] : ['no search field was listed'];
    case 'SessionResponseBody':
      return typeof answer.token === 'string' && typeof answer.expiresAt === 'string' ? [] : ['no session was opened'];
    case 'SessionEndedResponseBody':
      return typeof answer.sessionId === 'string' ? [] : ['no session was ended'];
    case 'JobResponseBody':
      return typeof answer.job?.id === 'number' &&
        typeof answer.job?.version === 'number' &&
        typeof answer.job?.review === 'object'
        ? []
        : ['no job was answered'];
    case 'RejectResponseBody':
      return answer.files.length >= 1 && answer.files.every((file: Json) => file.isRejected === true)
        ? []
        : ['the rejection rejected nothing'];
    case 'AcceptResponseBody':
      return answer.files.length >= 1 && answer.files.every((file: Json) => file.acceptedByUser === true)
        ? []
        : ['the acceptance accepted nothing'];
    case 'JobFilesResponseBody':
      return Array.isArray(answer.files) && answer.files.length >= 1 ? [] : ['no file was listed'];
    case 'StatusesResponseBody':
      return Array.isArray(answer.statuses) && answer.statuses.length === 12 ? [] : ['the statuses were not listed'];
    default:
      return [`an answer of an unknown type: ${JSON.stringify(answer)}`];
  }
};

describe('documentation examples', () => {
  it('finds the examples of every page', () => {
    expect(requests.length).toBeGreaterThanOrEqual(10);
    for (const page of ['README.md', 'docs/search.md', 'docs/reject.md']) {
      expect(requests.some((request) => request.command.page === page)).toBe(true);
    }
  });

  it('shows every JSON answer after the request that produces it', () => {
    expect(orphans.map(where)).toEqual([]);
  });

  it('defines the variables its curl commands use', () => {
    for (const page of new Set(requests.map((request) => request.command.page))) {
      const used = new Set(
        requests
          .filter((request) => request.command.page === page)
          .flatMap((request) =>
            [...request.command.text.matchAll(/\$(\w+)|\$\{(\w+)\}/g)].map((m) => m[1] ?? m[2] ?? ''),
          ),
      );
      if (used.size === 0) continue;
      const exports = examples
        .filter((example) => example.page === page && example.kind === 'shell' && /^export\s/.test(example.text))
        .map((example) => example.text)
        .join(' ');
      for (const name of used) {
        expect({ page, name, known: name in variables }).toEqual({ page, name, known: true });
        expect({ page, name, exported: new RegExp(`\\b${name}=`).test(exports) }).toEqual({
          page,
          name,
          exported: true,
        });
      }
    }
  });

  it('names scripts, CLI commands, functions and sample events that exist', () => {
    const scripts = Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts);
    const cliUsage = spawnSync(process.execPath, ['--import', 'tsx', 'bin/cli.ts'], { cwd: ROOT, encoding: 'utf8' });
    const cliCommands = new Set(
      [...`${cliUsage.stderr}${cliUsage.stdout}`.matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1]),
    );
    expect(cliCommands).toContain('reindex');
    const shell = examples.filter((example): example is ShellExample => example.kind === 'shell');
    for (const { text, page, line } of shell) {
      const at = `${page}:${line}`;
      for (const [, script] of text.matchAll(/npm run ([\w:-]+)/g)) {
        expect({ at, script, known: scripts.includes(script as string) }).toEqual({ at, script, known: true });
      }
      for (const [, command] of text.matchAll(/npm run cli -- ([\w-]+)/g)) {
        expect({ at, command, known: cliCommands.has(command) }).toEqual({ at, command, known: true });
      }
      for (const [, name] of text.matchAll(/npm run invoke -- ([\w-]+)/g)) {
        const known = (INVOKABLE_FUNCTIONS as readonly string[]).includes(name as string);
        expect({ at, name, known }).toEqual({ at, name, known: true });
      }
      for (const [event] of text.matchAll(/events\/[\w.-]+\.json/g)) {
        expect({ at, event, exists: existsSync(join(ROOT, event)) }).toEqual({ at, event, exists: true });
      }
    }
  });

  it('runs every curl example against the demo stack, and each answers what its page promises', async () => {
    const failures: string[] = [];
    for (const { command, shown } of requests) {
      const { status, body } = await runCurl(command);
      let answer: Json;
      try {
        answer = JSON.parse(body);
      } catch {
        failures.push(`${where(command)}: answered ${status} with a body that is not JSON: ${body.slice(0, 200)}`);
        continue;
      }
      const expected = shown === undefined ? undefined : (JSON.parse(shown.text) as Json);
      const problems: string[] = [];
      // POST /sessions answers 201 with the session, which the commands after it use; POST /jobs answers 201
      // with the job (and its files), whose id and version the commands after it use.
      const created = answer?._type === 'JobResponseBody' && Array.isArray(answer.files);
      const success = answer?._type === 'SessionResponseBody' || created ? 201 : 200;
      if (answer?._type === 'SessionResponseBody' && status === 201) variables.USER_SESSION_TOKEN = answer.token;
      if (created && status === 201) {
        variables.JOB_ID = String(answer.job.id);
        variables.FILE_ID_1 = String(answer.files[0]?.id ?? '');
        variables.FILE_ID_2 = String(answer.files[1]?.id ?? '');
      }
      // Every change of the created job answers its new version, which the next change sends as If-Match.
      if (answer?._type === 'JobResponseBody' && String(answer.job?.id) === variables.JOB_ID && status < 300) {
        variables.JOB_VERSION = String(answer.job.version);
      }
      if (expected?.code !== undefined) {
        if (status < 400 || status >= 500) problems.push(`answered ${status}, the page shows an error`);
      } else if (status !== success) problems.push(`answered ${status}: ${body.slice(0, 300)}`);
      if (problems.length === 0) {
        problems.push(...(expected === undefined ? promiseOf(answer) : differences(expected, answer)));
      }
      if (problems.length > 0) {
        failures.push(
          `${where(command)}${command.comment ? ` (${command.comment})` : ''}:\n  ${problems.join('\n  ')}`,
        );
      }
    }
    expect(failures).toEqual([]);
  });

  it('runs every TypeScript example of the typed client against the demo stack', async () => {
    const programs = examples.filter((example): example is TypeScriptExample => example.kind === 'ts');
    expect(programs.length).toBeGreaterThanOrEqual(1);
    const failures: string[] = [];
    for (const [index, example] of programs.entries()) {
      const { status, stderr } = await runTypeScript(example, index);
      if (status !== 0 || stderr.trim() !== '')
        failures.push(`${where(example)}: exit ${status}\n${stderr.slice(0, 1_000)}`);
    }
    expect(failures).toEqual([]);
  });
});

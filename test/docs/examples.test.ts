/**
 * The documentation is executable, and runs as its reader runs it.
 *
 * **README.md as pasted.** Its first screen and its API section (every shell block up to "The local stack and
 * the CLI", except the one that starts the stack) are pasted, in page order, into ONE bash process, after the
 * `export` lines `npm start` ends with (the same function prints them) — the machine's bash, curl, Node.js and
 * `npm run cli`, with no other substitution. Values an answer gives (a job's id and version, file ids, a session
 * token, a client's id) are carried by the page's own commands; this test carries nothing from one command to
 * the next. It only watches: `curl` is a shell function that records each answer's status and body in a file
 * and prints the body as `curl -s` would. The CLI finds the stack as a shell beside `npm start` finds it (the
 * tables and DynamoDB endpoint of this process's stack are in its environment; `DATA_DIR` is a scratch directory).
 *
 * **docs/*.md** (pages about one request at a time, or about a deployed stack): each curl command runs by itself
 * with bash and curl, with the same exported values, or with them in place of the `<ApiUrl>`, `<CLIENT_TOKEN>`,
 * `<CLIENT_SECRET>` and `<SESSION_TOKEN>` placeholders of pages about a deployed stack.
 *
 * On every page:
 * - A curl command must answer 200 (201 for a created job or session) and what its answer type promises (a
 *   search finds at least one job, the search fields are listed, a rejection rejects), unless a JSON answer is
 *   shown after it: then the real answer must have the shown one's shape (the same fields, all the way down) and
 *   values (a value written `…` and the time of a datetime excepted), and a shown error `code` must be the real
 *   one. So no answer of 400 or more passes that its page does not announce.
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
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { INVOKABLE_FUNCTIONS } from '../../bin/invoke';
import { demoExportsFor } from '../../local/demo/seeding';
import { ROOT, startTestStack, type TestStack } from '../support/local-stack';
import {
  type Example,
  examplesOf,
  isCurlCommand,
  type JsonExample,
  type ShellBlock,
  shellBlocksOf,
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

const README = 'README.md';
/** The heading that ends the part of the README a newcomer pastes (its first screen and its API section). */
const PASTED_UNTIL = /^## The local stack and the CLI$/m;
const readmeText = readFileSync(join(ROOT, README), 'utf8');
const pastedUntilLine = readmeText.slice(0, readmeText.search(PASTED_UNTIL)).split('\n').length;

/** The README's blocks a reader pastes, in order: every shell block before {@link PASTED_UNTIL} but the start. */
const pastedBlocks: ShellBlock[] = shellBlocksOf(join(ROOT, README), README).filter(
  (block) => block.line < pastedUntilLine && !block.commands.some((command) => /\bnpm start\b/.test(command.text)),
);
const pastedLines = new Set(pastedBlocks.flatMap((block) => block.commands.map((command) => command.line)));

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
      if (isCurlCommand(example) && example.text.includes('"$API/')) {
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
/** The README's requests, in the order the pasted blocks send them. */
const pastedRequests = requests.filter((request) => request.command.page === README);
/** The other pages' requests, each run by itself. */
const pageRequests = requests.filter((request) => request.command.page !== README);
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
/** What `npm start` printed for this stack: its `export` lines, and every message of its start. */
let exportLines: string[];
const startMessages: string[] = [];
/** The values the export lines set, for the pages whose commands run one at a time. */
let exported: Record<string, string>;

/** The names the README's pasted blocks may use that this test's shell itself defines: none but its recorder. */
const RECORDER_VARIABLES = ['DOCS_ANSWERS'];

beforeAll(async () => {
  // The README's webhook receiver runs on this machine: the stack starts as the README says, with
  // ALLOW_LOCAL_WEBHOOKS=1.
  vi.stubEnv('ALLOW_LOCAL_WEBHOOKS', '1');
  stack = await startTestStack({ seedDemo: true, log: (message) => startMessages.push(message) });
  const demo = stack.stack.demo;
  if (demo === undefined) throw new Error('The stack seeded no demo credentials');
  exportLines = demoExportsFor(demo, stack.baseUrl);
  exported = Object.fromEntries(
    exportLines
      .map((line) => /^export (\w+)=(\S*)/.exec(line))
      .flatMap((match) => (match ? [[match[1], match[2]]] : [])),
  );
  directory = mkdtempSync(join(tmpdir(), 'docs-examples-'));
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  vi.unstubAllEnvs();
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
});

/** This process's environment without any value the pages use: the shells get only what the page gives them. */
const shellEnvironment = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  for (const name of Object.keys(exported)) delete env[name];
  return env;
};

/** Runs a command without blocking this process (whose stack must keep answering); resolves when it ends. */
const runAsync = (
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<{ status: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
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
      .replaceAll('http://localhost:3000', exported.API as string),
  ].join('\n');
  const file = join(directory, `example-${index}.mts`);
  writeFileSync(file, program);
  return runAsync(process.execPath, ['--import', 'tsx', file], { ...shellEnvironment(), ...exported });
};

/** A page's placeholders for a deployed stack, filled with the local stack's values. */
const placeholders = (text: string): string =>
  text
    .replaceAll('<ApiUrl>', `${exported.API}/`)
    .replaceAll('<CLIENT_TOKEN>', exported.CLIENT_TOKEN as string)
    .replaceAll('<CLIENT_SECRET>', exported.CLIENT_SECRET as string)
    .replaceAll('<SESSION_TOKEN>', exported.SESSION_TOKEN as string);

/**
 * Runs a curl command of a page by itself with bash and the machine's curl; answers its status and body.
 * (Never spawnSync here: the stack's server runs in this process and must keep answering meanwhile.)
 */
const runCurl = async (command: ShellExample): Promise<Answer> => {
  const bodyFile = join(directory, 'body');
  rmSync(bodyFile, { force: true });
  const script = `${exportLines.join('\n')}\ncurl() { command curl -o "$DOCS_BODY" -w '%{http_code}' "$@"; }\n${placeholders(command.text)}\n`;
  const result = await runAsync('bash', ['-c', script], { ...shellEnvironment(), DOCS_BODY: bodyFile });
  if (result.status !== 0) {
    throw new Error(`${where(command)}: the command failed (${result.status}): ${result.stderr}\n${command.text}`);
  }
  return { status: Number(result.stdout.trim()), body: existsSync(bodyFile) ? readFileSync(bodyFile, 'utf8') : '' };
};

interface Answer {
  status: number;
  body: string;
}

/**
 * Records every answer of the pasted session: `curl` as a function that runs the machine's curl with the
 * page's own arguments, keeps status and body in `$DOCS_ANSWERS/<n>.status` and `<n>.body`, and prints the
 * body, as `curl -s` does. (A counter file, not a shell variable: `X=$(curl …)` runs it in a subshell.) A request
 * to anything but the API — a picture sent to or fetched from the bucket through a presigned URL — runs as written:
 * its answer is bytes, not one of the API's, and the job it feeds (an offer needs ready pictures) shows it worked.
 */
const RECORDER = `curl() {
  local n code arg
  for arg in "$@"; do
    if [[ $arg == "$API"/* ]]; then
      n=$(( $(cat "$DOCS_ANSWERS/count") + 1 ))
      echo "$n" > "$DOCS_ANSWERS/count"
      command curl -o "$DOCS_ANSWERS/$n.body" -w '%{http_code}' "$@" > "$DOCS_ANSWERS/$n.status"
      code=$?
      if [ -f "$DOCS_ANSWERS/$n.body" ]; then cat "$DOCS_ANSWERS/$n.body"; fi
      return $code
    fi
  done
  command curl "$@"
}`;

/** What shows that a pasted command went wrong before any request (a typo, a failed CLI command, bad JSON). */
const SHELL_FAILURE = /command not found|syntax error|unexpected EOF|SyntaxError|TypeError|npm error|npm ERR!/;

/** Pastes the README's blocks into one bash after the export lines; answers every request's answer, in order. */
const pasteReadme = async (): Promise<{ answers: Answer[]; stderr: string; status: number | null }> => {
  const answers = mkdtempSync(join(directory, 'readme-'));
  writeFileSync(join(answers, 'count'), '0');
  const script = join(directory, 'readme.sh');
  writeFileSync(script, [RECORDER, ...exportLines, ...pastedBlocks.map((block) => block.text)].join('\n') + '\n');
  const env = { ...shellEnvironment(), DOCS_ANSWERS: answers, DATA_DIR: join(directory, 'cli-data') };
  const result = await runAsync('bash', [script], env, 240_000);
  const count = Number(readFileSync(join(answers, 'count'), 'utf8').trim());
  const read = (name: string): string =>
    existsSync(join(answers, name)) ? readFileSync(join(answers, name), 'utf8') : '';
  return {
    answers: Array.from({ length: count }, (_, index) => ({
      status: Number(read(`${index + 1}.status`).trim()),
      body: read(`${index + 1}.body`),
    })),
    stderr: result.stderr,
    status: result.status,
  };
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
    case 'UploadTargetResponseBody':
      return typeof answer.url === 'string' && typeof answer.upload?.expiresAt === 'string'
        ? []
        : ['no upload target was answered'];
    case 'StatusesResponseBody':
      return Array.isArray(answer.statuses) && answer.statuses.length === 12 ? [] : ['the statuses were not listed'];
    default:
      return [`an answer of an unknown type: ${JSON.stringify(answer)}`];
  }
};

/** What is wrong with the answer a page's request got (nothing when it keeps the page's promise). */
const problemsOf = ({ command, shown }: Request, { status, body }: Answer): string[] => {
  let answer: Json;
  try {
    answer = JSON.parse(body);
  } catch {
    return [`${where(command)}: answered ${status} with a body that is not JSON: ${body.slice(0, 200)}`];
  }
  const expected = shown === undefined ? undefined : (JSON.parse(shown.text) as Json);
  const problems: string[] = [];
  // POST /sessions answers 201 with the session, POST /webhooks with the webhook; POST /jobs answers 201 with the
  // job and its files.
  const created = answer?._type === 'JobResponseBody' && Array.isArray(answer.files);
  const success =
    answer?._type === 'SessionResponseBody' || answer?._type === 'WebhookCreatedResponseBody' || created ? 201 : 200;
  if (expected?.code !== undefined) {
    if (status < 400 || status >= 500) problems.push(`answered ${status}, the page shows an error`);
  } else if (status !== success) problems.push(`answered ${status}: ${body.slice(0, 300)}`);
  if (problems.length === 0) {
    problems.push(...(expected === undefined ? promiseOf(answer) : differences(expected, answer)));
  }
  return problems.length === 0
    ? []
    : [`${where(command)}${command.comment ? ` (${command.comment})` : ''}:\n  ${problems.join('\n  ')}`];
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

  it('defines every variable its commands use: README.md by its export lines or its own commands, before the use', () => {
    const known = new Set([...Object.keys(exported), ...RECORDER_VARIABLES]);
    const undefinedUses: string[] = [];
    for (const block of pastedBlocks) {
      for (const command of block.commands) {
        const uses = [...command.text.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1] as string);
        // Assignments of this command count for the commands after it (bash expands a line before it assigns).
        for (const name of uses) if (!known.has(name)) undefinedUses.push(`${where(command)}: $${name}`);
        for (const [, name] of command.text.matchAll(/(?:^|[\s;])([A-Z_][A-Z0-9_]*)=/g)) known.add(name as string);
      }
    }
    for (const { command } of pageRequests) {
      for (const [, name] of command.text.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)) {
        if (!(name! in exported)) undefinedUses.push(`${where(command)}: $${name}`);
      }
    }
    expect(undefinedUses).toEqual([]);
  });

  it("pastes the README's first screen and API section, and no block of them holds a value to fill in by hand", () => {
    expect(pastedBlocks.length).toBeGreaterThanOrEqual(5);
    expect(pastedRequests.every((request) => pastedLines.has(request.command.line))).toBe(true);
    const placeholdersLeft = pastedBlocks.flatMap((block) =>
      block.commands.filter((command) => /<[A-Za-z_ "]+>|…/.test(command.text)).map(where),
    );
    expect(placeholdersLeft).toEqual([]);
  });

  it('starts as npm start does with nothing but messages on its console, and its export lines set each value once', () => {
    expect(startMessages.length).toBeGreaterThan(0);
    expect(startMessages.filter((message) => /^\s*[{[]/.test(message))).toEqual([]);
    expect(exportLines.map((line) => line.split('=')[0])).toEqual([
      'export API',
      'export CLIENT_TOKEN',
      'export SESSION_TOKEN',
      'export OPERATOR_SESSION_TOKEN',
      'export CLIENT_SECRET',
      'export REVIEW_FILE_ID',
    ]);
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
      for (const [, script] of text.matchAll(/npm run (?:--silent )?([\w:-]+)/g)) {
        expect({ at, script, known: scripts.includes(script as string) }).toEqual({ at, script, known: true });
      }
      for (const [, command] of text.matchAll(/npm run (?:--silent )?cli -- ([\w-]+)/g)) {
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

  it("reaches CJ_FINISHED with the README's blocks pasted in order into one bash, each answer as the page says", async () => {
    const { answers, stderr } = await pasteReadme();
    expect(stderr.split('\n').filter((line) => SHELL_FAILURE.test(line))).toEqual([]);
    expect(answers.length).toBe(pastedRequests.length);
    const failures = pastedRequests.flatMap((request, index) => problemsOf(request, answers[index] as Answer));
    expect(failures).toEqual([]);
    const finished = pastedRequests.findIndex((request) => request.shown?.text.includes('CJ_FINISHED'));
    expect(finished).toBeGreaterThan(0);
    const answer = JSON.parse((answers[finished] as Answer).body) as Json;
    expect(answer.jobs?.map((job: Json) => job.status)).toEqual(['CJ_FINISHED']);
  }, 300_000);

  it('runs every curl example of docs/ against the demo stack, and each answers what its page promises', async () => {
    expect(pageRequests.length).toBeGreaterThanOrEqual(5);
    const failures: string[] = [];
    for (const request of pageRequests) failures.push(...problemsOf(request, await runCurl(request.command)));
    expect(failures).toEqual([]);
  }, 120_000);

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

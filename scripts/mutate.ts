/**
 * `npm run mutate -- <source file> <test file>... [--lines <from>-<to>] [-t <test name pattern>]`: a small
 * mutation run, on demand (never part of `npm test`). Each mutant is one textual operator change at one place
 * of the source file (`!== undefined` to a truthiness test, `===` to `!==`, `<` to `<=`, `&&` to `||`, …);
 * for each, the source is rewritten, the given test files run with vitest, and the source restored. A mutant
 * is killed when the tests fail, and survives when they pass. The tests must pass on the unchanged source
 * first. Prints every mutant's fate, then the score; survivors are the places no test holds.
 *
 * Lines that are comments are not mutated. The source is restored after every mutant, and on Ctrl-C.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** One kind of change: every match of `pattern` on a line is one mutant, replaced by `replace`. */
interface Operator {
  name: string;
  pattern: RegExp;
  replace: (match: RegExpExecArray) => string;
}

/** The operand left of a comparison with `undefined`: a member chain such as `query.accountId` or `a?.b`. */
const OPERAND = String.raw`([A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)*)`;

export const OPERATORS: readonly Operator[] = [
  {
    name: 'defined check → truthiness',
    pattern: new RegExp(`${OPERAND} !== undefined`, 'g'),
    replace: (match) => `${match[1]}`,
  },
  {
    name: 'undefined check → falsiness',
    pattern: new RegExp(`${OPERAND} === undefined`, 'g'),
    replace: (match) => `!${match[1]}`,
  },
  { name: '=== → !==', pattern: / === /g, replace: () => ' !== ' },
  { name: '!== → ===', pattern: / !== /g, replace: () => ' === ' },
  { name: '< → <=', pattern: / < /g, replace: () => ' <= ' },
  { name: '<= → <', pattern: / <= /g, replace: () => ' < ' },
  { name: '> → >=', pattern: / > /g, replace: () => ' >= ' },
  { name: '>= → >', pattern: / >= /g, replace: () => ' > ' },
  { name: '&& → ||', pattern: / && /g, replace: () => ' || ' },
  { name: '|| → &&', pattern: / \|\| /g, replace: () => ' && ' },
  { name: 'some → every', pattern: /\.some\(/g, replace: () => '.every(' },
  { name: 'every → some', pattern: /\.every\(/g, replace: () => '.some(' },
];

/** A mutant: where, what, and the whole mutated source. */
export interface Mutant {
  line: number;
  operator: string;
  before: string;
  after: string;
  source: string;
}

const isComment = (line: string): boolean => /^\s*(\/\/|\/\*|\*)/.test(line);

/** Every mutant of `source` on the lines `from`–`to` (1-based, inclusive). */
export const mutantsOf = (source: string, from = 1, to = Number.POSITIVE_INFINITY): Mutant[] => {
  const lines = source.split('\n');
  const mutants: Mutant[] = [];
  lines.forEach((text, index) => {
    const line = index + 1;
    if (line < from || line > to || isComment(text)) return;
    for (const operator of OPERATORS) {
      for (const match of text.matchAll(operator.pattern)) {
        const start = match.index;
        const mutated =
          text.slice(0, start) + operator.replace(match as RegExpExecArray) + text.slice(start + match[0].length);
        if (mutated === text) continue;
        const changed = [...lines];
        changed[index] = mutated;
        mutants.push({
          line,
          operator: operator.name,
          before: text.trim(),
          after: mutated.trim(),
          source: changed.join('\n'),
        });
      }
    }
  });
  return mutants;
};

/** Runs the tests; true when they pass. */
const testsPass = (tests: readonly string[], extra: readonly string[]): boolean =>
  spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...tests, '--bail=1', ...extra],
    { cwd: ROOT, stdio: 'ignore' },
  ).status === 0;

const usage = (): never => {
  console.error('Usage: npm run mutate -- <source file> <test file>... [--lines <from>-<to>] [-t <test name pattern>]');
  process.exit(2);
};

const main = (argv: string[]): void => {
  const positional: string[] = [];
  const vitestArgs: string[] = [];
  let from = 1;
  let to = Number.POSITIVE_INFINITY;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === '--lines') {
      const range = /^(\d+)-(\d+)$/.exec(argv[++index] ?? '') ?? usage();
      [from, to] = [Number(range[1]), Number(range[2])];
    } else if (arg === '-t') vitestArgs.push('-t', argv[++index] ?? usage());
    else positional.push(arg);
  }
  const [sourceArg, ...tests] = positional;
  if (sourceArg === undefined || tests.length === 0) usage();
  const sourcePath = resolve(ROOT, sourceArg as string);
  const name = relative(ROOT, sourcePath);
  const original = readFileSync(sourcePath, 'utf8');
  const restore = (): void => writeFileSync(sourcePath, original);
  process.on('SIGINT', () => {
    restore();
    process.exit(130);
  });

  if (!testsPass(tests, vitestArgs)) {
    console.error(`The tests fail on the unchanged ${name}: fix them before measuring them.`);
    process.exit(1);
  }
  const mutants = mutantsOf(original, from, to);
  console.log(`${name}: ${mutants.length} mutants, tests: ${tests.join(' ')}`);
  const survivors: Mutant[] = [];
  for (const mutant of mutants) {
    writeFileSync(sourcePath, mutant.source);
    let killed: boolean;
    try {
      killed = !testsPass(tests, vitestArgs);
    } finally {
      restore();
    }
    if (!killed) survivors.push(mutant);
    console.log(`${killed ? 'killed  ' : 'SURVIVED'} ${name}:${mutant.line} ${mutant.operator}: ${mutant.after}`);
  }
  console.log(
    `\n${mutants.length} mutants, ${mutants.length - survivors.length} killed, ${survivors.length} survived` +
      (survivors.length === 0
        ? ''
        : `:\n${survivors.map((m) => `  ${name}:${m.line} ${m.operator}: ${m.after}`).join('\n')}`),
  );
  if (survivors.length > 0) process.exitCode = 1;
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2));
}

/**
 * The unit tier stands on its own: `npm run test:unit` (the vitest `unit` project) passes on a machine
 * without Java, so it cannot have started DynamoDB Local. The run gets a PATH holding every program of
 * this machine's PATH except `java`, and the test first checks that `java` really cannot be found there.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/local-stack';

const directory = mkdtempSync(join(tmpdir(), 'unit-tier-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A directory of links to every executable on PATH but `java` (the first one of each name wins). */
const pathWithoutJava = (): string => {
  const bin = join(directory, 'bin');
  const linked = new Set<string>(['java']);
  mkdirSync(bin);
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      if (linked.has(name)) continue;
      try {
        accessSync(join(folder, name), constants.X_OK);
      } catch {
        continue;
      }
      symlinkSync(join(folder, name), join(bin, name));
      linked.add(name);
    }
  }
  return bin;
};

const run = (command: string, args: string[], env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });

describe('unit tier', () => {
  it('passes with no Java on PATH, so it starts no DynamoDB Local', { timeout: 300_000 }, async () => {
    const env = { ...process.env, PATH: pathWithoutJava(), JAVA_HOME: '', NO_COLOR: '1', FORCE_COLOR: '0' };
    expect(spawnSync('java', ['-version'], { env }).error).toMatchObject({ code: 'ENOENT' });

    const { code, output } = await run(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--project', 'unit'],
      env,
    );

    expect({ code, tail: code === 0 ? '' : output.slice(-4_000) }).toEqual({ code: 0, tail: '' });
    // The unit project ran (and nothing else did): its files are reported, none of another project.
    expect(output).toMatch(/Test Files\s+\d+ passed/);
    expect(output).toContain('|unit| test/unit/');
    expect(output).not.toContain('|integration|');
  });
});

/**
 * `npm run cli` refuses a mistaken command line before it acts: exit code 2, the usage on standard error,
 * nothing on standard output. These run `runCli` (what bin/cli.ts runs) in this process, with both streams
 * captured; test/e2e/cli.test.ts runs the program itself for the exit code a shell sees.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../../local/operations/cli/run';

/** Runs the CLI on `argv` and returns its exit code and what it wrote to each stream. */
const run = async (argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
  const written = { stdout: '', stderr: '' };
  const capture = (stream: 'stdout' | 'stderr') =>
    vi.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
      written[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      return true;
    });
  capture('stdout');
  capture('stderr');
  const code = await runCli(argv);
  vi.restoreAllMocks();
  return { code, ...written };
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('npm run cli: usage errors', () => {
  it.each([
    [['create-client', '--grants', 'search', '--all-accounts']],
    [['create-client', '--name', 'x', '--grants', 'search']],
    [['create-client', '--name', 'x', '--grants', 'search', '--accounts', '7', '--all-accounts']],
    [['create-client', '--name', 'x', '--grants', 'search', '--accounts', '7,x']],
    [['create-client', '--name', 'x', '--grants', 'search', '--accounts', '7', '--session-roles', 'operator']],
    [['create-client', '--name', 'x', '--grants', 'search,delete', '--all-accounts']],
    [['create-client', '--name', 'x', '--grants', 'search', '--all-accounts', '--bogus']],
    [['revoke-session', '--client-id', 'c', '--user', 'u', '--all']],
    [['create-session', '--client-token', 't', '--account', 'seven']],
    [['create-session', '--client-token', 't', '--account', '7', '--role', 'admin']],
    [['create-session', '--account', '7']],
    [['create-session', '--client-id', 'c', '--client-token', 't', '--account', '7']],
    [['revoke-session', '--client-id', 'c', '--session-id', 's', '--user', 'u']],
    [['rotate-secret']],
    [['import']],
  ])('exits 2 with the usage on %j', async (args) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: npm run cli');
    expect(result.stdout).toBe('');
  });

  it('prints the usage on standard output for --help and exits 0', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: npm run cli');
    expect(result.stderr).toBe('');
  });
});

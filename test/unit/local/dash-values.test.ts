import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { attachDashValues } from '../../../local/operations/cli/dash-values';

const options = { 'client-token': { type: 'string' }, account: { type: 'string' } } as const;
const parse = (argv: string[]) =>
  parseArgs({ args: attachDashValues(argv, ['--client-token']), options, allowPositionals: true, strict: true });

describe('attachDashValues', () => {
  it('lets a token that begins with a dash be the value of its option', () => {
    expect(() => parseArgs({ args: ['--client-token', '-Ab_9'], options, strict: true })).toThrow(/ambiguous/);
    expect(parse(['create-session', '--client-token', '-Ab_9', '--account', '7']).values).toEqual({
      'client-token': '-Ab_9',
      account: '7',
    });
    expect(parse(['--client-token', '--x']).values['client-token']).toBe('--x');
  });

  it('leaves other arguments, values without a dash and everything after -- as they are', () => {
    expect(attachDashValues(['--client-token', 'abc', '--account', '-7'], ['--client-token'])).toEqual([
      '--client-token',
      'abc',
      '--account',
      '-7',
    ]);
    expect(attachDashValues(['--', '--client-token', '-x'], ['--client-token'])).toEqual([
      '--',
      '--client-token',
      '-x',
    ]);
    expect(attachDashValues(['--client-token', '--'], ['--client-token'])).toEqual(['--client-token', '--']);
    expect(attachDashValues(['--client-token'], ['--client-token'])).toEqual(['--client-token']);
  });
});

/**
 * `npm ci` on the machine's older system Node is quiet: npm warns once per devDependency whose engines want a
 * newer Node (EBADENGINE, about 500 lines) although the project runs on the Node 24 it pins, so the project's
 * .npmrc keeps npm to errors — never silent, which would hide them too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const settings = (): Map<string, string> =>
  new Map(
    readFileSync(join(import.meta.dirname, '..', '..', '.npmrc'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith(';'))
      .map((line) => [line.slice(0, line.indexOf('=')).trim(), line.slice(line.indexOf('=') + 1).trim()]),
  );

describe("the project's npm settings", () => {
  it('print errors and no warnings, so an install on an older system Node is not 500 lines of EBADENGINE', () => {
    expect(settings().get('loglevel')).toBe('error');
  });

  it('leave engine checks advisory: the pinned Node 24 runs the project whatever the system Node is', () => {
    expect(settings().get('engine-strict') ?? 'false').toBe('false');
  });
});

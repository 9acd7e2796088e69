/**
 * The mutation runner's mutants (scripts/mutate.ts): one textual operator change at one place each, never in
 * a comment, so its score counts what it says it counts.
 */
import { describe, expect, it } from 'vitest';
import { mutantsOf } from '../../scripts/mutate';

describe('the mutation runner', () => {
  it('makes one mutant per operator occurrence, each changing only its own place', () => {
    const source = 'if (a.b !== undefined && c < d) run();\nconst e = f === g;';
    expect(mutantsOf(source).map(({ line, after }) => [line, after])).toEqual([
      [1, 'if (a.b && c < d) run();'],
      [1, 'if (a.b === undefined && c < d) run();'],
      [1, 'if (a.b !== undefined && c <= d) run();'],
      [1, 'if (a.b !== undefined || c < d) run();'],
      [2, 'const e = f !== g;'],
    ]);
    for (const mutant of mutantsOf(source)) {
      expect(mutant.source.split('\n').filter((line, index) => line !== source.split('\n')[index])).toHaveLength(1);
    }
  });

  it('leaves comment lines alone and keeps to the lines asked for', () => {
    const source = '// a === b\n * c < d\nx === y;\nz === w;';
    expect(mutantsOf(source).map(({ line }) => line)).toEqual([3, 4]);
    expect(mutantsOf(source, 4, 4).map(({ line }) => line)).toEqual([4]);
  });
});

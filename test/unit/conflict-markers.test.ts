/**
 * No merge leaves its conflict markers behind: every file git tracks (as it is in the working tree) is
 * searched with `git grep` for the lines a conflicted merge writes — `<<<<<<< ours`, `||||||| base`,
 * `>>>>>>> theirs`, and a `=======` line in a file that holds one of those.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** A marker opens a line and is followed by a space (and a label) or ends it. */
const marker = (char: string): string => `^${char.repeat(7)}( |$)`;
const OPENING_OR_CLOSING = [marker('<'), marker('>'), marker('\\|')];
const SEPARATOR = '^={7}$';

/** The `path:line: text` of every conflict marker in the tracked files of the repository at `root`. */
const conflictMarkers = (root: string): string[] => {
  const grep = (patterns: string[], files: string[] = []): string[] => {
    const result = spawnSync(
      'git',
      ['grep', '-n', '-I', '-E', ...patterns.flatMap((pattern) => ['-e', pattern]), '--', ...files],
      { cwd: root, encoding: 'utf8' },
    );
    // git grep exits 1 when nothing matches, and 128 (or fails to start) when it cannot search.
    if (result.status === 1) return [];
    if (result.status !== 0) throw new Error(`git grep failed in ${root}: ${result.stderr || String(result.error)}`);
    return result.stdout.split('\n').filter((line) => line !== '');
  };
  const found = grep(OPENING_OR_CLOSING);
  const files = [...new Set(found.map((line) => line.slice(0, line.indexOf(':'))))];
  return files.length === 0 ? [] : [...found, ...grep([SEPARATOR], files)].sort();
};

describe('conflict markers', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'conflict-markers-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('are in no tracked file of the repository', () => {
    expect(conflictMarkers(ROOT)).toEqual([]);
  });

  it('are found in a tracked file that holds them, each named by file and line, and not in an untracked one', () => {
    const git = (...args: string[]) => spawnSync('git', args, { cwd: scratch, encoding: 'utf8' });
    git('init', '-q');
    const conflicted = ['# Guide', '<<<<<<< HEAD', 'ours', '=======', 'theirs', '>>>>>>> main', ''].join('\n');
    writeFileSync(join(scratch, 'guide.md'), conflicted);
    // A setext heading's underline alone is no conflict.
    writeFileSync(join(scratch, 'heading.md'), 'Title\n=======\n');
    git('add', 'guide.md', 'heading.md');
    writeFileSync(join(scratch, 'untracked.md'), conflicted);
    expect(conflictMarkers(scratch)).toEqual([
      'guide.md:2:<<<<<<< HEAD',
      'guide.md:4:=======',
      'guide.md:6:>>>>>>> main',
    ]);
  });
});

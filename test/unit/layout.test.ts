/**
 * The layout README.md's map promises, checked on the source: `functions/` (what runs in Lambda) imports
 * neither `lib/` nor `local/`, and `lib/` nothing of `local/`; the folders of `functions/` and of `local/` depend
 * on each other without a cycle, so each can be read from the ones below it; and no file under them grows past
 * 400 lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const FUNCTIONS = join(ROOT, 'functions');
const LOCAL = join(ROOT, 'local');
const LIB = join(ROOT, 'lib');

const sourceFiles = (directory: string): string[] =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

/** The relative modules a file imports or re-exports, resolved to paths. */
const importsOf = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)].map(([, target]) =>
    resolve(dirname(file), target as string),
  );

/** The folder of `root` a path belongs to (`.` for the files directly in it). */
const folderOf = (root: string, path: string): string => {
  const parts = relative(root, path).split(sep);
  return parts.length > 1 ? (parts[0] as string) : '.';
};

/** The folders of `root` that reach themselves through the imports of its files. */
const folderCycles = (root: string): string[] => {
  const edges = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    for (const target of importsOf(file)) {
      if (!target.startsWith(root + sep)) continue;
      const [from, to] = [folderOf(root, file), folderOf(root, target)];
      if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
    [...(edges.get(from) ?? [])].some(
      (next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))),
    );
  return [...edges.keys()].filter((folder) => reaches(folder, folder));
};

/** The files under `root` longer than 400 lines. */
const longFiles = (root: string): { file: string; lines: number }[] =>
  sourceFiles(root)
    .map((file) => ({ file: relative(ROOT, file), lines: readFileSync(file, 'utf8').trimEnd().split('\n').length }))
    .filter(({ lines }) => lines > 400);

describe('the layout of functions/', () => {
  const files = sourceFiles(FUNCTIONS);

  it('imports nothing from lib/ or local/', () => {
    const outside = files.flatMap((file) =>
      importsOf(file)
        .filter((target) => !target.startsWith(FUNCTIONS + sep))
        .map((target) => `${relative(ROOT, file)} → ${relative(ROOT, target)}`),
    );
    expect(outside).toEqual([]);
  });

  it('has no cycle among its folders', () => {
    expect(folderCycles(FUNCTIONS)).toEqual([]);
  });

  it('keeps every file within 400 lines', () => {
    expect(longFiles(FUNCTIONS)).toEqual([]);
  });
});

describe('the layout of local/', () => {
  it('has no cycle among its folders (one folder per AWS part it stands in for)', () => {
    expect(folderCycles(LOCAL)).toEqual([]);
  });

  it('keeps every file within 400 lines', () => {
    expect(longFiles(LOCAL)).toEqual([]);
  });
});

describe('the layout of lib/', () => {
  it('imports nothing from local/', () => {
    const local = sourceFiles(LIB).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith(LOCAL + sep))
        .map((target) => `${relative(ROOT, file)} → ${relative(ROOT, target)}`),
    );
    expect(local).toEqual([]);
  });
});

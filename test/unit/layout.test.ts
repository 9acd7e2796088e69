/**
 * The layout README.md's map promises, checked on the source: `functions/` (what runs in Lambda) imports
 * neither `lib/` nor `local/`; its folders depend on each other without a cycle, so each can be read from
 * the ones below it; and no file under it grows past 400 lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const FUNCTIONS = join(ROOT, 'functions');

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

/** The folder of `functions/` a path belongs to (`.` for the files directly in it). */
const folderOf = (path: string): string => {
  const parts = relative(FUNCTIONS, path).split(sep);
  return parts.length > 1 ? (parts[0] as string) : '.';
};

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
    const edges = new Map<string, Set<string>>();
    for (const file of files) {
      for (const target of importsOf(file)) {
        const [from, to] = [folderOf(file), folderOf(target)];
        if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...(edges.get(from) ?? [])].some(
        (next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))),
      );
    const cycles = [...edges.keys()].filter((folder) => reaches(folder, folder));
    expect(cycles).toEqual([]);
  });

  it('keeps every file within 400 lines', () => {
    const long = files
      .map((file) => ({ file: relative(ROOT, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 400);
    expect(long).toEqual([]);
  });
});

/**
 * The copy of DynamoDB Local's jar that Java runs (local/dynamodb/class-data.ts): the same entries with the same
 * content, the launcher class added, and a manifest without the class path that names DynamoDB Local's own
 * directory (which keeps the JVM from archiving its classes). test/integration/dynamodb-local-class-data.test.ts
 * runs DynamoDB Local from it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dynamoDbLocalJar } from '../../../local/dynamodb/dynamodb-local';
import {
  classPathOf,
  contentsOf,
  entryNames,
  manifestOf,
  readEntry,
  rewriteJar,
  withoutClassPath,
} from '../../../local/dynamodb/jar';
import { LAUNCHER_CLASS, launcherClassBytes } from '../../../local/dynamodb/launcher';

const source = readFileSync(dynamoDbLocalJar().jar);

/** A manifest's attributes, one line each (continuation lines joined). */
const unfolded = (manifest: string): string[] =>
  manifest
    .replace(/\r?\n /g, '')
    .split(/\r?\n/)
    .filter((line) => line !== '');

describe("DynamoDB Local's jar, as Java runs it", () => {
  const copy = rewriteJar(source, withoutClassPath, [{ name: `${LAUNCHER_CLASS}.class`, bytes: launcherClassBytes() }]);

  it('holds every entry of the original with the same content, and the launcher class after them', () => {
    const names = entryNames(source);
    expect(names.length).toBeGreaterThan(1_000);
    expect(entryNames(copy)).toEqual([...names, `${LAUNCHER_CLASS}.class`]);
    const original = contentsOf(source);
    const copied = contentsOf(copy);
    for (const name of names.filter((entry) => entry !== 'META-INF/MANIFEST.MF')) {
      expect(copied.get(name)?.equals(original.get(name)!), name).toBe(true);
    }
    expect(readEntry(copy, `${LAUNCHER_CLASS}.class`).equals(launcherClassBytes())).toBe(true);
  });

  it("drops the manifest's class path, DynamoDB Local's directory and libraries, and keeps the rest", () => {
    const original = manifestOf(source);
    expect(classPathOf(original).slice(0, 2)).toEqual(['.', 'log4j2.xml']);
    expect(classPathOf(original).filter((entry) => entry.startsWith('DynamoDBLocal_lib/')).length).toBeGreaterThan(50);
    const rewritten = manifestOf(copy);
    expect(rewritten).not.toMatch(/Class-Path|DynamoDBLocal_lib/);
    expect(classPathOf(rewritten)).toEqual([]);
    expect(rewritten).toMatch(/^Main-Class: software\.amazon\.dynamodb\.services\.local\.main\.ServerRunner\r?$/m);
    expect(unfolded(rewritten)).toEqual(unfolded(original).filter((line) => !line.startsWith('Class-Path:')));
  });

  it('refuses to add an entry the jar already holds', () => {
    expect(() =>
      rewriteJar(source, (manifest) => manifest, [{ name: 'META-INF/MANIFEST.MF', bytes: Buffer.from('') }]),
    ).toThrow('The jar already holds META-INF/MANIFEST.MF');
  });

  it('reads a class path folded over continuation lines', () => {
    const manifest =
      'Manifest-Version: 1.0\r\nClass-Path: . lib/a.jar lib/b\r\n .jar lib/c.jar\r\nMain-Class: Main\r\n\r\n';
    expect(classPathOf(manifest)).toEqual(['.', 'lib/a.jar', 'lib/b.jar', 'lib/c.jar']);
    expect(withoutClassPath(manifest)).toBe('Manifest-Version: 1.0\r\nMain-Class: Main\r\n\r\n');
  });
});

/**
 * Install-script approvals name exact versions: npm runs a dependency's install scripts only when
 * `allowScripts` in package.json approves it, and an approval by name alone would carry over to any
 * future version of the package, reviewed or not. Every approval must be `name@version` for the very
 * version package-lock.json installs, and every locked package with install scripts must be decided
 * (approved at its version, or denied). Approve a new or updated package with `npm approve-scripts <name>`,
 * which writes the pinned entry. npm honours a pin only for a package whose lockfile entry carries its
 * registry URL (`resolved`), so the project's .npmrc keeps those URLs in package-lock.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const readJson = <T>(file: string): T => JSON.parse(readFileSync(join(root, file), 'utf8')) as T;

const manifest = readJson<{ allowScripts?: Record<string, boolean> }>('package.json');
const lock = readJson<{
  packages: Record<string, { version?: string; resolved?: string; hasInstallScript?: boolean }>;
}>('package-lock.json');

/** The installed versions of each package name in the lockfile. */
const lockedVersions = new Map<string, Set<string>>();
/** The locked packages whose install scripts npm would run. */
const withInstallScripts = new Map<string, Set<string>>();
for (const [path, entry] of Object.entries(lock.packages)) {
  const name = path.split('node_modules/').at(-1);
  if (path === '' || name === undefined || entry.version === undefined) continue;
  lockedVersions.set(name, (lockedVersions.get(name) ?? new Set()).add(entry.version));
  if (entry.hasInstallScript === true) {
    withInstallScripts.set(name, (withInstallScripts.get(name) ?? new Set()).add(entry.version));
  }
}

/** An entry's package name and version: `esbuild@0.28.2`, `@scope/pkg@1.0.0`, or a bare name. */
const parse = (entry: string): { name: string; version: string | undefined } => {
  const at = entry.indexOf('@', 1);
  return at === -1 ? { name: entry, version: undefined } : { name: entry.slice(0, at), version: entry.slice(at + 1) };
};

const entries = Object.entries(manifest.allowScripts ?? {}).map(([entry, allowed]) => ({ ...parse(entry), allowed }));

describe('install-script approvals', () => {
  it('approve each package at one exact version, never by name alone or by range', () => {
    for (const { name, version } of entries.filter((entry) => entry.allowed)) {
      expect(version, `allowScripts approves ${name} for any version`).toMatch(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/);
    }
  });

  it('approve exactly the versions package-lock.json installs', () => {
    for (const { name, version } of entries.filter((entry) => entry.allowed)) {
      expect([...(lockedVersions.get(name) ?? [])], `${name}@${version} is not what the lockfile installs`).toContain(
        version,
      );
    }
  });

  it('find a registry URL in the lockfile for every approved package, without which npm cannot honour a pin', () => {
    for (const { name, version } of entries.filter((entry) => entry.allowed)) {
      const locked = Object.entries(lock.packages).filter(
        ([path, entry]) => path.split('node_modules/').at(-1) === name && entry.version === version,
      );
      expect(locked.length, `${name}@${version}`).toBeGreaterThan(0);
      for (const [, entry] of locked) {
        expect(entry.resolved, `${name}@${version}`).toBe(
          `https://registry.npmjs.org/${name}/-/${name.split('/').at(-1)}-${version}.tgz`,
        );
      }
    }
  });

  it('decide every locked package that has install scripts: approved at its version, or denied', () => {
    expect(withInstallScripts.size).toBeGreaterThan(0);
    for (const [name, versions] of withInstallScripts) {
      for (const version of versions) {
        const decided = entries.some(
          (entry) => entry.name === name && (entry.allowed ? entry.version === version : entry.version === undefined),
        );
        expect(decided, `${name}@${version} runs install scripts nobody approved or denied`).toBe(true);
      }
    }
  });
});

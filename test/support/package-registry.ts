/**
 * npm, offline, for the test that installs the packed client: {@link npm} runs the npm CLI with none of the
 * `npm_config_*` settings of the `npm run` that started the tests (one of them, the local prefix, would send a
 * scratch project's install into this repository), and {@link startPackageRegistry} is a package registry on
 * the loopback that holds exactly the versions installed in this repository's node_modules, each packed from
 * its installed copy. A scratch project installs a tarball against it as a backend installs it against the
 * public registry — npm resolves the tarball's declared dependencies there, so a missing dependency or a range
 * the locked version does not satisfy fails the install — and nothing is downloaded.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a command printed, and how it ended. */
export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without what `npm run` hands its children about itself and its configuration. */
const cleanEnvironment = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_(config|package|lifecycle)_/i.test(name)));

/**
 * Runs a command in `cwd` without blocking this process (a stack or registry served from it must keep
 * answering), and collects what it prints.
 */
export const runCommand = (
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CommandResult> =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
    child.on('error', (error) => resolve({ status: null, stdout: output.stdout, stderr: String(error) }));
    child.on('close', (status) => resolve({ status, ...output }));
  });

/** Runs `npm …` in `cwd`, with the environment cleaned of the calling `npm run`'s settings. */
export const npm = (args: string[], cwd: string): Promise<CommandResult> =>
  runCommand('npm', args, cwd, cleanEnvironment());

/** Fails with everything the command printed unless it succeeded. */
export const succeeded = (what: string, result: CommandResult): CommandResult => {
  if (result.status !== 0) {
    throw new Error(`${what} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return result;
};

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}

interface Packed {
  manifest: Manifest;
  filename: string;
  integrity: string;
}

export interface PackageRegistry {
  /** The registry's URL, for `npm install --registry`. */
  url: string;
  /** The packages it holds, by name. */
  packages: ReadonlyMap<string, Manifest>;
  stop(): Promise<void>;
}

/**
 * Starts a registry holding `names` and everything they depend on, at the versions installed in
 * `root`/node_modules. Stop it when done.
 */
export const startPackageRegistry = async (root: string, names: readonly string[]): Promise<PackageRegistry> => {
  const directory = mkdtempSync(join(tmpdir(), 'package-registry-'));
  const manifests = new Map<string, Manifest>();
  const pending = [...names];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (manifests.has(name)) continue;
    const manifest = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as Manifest;
    manifests.set(name, manifest);
    pending.push(...Object.keys(manifest.dependencies ?? {}));
  }
  const folders = [...manifests.keys()].map((name) => join(root, 'node_modules', name));
  const result = succeeded(
    'npm pack of the installed dependencies',
    await npm(['pack', ...folders, '--json', '--ignore-scripts', '--pack-destination', directory], directory),
  );
  const packed = new Map<string, Packed>();
  for (const { name, filename, integrity } of JSON.parse(result.stdout) as Packed[] & Manifest[]) {
    packed.set(name, { manifest: manifests.get(name) as Manifest, filename, integrity });
  }

  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://registry').pathname.slice(1));
    const tarball = [...packed.values()].find(({ filename }) => path === `-/${filename}`);
    if (tarball !== undefined) {
      response.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      response.end(readFileSync(join(directory, tarball.filename)));
      return;
    }
    const entry = packed.get(path);
    if (entry === undefined) {
      response.writeHead(404, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ error: 'Not found' }));
      return;
    }
    const { name, version, dependencies } = entry.manifest;
    const tarballUrl = `http://${request.headers.host}/-/${entry.filename}`;
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(
      JSON.stringify({
        name,
        'dist-tags': { latest: version },
        versions: {
          [version]: { name, version, dependencies, dist: { tarball: tarballUrl, integrity: entry.integrity } },
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    packages: manifests,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(directory, { recursive: true, force: true });
    },
  };
};

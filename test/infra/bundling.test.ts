/**
 * Synthesizes the app as `cdk synth` does — real esbuild bundling of every handler, cdk-nag as a
 * validation plugin — once, into a cloud assembly inside the repository, and checks what SAM and Lambda read:
 * each bundle carries the locked AWS SDK and loads from a folder with no node_modules, as in Lambda.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJobsApi } from '../../lib/app';
import { ESM_BANNER, externalModulesFor, PROJECT_ROOT } from '../../lib/handler-function';
import { ALARM_SUBSCRIBER, TEMPLATE_ONLY } from './template-only';

const FUNCTION_IDS = [
  'SearchFunction',
  'SearchFieldsFunction',
  'RejectFunction',
  'IndexerFunction',
  'EventsFunction',
  'SearchIndexSetupFunction',
  'TableProtectionFunction',
] as const;

/** The function whose asset carries a native module beside its bundle. */
const IMAGES_ID = 'ImagesFunction';

/** ELF's machine numbers (the `e_machine` half-word at offset 18). */
const ELF_MACHINES: Record<number, string> = { 0x3e: 'x86-64', 0xb7: 'AArch64' };

/** The machine a Linux shared object is built for, from its ELF header. */
const machineOf = (path: string): string => {
  const header = readFileSync(path).subarray(0, 20);
  if (header.subarray(0, 4).toString('latin1') !== '\x7fELF') return 'not ELF';
  return ELF_MACHINES[header.readUInt16LE(18)] ?? `machine ${header.readUInt16LE(18)}`;
};

const versionOf = (packageDir: string): string =>
  (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;

/** The largest bundle a function may have. */
const MAX_BUNDLE_BYTES = 1024 * 1024;

const outdir = join(PROJECT_ROOT, 'cdk.out', `test-${randomUUID().slice(0, 8)}`);
let template: { Resources: Record<string, { Type: string; Metadata?: Record<string, unknown> }> };

const assetDirOf = (id: string): string => {
  const metadata = template.Resources[id]?.Metadata ?? {};
  return join(outdir, metadata['aws:asset:path'] as string);
};

beforeAll(() => {
  // The context `cdk synth` gives the app: cdk.json's and an alarm subscriber (as `-c alarmEmail=…` would), plus
  // the asset metadata SAM needs, which the CDK CLI
  // turns on by default (`--asset-metadata`).
  const { context } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: object };
  const app = new App({
    outdir,
    context: { ...context, ...ALARM_SUBSCRIBER, 'aws:cdk:enable-asset-metadata': true },
  });
  // Control Tower's rules run on the same template in test/infra/control-tower.test.ts (each run of the
  // cfn-guard binary over the app costs about 6.5 s of CPU); this synthesis proves the bundling.
  const stack = buildJobsApi(app, TEMPLATE_ONLY);
  const assembly = app.synth();
  template = assembly.getStackArtifact(stack.artifactId).template;
  // Ten bundles, and 20 MB of sharp copied into the images asset and hashed, on a busy machine.
}, 180_000);

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
});

describe('cdk synth', () => {
  it('passes the cdk-nag validation and writes a template with every function', () => {
    expect(existsSync(join(outdir, 'manifest.json'))).toBe(true);
    for (const id of FUNCTION_IDS) expect(template.Resources[id]?.Type).toBe('AWS::Lambda::Function');
  });

  it('keeps the asset metadata SAM reads to find each function’s code', () => {
    for (const id of FUNCTION_IDS) {
      expect(template.Resources[id]?.Metadata).toMatchObject({
        'aws:asset:path': expect.stringMatching(/^asset\./),
        'aws:asset:property': 'Code',
      });
    }
  });

  it('bundles every handler into one minified ESM file under 1 MB with a source map', () => {
    for (const id of FUNCTION_IDS) {
      const dir = assetDirOf(id);
      const bundle = join(dir, 'index.mjs');
      expect(statSync(bundle).size).toBeLessThanOrEqual(MAX_BUNDLE_BYTES);
      expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
      const code = readFileSync(bundle, 'utf8');
      expect(code.startsWith("import { createRequire as __jobsApiCreateRequire } from 'node:module';")).toBe(true);
      expect(code).toContain('//# sourceMappingURL=index.mjs.map');
      // Minified: far fewer lines than a readable bundle of this size would have.
      expect(code.split('\n').length).toBeLessThan(code.length / 500);
    }
  });

  it('leaves the embedded SQLite engine out of every bundle: deployed functions search OpenSearch', () => {
    for (const id of FUNCTION_IDS) {
      const code = readFileSync(join(assetDirOf(id), 'index.mjs'), 'utf8');
      expect({ id, sqlite: code.includes('node:sqlite') || code.includes('fts5') }).toEqual({ id, sqlite: false });
    }
    // The search bundle still carries the OpenSearch engine.
    expect(readFileSync(join(assetDirOf('SearchFunction'), 'index.mjs'), 'utf8')).toContain('require_alias');
  });

  it('bundles the locked AWS SDK: no bundle imports @aws-sdk from the runtime', () => {
    for (const id of FUNCTION_IDS) {
      const code = readFileSync(join(assetDirOf(id), 'index.mjs'), 'utf8');
      expect({ id, imports: /(from\s*|import\(\s*)"@aws-sdk\//.test(code) }).toEqual({
        id,
        imports: false,
      });
    }
    expect(readFileSync(join(assetDirOf('RejectFunction'), 'index.mjs'), 'utf8')).toContain('TransactWriteItems');
  });

  it('produces bundles that load on Node.js and export the handler, from a folder with no node_modules', () => {
    // A separate Node.js process loads the bundles as Lambda does, without the test runner's transforms, from
    // copies outside the repository: nothing resolves from the project's node_modules.
    const outside = mkdtempSync(join(tmpdir(), 'jobs-api-bundles-'));
    const urls = FUNCTION_IDS.map((id) => {
      const bundle = join(outside, `${id}.mjs`);
      copyFileSync(join(assetDirOf(id), 'index.mjs'), bundle);
      return pathToFileURL(bundle).href;
    });
    const script = `for (const url of ${JSON.stringify(urls)}) console.log(typeof (await import(url)).handler);`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: {
        ...process.env,
        JOBS_TABLE: 'jobs',
        AUTH_TABLE: 'auth',
        SEARCH_ENGINE: 'opensearch',
        OPENSEARCH_URL: 'https://search.example.com',
      },
    });
    rmSync(outside, { recursive: true, force: true });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n')).toEqual(FUNCTION_IDS.map(() => 'function'));
  });

  it('leaves sharp out of the images bundle, which imports it from the asset’s own node_modules', () => {
    const dir = assetDirOf(IMAGES_ID);
    const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
    expect(statSync(join(dir, 'index.mjs')).size).toBeLessThanOrEqual(MAX_BUNDLE_BYTES);
    expect(code).toMatch(/from\s*"sharp"/);
    // sharp's own loader, which names the platform packages, stays in node_modules.
    expect(code).not.toContain('@img/sharp-');
    expect(versionOf(join(dir, 'node_modules', 'sharp'))).toBe(versionOf(join(PROJECT_ROOT, 'node_modules', 'sharp')));
  });

  it('ships sharp and libvips built for Lambda’s Linux on arm64 in the images asset, and no other platform’s', () => {
    const img = join(assetDirOf(IMAGES_ID), 'node_modules', '@img');
    expect(readdirSync(img).sort()).toEqual(['colour', 'sharp-libvips-linux-arm64', 'sharp-linux-arm64']);
    const addons = readdirSync(join(img, 'sharp-linux-arm64', 'lib')).filter((name) => name.endsWith('.node'));
    expect(addons).toHaveLength(1);
    expect(machineOf(join(img, 'sharp-linux-arm64', 'lib', addons[0]!))).toBe('AArch64');
    const libvips = readdirSync(join(img, 'sharp-libvips-linux-arm64', 'lib')).filter((name) =>
      name.startsWith('libvips-cpp.so'),
    );
    expect(libvips).toHaveLength(1);
    expect(machineOf(join(img, 'sharp-libvips-linux-arm64', 'lib', libvips[0]!))).toBe('AArch64');
    expect(versionOf(join(img, 'sharp-linux-arm64'))).toBe(
      versionOf(join(assetDirOf(IMAGES_ID), 'node_modules', 'sharp')),
    );
  });

  it('loads the images bundle with the sharp of its asset, from a folder outside the repository', () => {
    // This machine cannot run the arm64 binaries: the copy gets this machine's platform packages beside them, which
    // sharp picks for the platform it runs on, as Lambda's picks the arm64 ones.
    const outside = mkdtempSync(join(tmpdir(), 'jobs-api-images-'));
    cpSync(assetDirOf(IMAGES_ID), outside, { recursive: true });
    const platform = `${process.platform}-${process.arch}`;
    for (const name of [`sharp-${platform}`, `sharp-libvips-${platform}`]) {
      cpSync(join(PROJECT_ROOT, 'node_modules', '@img', name), join(outside, 'node_modules', '@img', name), {
        recursive: true,
      });
    }
    const url = pathToFileURL(join(outside, 'index.mjs')).href;
    const script =
      `const sharp = (await import(${JSON.stringify(pathToFileURL(join(outside, 'node_modules', 'sharp', 'dist', 'index.mjs')).href)})).default;` +
      `console.log(typeof (await import(${JSON.stringify(url)})).handler, Object.keys(sharp.versions).includes('vips'));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: {
        ...process.env,
        JOBS_TABLE: 'jobs',
        AUTH_TABLE: 'auth',
        IMAGES_BUCKET: 'pictures',
        SEARCH_ENGINE: 'opensearch',
        OPENSEARCH_URL: 'https://search.example.com',
      },
    });
    rmSync(outside, { recursive: true, force: true });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('function true');
  });

  it('leaves the tracer out of every bundle when detailed tracing is off (the default)', () => {
    for (const id of FUNCTION_IDS) {
      const code = readFileSync(join(assetDirOf(id), 'index.mjs'), 'utf8');
      expect(code).not.toContain('AWS_XRAY_CONTEXT_MISSING');
    }
    const api = readFileSync(join(assetDirOf('SearchFunction'), 'index.mjs'), 'utf8');
    expect(api).toMatch(/import\(\s*"@aws-lambda-powertools\/tracer"\s*\)/);
  });

  it('bundles the tracer when detailed tracing is on', async () => {
    const result = await build({
      entryPoints: [join(PROJECT_ROOT, 'functions', 'handlers', 'search-fields.ts')],
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      mainFields: ['module', 'main'],
      banner: { js: ESM_BANNER },
      external: externalModulesFor(true),
      logLevel: 'error',
    });
    const code = result.outputFiles[0]?.text ?? '';
    expect(code).toContain('AWS_XRAY_CONTEXT_MISSING');
    expect(code).not.toMatch(/import\(\s*"@aws-lambda-powertools\/tracer"\s*\)/);
  });
});

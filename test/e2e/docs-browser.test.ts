/**
 * The reference page of the local server, in a real browser: headless Chromium (Debian's, driven by
 * playwright-core) opens GET /docs, and the page renders every operation of the route table from GET /openapi.json
 * with nothing loaded from outside the server.
 *
 * Needs Chromium (`apt-get install chromium`; `.ci/run` installs it). In CI (`CI=true`) a missing
 * Chromium fails the test; elsewhere the test is skipped with a message.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/http/routes';
import { startTestStack, type TestStack } from '../support/local-stack';

/** Chromium's executable: `CHROMIUM_PATH`, else `chromium` (or `chromium-browser`) on PATH. */
const findChromium = (): string | undefined => {
  const configured = process.env.CHROMIUM_PATH?.trim();
  if (configured) return existsSync(configured) ? configured : undefined;
  for (const name of ['chromium', 'chromium-browser']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
    if (found) return found;
  }
  return undefined;
};

const executablePath = findChromium();
const inCi = process.env.CI === 'true';

if (executablePath === undefined && !inCi) {
  console.warn(
    'docs-browser.test.ts skipped: Chromium is not installed (apt-get install -y chromium, or set CHROMIUM_PATH). ' +
      'In CI (CI=true) it is required and this test fails instead.',
  );
}

/** Flags for a quiet, offline, throw-away headless Chromium. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe.skipIf(executablePath === undefined && !inCi)('the reference page at GET /docs', () => {
  let stack: TestStack;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    if (executablePath === undefined) {
      throw new Error('Chromium is required in CI: .ci/run installs it with apt-get install -y chromium.');
    }
    stack = await startTestStack();
    profile = mkdtempSync(join(tmpdir(), 'jobs-api-chromium-'));
    // An empty profile directory (Chromium's --user-data-dir), removed afterwards.
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: CHROMIUM_ARGS,
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await stack?.stop();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  });

  it('is served by the local server (docsRoute wired into local/gateway/server.ts)', async () => {
    const description = await fetch(`${stack.baseUrl}/openapi.json`);
    expect(
      description.status,
      'GET /openapi.json: local/gateway/server.ts must ask docsRoute (local/gateway/docs.ts) first',
    ).toBe(200);
    expect(((await description.json()) as { openapi: string }).openapi).toBe('3.1.0');
  });

  /**
   * The page as a browser loads it, with every request it made and every error it raised: loaded once (Swagger
   * UI's script costs Chromium about two CPU-seconds a load) and read by both checks below.
   */
  let loaded:
    Promise<{ page: Page; status: number | undefined; requested: string[]; pageErrors: string[] }> | undefined;
  const docsPage = () =>
    (loaded ??= (async () => {
      const page = await context.newPage();
      const requested: string[] = [];
      page.on('request', (request) => {
        requested.push(request.url());
      });
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => {
        pageErrors.push(error.message);
      });
      const response = await page.goto(`${stack.baseUrl}/docs`);
      return { page, status: response?.status(), requested, pageErrors };
    })());

  it('renders every operation the API serves, loading everything from the local server', async () => {
    const { page, status, requested, pageErrors } = await docsPage();
    expect(status).toBe(200);
    await page
      .locator('.opblock')
      .nth(ROUTES.length - 1)
      .waitFor({ state: 'visible', timeout: 30_000 });

    const operations = await page.locator('.opblock-summary').evaluateAll((nodes) =>
      nodes.map((node) => {
        const method = node.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
        const path = node.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method} ${path}`;
      }),
    );
    expect(operations.toSorted()).toEqual(ROUTES.map((route) => `${route.method} ${route.path}`).toSorted());
    expect(operations).toContain('GET /jobs/{id}/files');
    await expect(page.locator('.info .title').textContent()).resolves.toContain('Jobs API');
    expect(requested).toContain(`${stack.baseUrl}/openapi.json`);
    expect(requested.filter((url) => !url.startsWith(`${stack.baseUrl}/`) && !url.startsWith('data:'))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('offers both tokens under Authorize', async () => {
    const { page } = await docsPage();
    await page.locator('button.authorize').click();
    const dialog = page.locator('.auth-container');
    await dialog.first().waitFor({ state: 'visible' });
    const text = (await dialog.allTextContents()).join(' ');
    expect(text).toContain('X-Client-Token');
    expect(text).toContain('X-Session-Token');
  });
});

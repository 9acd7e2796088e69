/**
 * `docsRoute`, the documentation part of the local server: the description as JSON, the reference
 * page and its assets from node_modules, and nothing else.
 */
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docsRoute, loadOpenApiDocument } from '../../local/gateway/docs';

let server: Server;

/** A GET with the path sent exactly as written (fetch would resolve `..` first). */
const rawGet = (path: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const { port } = server.address() as AddressInfo;
    get({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (!docsRoute(req, res)) {
      res.writeHead(418, { 'Content-Type': 'text/plain' });
      res.end('not a docs path');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
});

describe('docsRoute', () => {
  it('serves openapi.yaml as JSON at GET /openapi.json', async () => {
    const response = await fetch(`${baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const served = (await response.json()) as Record<string, unknown>;
    const { servers: _servers, ...rest } = loadOpenApiDocument();
    expect(served).toMatchObject(rest);
  });

  it('points the first server of the served description at the server it came from', async () => {
    const served = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(served.servers[0]?.url).toBe(baseUrl);
    expect(served.servers[1]?.url).toContain('execute-api');
  });

  it('serves a reference page at GET /docs that loads its scripts from this server', async () => {
    const response = await fetch(`${baseUrl}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(sources.length).toBeGreaterThanOrEqual(3);
    for (const source of sources) {
      expect(source.startsWith('/docs/assets/'), source).toBe(true);
      const asset = await fetch(`${baseUrl}${source}`);
      expect(asset.status, source).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, source).toBeGreaterThan(0);
    }
  });

  it('serves the Swagger UI bundle from node_modules with a JavaScript media type', async () => {
    const response = await fetch(`${baseUrl}/docs/assets/swagger-ui-bundle.js`);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await response.text()).toContain('SwaggerUIBundle');
  });

  it('answers HEAD without a body', async () => {
    const response = await fetch(`${baseUrl}/openapi.json`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('answers 405 with Allow for another method on a docs path', async () => {
    const response = await fetch(`${baseUrl}/docs`, { method: 'POST', body: '' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(await response.json()).toMatchObject({ code: 'method_not_allowed' });
  });

  it('answers 404 for an asset that does not exist, and never serves files outside its list', async () => {
    for (const path of ['/docs/assets/nope.js', '/docs/assets/../../package.json', '/docs/assets/index.html']) {
      const { status, body } = await rawGet(path);
      expect(status, path).toBe(404);
      expect(JSON.parse(body), path).toMatchObject({ code: 'not_found' });
    }
  });

  it('leaves every other path to the API', async () => {
    for (const path of ['/search', '/documentation', '/openapi.yaml', '/']) {
      expect((await fetch(`${baseUrl}${path}`)).status, path).toBe(418);
    }
  });
});

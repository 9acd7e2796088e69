/**
 * The API description on the local server: `GET /openapi.json` (the repository's `openapi.yaml` as
 * JSON) and `GET /docs` (a rendered reference page, with its assets under `/docs/assets/`).
 *
 * The local server asks {@link docsRoute} first; it answers the documentation paths and returns
 * `false` for every other path, which then goes to the API.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { ERROR_CATALOGUE } from '../../functions/http/errors';
import {
  DOCS_ASSETS_PREFIX,
  docsPage,
  INIT_SCRIPT_NAME,
  initScript,
  OPENAPI_JSON_PATH,
  SWAGGER_UI_FILES,
} from './docs-page';

/** Where `openapi.yaml` lives: the repository root. */
export const OPENAPI_YAML_PATH = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

/** A parsed OpenAPI document (JSON-compatible). */
export type OpenApiDocument = Record<string, unknown> & { openapi: string; paths: Record<string, unknown> };

/** `openapi.yaml` could not be read or is not an OpenAPI document. */
export class OpenApiDocumentError extends Error {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OpenApiDocumentError';
  }
}

/** Reads and parses an OpenAPI YAML file (default: the repository's `openapi.yaml`). */
export const loadOpenApiDocument = (path: string = OPENAPI_YAML_PATH): OpenApiDocument => {
  let parsed: unknown;
  try {
    parsed = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new OpenApiDocumentError(`Cannot read the OpenAPI description ${path}`, { cause: error });
  }
  const document = parsed as Partial<OpenApiDocument> | null;
  if (typeof document?.openapi !== 'string' || typeof document.paths !== 'object' || document.paths === null) {
    throw new OpenApiDocumentError(`${path} is not an OpenAPI document (no "openapi" version or "paths")`);
  }
  return document as OpenApiDocument;
};

const DOCS_PATHS = new Set([OPENAPI_JSON_PATH, '/docs', '/docs/']);
const ALLOWED_METHODS = 'GET, HEAD';

interface Asset {
  body: Buffer;
  contentType: string;
}

const swaggerUiDir = (): string =>
  dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/swagger-ui-bundle.js'));

let assets: Map<string, Asset> | undefined;

/** The page's assets, read from `swagger-ui-dist` once. */
const docsAssets = (): Map<string, Asset> => {
  if (assets === undefined) {
    const dir = swaggerUiDir();
    assets = new Map<string, Asset>(
      Object.entries(SWAGGER_UI_FILES).map(([name, contentType]) => [
        name,
        { body: readFileSync(join(dir, name)), contentType },
      ]),
    );
    assets.set(INIT_SCRIPT_NAME, {
      body: Buffer.from(initScript()),
      contentType: 'text/javascript; charset=utf-8',
    });
  }
  return assets;
};

/**
 * The description as served: the YAML file as JSON, with its first server pointing at the host the
 * request came to, so "Try it out" on the page calls this very server whatever its port.
 */
export const servedDocument = (host: string | undefined, document: OpenApiDocument = loadOpenApiDocument()): string => {
  const servers = Array.isArray(document.servers) ? [...(document.servers as Record<string, unknown>[])] : [];
  if (host !== undefined && /^[A-Za-z0-9.[\]:-]+$/.test(host) && servers.length > 0) {
    servers[0] = { ...servers[0], url: `http://${host}` };
  }
  return JSON.stringify({ ...document, servers });
};

const send = (
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: Buffer | string,
  type: string,
  extra: Record<string, string> = {},
): void => {
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': String(payload.length),
    'Cache-Control': 'no-store',
    'X-Request-Id': randomUUID(),
    ...extra,
  });
  res.end(req.method === 'HEAD' ? undefined : payload);
};

const sendError = (
  req: IncomingMessage,
  res: ServerResponse,
  status: 404 | 405,
  extra: Record<string, string> = {},
): void => {
  const requestId = randomUUID();
  const code = status === 404 ? 'not_found' : 'method_not_allowed';
  const body = { code, message: ERROR_CATALOGUE[code].message, requestId };
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Request-Id': requestId,
    ...extra,
  });
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
};

const pathOf = (req: IncomingMessage): string => {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
};

/** Whether a path belongs to the documentation (the description, the page or its assets). */
export const isDocsPath = (path: string): boolean => DOCS_PATHS.has(path) || path.startsWith(DOCS_ASSETS_PREFIX);

/**
 * Answers `GET`/`HEAD /openapi.json`, `/docs` and `/docs/assets/*`; any other method on those paths
 * gets `405` with `Allow: GET, HEAD`. Returns `false`, having written nothing, for every other path.
 */
export const docsRoute = (req: IncomingMessage, res: ServerResponse): boolean => {
  const path = pathOf(req);
  if (!isDocsPath(path)) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendError(req, res, 405, { Allow: ALLOWED_METHODS });
    return true;
  }
  if (path === OPENAPI_JSON_PATH) {
    send(req, res, 200, servedDocument(req.headers.host), 'application/json; charset=utf-8');
  } else if (path === '/docs' || path === '/docs/') {
    send(req, res, 200, docsPage(), 'text/html; charset=utf-8');
  } else {
    const asset = docsAssets().get(path.slice(DOCS_ASSETS_PREFIX.length));
    if (asset === undefined) sendError(req, res, 404);
    else send(req, res, 200, asset.body, asset.contentType);
  }
  return true;
};

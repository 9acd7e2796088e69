/**
 * Checks real HTTP answers against `openapi.yaml`, so the description can never drift from the
 * service: the status must be documented for the operation, every required header present and valid,
 * the media type one the response declares, and the body valid against its schema.
 *
 * Schemas are checked by Ajv's JSON Schema 2020-12 validator (the dialect of OpenAPI 3.1) with
 * `ajv-formats`; this module only finds the response object a request and status lead to.
 *
 * @example
 * ```ts
 * const response = await fetch(`${baseUrl}/search`, { method: 'POST', headers, body: '{}' });
 * const body = await response.json();
 * assertMatchesOpenApi({ method: 'POST', path: '/search' }, { status: response.status, headers: response.headers, body });
 * ```
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { isDocsPath, loadOpenApiDocument, type OpenApiDocument } from '../../local/gateway/docs';

/** The request an answer was given to. `path` may carry a query string; it is ignored. */
export interface ObservedRequest {
  method: string;
  path: string;
}

/** A header collection: fetch's `Headers`, or Node's `IncomingHttpHeaders`-like record. */
export type ObservedHeaders = Headers | Record<string, string | string[] | number | undefined>;

/**
 * An answer as the client received it. `body` is the parsed JSON, or the raw text (parsed here; an
 * empty text means no body).
 */
export interface ObservedResponse {
  status: number;
  headers: ObservedHeaders;
  body: unknown;
}

/** An answer does not match the description; `problems` lists every difference found. */
export class OpenApiMismatchError extends Error {
  public readonly problems: readonly string[];

  public constructor(context: string, problems: readonly string[], response: ObservedResponse) {
    const body = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
    super(
      `${context} does not match openapi.yaml:\n${problems.map((problem) => `  - ${problem}`).join('\n')}\n` +
        `  status: ${response.status}\n  body: ${body === undefined ? '(none)' : truncate(body, 2000)}`,
    );
    this.name = 'OpenApiMismatchError';
    this.problems = problems;
  }
}

const truncate = (text: string, length: number): string =>
  text.length <= length ? text : `${text.slice(0, length)}… (${text.length} characters)`;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Escapes one JSON pointer segment (RFC 6901). */
const pointerSegment = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1');

const unescapeSegment = (segment: string): string => segment.replaceAll('~1', '/').replaceAll('~0', '~');

const DOCUMENT_ID = 'https://jobs-api.local/openapi.json';

/** A node of the document together with the JSON pointer of where it really is (after `$ref`s). */
interface Located {
  pointer: string;
  node: Json;
}

const lowerCaseHeaders = (headers: ObservedHeaders): Map<string, string> => {
  const map = new Map<string, string>();
  if (typeof Headers !== 'undefined' && headers instanceof Headers) {
    headers.forEach((value, name) => {
      map.set(name.toLowerCase(), value);
    });
    return map;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    map.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value));
  }
  return map;
};

const describeError = (error: ErrorObject, where: string): string => {
  const at = `${where}${error.instancePath}`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties')
    return `${at} has an undocumented property "${String(params.additionalProperty)}"`;
  if (error.keyword === 'required') return `${at} lacks the required property "${String(params.missingProperty)}"`;
  if (error.keyword === 'enum') return `${at} ${error.message} (${JSON.stringify(params.allowedValues)})`;
  if (error.keyword === 'const') return `${at} must be ${JSON.stringify(params.allowedValue)}`;
  return `${at} ${error.message ?? error.keyword}`;
};

/**
 * A copy of the document for Ajv, whose `discriminator` keyword refuses `mapping`. The description keeps
 * its mappings for generators and renderers; each branch's `code` const says the same thing.
 */
const withoutDiscriminatorMappings = (document: OpenApiDocument): object => {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (!isObject(node)) return node;
    const copy: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'discriminator' && isObject(value)) {
        const { mapping: _mapping, ...rest } = value;
        copy[key] = rest;
      } else {
        copy[key] = strip(value);
      }
    }
    return copy;
  };
  return strip(document) as object;
};

/** Validates answers against one OpenAPI 3.1 document. */
export class OpenApiResponseValidator {
  private readonly document: OpenApiDocument;
  private readonly bodies: Ajv2020;
  private readonly headers: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly pathMatchers: { template: string; pattern: RegExp }[];

  public constructor(document: OpenApiDocument = loadOpenApiDocument()) {
    this.document = document;
    this.bodies = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, discriminator: true });
    addFormats(this.bodies);
    this.bodies.addSchema(withoutDiscriminatorMappings(document), DOCUMENT_ID);
    this.headers = new Ajv2020({ strict: false, allErrors: true, coerceTypes: true });
    addFormats(this.headers);
    this.pathMatchers = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(
        `^${template
          .split(/(\{[^}]+\})/)
          .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('')}$`,
      ),
    }));
  }

  /** Every difference between an answer and the description; empty when it matches. */
  public problems(request: ObservedRequest, response: ObservedResponse): string[] {
    const located = this.responseFor(request, response.status);
    if (typeof located === 'string') return [located];
    return [...this.headerProblems(located, response), ...this.bodyProblems(located, response)];
  }

  /** Throws an {@link OpenApiMismatchError} when the answer does not match the description. */
  public assert(request: ObservedRequest, response: ObservedResponse): void {
    const problems = this.problems(request, response);
    if (problems.length > 0) {
      throw new OpenApiMismatchError(
        `The ${response.status} answer to ${request.method} ${request.path}`,
        problems,
        response,
      );
    }
  }

  /** Follows `$ref`s inside the document, keeping track of where the node really is. */
  private resolve(located: Located): Located {
    let current = located;
    for (let depth = 0; typeof current.node.$ref === 'string'; depth += 1) {
      const ref = current.node.$ref;
      if (!ref.startsWith('#/') || depth > 20) throw new Error(`Unsupported $ref ${ref} at ${current.pointer}`);
      current = { pointer: ref.slice(1), node: this.at(ref.slice(1)) };
    }
    return current;
  }

  private at(pointer: string): Json {
    let node: unknown = this.document;
    for (const segment of pointer.split('/').slice(1)) {
      node = isObject(node) ? node[unescapeSegment(segment)] : undefined;
    }
    if (!isObject(node)) throw new Error(`openapi.yaml has nothing at #${pointer}`);
    return node;
  }

  private child(parent: Located, key: string): Located | undefined {
    const node = parent.node[key];
    return isObject(node) ? this.resolve({ pointer: `${parent.pointer}/${pointerSegment(key)}`, node }) : undefined;
  }

  /** The response object a request and status lead to, or a problem when the status is not documented. */
  private responseFor(request: ObservedRequest, status: number): Located | string {
    const path = request.path.split('?')[0] ?? request.path;
    const method = request.method.toLowerCase();
    const template = this.pathMatchers.find((matcher) => matcher.pattern.test(path))?.template;
    const fallbacks = isObject(this.document['x-unmatched-routes'])
      ? { pointer: '/x-unmatched-routes', node: this.document['x-unmatched-routes'] }
      : undefined;
    if (template === undefined) {
      const response = fallbacks && this.child(fallbacks, 'unknownPath');
      if (status !== 404 || response === undefined) {
        return `${request.method} ${path}: the path is not documented, so the answer must be 404 (got ${status})`;
      }
      return response;
    }
    const pathItem = this.child({ pointer: '/paths', node: this.document.paths as Json }, template)!;
    const operation = this.child(pathItem, method);
    if (operation === undefined) {
      const response = fallbacks && this.child(fallbacks, 'methodNotAllowed');
      if (status !== 405 || response === undefined) {
        return `${request.method} ${template}: no such operation is documented, so the answer must be 405 (got ${status})`;
      }
      return response;
    }
    const responses = this.child(operation, 'responses');
    const documented = responses === undefined ? [] : Object.keys(responses.node);
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((candidate) =>
      documented.includes(candidate),
    );
    if (responses === undefined || key === undefined) {
      return `${request.method} ${template}: status ${status} is not documented (documented: ${documented.join(', ')})`;
    }
    return this.child(responses, key)!;
  }

  private headerProblems(response: Located, observed: ObservedResponse): string[] {
    const headers = lowerCaseHeaders(observed.headers);
    const declared = this.child(response, 'headers');
    const problems: string[] = [];
    for (const name of declared === undefined ? [] : Object.keys(declared.node)) {
      if (name.toLowerCase() === 'content-type') continue;
      const header = this.child(declared!, name)!;
      const value = headers.get(name.toLowerCase());
      if (value === undefined) {
        if (header.node.required === true) problems.push(`header ${name} is required but missing`);
        continue;
      }
      if (!isObject(header.node.schema)) continue;
      const validate = this.headers.compile(header.node.schema);
      if (!validate(value)) {
        problems.push(
          ...(validate.errors ?? []).map((error) => `${describeError(error, `header ${name}`)} (got "${value}")`),
        );
      }
    }
    return problems;
  }

  private bodyProblems(response: Located, observed: ObservedResponse): string[] {
    const content = this.child(response, 'content');
    const contentType = lowerCaseHeaders(observed.headers).get('content-type');
    const text = typeof observed.body === 'string' ? observed.body : undefined;
    const hasBody = text === undefined ? observed.body !== undefined && observed.body !== null : text.length > 0;
    if (content === undefined) {
      return hasBody ? ['the response documents no body, but one was sent'] : [];
    }
    const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
    const mediaKey = Object.keys(content.node).find((key) => key.toLowerCase() === mediaType);
    if (mediaType === undefined || mediaKey === undefined) {
      return [
        `Content-Type ${contentType ?? '(none)'} is not documented (documented: ${Object.keys(content.node).join(', ')})`,
      ];
    }
    let body = observed.body;
    if (text !== undefined && mediaType.endsWith('json')) {
      try {
        body = JSON.parse(text);
      } catch {
        return [`the body is not valid JSON: ${truncate(text, 200)}`];
      }
    }
    const media = this.child(content, mediaKey)!;
    if (!isObject(media.node.schema)) return [];
    const validate = this.schemaAt(`${media.pointer}/schema`);
    return validate(body) ? [] : (validate.errors ?? []).map((error) => describeError(error, 'body'));
  }

  private schemaAt(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (validate === undefined) {
      validate = this.bodies.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }
}

let shared: OpenApiResponseValidator | undefined;

/** The validator of the repository's `openapi.yaml`, built on first use. */
export const openApiValidator = (): OpenApiResponseValidator => (shared ??= new OpenApiResponseValidator());

/**
 * Throws a readable {@link OpenApiMismatchError} when an answer of the service does not match
 * `openapi.yaml`: an undocumented status, a missing or invalid documented header, an undocumented
 * media type, or a body that breaks its schema. The local server's documentation paths
 * (`/openapi.json`, `/docs`) are not part of the API and pass unchecked.
 */
export const assertMatchesOpenApi = (request: ObservedRequest, response: ObservedResponse): void => {
  if (isDocsPath(request.path.split('?')[0] ?? request.path)) return;
  openApiValidator().assert(request, response);
};

/**
 * A drop-in `fetch` for end-to-end tests: sends the request, checks the answer against openapi.yaml
 * (throwing {@link OpenApiMismatchError} on a mismatch) and returns the response unread.
 */
export const fetchMatchingOpenApi = async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
  const response = await fetch(input, init);
  const url = new URL(String(input));
  assertMatchesOpenApi(
    { method: init.method ?? 'GET', path: url.pathname },
    { status: response.status, headers: response.headers, body: await response.clone().text() },
  );
  return response;
};

/** Reads a raw HTTP/1.1 answer (as received on a socket) into status, headers and body text. */
export const parseRawHttpAnswer = (raw: string): ObservedResponse => {
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, body: split === -1 ? '' : raw.slice(split + 4) };
};

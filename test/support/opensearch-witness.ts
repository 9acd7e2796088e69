/**
 * Checks an HTTP request against OpenSearch's own published API description (vendored in
 * test/witness/opensearch/): the request must be an operation the description lists for the engine version,
 * use only the query parameters that operation declares, and carry a body valid against its request schema.
 * Returns the problems found; an empty list means the description accepts the request.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse } from 'yaml';

/** The engine version requests are judged for: the newest the description covers. */
export const WITNESS_ENGINE_VERSION = '3.5';

const SPEC_PATH = join(import.meta.dirname, '..', 'witness', 'opensearch', 'opensearch-openapi.yaml');
const CACHE_DIR = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'jobs-api-tests');

/**
 * The description as parsed from its YAML. Parsing the 2.8 MB YAML costs about 3.5 CPU-seconds, and each test
 * process that checks requests against it parses it (a run has several); the first leaves the parsed document as
 * JSON under `node_modules/.cache/`, named by the YAML's SHA-256 (so an edited description is parsed again), and
 * the others read that in a tenth of the time. The JSON holds exactly what the YAML parses to: the description
 * has no value JSON cannot carry.
 */
const readSpec = (): unknown => {
  const text = readFileSync(SPEC_PATH, 'utf8');
  const cached = join(CACHE_DIR, `opensearch-openapi-${createHash('sha256').update(text).digest('hex')}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8'));
  } catch {
    const spec: unknown = parse(text);
    mkdirSync(CACHE_DIR, { recursive: true });
    // Written beside it, then renamed: a process reading it meanwhile finds the whole file or none.
    const partial = `${cached}.${process.pid}.partial`;
    writeFileSync(partial, JSON.stringify(spec));
    renameSync(partial, cached);
    return spec;
  }
};
const QUERY_CONTAINER = '_common.query_dsl___QueryContainer';
type Method = 'get' | 'put' | 'post' | 'delete' | 'head';
const BULK_OPERATION = '_core.bulk___OperationContainer';

/** One request as sent on the wire. */
export interface WitnessedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The raw body: JSON, NDJSON, or empty. */
  body: string;
}

interface Operation {
  operationId: string;
  'x-version-added'?: string;
  'x-version-removed'?: string;
  'x-version-deprecated'?: string;
  parameters?: { $ref?: string; name?: string; in?: string }[];
  requestBody?: { $ref?: string; content?: Record<string, { schema: unknown }> };
}

type Spec = {
  paths: Record<string, Partial<Record<Method, Operation>>>;
  components: {
    parameters: Record<string, { name: string; in: string }>;
    requestBodies: Record<string, { content: Record<string, { schema: unknown }> }>;
    schemas: Record<string, Record<string, unknown>>;
  };
};

const versionAtMost = (version: string, limit: string): boolean => {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [limitMajor = 0, limitMinor = 0] = limit.split('.').map(Number);
  return major < limitMajor || (major === limitMajor && minor <= limitMinor);
};

/** Reads `oneOf` as `anyOf` everywhere: the description's alternatives overlap. */
const oneOfAsAnyOf = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(oneOfAsAnyOf);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key === 'oneOf' ? 'anyOf' : key, oneOfAsAnyOf(value)]),
  );
};

class Witness {
  readonly #spec: Spec;
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction>();
  readonly #routes: { pattern: RegExp; template: string }[];

  public constructor() {
    const spec = oneOfAsAnyOf(readSpec()) as Spec;
    // OpenSearch refuses a query type it does not know; the description leaves the container open.
    const container = spec.components.schemas[QUERY_CONTAINER];
    if (container === undefined) throw new Error(`The description has no ${QUERY_CONTAINER}`);
    container.additionalProperties = false;
    this.#spec = spec;
    this.#ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
    this.#ajv.addSchema({ $id: 'opensearch', components: spec.components });
    this.#routes = Object.keys(spec.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  /** The operation the description matches a request to, whatever the engine version, with its version marks. */
  public operation(request: WitnessedRequest): OperationVersions | undefined {
    const method = request.method.toLowerCase() as Method;
    const found = this.#routes
      .filter((route) => route.pattern.test(request.path))
      .map((route) => ({ template: route.template, operation: this.#spec.paths[route.template]?.[method] }))
      .filter((entry): entry is { template: string; operation: Operation } => entry.operation !== undefined)
      .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0))[0];
    if (found === undefined) return undefined;
    const { operation } = found;
    return {
      operationId: operation.operationId,
      ...(operation['x-version-added'] === undefined ? {} : { added: operation['x-version-added'] }),
      ...(operation['x-version-removed'] === undefined ? {} : { removed: operation['x-version-removed'] }),
      ...(operation['x-version-deprecated'] === undefined ? {} : { deprecated: operation['x-version-deprecated'] }),
    };
  }

  public check(request: WitnessedRequest, engineVersion = WITNESS_ENGINE_VERSION): string[] {
    const method = request.method.toLowerCase() as Method;
    const candidates = this.#routes
      .filter((route) => route.pattern.test(request.path))
      .map((route) => ({ template: route.template, operation: this.#spec.paths[route.template]?.[method] }))
      .filter((found): found is { template: string; operation: Operation } => found.operation !== undefined)
      .filter(({ operation }) => {
        const added = operation['x-version-added'];
        const removed = operation['x-version-removed'];
        return (
          (added === undefined || versionAtMost(added, engineVersion)) &&
          (removed === undefined || !versionAtMost(removed, engineVersion))
        );
      });
    // A literal segment (`/_aliases`) is a better match than a variable one (`/{index}`).
    candidates.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
    const found = candidates[0];
    if (found === undefined)
      return [`${request.method} ${request.path} is no operation of OpenSearch ${engineVersion}`];
    const { operation, template } = found;
    const name = `${request.method} ${template} (${operation.operationId})`;
    const problems: string[] = [];
    const declared = new Set(
      (operation.parameters ?? [])
        .map((parameter) =>
          parameter.$ref === undefined ? parameter : this.#resolve<{ name: string; in: string }>(parameter.$ref),
        )
        .filter(
          (parameter): parameter is { name: string; in: string } => parameter !== undefined && parameter.in === 'query',
        )
        .map((parameter) => parameter.name),
    );
    for (const key of request.query.keys()) {
      if (!declared.has(key)) problems.push(`${name} declares no query parameter "${key}"`);
    }
    problems.push(...this.#checkBody(name, operation, request.body));
    return problems;
  }

  #resolve<T>(ref: string): T | undefined {
    const parts = ref.replace(/^#\//, '').split('/');
    let node: unknown = this.#spec;
    for (const part of parts) node = (node as Record<string, unknown> | undefined)?.[part];
    return node as T | undefined;
  }

  #checkBody(name: string, operation: Operation, body: string): string[] {
    if (body === '') return [];
    const requestBody = operation.requestBody;
    if (requestBody === undefined) return [`${name} takes no body`];
    const ref = requestBody.$ref;
    const content =
      ref === undefined
        ? requestBody.content
        : this.#resolve<{ content: Spec['components']['requestBodies'][string]['content'] }>(ref)?.content;
    if (content === undefined) return [`${name}: its request body is not described`];
    const ndjson = content['application/x-ndjson'];
    if (ndjson !== undefined) {
      // Action lines must be operations (the description's item schema also admits any object, for the
      // document lines); a document line follows each index, create or update action.
      const lines = body.split('\n').filter((line) => line !== '');
      const problems: string[] = [];
      const action = { items: false, schema: { $ref: `#/components/schemas/${BULK_OPERATION}` } };
      for (let position = 0; position < lines.length; position++) {
        const line = JSON.parse(lines[position] as string) as Record<string, unknown>;
        const problem = this.#validate(BULK_OPERATION, action, line);
        if (problem !== undefined) problems.push(`${name}, line ${position + 1}: ${problem}`);
        const [kind] = Object.keys(line);
        if (kind === 'index' || kind === 'create' || kind === 'update') {
          position += 1;
          if (typeof JSON.parse(lines[position] ?? 'null') !== 'object') {
            problems.push(`${name}, line ${position + 1}: a ${kind} action needs a document line`);
          }
        }
      }
      return problems;
    }
    const json = content['application/json'];
    if (json === undefined) return [`${name}: no JSON or NDJSON request body is described`];
    const problem = this.#validate(ref ?? name, { items: false, schema: json.schema }, JSON.parse(body));
    return problem === undefined ? [] : [`${name}: ${problem}`];
  }

  #validate(key: string, target: { items: boolean; schema: unknown }, value: unknown): string | undefined {
    let validate = this.#validators.get(key);
    if (validate === undefined) {
      const schema = target.items ? (target.schema as { items: unknown }).items : target.schema;
      // Point the schema's local references at the description.
      const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"opensearch#/components/'));
      validate = this.#ajv.compile(rebased as object);
      this.#validators.set(key, validate);
    }
    if (validate(value)) return undefined;
    return this.#ajv.errorsText(validate.errors, { dataVar: 'body' });
  }
}

/** An operation of the description, with the versions that added, deprecated or removed it. */
export interface OperationVersions {
  operationId: string;
  added?: string;
  deprecated?: string;
  removed?: string;
}

let witness: Witness | undefined;

/** The operation of the description a request is (matched whatever the engine version), or `undefined`. */
export const openSearchOperationOf = (request: WitnessedRequest): OperationVersions | undefined => {
  witness ??= new Witness();
  return witness.operation(request);
};

/** The problems OpenSearch's published API finds with a request (empty when it accepts it). */
export const openSearchApiProblems = (request: WitnessedRequest, engineVersion?: string): string[] => {
  witness ??= new Witness();
  return witness.check(request, engineVersion);
};

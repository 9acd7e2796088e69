/**
 * openapi.yaml is a valid OpenAPI 3.1 document, every example in it matches its own schema, and it
 * says what the code says: the error catalogue, the statuses, the search fields, the two tokens.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../functions/http/errors';
import { ROUTES } from '../../functions/http/routes';
import { JOB_STATUSES } from '../../functions/jobs/model/model';
import { fieldsFor, SEARCH_FIELD_IDS } from '../../functions/search/fields';
import { loadOpenApiDocument, OPENAPI_YAML_PATH } from '../../local/gateway/docs';

type Json = Record<string, unknown>;

const document = loadOpenApiDocument();
const schemas = (document.components as Json).schemas as Record<string, Json>;

/** Follows a local `$ref` (`#/components/...`). */
const deref = (node: Json): Json => {
  let current = node;
  while (typeof current.$ref === 'string') {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce<Json>((parent, key) => parent[key.replaceAll('~1', '/').replaceAll('~0', '~')] as Json, document);
  }
  return current;
};

interface OperationRef {
  path: string;
  method: string;
  operation: Json;
}

const operations: OperationRef[] = Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({
    path,
    method: method.toUpperCase(),
    operation: operation as Json,
  })),
);

/** Every error code a response object can answer with, read from the `code` consts of its schema. */
const codesOf = (response: Json): string[] => {
  const media = ((deref(response).content as Json)['application/json'] as Json).schema as Json;
  const branches = Array.isArray(media.oneOf) ? (media.oneOf as Json[]) : [media];
  return branches.map((branch) => ((deref(branch).properties as Json).code as Json).const as string);
};

const unmatched = document['x-unmatched-routes'] as Record<string, Json>;

/** Every (status, response object) the document describes, the unmatched-route answers included. */
const allResponses = (): [string, Json][] => [
  ['404', unmatched.unknownPath!],
  ['405', unmatched.methodNotAllowed!],
  ...operations.flatMap(({ operation }) => Object.entries(operation.responses as Record<string, Json>)),
];

const COMPONENTS_ID = 'https://jobs-api.local/components.json';

/**
 * A strict Ajv: an unknown keyword (a typo such as `minLenght`) or an ill-typed schema fails to
 * compile. `discriminator` is an OpenAPI annotation here; the `code` consts do the validating.
 */
const ajv = (): Ajv2020 => {
  const instance = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(instance);
  instance.addKeyword('discriminator');
  // The holder of the component schemas, so their `#/components/schemas/…` refs resolve.
  instance.addKeyword('components');
  instance.addSchema({ components: { schemas } }, COMPONENTS_ID);
  return instance;
};

/** Rewrites local refs to the components registered with Ajv, so a nested schema compiles on its own. */
const anchored = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(anchored);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' ? `${COMPONENTS_ID}${value}` : anchored(value),
    ]),
  );
};

describe('openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(OPENAPI_YAML_PATH);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('compiles every component schema as JSON Schema 2020-12', () => {
    const instance = ajv();
    for (const name of Object.keys(schemas)) {
      expect(() => instance.compile({ $ref: `${COMPONENTS_ID}#/components/schemas/${name}` }), name).not.toThrow();
    }
  });

  it('gives examples that match their own schemas', () => {
    const instance = ajv();
    const mediaTypes: [string, Json][] = [];
    for (const { path, method, operation } of operations) {
      const body = operation.requestBody === undefined ? undefined : deref(operation.requestBody as Json);
      for (const [type, media] of Object.entries((body?.content ?? {}) as Record<string, Json>)) {
        mediaTypes.push([`${method} ${path} request ${type}`, media]);
      }
    }
    for (const [status, response] of allResponses()) {
      for (const [type, media] of Object.entries((deref(response).content ?? {}) as Record<string, Json>)) {
        mediaTypes.push([`${status} ${type}`, media]);
      }
    }
    const withExamples = mediaTypes.filter(([, media]) => media.examples !== undefined);
    expect(withExamples.length).toBeGreaterThanOrEqual(20);
    for (const [where, media] of withExamples) {
      const validate = instance.compile(anchored(media.schema) as object);
      for (const [name, example] of Object.entries(media.examples as Record<string, Json>)) {
        expect(validate(example.value), `${where} example "${name}": ${instance.errorsText(validate.errors)}`).toBe(
          true,
        );
      }
    }
  });

  it('describes exactly the routes the API serves', () => {
    const described = operations.map(({ path, method }) => `${method} ${path}`).sort();
    const served = ROUTES.map((route) => `${route.method} ${route.path}`).sort();
    expect(described).toEqual(served);
  });

  it('lists every code of the error catalogue, each under its own status', () => {
    expect((schemas.ErrorCode!.enum as string[]).toSorted()).toEqual(Object.keys(ERROR_CATALOGUE).toSorted());
    const answered = new Set<string>();
    for (const [status, response] of allResponses()) {
      // Successes answer bodies of their own; a 304 answers none.
      if (status.startsWith('2') || status === '304') continue;
      for (const code of codesOf(response)) {
        expect(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE]?.status, `${code} under ${status}`).toBe(
          Number(status),
        );
        answered.add(code);
      }
    }
    expect([...answered].sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
  });

  it('documents X-Request-Id and Cache-Control on every answer, Allow on 405 and Retry-After on 503', () => {
    for (const [status, response] of allResponses()) {
      const headers = Object.keys((deref(response).headers ?? {}) as Json);
      expect(headers, `answer ${status}`).toEqual(expect.arrayContaining(['X-Request-Id', 'Cache-Control']));
      if (status === '405') expect(headers).toContain('Allow');
      if (status === '503') expect(headers).toContain('Retry-After');
    }
  });

  it('answers 503 and 500 on every operation, and 411, 413 and 415 on every POST', () => {
    for (const { path, method, operation } of operations) {
      const statuses = Object.keys(operation.responses as Json);
      // POST /sessions opens a session, POST /jobs creates a job and POST /webhooks registers one (201); a logout
      // and the status catalogue need no grant (no 403).
      const success = method === 'POST' && ['/sessions', '/jobs', '/webhooks'].includes(path) ? '201' : '200';
      const refusals = path === '/sessions/current' || path === '/statuses' ? ['400', '401'] : ['400', '401', '403'];
      expect(statuses, `${method} ${path}`).toEqual(
        expect.arrayContaining([success, ...refusals, '406', '500', '503']),
      );
      if (method === 'POST')
        expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['411', '413', '415']));
    }
  });

  it('lists the job statuses and search fields of the model', () => {
    expect(schemas.JobStatus!.enum).toEqual([...JOB_STATUSES]);
    expect(schemas.SearchFieldId!.enum).toEqual([...SEARCH_FIELD_IDS]);
  });

  it('shows the search fields of each role exactly as the service lists them', () => {
    const fields = (document.paths as Json)['/search/fields'] as Json;
    const examples = (
      ((((fields.get as Json).responses as Json)['200'] as Json).content as Json)['application/json'] as Json
    ).examples as Record<string, { value: { fields: unknown[] } }>;
    for (const role of ['user', 'operator'] as const) {
      const listed = fieldsFor(role).map(({ id, name, isOperatorOnly, isUserOnly, seqno }) => ({
        id,
        name,
        isOperatorOnly,
        isUserOnly,
        seqno,
      }));
      expect(examples[role]?.value.fields).toEqual(listed);
    }
  });

  it('requires both tokens, as apiKey headers, on every operation but POST /sessions and /webhooks, which take the secret', () => {
    const schemes = (document.components as Json).securitySchemes as Record<string, Json>;
    expect(schemes.clientToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Client-Token' });
    expect(schemes.sessionToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Session-Token' });
    expect(schemes.clientSecret).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Client-Secret' });
    expect(document.security).toEqual([{ clientToken: [], sessionToken: [] }]);
    for (const { path, operation } of operations) {
      if (path === '/sessions' || path.startsWith('/webhooks'))
        expect(operation.security).toEqual([{ clientToken: [], clientSecret: [] }]);
      else expect(operation.security).toBeUndefined();
    }
  });
});

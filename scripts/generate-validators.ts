/**
 * `npm run generate:validators`: compiles the request-body schemas of `openapi.yaml` (`SearchRequest`,
 * `RejectRequest`, `RejectForm`, `SessionRequest`, `AcceptRequest`, `AcceptForm` and what they reference) with ajv into standalone validation code, written
 * to `functions/http/generated/request-validators.js` (with its `.d.ts`). The functions import that module,
 * so a cold start compiles nothing. `--check` regenerates in memory only and fails when the committed files
 * are out of date.
 *
 * Two adjustments keep the generated code true to docs/contract.md and free of runtime imports:
 *
 * - **Check order.** JSON Schema fixes no evaluation order, and ajv checks `required` and `anyOf` of an
 *   object before its `properties`. The contract names the first offending field in property order (a
 *   missing field where it would have stood; "needs a customRejection or rejects" after the file's
 *   fields), so each object schema is rewritten into an equivalent `allOf` of one step per property, in
 *   key order, followed by its remaining combinators.
 * - **No runtime import.** ajv's `maxLength` counts code points with `ajv/dist/runtime/ucs2length`, which
 *   the code would `require` (ajv is a build-time tool only); the generator inlines that function.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Ajv2020 from 'ajv/dist/2020';
import standaloneCode from 'ajv/dist/standalone';
import { parse } from 'yaml';
import type { FormField } from '../functions/http/validator-types';
import { OPENAPI_YAML_PATH } from '../local/gateway/docs';
import { writeOrCheck } from './generated-files';

/** The generated code and its type declarations. */
export const VALIDATORS_JS = fileURLToPath(
  new URL('../functions/http/generated/request-validators.js', import.meta.url),
);
export const VALIDATORS_DTS = fileURLToPath(
  new URL('../functions/http/generated/request-validators.d.ts', import.meta.url),
);

/** Exported validator name → the request-body schema of `components.schemas` it checks. */
const VALIDATORS = {
  validateSearchRequest: 'SearchRequest',
  validateRejectRequest: 'RejectRequest',
  validateRejectForm: 'RejectForm',
  validateSessionRequest: 'SessionRequest',
  validateAcceptRequest: 'AcceptRequest',
  validateAcceptForm: 'AcceptForm',
  validateCreateJobRequest: 'CreateJobRequest',
  validateCreateJobForm: 'CreateJobForm',
  validateJobUpdateRequest: 'JobUpdateRequest',
  validateDeliveryRequest: 'DeliveryRequest',
  validateDeliveryForm: 'DeliveryForm',
  validateUploadRequest: 'UploadRequest',
  validateWebhookRequest: 'WebhookRequest',
} as const;

/** Exported field table name → the schema whose top-level properties a form body is coerced to. */
const FORM_FIELDS = {
  searchRequestFields: 'SearchRequest',
  rejectFormFields: 'RejectForm',
  sessionRequestFields: 'SessionRequest',
  acceptFormFields: 'AcceptForm',
  createJobRequestFields: 'CreateJobRequest',
  createJobFormFields: 'CreateJobForm',
  jobUpdateRequestFields: 'JobUpdateRequest',
  deliveryRequestFields: 'DeliveryRequest',
  deliveryFormFields: 'DeliveryForm',
  uploadRequestFields: 'UploadRequest',
  webhookRequestFields: 'WebhookRequest',
} as const;

type Schema = Record<string, unknown>;

const COMPONENT_REF = '#/components/schemas/';
const ROOT_ID = 'openapi';

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The names of the component schemas a schema references, directly or not. */
const referencedNames = (schemas: Record<string, Schema>, roots: readonly string[]): string[] => {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isSchema(value)) {
      for (const [key, child] of Object.entries(value)) {
        if (key === '$ref' && typeof child === 'string' && child.startsWith(COMPONENT_REF)) {
          const name = child.slice(COMPONENT_REF.length);
          if (!found.has(name)) {
            found.add(name);
            visit(schemas[name]);
          }
        } else visit(child);
      }
    }
  };
  for (const root of roots) {
    found.add(root);
    visit(schemas[root]);
  }
  return [...found].sort();
};

/** Rewrites `#/components/schemas/X` references to the compiled document's `#/$defs/X`. */
const localRefs = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(localRefs);
  if (!isSchema(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key === '$ref' && typeof child === 'string' ? child.replace(COMPONENT_REF, '#/$defs/') : localRefs(child),
    ]),
  );
};

/**
 * An object schema as an `allOf` of one step per property, in key order (with the property's `required`
 * entry), then the required names without a property, then its `anyOf`/`oneOf`/`allOf`: the same
 * instances validate, and ajv meets the first offending field first.
 */
const inPropertyOrder = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(inPropertyOrder);
  if (!isSchema(value)) return value;
  const schema = Object.fromEntries(Object.entries(value).map(([key, child]) => [key, inPropertyOrder(child)]));
  if (!isSchema(schema.properties)) return schema;
  const { properties, required = [], anyOf, oneOf, allOf = [], ...rest } = schema;
  const requiredNames = required as string[];
  const steps: Schema[] = Object.entries(properties).map(([name, property]) => ({
    ...(requiredNames.includes(name) ? { required: [name] } : {}),
    properties: { [name]: property },
  }));
  const unlisted = requiredNames.filter((name) => !Object.hasOwn(properties, name));
  if (unlisted.length > 0) steps.push({ required: unlisted });
  if (anyOf !== undefined) steps.push({ anyOf });
  if (oneOf !== undefined) steps.push({ oneOf });
  return { ...rest, allOf: [...steps, ...(allOf as Schema[])] };
};

/** A property's schema with its `$ref` (one level) resolved, its own keywords on top. */
const typeOf = (schema: Schema, schemas: Record<string, Schema>): Schema =>
  typeof schema.$ref === 'string' ? { ...schemas[schema.$ref.slice(COMPONENT_REF.length)], ...schema } : schema;

const nonNullType = (schema: Schema): string => {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((type) => type !== 'null');
  if (types.length !== 1 || typeof types[0] !== 'string')
    throw new Error(`Expected one type: ${JSON.stringify(schema)}`);
  return types[0];
};

const formFields = (schemas: Record<string, Schema>, name: string): Record<string, FormField> => {
  const properties = schemas[name]?.properties as Record<string, Schema>;
  return Object.fromEntries(
    Object.entries(properties).map(([field, property]) => {
      const schema = typeOf(property, schemas);
      const type = nonNullType(schema);
      const items = type === 'array' ? nonNullType(typeOf(schema.items as Schema, schemas)) : undefined;
      const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
      return [
        field,
        { type, ...(items === undefined ? {} : { items }), ...(pattern === undefined ? {} : { pattern }) },
      ];
    }),
  );
};

const RUNTIME_UCS2LENGTH = 'require("ajv/dist/runtime/ucs2length").default';
/** ajv's `ucs2length`: the number of code points (a surrogate pair counts once). */
const INLINE_UCS2LENGTH = '((text) => { let length = 0; for (const _ of text) length++; return length; })';

const HEADER = `/**
 * Generated from openapi.yaml by \`npm run generate:validators\` (ajv standalone code). Do not edit by hand:
 * change openapi.yaml and run the script again.
 */
`;

/** The text of the generated module and of its declarations, for a description. */
export const generateValidators = (openapiYaml: string = OPENAPI_YAML_PATH): { js: string; dts: string } => {
  const document = parse(readFileSync(openapiYaml, 'utf8')) as { components: { schemas: Record<string, Schema> } };
  const schemas = document.components.schemas;
  const names = referencedNames(schemas, Object.values(VALIDATORS));
  const $defs = Object.fromEntries(names.map((name) => [name, inPropertyOrder(localRefs(schemas[name]))]));

  const ajv = new Ajv2020({
    code: { source: true, esm: true, lines: false },
    strict: true,
    // OpenAPI 3.1 spells "may be null" as `type: [T, 'null']`.
    allowUnionTypes: true,
    // The first error only: the contract names the first offending field.
    allErrors: false,
    // Errors carry their schema, so messages can state both bounds of a limit.
    verbose: true,
    // The messages are worded by functions/http/schema-validation.ts; ajv's English ones would only cost bytes.
    messages: false,
  });
  // OpenAPI's `int32` and `int64` tell client generators how wide an integer is; every such field's minimum
  // and maximum already keep it within that width, so the formats check nothing more here.
  for (const width of ['int32', 'int64']) ajv.addFormat(width, true);
  ajv.addSchema({ $id: ROOT_ID, $defs });
  const refs = Object.fromEntries(
    Object.entries(VALIDATORS).map(([name, schema]) => [name, `${ROOT_ID}#/$defs/${schema}`]),
  );
  const code = standaloneCode(ajv, refs).replaceAll(RUNTIME_UCS2LENGTH, INLINE_UCS2LENGTH);
  if (/\brequire\(/.test(code)) throw new Error('The generated validators import an ajv runtime module.');

  const fieldTables = Object.entries(FORM_FIELDS)
    .map(([name, schema]) => `export const ${name} = ${JSON.stringify(formFields(schemas, schema))};\n`)
    .join('');
  const js = `${HEADER}${code}\n${fieldTables}`;

  const dts = `${HEADER}
import type { FormField, RequestValidator } from '../validator-types';

${Object.entries(VALIDATORS)
  .map(
    ([name, schema]) =>
      `/** Validates against \`components.schemas.${schema}\`. */\nexport declare const ${name}: RequestValidator;\n`,
  )
  .join('')}
${Object.entries(FORM_FIELDS)
  .map(
    ([name, schema]) =>
      `/** The top-level properties of \`components.schemas.${schema}\`, in schema order. */\nexport declare const ${name}: Readonly<Record<string, FormField>>;\n`,
  )
  .join('')}`;
  return { js, dts };
};

const main = (): void => {
  const { js, dts } = generateValidators();
  writeOrCheck(
    [
      [VALIDATORS_JS, js],
      [VALIDATORS_DTS, dts],
    ],
    'npm run generate:validators',
  );
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main();
}

/**
 * The event descriptions of `asyncapi.yaml`, compiled into validators: every event a test produces is checked
 * against the schema of its type's message, so the document and the events cannot drift apart.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { expect } from 'vitest';

export const ASYNCAPI_PATH = fileURLToPath(new URL('../../asyncapi.yaml', import.meta.url));

interface AsyncApiDocument {
  components: {
    messages: Record<string, { name: string; payload: { $ref: string } }>;
    schemas: Record<string, object>;
  };
}

const SCHEMA_REF = '#/components/schemas/';

/** A schema with its document-local references (`#/components/schemas/X`) made references to schema ids (`X`). */
const withSchemaIds = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withSchemaIds);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) =>
      key === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMA_REF)
        ? [key, inner.slice(SCHEMA_REF.length)]
        : [key, withSchemaIds(inner)],
    ),
  );
};

let validators: Map<string, ValidateFunction> | undefined;

/** The payload validator of each message, by event type (the message's `name`). */
export const eventValidators = (): Map<string, ValidateFunction> => {
  if (validators !== undefined) return validators;
  const document = parse(readFileSync(ASYNCAPI_PATH, 'utf8')) as AsyncApiDocument;
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    ajv.addSchema(withSchemaIds(schema) as object, name);
  }
  validators = new Map(
    Object.values(document.components.messages).map((message) => {
      const schemaName = message.payload.$ref.slice(SCHEMA_REF.length);
      return [message.name, ajv.getSchema(schemaName) as ValidateFunction];
    }),
  );
  return validators;
};

/** The schema errors of an event against its type's message (`unknown type` when the document has none). */
export const eventErrors = (event: object): string[] => {
  const type = String((event as { type?: unknown }).type);
  const validate = eventValidators().get(type);
  if (validate === undefined) return [`unknown type ${type}`];
  return validate(event) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
};

/** Asserts every event is valid against asyncapi.yaml, naming the first one that is not. */
export const expectDescribedEvents = (events: ReadonlyArray<{ type?: unknown; id?: unknown }>): void => {
  for (const event of events)
    expect({ id: event.id, errors: eventErrors(event) }).toEqual({ id: event.id, errors: [] });
};

/**
 * The shapes of the request validators generated from openapi.yaml (`generated/request-validators.js`):
 * written once here, used by the generated declarations, the generator and the layer around them.
 */

/** An error of a generated validator (ajv's `ErrorObject`, with `verbose` on and no messages). */
export interface RequestValidationError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  schema?: unknown;
  parentSchema?: Record<string, unknown>;
  data?: unknown;
}

/** A generated validator: `true` when the data is valid, else `false` with the first error in `errors`. */
export interface RequestValidator {
  (data: unknown): boolean;
  errors?: RequestValidationError[] | null;
}

/** A top-level property of a request-body schema, as a form coercion needs it. */
export interface FormField {
  type: string;
  items?: string;
  pattern?: string;
}

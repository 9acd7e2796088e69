/**
 * Generated from openapi.yaml by `npm run generate:validators` (ajv standalone code). Do not edit by hand:
 * change openapi.yaml and run the script again.
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

/** Validates against `components.schemas.SearchRequest`. */
export declare const validateSearchRequest: RequestValidator;
/** Validates against `components.schemas.RejectRequest`. */
export declare const validateRejectRequest: RequestValidator;
/** Validates against `components.schemas.RejectForm`. */
export declare const validateRejectForm: RequestValidator;

/** The top-level properties of `components.schemas.SearchRequest`, in schema order. */
export declare const searchRequestFields: Readonly<Record<string, FormField>>;
/** The top-level properties of `components.schemas.RejectForm`, in schema order. */
export declare const rejectFormFields: Readonly<Record<string, FormField>>;

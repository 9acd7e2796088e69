/**
 * A browser-based POST upload as S3 reads it: the `multipart/form-data` body (form fields, then the `file` field,
 * which S3 requires to be last), and the policy whose conditions every other field and the file's size must meet.
 *
 * Where AWS documents what is reproduced: "Browser-Based Uploads Using POST (AWS Signature Version 4)" and
 * "Creating a POST Policy" in the Amazon S3 API Reference.
 */

/** A form refused as S3 refuses it: its error code, HTTP status and message. */
export class PostFormError extends Error {
  public constructor(
    public readonly s3Code:
      | 'MalformedPOSTRequest'
      | 'InvalidArgument'
      | 'AccessDenied'
      | 'EntityTooLarge'
      | 'EntityTooSmall'
      | 'InvalidPolicyDocument',
    public readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'PostFormError';
  }
}

/** The fields of a POST form (names in lower case, as S3 compares them) and the uploaded file. */
export interface PostForm {
  fields: Map<string, string>;
  /** The `key` field as sent: S3 keeps its case (only the other field names are case-insensitive). */
  key: string;
  file: Buffer;
  /** The file part's `filename`, which S3 uses only for a `${filename}` in the key. */
  fileName: string | undefined;
}

const boundaryOf = (contentType: string): string => {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (boundary === undefined)
    throw new PostFormError(
      'MalformedPOSTRequest',
      400,
      'The body of your POST request is not well-formed multipart/form-data.',
    );
  return boundary;
};

const CRLF = Buffer.from('\r\n');

/** Splits a `multipart/form-data` body into its parts: headers (lower-case names) and content. */
const parts = (body: Buffer, boundary: string): Array<{ headers: Map<string, string>; content: Buffer }> => {
  const delimiter = Buffer.from(`--${boundary}`);
  const found: Array<{ headers: Map<string, string>; content: Buffer }> = [];
  let at = body.indexOf(delimiter);
  if (at === -1) throw malformed();
  for (;;) {
    const afterDelimiter = at + delimiter.length;
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString() === '--') return found;
    if (!body.subarray(afterDelimiter, afterDelimiter + 2).equals(CRLF)) throw malformed();
    const headerEnd = body.indexOf('\r\n\r\n', afterDelimiter + 2);
    if (headerEnd === -1) throw malformed();
    const headers = new Map<string, string>();
    for (const line of body
      .subarray(afterDelimiter + 2, headerEnd)
      .toString('utf8')
      .split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const next = body.indexOf(Buffer.concat([CRLF, delimiter]), headerEnd + 4);
    if (next === -1) throw malformed();
    found.push({ headers, content: body.subarray(headerEnd + 4, next) });
    at = next + 2;
  }
};

const malformed = (): PostFormError =>
  new PostFormError(
    'MalformedPOSTRequest',
    400,
    'The body of your POST request is not well-formed multipart/form-data.',
  );

const dispositionParameter = (disposition: string, name: string): string | undefined =>
  new RegExp(`;\\s*${name}="([^"]*)"`, 'i').exec(disposition)?.[1];

/** Reads a POST form. The `file` field must come last; fields after it are ignored, as S3 ignores them. */
export const parsePostForm = (body: Buffer, contentType: string): PostForm => {
  const fields = new Map<string, string>();
  let key: string | undefined;
  for (const part of parts(body, boundaryOf(contentType))) {
    const disposition = part.headers.get('content-disposition') ?? '';
    const name = dispositionParameter(disposition, 'name');
    if (name === undefined) throw malformed();
    if (name.toLowerCase() === 'file') {
      if (key === undefined)
        throw new PostFormError('InvalidArgument', 400, "Bucket POST must contain a field named 'key'.");
      const fileName = dispositionParameter(disposition, 'filename');
      // S3 puts the uploaded file's name in place of `${filename}` in the key.
      const named = fileName === undefined ? key : key.replaceAll('${filename}', fileName);
      return { fields, key: named, file: part.content, fileName };
    }
    const value = part.content.toString('utf8');
    if (name.toLowerCase() === 'key') key = value;
    fields.set(name.toLowerCase(), value);
  }
  throw new PostFormError('MalformedPOSTRequest', 400, 'Bucket POST must contain a file field.');
};

type Condition =
  | { kind: 'eq'; field: string; value: string }
  | { kind: 'starts-with'; field: string; value: string }
  | { kind: 'content-length-range'; min: number; max: number };

const invalidPolicy = (message: string): PostFormError => new PostFormError('InvalidPolicyDocument', 400, message);

const fieldName = (name: unknown): string => {
  if (typeof name !== 'string' || !name.startsWith('$')) throw invalidPolicy('Invalid Policy: Invalid JSON.');
  return name.slice(1).toLowerCase();
};

const readConditions = (conditions: unknown): Condition[] => {
  if (!Array.isArray(conditions)) throw invalidPolicy('Invalid Policy: Invalid JSON.');
  return conditions.map((condition: unknown): Condition => {
    if (Array.isArray(condition)) {
      const [operator, first, second] = condition as unknown[];
      if (operator === 'content-length-range') {
        if (typeof first !== 'number' || typeof second !== 'number')
          throw invalidPolicy('Invalid Policy: Invalid content-length-range.');
        return { kind: 'content-length-range', min: first, max: second };
      }
      if ((operator === 'eq' || operator === 'starts-with') && typeof second === 'string')
        return { kind: operator, field: fieldName(first), value: second };
      throw invalidPolicy('Invalid Policy: Invalid JSON.');
    }
    if (typeof condition === 'object' && condition !== null) {
      const entries = Object.entries(condition);
      const [field, value] = entries[0] ?? [];
      if (entries.length === 1 && typeof field === 'string' && typeof value === 'string')
        return { kind: 'eq', field: field.toLowerCase(), value };
    }
    throw invalidPolicy('Invalid Policy: Invalid JSON.');
  });
};

/** Fields no condition needs to name (S3's list). */
const UNCONDITIONED = new Set(['x-amz-signature', 'file', 'policy']);

const refused = (message: string): PostFormError => new PostFormError('AccessDenied', 403, message);

/**
 * Checks a form against its policy (already known to be signed): not expired, every condition met by the
 * field (the bucket's name stands in for a `bucket` field), every field named by a condition, the file's size
 * in the content-length range.
 */
export const checkPolicy = (policyBase64: string, form: PostForm, bucket: string, now: number): void => {
  let policy: { expiration?: unknown; conditions?: unknown };
  try {
    policy = JSON.parse(Buffer.from(policyBase64, 'base64').toString('utf8')) as typeof policy;
  } catch {
    throw invalidPolicy('Invalid Policy: Invalid JSON.');
  }
  const expiration = typeof policy.expiration === 'string' ? Date.parse(policy.expiration) : Number.NaN;
  if (Number.isNaN(expiration)) throw invalidPolicy("Invalid Policy: Invalid 'expiration' value.");
  if (now > expiration) throw refused('Invalid according to Policy: Policy expired.');
  const values = new Map(form.fields);
  values.set('bucket', bucket);
  values.set('key', form.key);
  const named = new Set<string>();
  for (const condition of readConditions(policy.conditions)) {
    if (condition.kind === 'content-length-range') {
      if (form.file.length > condition.max)
        throw new PostFormError('EntityTooLarge', 400, 'Your proposed upload exceeds the maximum allowed size');
      if (form.file.length < condition.min)
        throw new PostFormError('EntityTooSmall', 400, 'Your proposed upload is smaller than the minimum allowed size');
      continue;
    }
    named.add(condition.field);
    const value = values.get(condition.field) ?? '';
    const met = condition.kind === 'eq' ? value === condition.value : value.startsWith(condition.value);
    if (!met)
      throw refused(
        `Invalid according to Policy: Policy Condition failed: ["${condition.kind}", "$${condition.field}", "${condition.value}"]`,
      );
  }
  for (const field of form.fields.keys()) {
    if (UNCONDITIONED.has(field) || field.startsWith('x-ignore-') || named.has(field)) continue;
    throw refused(`Invalid according to Policy: Extra input fields: ${field}`);
  }
};

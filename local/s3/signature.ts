/**
 * Signature Version 4 as S3 checks it, for the local S3 stand-in: the signing key, the canonical request of a
 * request signed in its query string (a presigned URL) or in its `Authorization` header (an SDK client), and the
 * signature of a browser-based POST's policy. Only the stand-in's one credential is known; every other access key
 * is refused as S3 refuses an unknown one.
 *
 * Where AWS documents what is reproduced: "Authenticating Requests: Using Query Parameters (AWS Signature Version
 * 4)", "Signature Calculations for the Authorization Header" and "Calculating a Signature" (POST policy) in the
 * Amazon S3 API Reference.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const ALGORITHM = 'AWS4-HMAC-SHA256';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
/** S3 refuses a presigned URL valid for longer than seven days. */
export const MAX_PRESIGNED_SECONDS = 604_800;

/** The credential the stand-in accepts (the local stack's SDK clients use it). */
export interface Credential {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Why a signature was refused, in S3's own error codes. */
export class SignatureError extends Error {
  public constructor(
    public readonly s3Code:
      | 'AccessDenied'
      | 'SignatureDoesNotMatch'
      | 'InvalidAccessKeyId'
      | 'AuthorizationQueryParametersError'
      | 'InvalidArgument',
    message: string,
  ) {
    super(message);
    this.name = 'SignatureError';
  }
}

const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

export const sha256Hex = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** The key of one day, region and service: `AWS4` + secret, then the date, region, service and `aws4_request`. */
export const signingKey = (secret: string, date: string, region: string, service: string): Buffer =>
  hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');

/** RFC 3986 encoding as SigV4 wants it: everything but `A-Za-z0-9-_.~` percent-encoded, upper-case hex. */
export const uriEncode = (value: string): string =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/** S3's canonical URI: the path as sent, each segment decoded once and encoded again (S3 does not double-encode). */
export const canonicalUri = (rawPath: string): string =>
  rawPath
    .split('/')
    .map((segment) => uriEncode(safeDecode(segment)))
    .join('/');

const safeDecode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** The canonical query string: every parameter but `X-Amz-Signature`, encoded, sorted by name then value. */
export const canonicalQuery = (params: URLSearchParams): string =>
  [...params.entries()]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a === b ? compare(av, bv) : compare(a, b)))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Header values as a signer canonicalises them: trimmed, inner runs of spaces folded into one. */
const canonicalHeaderValue = (value: string | string[] | undefined): string =>
  (Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ');

/** What a request gives to the canonical request. */
export interface SignedRequest {
  method: string;
  /** The path as it came on the wire, still percent-encoded. */
  rawPath: string;
  query: URLSearchParams;
  /** Header names in lower case, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
}

const canonicalRequest = (request: SignedRequest, signedHeaders: string[], payloadHash: string): string =>
  [
    request.method,
    canonicalUri(request.rawPath),
    canonicalQuery(request.query),
    ...signedHeaders.map((name) => `${name}:${canonicalHeaderValue(request.headers[name])}`),
    '',
    signedHeaders.join(';'),
    payloadHash,
  ].join('\n');

const stringToSign = (amzDate: string, scope: string, canonical: string): string =>
  [ALGORITHM, amzDate, scope, sha256Hex(canonical)].join('\n');

/** `20240101T000000Z` as a time in milliseconds, or NaN. */
export const parseAmzDate = (value: string): number => {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (match === null) return Number.NaN;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  return Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
};

interface Scope {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
}

const parseCredential = (credential: string): Scope => {
  const parts = credential.split('/');
  if (parts.length !== 5 || parts[4] !== 'aws4_request')
    throw new SignatureError('AuthorizationQueryParametersError', 'The credential is not well formed.');
  const [accessKeyId, date, region, service] = parts as [string, string, string, string];
  return { accessKeyId, date, region, service };
};

const checkScope = (scope: Scope, credential: Credential, amzDate: string): void => {
  if (scope.accessKeyId !== credential.accessKeyId)
    throw new SignatureError('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  if (scope.service !== 's3' || !amzDate.startsWith(scope.date))
    throw new SignatureError('AuthorizationQueryParametersError', 'The credential scope does not match the request.');
};

const sameSignature = (expected: string, given: string): boolean => {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
};

const signatureMismatch = (): SignatureError =>
  new SignatureError(
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided.',
  );

/** Compares a request's signature with the one its canonical request gives under the day's key. */
const checkSignature = (
  canonical: string,
  scope: Scope,
  amzDate: string,
  credential: Credential,
  given: string,
): void => {
  const key = signingKey(credential.secretAccessKey, scope.date, scope.region, scope.service);
  const expected = hmac(key, stringToSign(amzDate, `${scope.date}/${scope.region}/s3/aws4_request`, canonical));
  if (!sameSignature(expected.toString('hex'), given)) throw signatureMismatch();
};

/**
 * Checks a presigned URL (signature in the query string): the signature over the method, path, query and signed
 * headers, and the validity window. `now` in milliseconds. Throws {@link SignatureError}.
 */
export const verifyPresigned = (request: SignedRequest, credential: Credential, now: number): void => {
  const query = request.query;
  if (query.get('X-Amz-Algorithm') !== ALGORITHM)
    throw new SignatureError('AuthorizationQueryParametersError', 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256".');
  const amzDate = query.get('X-Amz-Date') ?? '';
  const expires = Number(query.get('X-Amz-Expires'));
  const signature = query.get('X-Amz-Signature') ?? '';
  const signedHeaders = (query.get('X-Amz-SignedHeaders') ?? '').split(';').filter((name) => name !== '');
  const start = parseAmzDate(amzDate);
  if (
    Number.isNaN(start) ||
    !Number.isInteger(expires) ||
    expires < 1 ||
    signature === '' ||
    signedHeaders.length === 0
  )
    throw new SignatureError('AuthorizationQueryParametersError', 'The presigned URL is missing a required parameter.');
  if (expires > MAX_PRESIGNED_SECONDS)
    throw new SignatureError('AuthorizationQueryParametersError', 'X-Amz-Expires must be less than a week.');
  if (!signedHeaders.includes('host'))
    throw new SignatureError('AuthorizationQueryParametersError', 'The host header must be signed.');
  const scope = parseCredential(query.get('X-Amz-Credential') ?? '');
  checkScope(scope, credential, amzDate);
  checkSignature(canonicalRequest(request, signedHeaders, UNSIGNED_PAYLOAD), scope, amzDate, credential, signature);
  // S3 checks the signature first, then the window: a tampered URL never learns whether it had expired.
  if (now > start + expires * 1000) throw new SignatureError('AccessDenied', 'Request has expired');
  if (now < start - 15 * 60_000) throw new SignatureError('AccessDenied', 'Request is not valid yet');
};

/**
 * Checks a request signed in its `Authorization` header. The payload hash is the `x-amz-content-sha256` header's
 * value, which the caller checks against the body it reads (a hex digest) or accepts as unsigned.
 */
export const verifyAuthorizationHeader = (request: SignedRequest, credential: Credential, now: number): void => {
  const header = canonicalHeaderValue(request.headers.authorization);
  const match = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
    header,
  );
  if (match === null) throw new SignatureError('InvalidArgument', 'Unsupported Authorization Type');
  const [, credentialText, signedHeaderText, signature] = match as unknown as [string, string, string, string];
  const amzDate = canonicalHeaderValue(request.headers['x-amz-date']);
  const start = parseAmzDate(amzDate);
  const payloadHash = canonicalHeaderValue(request.headers['x-amz-content-sha256']);
  if (Number.isNaN(start) || payloadHash === '')
    throw new SignatureError('AccessDenied', 'The request is missing x-amz-date or x-amz-content-sha256.');
  const scope = parseCredential(credentialText);
  checkScope(scope, credential, amzDate);
  const signedHeaders = signedHeaderText.split(';');
  checkSignature(canonicalRequest(request, signedHeaders, payloadHash), scope, amzDate, credential, signature);
  if (Math.abs(now - start) > 15 * 60_000)
    throw new SignatureError(
      'AccessDenied',
      'The difference between the request time and the current time is too large.',
    );
};

/** Checks the signature of a browser-based POST: the HMAC of the base64 policy under the day's key. */
export const verifyPolicySignature = (
  fields: ReadonlyMap<string, string>,
  credential: Credential,
): { policy: string; scope: Scope } => {
  const policy = fields.get('policy') ?? '';
  const signature = fields.get('x-amz-signature') ?? '';
  if (fields.get('x-amz-algorithm') !== ALGORITHM || policy === '' || signature === '')
    throw new SignatureError('InvalidArgument', 'The POST form is missing its policy, algorithm or signature.');
  const scope = parseCredential(fields.get('x-amz-credential') ?? '');
  checkScope(scope, credential, fields.get('x-amz-date') ?? scope.date);
  const key = signingKey(credential.secretAccessKey, scope.date, scope.region, scope.service);
  if (!sameSignature(hmac(key, policy).toString('hex'), signature)) throw signatureMismatch();
  return { policy, scope };
};

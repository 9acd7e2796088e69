/**
 * The local stand-in for Amazon S3: path-style buckets on loopback that take what a private bucket takes and
 * refuse what it refuses — presigned PUT and GET URLs (signature, expiry, the headers they bind), browser-based
 * POST uploads (policy signature, expiry, every condition, the size range), SDK requests signed in their
 * `Authorization` header, and the checksums an uploader declares. Anything unsigned is `403 AccessDenied`, as on a
 * bucket with Block Public Access. Each new object is announced to `onObjectCreated` as an S3 event notification
 * (`ObjectCreated:Put` or `:Post`) after the upload has been answered, as S3 delivers its events.
 *
 * Not an S3 clone: no listings, versioning, multipart uploads or ACLs — the product's code uses none of them.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import type { S3Event, S3EventRecord } from 'aws-lambda';
import { type ObjectStore, type StoredObject } from './object-store';
import { checkPolicy, parsePostForm, PostFormError } from './post-form';
import {
  type Credential,
  type SignedRequest,
  SignatureError,
  sha256Hex,
  UNSIGNED_PAYLOAD,
  verifyAuthorizationHeader,
  verifyPolicySignature,
  verifyPresigned,
} from './signature';

/** S3's largest single PUT. The product's own limits are lower and are enforced by what it signs. */
const MAX_PUT_BYTES = 5 * 1024 ** 3;

export interface LocalS3Options {
  store: ObjectStore;
  /** The buckets that exist; every other name is `404 NoSuchBucket`. */
  buckets: readonly string[];
  credential: Credential;
  region: string;
  /** Called with each new object's event, after its upload was answered. */
  onObjectCreated?: (event: S3Event) => Promise<void>;
  /** Told when `onObjectCreated` fails (default: a line on standard error); the upload stays stored. */
  onNotificationError?: (error: unknown, event: S3Event) => void;
  /** Milliseconds since the epoch (tests move time to expire URLs). */
  now?: () => number;
  /** Interface to listen on (default 127.0.0.1) and port (default 0: a free one). */
  host?: string;
  port?: number;
}

export interface LocalS3 {
  /** `http://127.0.0.1:<port>`: the endpoint the SDK clients and presigners use (path-style). */
  endpoint: string;
  server: Server;
  /** Resolves once every event announced so far has been handled. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/** An S3 error answer: code, status and message, as an XML `Error` document. */
class S3Failure extends Error {
  public constructor(
    public readonly code: string,
    public readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const xmlEscape = (value: string): string => value.replace(/[<>&'"]/g, (character) => `&#${character.charCodeAt(0)};`);

const sendError = (response: ServerResponse, failure: S3Failure, requestId: string, resource: string): void => {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${failure.code}</Code><Message>${xmlEscape(
    failure.message,
  )}</Message><Resource>${xmlEscape(resource)}</Resource><RequestId>${requestId}</RequestId></Error>`;
  response.writeHead(failure.status, {
    'Content-Type': 'application/xml',
    'Content-Length': Buffer.byteLength(body),
    'x-amz-request-id': requestId,
  });
  response.end(body);
};

const readBody = (request: IncomingMessage, limit: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners('data');
        request.resume();
        reject(new S3Failure('EntityTooLarge', 400, 'Your proposed upload exceeds the maximum allowed object size.'));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

/**
 * The payload of an `aws-chunked` body (the SDK's streaming uploads): `<hex size>[;chunk-signature=…]\r\n<data>\r\n`
 * repeated, a zero-size chunk, then trailing headers, which are handed back.
 */
const decodeAwsChunked = (body: Buffer): { payload: Buffer; trailers: Map<string, string> } => {
  const chunks: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd === -1) throw new S3Failure('IncompleteBody', 400, 'The request body is not well-formed aws-chunked.');
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1').split(';')[0]!, 16);
    if (!Number.isInteger(size))
      throw new S3Failure('IncompleteBody', 400, 'The request body is not well-formed aws-chunked.');
    at = lineEnd + 2;
    if (size === 0) break;
    chunks.push(body.subarray(at, at + size));
    at += size + 2;
  }
  const trailers = new Map<string, string>();
  for (const line of body.subarray(at).toString('latin1').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) trailers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { payload: Buffer.concat(chunks), trailers };
};

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

/** The checksums S3 checks when an upload declares them: a mismatch is `400 BadDigest`, the body is not stored. */
const checkDeclaredChecksums = (body: Buffer, declared: (name: string) => string | undefined): void => {
  const md5 = declared('content-md5');
  if (md5 !== undefined && createHash('md5').update(body).digest('base64') !== md5)
    throw new S3Failure('BadDigest', 400, 'The Content-MD5 you specified did not match what we received.');
  const sha256 = declared('x-amz-checksum-sha256');
  if (sha256 !== undefined && createHash('sha256').update(body).digest('base64') !== sha256)
    throw new S3Failure('BadDigest', 400, 'The SHA256 you specified did not match the calculated checksum.');
  const sha1 = declared('x-amz-checksum-sha1');
  if (sha1 !== undefined && createHash('sha1').update(body).digest('base64') !== sha1)
    throw new S3Failure('BadDigest', 400, 'The SHA1 you specified did not match the calculated checksum.');
  const crc = declared('x-amz-checksum-crc32');
  if (crc !== undefined) {
    const expected = Buffer.alloc(4);
    expected.writeUInt32BE(crc32(body));
    if (expected.toString('base64') !== crc)
      throw new S3Failure('BadDigest', 400, 'The CRC32 you specified did not match the calculated checksum.');
  }
  for (const algorithm of ['crc32c', 'crc64nvme'])
    if (declared(`x-amz-checksum-${algorithm}`) !== undefined)
      throw new S3Failure('InvalidRequest', 400, `The local S3 stand-in does not check ${algorithm.toUpperCase()}.`);
};

const metadataOf = (request: IncomingMessage): Record<string, string> =>
  Object.fromEntries(
    Object.entries(request.headers)
      .filter(([name]) => name.startsWith('x-amz-meta-'))
      .map(([name, value]) => [
        name.slice('x-amz-meta-'.length),
        Array.isArray(value) ? value.join(',') : (value ?? ''),
      ]),
  );

/** Starts the stand-in. */
export const startLocalS3 = async (options: LocalS3Options): Promise<LocalS3> => {
  const now = options.now ?? Date.now;
  const buckets = new Set(options.buckets);
  const pending = new Set<Promise<void>>();
  let sequence = 0;
  const notificationError =
    options.onNotificationError ??
    ((error: unknown) => process.stderr.write(`local S3: an object-created notification failed: ${String(error)}\n`));

  const announce = (
    bucket: string,
    key: string,
    object: StoredObject,
    eventName: 'Put' | 'Post',
    source: string,
  ): void => {
    if (options.onObjectCreated === undefined) return;
    sequence += 1;
    const record: S3EventRecord = {
      eventVersion: '2.1',
      eventSource: 'aws:s3',
      awsRegion: options.region,
      eventTime: new Date(now()).toISOString(),
      eventName: `ObjectCreated:${eventName}`,
      userIdentity: { principalId: 'local' },
      requestParameters: { sourceIPAddress: source },
      responseElements: { 'x-amz-request-id': randomUUID(), 'x-amz-id-2': randomUUID() },
      s3: {
        s3SchemaVersion: '1.0',
        configurationId: 'local-object-created',
        bucket: { name: bucket, ownerIdentity: { principalId: 'local' }, arn: `arn:aws:s3:::${bucket}` },
        // Keys in S3 events are URL-encoded as in a form (a space is `+`).
        object: {
          key: encodeURIComponent(key).replace(/%20/g, '+').replace(/%2F/g, '/'),
          size: object.body.length,
          eTag: object.etag,
          sequencer: sequence.toString(16).toUpperCase().padStart(16, '0'),
        },
      },
    };
    const event: S3Event = { Records: [record] };
    const delivery = options
      .onObjectCreated(event)
      .catch((error: unknown) => notificationError(error, event))
      .finally(() => pending.delete(delivery));
    pending.add(delivery);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse, requestId: string): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://local');
    const rawPath = (request.url ?? '/').split('?')[0]!;
    const [, bucket = '', ...keyParts] = rawPath.split('/');
    const key = decodeURIComponent(keyParts.join('/'));
    if (bucket === '') throw new S3Failure('AccessDenied', 403, 'Access Denied');
    if (!buckets.has(bucket)) throw new S3Failure('NoSuchBucket', 404, 'The specified bucket does not exist');
    const method = request.method ?? 'GET';

    if (method === 'POST' && key === '') {
      const contentType = header(request, 'content-type') ?? '';
      if (!contentType.toLowerCase().startsWith('multipart/form-data'))
        throw new S3Failure('PreconditionFailed', 412, 'Bucket POST must be of the enclosure-type multipart/form-data');
      const form = parsePostForm(await readBody(request, MAX_PUT_BYTES), contentType);
      const { policy } = verifyPolicySignature(form.fields, options.credential);
      checkPolicy(policy, form, bucket, now());
      const declared = (name: string): string | undefined => form.fields.get(name);
      checkDeclaredChecksums(form.file, declared);
      const object = storedObject(
        form.file,
        form.fields.get('content-type'),
        {},
        form.fields.get('x-amz-checksum-sha256'),
      );
      await options.store.put(bucket, form.key, object);
      const status = Number(form.fields.get('success_action_status') ?? '204');
      const location = `/${bucket}/${encodeURIComponent(form.key)}`;
      const answer =
        status === 201
          ? `<?xml version="1.0" encoding="UTF-8"?>\n<PostResponse><Location>${xmlEscape(location)}</Location><Bucket>${xmlEscape(
              bucket,
            )}</Bucket><Key>${xmlEscape(form.key)}</Key><ETag>"${object.etag}"</ETag></PostResponse>`
          : '';
      response.writeHead(status === 200 || status === 201 ? status : 204, {
        ETag: `"${object.etag}"`,
        Location: location,
        'x-amz-request-id': requestId,
        ...(answer === '' ? {} : { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(answer) }),
      });
      response.end(answer);
      announce(bucket, form.key, object, 'Post', request.socket.remoteAddress ?? '127.0.0.1');
      return;
    }
    if (key === '')
      throw new S3Failure('MethodNotAllowed', 405, 'The specified method is not allowed against this resource.');

    const signed: SignedRequest = { method, rawPath, query: url.searchParams, headers: request.headers };
    const presigned = url.searchParams.has('X-Amz-Signature');
    if (presigned) verifyPresigned(signed, options.credential, now());
    else if (request.headers.authorization !== undefined) verifyAuthorizationHeader(signed, options.credential, now());
    else throw new S3Failure('AccessDenied', 403, 'Access Denied');

    if (method === 'PUT') {
      if (header(request, 'content-length') === undefined && header(request, 'transfer-encoding') === undefined)
        throw new S3Failure('MissingContentLength', 411, 'You must provide the Content-Length HTTP header.');
      const raw = await readBody(request, MAX_PUT_BYTES);
      const contentSha = header(request, 'x-amz-content-sha256');
      let body = raw;
      let trailers = new Map<string, string>();
      if (contentSha?.startsWith('STREAMING-') === true) ({ payload: body, trailers } = decodeAwsChunked(raw));
      else if (!presigned && contentSha !== UNSIGNED_PAYLOAD && contentSha !== sha256Hex(raw))
        throw new S3Failure(
          'XAmzContentSHA256Mismatch',
          400,
          "The provided 'x-amz-content-sha256' header does not match what was computed.",
        );
      const declared = (name: string): string | undefined => header(request, name) ?? trailers.get(name);
      checkDeclaredChecksums(body, declared);
      const object = storedObject(
        body,
        header(request, 'content-type'),
        metadataOf(request),
        declared('x-amz-checksum-sha256'),
      );
      await options.store.put(bucket, key, object);
      response.writeHead(200, { ETag: `"${object.etag}"`, 'x-amz-request-id': requestId, 'Content-Length': 0 });
      response.end();
      announce(bucket, key, object, 'Put', request.socket.remoteAddress ?? '127.0.0.1');
      return;
    }
    if (method === 'GET' || method === 'HEAD') {
      const object = await options.store.get(bucket, key);
      if (object === undefined) throw new S3Failure('NoSuchKey', 404, 'The specified key does not exist.');
      const query = url.searchParams;
      response.writeHead(200, {
        'Content-Type': query.get('response-content-type') ?? object.contentType,
        'Content-Length': object.body.length,
        ETag: `"${object.etag}"`,
        'Last-Modified': new Date(object.lastModified).toUTCString(),
        'x-amz-request-id': requestId,
        ...(object.checksumSha256 === undefined ? {} : { 'x-amz-checksum-sha256': object.checksumSha256 }),
        ...Object.fromEntries(Object.entries(object.metadata).map(([name, value]) => [`x-amz-meta-${name}`, value])),
        ...(query.has('response-content-disposition')
          ? { 'Content-Disposition': query.get('response-content-disposition')! }
          : {}),
        ...(query.has('response-cache-control') ? { 'Cache-Control': query.get('response-cache-control')! } : {}),
      });
      response.end(method === 'HEAD' ? undefined : object.body);
      return;
    }
    if (method === 'DELETE') {
      await options.store.delete(bucket, key);
      response.writeHead(204, { 'x-amz-request-id': requestId });
      response.end();
      return;
    }
    throw new S3Failure('MethodNotAllowed', 405, 'The specified method is not allowed against this resource.');
  };

  const storedObject = (
    body: Buffer,
    contentType: string | undefined,
    metadata: Record<string, string>,
    checksumSha256: string | undefined,
  ): StoredObject => ({
    body,
    contentType: contentType ?? 'binary/octet-stream',
    etag: createHash('md5').update(body).digest('hex'),
    lastModified: new Date(now()).toISOString(),
    metadata,
    ...(checksumSha256 === undefined ? {} : { checksumSha256 }),
  });

  const server = createServer((request, response) => {
    const requestId = randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase();
    handle(request, response, requestId).catch((error: unknown) => {
      const failure =
        error instanceof S3Failure
          ? error
          : error instanceof SignatureError
            ? new S3Failure(
                error.s3Code,
                error.s3Code === 'AuthorizationQueryParametersError' || error.s3Code === 'InvalidArgument' ? 400 : 403,
                error.message,
              )
            : error instanceof PostFormError
              ? new S3Failure(error.s3Code, error.status, error.message)
              : new S3Failure('InternalError', 500, 'We encountered an internal error. Please try again.');
      if (response.headersSent) {
        response.destroy();
        return;
      }
      // The rest of a refused upload is not read: the connection closes after the answer.
      response.setHeader('Connection', 'close');
      sendError(response, failure, requestId, request.url?.split('?')[0] ?? '/');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    server,
    settled: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.allSettled([...pending]);
    },
  };
};

/**
 * The local S3 stand-in (local/s3/) against the AWS SDK's own clients and presigners over real HTTP: what a
 * private bucket takes (signed SDK requests, presigned PUT, GET and POST within their window and conditions) and
 * what it refuses (unsigned, tampered, expired, another key, bytes other than declared, a size out of range).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Event } from 'aws-lambda';
import { LOCAL_S3_CREDENTIAL, localS3Client } from '../support/local-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { directoryObjectStore, memoryObjectStore } from '../../local/s3/object-store';
import { type LocalS3, startLocalS3 } from '../../local/s3/server';

const BUCKET = 'images';
const credential = LOCAL_S3_CREDENTIAL;
const events: S3Event[] = [];
let clock = Date.now();
let s3: LocalS3;
let client: S3Client;

beforeAll(async () => {
  s3 = await startLocalS3({
    store: memoryObjectStore(),
    buckets: [BUCKET],
    credential,
    region: 'us-east-1',
    now: () => clock,
    onObjectCreated: async (event) => {
      events.push(event);
    },
  });
  client = localS3Client(s3.endpoint);
});

afterAll(async () => {
  client.destroy();
  await s3.stop();
});

afterEach(() => {
  events.length = 0;
  clock = Date.now();
});

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64');
const errorCode = async (response: Response): Promise<string | undefined> =>
  /<Code>([^<]+)<\/Code>/.exec(await response.text())?.[1];
const stored = async (key: string): Promise<Buffer | undefined> => {
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return Buffer.from(await answer.Body!.transformToByteArray());
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
};

/** A presigned PUT binding the content type, the length and the declared SHA-256 as signed headers. */
const presignedPut = async (key: string, bytes: Buffer, expiresIn = 3600) => {
  const headers = { 'content-type': 'image/jpeg', 'x-amz-checksum-sha256': sha256(bytes) };
  const url = await getSignedUrl(
    client,
    new PutObjectCommand({
      Bucket: BUCKET,
      Key: key,
      ContentType: headers['content-type'],
      ContentLength: bytes.length,
      ChecksumSHA256: headers['x-amz-checksum-sha256'],
    }),
    {
      expiresIn,
      signableHeaders: new Set(['content-type', 'content-length']),
      unhoistableHeaders: new Set(['x-amz-checksum-sha256']),
    },
  );
  return { url, headers };
};

describe('local S3: signed SDK requests', () => {
  it('stores and serves an object put by the SDK, and announces it as ObjectCreated:Put', async () => {
    const bytes = Buffer.from('a picture, byte for byte');
    await client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'sdk/one.jpg', Body: bytes, ContentType: 'image/jpeg' }),
    );
    await s3.settled();

    expect(await stored('sdk/one.jpg')).toEqual(bytes);
    expect(events).toHaveLength(1);
    expect(events[0]!.Records[0]).toMatchObject({
      eventName: 'ObjectCreated:Put',
      s3: { bucket: { name: BUCKET }, object: { key: 'sdk/one.jpg', size: bytes.length } },
    });
  });

  it('refuses a request signed with another secret (403 SignatureDoesNotMatch) and stores nothing', async () => {
    const stranger = localS3Client(s3.endpoint, { accessKeyId: 'local', secretAccessKey: 'not-the-secret' });
    await expect(
      stranger.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'sdk/stranger.jpg', Body: 'x' })),
    ).rejects.toMatchObject({ name: 'SignatureDoesNotMatch', $metadata: { httpStatusCode: 403 } });
    stranger.destroy();
    expect(await stored('sdk/stranger.jpg')).toBeUndefined();
  });

  it('refuses unsigned requests as a private bucket does (403 AccessDenied)', async () => {
    const put = await fetch(`${s3.endpoint}/${BUCKET}/open.jpg`, { method: 'PUT', body: 'x' });
    expect(put.status).toBe(403);
    expect(await errorCode(put)).toBe('AccessDenied');
    const get = await fetch(`${s3.endpoint}/${BUCKET}/sdk/one.jpg`);
    expect(get.status).toBe(403);
  });
});

describe('local S3: presigned PUT', () => {
  it('takes the declared bytes within the window', async () => {
    const bytes = Buffer.from('the original picture');
    const { url, headers } = await presignedPut('put/ok.jpg', bytes);

    const answer = await fetch(url, { method: 'PUT', headers, body: bytes });

    expect(answer.status).toBe(200);
    expect(await stored('put/ok.jpg')).toEqual(bytes);
    await s3.settled();
    expect(events.map((event) => event.Records[0]!.s3.object.key)).toEqual(['put/ok.jpg']);
  });

  it('refuses bytes other than the declared SHA-256 of the same length (400 BadDigest), storing nothing', async () => {
    const declared = Buffer.from('the original picture');
    const { url, headers } = await presignedPut('put/digest.jpg', declared);

    const answer = await fetch(url, { method: 'PUT', headers, body: Buffer.from('the ORIGINAL picture') });

    expect(answer.status).toBe(400);
    expect(await errorCode(answer)).toBe('BadDigest');
    expect(await stored('put/digest.jpg')).toBeUndefined();
    await s3.settled();
    expect(events).toEqual([]);
  });

  it('refuses another length than the signed one, another content type or a dropped checksum (403)', async () => {
    const bytes = Buffer.from('twenty bytes exactly');
    const { url, headers } = await presignedPut('put/bound.jpg', bytes);

    const longer = await fetch(url, { method: 'PUT', headers, body: Buffer.concat([bytes, Buffer.from('!')]) });
    const retyped = await fetch(url, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'text/html' },
      body: bytes,
    });
    const unchecked = await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: bytes });

    for (const answer of [longer, retyped, unchecked]) {
      expect(answer.status).toBe(403);
      expect(await errorCode(answer)).toBe('SignatureDoesNotMatch');
    }
    expect(await stored('put/bound.jpg')).toBeUndefined();
  });

  it("cannot write another key: a URL's path changed to another file is refused (403)", async () => {
    const bytes = Buffer.from('file one');
    const { url, headers } = await presignedPut('accounts/1/jobs/10/files/100/original', bytes);
    const elsewhere = url.replace('/files/100/', '/files/101/');

    const answer = await fetch(elsewhere, { method: 'PUT', headers, body: bytes });

    expect(answer.status).toBe(403);
    expect(await errorCode(answer)).toBe('SignatureDoesNotMatch');
    expect(await stored('accounts/1/jobs/10/files/101/original')).toBeUndefined();
  });

  it('refuses a URL after its expiry (403 AccessDenied, "Request has expired")', async () => {
    const bytes = Buffer.from('late');
    const { url, headers } = await presignedPut('put/late.jpg', bytes, 60);
    clock += 61_000;

    const answer = await fetch(url, { method: 'PUT', headers, body: bytes });

    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain('Request has expired');
    expect(await stored('put/late.jpg')).toBeUndefined();
  });

  it('refuses a tampered expiry (the signature covers it)', async () => {
    const bytes = Buffer.from('tampered');
    const { url, headers } = await presignedPut('put/tampered.jpg', bytes, 60);
    const tampered = url.replace('X-Amz-Expires=60', 'X-Amz-Expires=3600');

    const answer = await fetch(tampered, { method: 'PUT', headers, body: bytes });

    expect(answer.status).toBe(403);
    expect(await errorCode(answer)).toBe('SignatureDoesNotMatch');
  });
});

describe('local S3: presigned GET', () => {
  it('serves the object with the download name the URL asks for, until it expires', async () => {
    const bytes = Buffer.from('edited picture');
    await client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'get/edited', Body: bytes, ContentType: 'image/png' }),
    );
    const url = await getSignedUrl(
      client,
      new GetObjectCommand({
        Bucket: BUCKET,
        Key: 'get/edited',
        ResponseContentDisposition: 'attachment; filename="shoe.png"',
      }),
      { expiresIn: 900 },
    );

    const answer = await fetch(url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="shoe.png"');
    expect(answer.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await answer.arrayBuffer())).toEqual(bytes);

    clock += 901_000;
    const late = await fetch(url);
    expect(late.status).toBe(403);
  });

  it('answers 404 NoSuchKey for a signed URL of a missing object', async () => {
    const url = await getSignedUrl(client, new GetObjectCommand({ Bucket: BUCKET, Key: 'get/missing' }));
    const answer = await fetch(url);
    expect(answer.status).toBe(404);
    expect(await errorCode(answer)).toBe('NoSuchKey');
  });
});

describe('local S3: presigned POST', () => {
  const post = async (key: string, options: { expires?: number; max?: number } = {}) =>
    createPresignedPost(client, {
      Bucket: BUCKET,
      Key: key,
      Conditions: [
        ['content-length-range', 1, options.max ?? 1_000],
        ['starts-with', '$Content-Type', 'image/'],
      ],
      Fields: { 'Content-Type': 'image/jpeg' },
      Expires: options.expires ?? 3600,
    });
  const form = (fields: Record<string, string>, bytes: Buffer): FormData => {
    const body = new FormData();
    for (const [name, value] of Object.entries(fields)) body.append(name, value);
    body.append('file', new Blob([bytes]), 'picture.jpg');
    return body;
  };

  it('takes a file within the policy and announces it as ObjectCreated:Post', async () => {
    const target = await post('post/ok.jpg');
    const bytes = Buffer.from('posted picture');

    const answer = await fetch(target.url, { method: 'POST', body: form(target.fields, bytes) });

    expect(answer.status).toBe(204);
    expect(await stored('post/ok.jpg')).toEqual(bytes);
    await s3.settled();
    expect(events[0]!.Records[0]).toMatchObject({
      eventName: 'ObjectCreated:Post',
      s3: { object: { key: 'post/ok.jpg' } },
    });
  });

  it('refuses a file over the size range (400 EntityTooLarge) and stores nothing', async () => {
    const target = await post('post/large.jpg', { max: 10 });
    const answer = await fetch(target.url, { method: 'POST', body: form(target.fields, Buffer.alloc(11)) });
    expect(answer.status).toBe(400);
    expect(await errorCode(answer)).toBe('EntityTooLarge');
    expect(await stored('post/large.jpg')).toBeUndefined();
  });

  it('refuses another key, another type, an extra field or an expired policy (403 AccessDenied)', async () => {
    const target = await post('post/bound.jpg', { expires: 60 });
    const bytes = Buffer.from('x');
    const attempts = [
      { ...target.fields, key: 'post/other.jpg' },
      { ...target.fields, 'Content-Type': 'text/html' },
      { ...target.fields, 'x-amz-meta-owner': 'someone' },
    ];
    for (const fields of attempts) {
      const answer = await fetch(target.url, { method: 'POST', body: form(fields, bytes) });
      expect(answer.status, JSON.stringify(fields)).toBe(403);
      expect(await errorCode(answer)).toBe('AccessDenied');
    }
    clock += 61_000;
    const late = await fetch(target.url, { method: 'POST', body: form(target.fields, bytes) });
    expect(late.status).toBe(403);
    expect(await stored('post/bound.jpg')).toBeUndefined();
    expect(await stored('post/other.jpg')).toBeUndefined();
  });

  it('refuses a policy whose signature does not match it (403 SignatureDoesNotMatch)', async () => {
    const target = await post('post/forged.jpg');
    const policy = JSON.parse(Buffer.from(target.fields.Policy!, 'base64').toString()) as { conditions: unknown[] };
    policy.conditions = policy.conditions.map((condition) =>
      Array.isArray(condition) && condition[0] === 'content-length-range'
        ? ['content-length-range', 1, 10 ** 9]
        : condition,
    );
    const forged = { ...target.fields, Policy: Buffer.from(JSON.stringify(policy)).toString('base64') };

    const answer = await fetch(target.url, { method: 'POST', body: form(forged, Buffer.from('x')) });

    expect(answer.status).toBe(403);
    expect(await errorCode(answer)).toBe('SignatureDoesNotMatch');
  });
});

describe('local S3: a data directory', () => {
  it('keeps objects across a restart', async () => {
    const root = mkdtempSync(join(tmpdir(), 'local-s3-'));
    try {
      const first = await startLocalS3({
        store: directoryObjectStore(root),
        buckets: [BUCKET],
        credential,
        region: 'us-east-1',
      });
      const bytes = Buffer.from('kept on disk');
      // The SDK with its defaults here: a CRC32 checksum on the put, which the stand-in checks.
      const writer = new S3Client({
        endpoint: first.endpoint,
        forcePathStyle: true,
        region: 'us-east-1',
        credentials: credential,
      });
      await writer.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'kept/one', Body: bytes }));
      writer.destroy();
      await first.stop();

      const second = await startLocalS3({
        store: directoryObjectStore(root),
        buckets: [BUCKET],
        credential,
        region: 'us-east-1',
      });
      const reader = new S3Client({
        endpoint: second.endpoint,
        forcePathStyle: true,
        region: 'us-east-1',
        credentials: credential,
      });
      const answer = await reader.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'kept/one' }));
      expect(Buffer.from(await answer.Body!.transformToByteArray())).toEqual(bytes);
      reader.destroy();
      await second.stop();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

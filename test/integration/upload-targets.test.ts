/**
 * The URLs the API signs for pictures (functions/images/signed-urls.ts), used as a client uses them against the
 * local S3 stand-in: a POST target takes a picture within its size range and type and nothing else; a PUT target
 * of a file that declared its size and SHA-256 takes those bytes only; a download URL gives the bytes back under
 * the file's name, for 15 minutes.
 */
import { createHash } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { LOCAL_S3_CREDENTIAL, localS3Client } from '../support/local-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUploadId, uploadKey } from '../../functions/images/object-keys';
import { downloadUrl, type UploadTarget, uploadTarget } from '../../functions/images/signed-urls';
import { memoryObjectStore } from '../../local/s3/object-store';
import { type LocalS3, startLocalS3 } from '../../local/s3/server';

const BUCKET = 'jobs-images';
const credential = LOCAL_S3_CREDENTIAL;
let s3: LocalS3;
let client: S3Client;

beforeAll(async () => {
  s3 = await startLocalS3({ store: memoryObjectStore(), buckets: [BUCKET], credential, region: 'us-east-1' });
  client = localS3Client(s3.endpoint);
});

afterAll(async () => {
  client.destroy();
  await s3.stop();
});

const keyOf = (fileId: number) =>
  uploadKey({ accountId: 1001, jobId: 10_001, fileId, variant: 'original', uploadId: newUploadId() });

/** Sends bytes to a target the way its answer says: the fields then the file, or the headers with the body. */
const send = (target: UploadTarget, bytes: Buffer): Promise<Response> => {
  if (target.method === 'PUT') return fetch(target.url, { method: 'PUT', headers: target.headers, body: bytes });
  const form = new FormData();
  for (const [name, value] of Object.entries(target.fields)) form.append(name, value);
  form.append('file', new Blob([bytes]), 'upload');
  return fetch(target.url, { method: 'POST', body: form });
};

const download = async (key: string, name?: string) => {
  const answer = await fetch(await downloadUrl(client, BUCKET, key, name === undefined ? {} : { downloadName: name }));
  return {
    status: answer.status,
    disposition: answer.headers.get('content-disposition'),
    bytes: Buffer.from(await answer.arrayBuffer()),
  };
};

describe('upload targets', () => {
  it('a POST target takes a picture, expires in an hour, and the download URL gives it back under its name', async () => {
    const key = keyOf(1);
    const now = Date.now();
    const target = await uploadTarget(client, BUCKET, key, 'shoe front.JPG', {}, now);
    const bytes = Buffer.from('jpeg bytes, as many as a picture has');

    expect(target).toMatchObject({ method: 'POST', fields: { key, 'Content-Type': 'image/jpeg' } });
    expect(Date.parse(target.expiresAt) - now).toBeGreaterThan(3_599_000);
    expect(Date.parse(target.expiresAt) - now).toBeLessThanOrEqual(3_600_000);
    expect((await send(target, bytes)).status).toBe(204);

    expect(await download(key, 'shoe front.JPG')).toEqual({
      status: 200,
      disposition: `attachment; filename="shoe front.JPG"; filename*=UTF-8''shoe%20front.JPG`,
      bytes,
    });
  });

  it('a POST target refuses an empty file and one that changes its content type', async () => {
    const key = keyOf(2);
    const target = await uploadTarget(client, BUCKET, key, 'a.png', {});
    if (target.method !== 'POST') throw new Error('expected a POST target');

    expect((await send(target, Buffer.alloc(0))).status).toBe(400);
    const retyped = { ...target, fields: { ...target.fields, 'Content-Type': 'text/html' } };
    expect((await send(retyped, Buffer.from('x'))).status).toBe(403);
    expect((await download(key)).status).toBe(404);
  });

  it('a file that declared its size and SHA-256 gets a PUT target that takes those bytes and no others', async () => {
    const bytes = Buffer.from('the declared picture');
    const declared = { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('base64') };
    const key = keyOf(3);
    const target = await uploadTarget(client, BUCKET, key, 'b.tif', declared);

    expect(target).toMatchObject({
      method: 'PUT',
      headers: { 'Content-Type': 'image/tiff', 'x-amz-checksum-sha256': declared.sha256 },
    });
    expect((await send(target, Buffer.from('the DECLARED picture'))).status).toBe(400);
    expect((await send(target, Buffer.from('the declared picture!'))).status).toBe(403);
    expect((await download(key)).status).toBe(404);
    expect((await send(target, bytes)).status).toBe(200);
    expect((await download(key)).bytes).toEqual(bytes);
  });

  it('a file that declared only its size gets a POST target bound to that exact size', async () => {
    const key = keyOf(4);
    const target = await uploadTarget(client, BUCKET, key, 'c.webp', { size: 5 });

    expect((await send(target, Buffer.from('four'))).status).toBe(400);
    expect((await send(target, Buffer.from('sixsix'))).status).toBe(400);
    expect((await send(target, Buffer.from('five!'))).status).toBe(204);
  });
});

/**
 * The upload targets the API answers, used against the local S3 stand-in (local/s3/) as a client uses them: each
 * target writes its own file's object and no other — a target of file A sent with file B's key, or a PUT URL
 * pointed at B's key, is refused 403 and B's object is never written.
 */
import { createHash } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PicturesBucket } from '../../functions/aws/s3';
import { PictureUrls } from '../../functions/images/picture-urls';
import type { UploadTarget } from '../../functions/images/signed-urls';
import { CreateJob } from '../../functions/jobs/create/create-job';
import { RequestUpload } from '../../functions/jobs/upload/request-upload';
import { memoryObjectStore } from '../../local/s3/object-store';
import { type LocalS3, startLocalS3 } from '../../local/s3/server';
import { createTestTables, localClient } from '../support/dynamo';
import { LOCAL_S3_CREDENTIAL, localS3Client } from '../support/local-s3';

const BUCKET = 'jobs-images';
const documents = DynamoDBDocumentClient.from(localClient(), { marshallOptions: { removeUndefinedValues: true } });
const user = { role: 'user' as const, accountId: 1001, clientId: 'client-a', userId: 'anna' };
let s3: LocalS3;
let bucket: PicturesBucket;
let tableName: string;

beforeAll(async () => {
  s3 = await startLocalS3({
    store: memoryObjectStore(),
    buckets: [BUCKET],
    credential: LOCAL_S3_CREDENTIAL,
    region: 'us-east-1',
  });
  bucket = { client: localS3Client(s3.endpoint), bucket: BUCKET };
  tableName = (await createTestTables()).jobsTable;
});

afterAll(async () => {
  bucket.client.destroy();
  await s3.stop();
});

const pictures = () => new PictureUrls(bucket);

/** Sends bytes as the target says: the fields then the file, or the headers with the body. */
const send = (target: UploadTarget, bytes: Buffer): Promise<Response> => {
  if (target.method === 'PUT') return fetch(target.url, { method: 'PUT', headers: target.headers, body: bytes });
  const form = new FormData();
  for (const [name, value] of Object.entries(target.fields)) form.append(name, value);
  form.append('file', new Blob([bytes]), 'upload');
  return fetch(target.url, { method: 'POST', body: form });
};

const exists = async (key: string): Promise<boolean> => {
  const { GetObjectCommand } = await import('@aws-sdk/client-s3');
  try {
    await bucket.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return true;
  } catch {
    return false;
  }
};

describe('upload targets against the local S3', () => {
  it("refuses file A's POST target sent with file B's key (403), and takes it with its own", async () => {
    const created = await new CreateJob({ client: documents, tableName, pictures }).run(
      {
        name: 'Two shoes',
        description: '',
        invoiceReference: '',
        tags: [],
        accountId: undefined,
        accountName: undefined,
        files: [
          { fileName: 'a.jpg', tags: [], remarkToProcessor: '' },
          { fileName: 'b.jpg', tags: [], remarkToProcessor: '' },
        ],
      },
      user,
    );
    const [a, b] = created.body.files.map((file) => file.upload);
    if (a?.method !== 'POST' || b?.method !== 'POST') throw new Error('expected POST targets');
    const bytes = Buffer.from('a picture of shoe A');

    const misdirected = await send({ ...a, fields: { ...a.fields, key: b.fields.key! } }, bytes);
    expect(misdirected.status).toBe(403);
    expect(await exists(b.fields.key!)).toBe(false);

    expect((await send(a, bytes)).status).toBe(204);
    expect(await exists(a.fields.key!)).toBe(true);
    expect(await exists(b.fields.key!)).toBe(false);
  });

  it("refuses a declared file's PUT URL pointed at another file's key (403), and takes its own bytes", async () => {
    const bytes = Buffer.from('the declared picture');
    const sha256 = createHash('sha256').update(bytes).digest('base64');
    const created = await new CreateJob({ client: documents, tableName, pictures }).run(
      {
        name: 'Declared',
        description: '',
        invoiceReference: '',
        tags: [],
        accountId: undefined,
        accountName: undefined,
        files: [
          { fileName: 'a.png', tags: [], remarkToProcessor: '', size: bytes.length, sha256 },
          { fileName: 'b.png', tags: [], remarkToProcessor: '' },
        ],
      },
      user,
    );
    const [a, b] = created.body.files.map((file) => file.upload);
    if (a?.method !== 'PUT' || b?.method !== 'POST') throw new Error('expected a PUT and a POST target');
    const ownPath = new URL(a.url).pathname;
    const otherPath = `/${BUCKET}/${b.fields.key}`;

    const misdirected = await send({ ...a, url: a.url.replace(ownPath, otherPath) }, bytes);
    expect(misdirected.status).toBe(403);
    expect(await exists(b.fields.key!)).toBe(false);

    // A fresh target of the original, asked for later, still binds what the file declared.
    const again = await new RequestUpload({ client: documents, tableName, pictures }).run(
      created.body.job.id,
      created.body.files[0]!.id,
      'original',
      user,
    );
    expect(again.upload).toMatchObject({ method: 'PUT', headers: { 'x-amz-checksum-sha256': sha256 } });
    expect((await send(again.upload, Buffer.from('other bytes, same length'))).status).toBeGreaterThanOrEqual(400);
    expect((await send(again.upload, bytes)).status).toBe(200);
  });
});

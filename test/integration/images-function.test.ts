/**
 * The images function (functions/handlers/images.ts) on DynamoDB Local and the local S3 stand-in: pictures
 * uploaded with the SDK reach the handler as S3's object-created events, and each test reads what the file item
 * and the bucket hold afterwards. Every bad input is followed by a good upload of the same file, which must still
 * be processed. The pictures are tiny, made by sharp here.
 */
import { deflateSync } from 'node:zlib';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { S3Event } from 'aws-lambda';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImagesHandler, type ImagesHandlerOptions } from '../../functions/handlers/images';
import { MAX_PREVIOUS_EDITS } from '../../functions/images/file-images';
import { newUploadId, renditionKey, type UploadAddress, uploadKey } from '../../functions/images/object-keys';
import { JobsTable } from '../../functions/jobs/store/jobs-table';
import { JobRepository } from '../../functions/jobs/store/repository';
import { jobKeys } from '../../functions/tables';
import { memoryObjectStore } from '../../local/s3/object-store';
import { type LocalS3, startLocalS3 } from '../../local/s3/server';
import { fileJobsTable } from '../support/dynamo';
import { makeFile, makeJob } from '../support/jobs';
import { LOCAL_S3_CREDENTIAL, localS3Client } from '../support/local-s3';

const BUCKET = 'images';
const table = fileJobsTable();
const failures: unknown[] = [];
let s3: LocalS3;
let client: S3Client;
/** The options the next events are handled with (a test may lower the limits). */
let handlerOptions: ImagesHandlerOptions = {};

beforeAll(async () => {
  s3 = await startLocalS3({
    store: memoryObjectStore(),
    buckets: [BUCKET],
    credential: LOCAL_S3_CREDENTIAL,
    region: 'us-east-1',
    onObjectCreated: (event) =>
      createImagesHandler({
        s3: () => client,
        table: () => new JobsTable(table.documents, table.name),
        ...handlerOptions,
      })(event),
    onNotificationError: (error) => void failures.push(error),
  });
  client = localS3Client(s3.endpoint);
});

afterAll(async () => {
  client.destroy();
  await s3.stop();
});

let clock = Date.UTC(2026, 0, 1);
/** An upload address of a new upload of the file, its id later than every one before. */
const nextUpload = (job: { id: number; accountId: number }, fileId: number, variant: 'original' | 'edited') => {
  clock += 1_000;
  return { accountId: job.accountId, jobId: job.id, fileId, variant, uploadId: newUploadId(clock) } as UploadAddress;
};

/** A job with one file, written to the table. */
const storedJob = async () => {
  const job = makeJob({ files: [makeFile()] });
  await new JobRepository(table.documents, table.name).putJob(job);
  return { job, fileId: job.files[0]!.id };
};

/** Uploads bytes to the address's key and waits until its event was handled. */
const upload = async (address: UploadAddress, bytes: Buffer): Promise<void> => {
  await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: uploadKey(address), Body: bytes }));
  await s3.settled();
};

const fileItem = async (jobId: number, fileId: number): Promise<Record<string, unknown>> => {
  const { Item } = await table.documents.send(
    new GetCommand({ TableName: table.name, Key: { pk: jobKeys.pk(jobId), sk: jobKeys.fileSk(fileId) } }),
  );
  return Item ?? {};
};

const objectBytes = async (key: string): Promise<Buffer> => {
  const answer = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await answer.Body!.transformToByteArray());
};

const picture = (width: number, height: number, format: 'jpeg' | 'png'): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } })
    .toFormat(format)
    .toBuffer();

/** A PNG of only its signature, a header declaring `width` × `height`, and its end: a decompression bomb's shape. */
const pngDeclaring = (width: number, height: number): Buffer => {
  const chunk = (type: string, data: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, 'ascii'), data])));
    return Buffer.concat([length, Buffer.from(type, 'ascii'), data, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(width > 1_000 ? 1_000 : width * 3 + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
};

const crc32 = (bytes: Buffer): number => {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
};

/** The object-created event of an upload, as S3 delivers it again. */
const objectCreated = (address: UploadAddress, eventTime = new Date().toISOString()): S3Event => ({
  Records: [
    {
      eventVersion: '2.1',
      eventSource: 'aws:s3',
      awsRegion: 'us-east-1',
      eventTime,
      eventName: 'ObjectCreated:Put',
      userIdentity: { principalId: 'local' },
      requestParameters: { sourceIPAddress: '127.0.0.1' },
      responseElements: { 'x-amz-request-id': 'again', 'x-amz-id-2': 'again' },
      s3: {
        s3SchemaVersion: '1.0',
        configurationId: 'again',
        bucket: { name: BUCKET, ownerIdentity: { principalId: 'local' }, arn: `arn:aws:s3:::${BUCKET}` },
        object: { key: uploadKey(address), size: 0, eTag: 'again', sequencer: '0' },
      },
    },
  ],
});

const deliver = (event: S3Event): Promise<void> =>
  createImagesHandler({ s3: () => client, table: () => new JobsTable(table.documents, table.name) })(event);

/** After a bad upload, a good one of the same file is recorded ready. */
const expectNextUploadReady = async (job: { id: number; accountId: number }, fileId: number): Promise<void> => {
  const address = nextUpload(job, fileId, 'original');
  await upload(address, await picture(40, 30, 'jpeg'));
  expect((await fileItem(job.id, fileId)).original).toMatchObject({ status: 'ready', uploadId: address.uploadId });
};

describe('the images function on DynamoDB Local and the local S3', () => {
  it('records a JPEG ready once its preview and thumbnail are in the bucket, with its dimensions', async () => {
    const { job, fileId } = await storedJob();
    const address = nextUpload(job, fileId, 'original');
    const bytes = await picture(640, 480, 'jpeg');

    await upload(address, bytes);

    expect((await fileItem(job.id, fileId)).original).toEqual({
      status: 'ready',
      uploadId: address.uploadId,
      contentType: 'image/jpeg',
      size: bytes.length,
      width: 640,
      height: 480,
      sha256: expect.any(String),
      uploadedDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const preview = await sharp(await objectBytes(renditionKey(address, 'preview'))).metadata();
    const thumbnail = await sharp(await objectBytes(renditionKey(address, 'thumbnail'))).metadata();
    expect([preview.format, preview.width, preview.height]).toEqual(['webp', 640, 480]);
    expect([thumbnail.format, thumbnail.width, thumbnail.height]).toEqual(['webp', 320, 240]);
  });

  it('records a PNG larger than a preview ready, its preview 2,048 and its thumbnail 320 pixels on the longest side', async () => {
    const { job, fileId } = await storedJob();
    const address = nextUpload(job, fileId, 'original');

    await upload(address, await picture(2_400, 1_200, 'png'));

    expect((await fileItem(job.id, fileId)).original).toMatchObject({
      status: 'ready',
      contentType: 'image/png',
      width: 2_400,
      height: 1_200,
    });
    const preview = await sharp(await objectBytes(renditionKey(address, 'preview'))).metadata();
    const thumbnail = await sharp(await objectBytes(renditionKey(address, 'thumbnail'))).metadata();
    expect([preview.width, preview.height, thumbnail.width, thumbnail.height]).toEqual([2_048, 1_024, 320, 160]);
  });

  it('records a file that is no picture invalid, and the next upload of the file ready', async () => {
    const { job, fileId } = await storedJob();

    await upload(nextUpload(job, fileId, 'original'), Buffer.from('GIF89a is not taken, and this is not even a GIF'));

    expect((await fileItem(job.id, fileId)).original).toMatchObject({
      status: 'invalid',
      reason: expect.stringContaining('not a picture'),
    });
    await expectNextUploadReady(job, fileId);
  });

  it('records a truncated JPEG invalid, and the next upload of the file ready', async () => {
    const { job, fileId } = await storedJob();
    const whole = await picture(400, 300, 'jpeg');

    await upload(nextUpload(job, fileId, 'original'), whole.subarray(0, Math.floor(whole.length / 2)));

    expect((await fileItem(job.id, fileId)).original).toMatchObject({
      status: 'invalid',
      reason: 'The image/jpeg picture is corrupt or truncated.',
    });
    await expectNextUploadReady(job, fileId);
  });

  it('records a tiny PNG declaring 50,000 × 50,000 pixels invalid without decoding it, and the next upload ready', async () => {
    const { job, fileId } = await storedJob();

    await upload(nextUpload(job, fileId, 'original'), pngDeclaring(50_000, 50_000));

    expect((await fileItem(job.id, fileId)).original).toMatchObject({
      status: 'invalid',
      reason: 'The picture declares 50000 × 50000 pixels; at most 100 megapixels are taken.',
    });
    await expectNextUploadReady(job, fileId);
  });

  it('records a file over the size limit invalid, and the next upload of the file ready', async () => {
    const { job, fileId } = await storedJob();
    handlerOptions = { limits: { maxBytes: 2_000, maxPixels: 1_000_000 } };
    try {
      await upload(
        nextUpload(job, fileId, 'original'),
        Buffer.concat([await picture(40, 30, 'jpeg'), Buffer.alloc(3_000)]),
      );
    } finally {
      handlerOptions = {};
    }

    expect((await fileItem(job.id, fileId)).original).toMatchObject({
      status: 'invalid',
      reason: expect.stringContaining('at most 2,000 bytes are taken'),
    });
    await expectNextUploadReady(job, fileId);
  });

  it('replaces the original on a re-upload, and ignores the older upload’s event arriving late', async () => {
    const { job, fileId } = await storedJob();
    const older = nextUpload(job, fileId, 'original');
    const newer = nextUpload(job, fileId, 'original');
    await upload(older, await picture(100, 50, 'jpeg'));
    expect((await fileItem(job.id, fileId)).original).toMatchObject({ uploadId: older.uploadId, width: 100 });

    await upload(newer, await picture(60, 80, 'png'));
    expect((await fileItem(job.id, fileId)).original).toMatchObject({ uploadId: newer.uploadId, width: 60 });

    // S3 delivers the older upload's event again, late (as its retries can).
    await deliver(objectCreated(older));

    expect((await fileItem(job.id, fileId)).original).toMatchObject({
      status: 'ready',
      uploadId: newer.uploadId,
      contentType: 'image/png',
      width: 60,
      height: 80,
    });
  });

  it(`keeps the ${MAX_PREVIOUS_EDITS} most recent edited versions a newer upload replaced, most recent last`, async () => {
    const { job, fileId } = await storedJob();
    const uploads: UploadAddress[] = [];
    for (let version = 1; version <= MAX_PREVIOUS_EDITS + 2; version++) {
      const address = nextUpload(job, fileId, 'edited');
      uploads.push(address);
      await upload(address, await picture(10 * version, 10, 'jpeg'));
    }

    // The last upload's event delivered again (the same event: its time too) changes nothing.
    const before = await fileItem(job.id, fileId);
    await deliver(objectCreated(uploads.at(-1)!, (before.edited as { uploadedDate: string }).uploadedDate));
    const item = await fileItem(job.id, fileId);
    expect(item).toEqual(before);
    expect(item.edited).toMatchObject({ status: 'ready', uploadId: uploads.at(-1)!.uploadId, width: 70 });
    expect((item.previousEdits as Array<{ uploadId: string }>).map((edit) => edit.uploadId)).toEqual(
      uploads.slice(1, -1).map((address) => address.uploadId),
    );
    expect(item.original).toBeUndefined();
  });

  it('records nothing for the upload of a file the job does not have, and fails no event', async () => {
    const { job } = await storedJob();

    await upload(nextUpload(job, 99_999_999, 'original'), await picture(20, 20, 'jpeg'));

    expect(await fileItem(job.id, 99_999_999)).toEqual({});
    expect(failures).toEqual([]);
  });
});

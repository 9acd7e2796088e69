/**
 * Exemplary handler unit test: the images function (functions/handlers/images.ts) invoked with the sample event
 * `events/images.json` (an upload of the original of file 300001 of job 10001) and variations of it. The bucket
 * and the jobs table are mocked with aws-sdk-client-mock; the pictures are real, made by sharp here.
 */
import { Readable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { S3Event, S3EventRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetPicturesBucket } from '../../../functions/aws/s3';
import { createImagesHandler, handler } from '../../../functions/handlers/images';
import { renditionKey } from '../../../functions/images/object-keys';
import { jobKeys } from '../../../functions/tables';
import { lambdaContext } from '../../support/api-event';
import { sampleEvent, useUnitHandlerEnvironment } from './sample-events';

const s3 = mockClient(S3Client);
const dynamo = mockClient(DynamoDBDocumentClient);

const UPLOAD_ID = '0mkfa3b406010780d064e0b8c';
const OLDER_UPLOAD_ID = '0mkfa3b400000000000000000';
const NEWER_UPLOAD_ID = '0mkfa3b4z0000000000000000';
const ADDRESS = { accountId: 1001, jobId: 10001, fileId: 300001, variant: 'original', uploadId: UPLOAD_ID } as const;
const FILE_KEY = { pk: jobKeys.pk(10001), sk: jobKeys.fileSk(300001) };
const FILE_ITEM = { ...FILE_KEY, entity: 'file', id: 300001, fileId: 300001, jobId: 10001, fileName: 'a.jpg' };

const jpeg = (width: number, height: number): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .jpeg()
    .toBuffer();

/** The sample event, its record changed as given. */
const uploadEvent = (change: (record: S3EventRecord) => void = () => undefined): S3Event => {
  const event = sampleEvent<S3Event>('images.json');
  change(event.Records[0]!);
  return event;
};

const keyOf = (variant: 'original' | 'edited', uploadId: string): string =>
  `uploads/1001/10001/300001/${variant}/${uploadId}`;

/** The bucket answers GetObject with `bytes`, and stores renditions. */
const bucketHolds = (bytes: Buffer): void => {
  s3.on(GetObjectCommand).callsFake(async () => ({
    ContentLength: bytes.length,
    Body: Readable.from([bytes]) as never,
  }));
  s3.on(PutObjectCommand).resolves({});
};

/** The value the handler recorded (the one UpdateItem's `:value`). */
const recorded = (): Record<string, unknown> | undefined =>
  dynamo.commandCalls(UpdateCommand)[0]?.args[0].input.ExpressionAttributeValues?.[':value'] as
    Record<string, unknown> | undefined;

beforeEach(() => {
  useUnitHandlerEnvironment();
  vi.stubEnv('IMAGES_BUCKET', 'jobs-api-local-images');
  s3.reset();
  dynamo.reset();
  dynamo.on(GetCommand, { Key: FILE_KEY }).resolves({ Item: FILE_ITEM });
  dynamo.on(UpdateCommand).resolves({});
});

afterEach(() => {
  vi.unstubAllEnvs();
  resetPicturesBucket();
});

describe('images handler on events/images.json', () => {
  it('writes the preview and the thumbnail, then records the original ready with its size and dimensions', async () => {
    const bytes = await jpeg(640, 480);
    const order: string[] = [];
    s3.on(GetObjectCommand).resolves({ ContentLength: bytes.length, Body: Readable.from([bytes]) as never });
    s3.on(PutObjectCommand).callsFake(async (input: { Key: string }) => void order.push(input.Key));
    dynamo.on(UpdateCommand).callsFake(async () => {
      order.push('UpdateItem');
      return {};
    });

    await handler(uploadEvent(), lambdaContext());

    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(1);
    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'jobs-api-local-images',
      Key: keyOf('original', UPLOAD_ID),
    });
    const puts = s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input);
    expect(puts.map((put) => [put.Key, put.ContentType])).toEqual(
      expect.arrayContaining([
        [renditionKey(ADDRESS, 'preview'), 'image/webp'],
        [renditionKey(ADDRESS, 'thumbnail'), 'image/webp'],
      ]),
    );
    expect(order.at(-1)).toBe('UpdateItem');
    const update = dynamo.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(update?.TableName).toBe('jobs-unit');
    expect(update?.Key).toEqual(FILE_KEY);
    expect(update?.ConditionExpression).toContain('attribute_exists(#pk)');
    expect(recorded()).toEqual({
      status: 'ready',
      uploadId: UPLOAD_ID,
      contentType: 'image/jpeg',
      size: bytes.length,
      width: 640,
      height: 480,
      sha256: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/),
      uploadedDate: '2026-01-15T10:00:05.000Z',
    });
  });

  it('records bytes that are no picture as invalid with a reason, writes no rendition and does not throw', async () => {
    bucketHolds(Buffer.from('%PDF-1.7 not a picture'));

    await handler(uploadEvent(), lambdaContext());

    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
    expect(recorded()).toEqual({
      status: 'invalid',
      uploadId: UPLOAD_ID,
      reason: expect.stringContaining('not a picture'),
      uploadedDate: '2026-01-15T10:00:05.000Z',
    });
  });

  it('refuses an object over the size limit by its length, without reading its bytes', async () => {
    const body = Readable.from(
      (async function* () {
        yield Buffer.alloc(1);
        throw new Error('the body was read');
      })(),
    );
    s3.on(GetObjectCommand).resolves({ ContentLength: 5_000, Body: body as never });
    const small = createImagesHandler({ limits: { maxBytes: 4_000, maxPixels: 1_000_000 } });

    await small(uploadEvent((record) => void (record.s3.object.size = 3_000)));

    expect(recorded()).toMatchObject({
      status: 'invalid',
      reason: 'The file is 5,000 bytes; at most 4,000 bytes are taken.',
    });
  });

  it('refuses an object the event announces over the size limit without asking S3 for it', async () => {
    const small = createImagesHandler({ limits: { maxBytes: 4_000, maxPixels: 1_000_000 } });

    await small(uploadEvent((record) => void (record.s3.object.size = 4_001)));

    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
    expect(recorded()).toMatchObject({ status: 'invalid', reason: expect.stringContaining('4,001 bytes') });
  });

  it('passes by objects that are not uploads (renditions, other prefixes) without a request', async () => {
    await handler(
      uploadEvent((record) => void (record.s3.object.key = renditionKey(ADDRESS, 'preview'))),
      lambdaContext(),
    );

    expect(s3.calls()).toHaveLength(0);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('does not record an older upload over the newer one the file holds', async () => {
    bucketHolds(await jpeg(32, 32));
    dynamo
      .on(GetCommand, { Key: FILE_KEY })
      .resolves({ Item: { ...FILE_ITEM, original: { status: 'ready', uploadId: NEWER_UPLOAD_ID } } });

    await handler(uploadEvent(), lambdaContext());

    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('takes a write refused because a newer upload landed meanwhile as done', async () => {
    bucketHolds(await jpeg(32, 32));
    dynamo
      .on(GetCommand, { Key: FILE_KEY })
      .resolvesOnce({ Item: FILE_ITEM })
      .resolves({ Item: { ...FILE_ITEM, original: { status: 'ready', uploadId: NEWER_UPLOAD_ID } } });
    dynamo.on(UpdateCommand).rejects(
      Object.assign(new Error('The conditional request failed'), {
        name: 'ConditionalCheckFailedException',
      }),
    );

    await expect(handler(uploadEvent(), lambdaContext())).resolves.toBeUndefined();
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('records nothing and does not throw when the job has no such file', async () => {
    bucketHolds(await jpeg(32, 32));
    dynamo.on(GetCommand).resolves({});

    await expect(handler(uploadEvent(), lambdaContext())).resolves.toBeUndefined();
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('moves a ready edited version a newer upload replaces to previousEdits in the same write', async () => {
    bucketHolds(await jpeg(32, 32));
    const replaced = { status: 'ready', uploadId: OLDER_UPLOAD_ID, width: 10, height: 10 };
    dynamo.on(GetCommand, { Key: FILE_KEY }).resolves({ Item: { ...FILE_ITEM, edited: replaced } });

    await handler(
      uploadEvent((record) => void (record.s3.object.key = keyOf('edited', UPLOAD_ID))),
      lambdaContext(),
    );

    const update = dynamo.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(update?.UpdateExpression).toContain('#previousEdits');
    expect(update?.ConditionExpression).toContain('#variant.#uploadId = :replacedUploadId');
    expect(update?.ExpressionAttributeValues).toMatchObject({
      ':movedEdit': [replaced],
      ':replacedUploadId': OLDER_UPLOAD_ID,
    });
    expect(recorded()).toMatchObject({ status: 'ready', uploadId: UPLOAD_ID });
  });

  it('throws while S3 is unavailable, after handling the event’s other records, so the event is delivered again', async () => {
    const bytes = await jpeg(32, 32);
    s3.on(GetObjectCommand, { Key: keyOf('original', UPLOAD_ID) }).rejects(
      Object.assign(new Error('Service Unavailable'), {
        name: 'ServiceUnavailable',
        $metadata: { httpStatusCode: 503 },
      }),
    );
    s3.on(GetObjectCommand, { Key: keyOf('edited', UPLOAD_ID) }).resolves({
      ContentLength: bytes.length,
      Body: Readable.from([bytes]) as never,
    });
    s3.on(PutObjectCommand).resolves({});
    const event = uploadEvent();
    const second = structuredClone(event.Records[0]!);
    second.s3.object.key = keyOf('edited', UPLOAD_ID);
    event.Records.push(second);

    await expect(handler(event, lambdaContext())).rejects.toThrow(
      '1 of 2 object-created record(s) could not be handled',
    );
    expect(recorded()).toMatchObject({ status: 'ready' });
  });

  it('throws while DynamoDB is unavailable, so the event is delivered again', async () => {
    bucketHolds(await jpeg(32, 32));
    dynamo.on(GetCommand).rejects(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' }));

    await expect(handler(uploadEvent(), lambdaContext())).rejects.toThrow('could not be handled');
  });
});

/**
 * The pictures on the local stack (`startLocalStack`, as `npm start` runs it): the S3 stand-in serves the stage's
 * bucket on loopback and each upload's object-created event reaches the images function in this process, after the
 * upload was answered — so a test uploads, waits for the stack to have processed it, and reads the file item.
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../../functions/aws/dynamodb';
import { newUploadId, renditionKey, uploadKey } from '../../functions/images/object-keys';
import { jobKeys } from '../../functions/tables';
import { makeJob } from '../support/jobs';
import { localS3Client } from '../support/local-s3';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
let s3: S3Client;

beforeAll(async () => {
  stack = await startTestStack();
  s3 = localS3Client(stack.s3Endpoint);
});

afterAll(async () => {
  s3.destroy();
  await stack.stop();
});

describe('pictures on the local stack', () => {
  it('serves the bucket on loopback and records an uploaded original ready with its renditions', async () => {
    const job = makeJob();
    await stack.importJobs([job]);
    const address = {
      accountId: job.accountId,
      jobId: job.id,
      fileId: job.files[0]!.id,
      variant: 'original' as const,
      uploadId: newUploadId(),
    };
    const bytes = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#3366aa' } })
      .jpeg()
      .toBuffer();

    expect(stack.s3Endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await s3.send(new PutObjectCommand({ Bucket: stack.imagesBucket, Key: uploadKey(address), Body: bytes }));
    await stack.imagesProcessed();

    const { Item } = await documentClient().send(
      new GetCommand({
        TableName: stack.tables.jobsTable,
        Key: { pk: jobKeys.pk(job.id), sk: jobKeys.fileSk(address.fileId) },
      }),
    );
    expect(Item?.original).toMatchObject({ status: 'ready', uploadId: address.uploadId, width: 300, height: 200 });
    const thumbnail = await s3.send(
      new GetObjectCommand({ Bucket: stack.imagesBucket, Key: renditionKey(address, 'thumbnail') }),
    );
    expect(thumbnail.ContentType).toBe('image/webp');
  });
});

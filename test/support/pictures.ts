/**
 * Pictures for tests that are not about pictures: a signer of upload targets and download URLs that needs no S3
 * (signing is local; the endpoint below is never contacted), the environment that configures the handlers' bucket
 * the same way, and ready variants written straight onto file items in DynamoDB Local — what the images function
 * records once an upload was checked and rendered — so a test of the job's life can ask for an offer or deliver
 * without uploading bytes.
 */
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapConcurrently } from '../../functions/async';
import { createS3Client, type PicturesBucket } from '../../functions/aws/s3';
import type { ReadyVariant, StoredVariant } from '../../functions/images/file-images';
import { newUploadId, type Variant } from '../../functions/images/object-keys';
import { PictureUrls } from '../../functions/images/picture-urls';
import { jobKeys } from '../../functions/tables';

/** A bucket and an endpoint no request ever reaches: tests that only sign. */
export const TEST_PICTURES = { bucket: 'jobs-images-test', endpoint: 'http://127.0.0.1:9' } as const;

/** The environment that points the handlers' signing at {@link TEST_PICTURES} (merge into process.env). */
export const picturesEnv = (): Record<string, string> => ({
  IMAGES_BUCKET: TEST_PICTURES.bucket,
  S3_ENDPOINT: TEST_PICTURES.endpoint,
});

/** The bucket and client of {@link TEST_PICTURES}. */
export const testPicturesBucket = (): PicturesBucket => ({
  client: createS3Client({ region: 'us-east-1', images: TEST_PICTURES }),
  bucket: TEST_PICTURES.bucket,
});

/** A `pictures` option for the use cases: signs with {@link TEST_PICTURES}' client, now. */
export const testPictures = (): (() => PictureUrls) => {
  const bucket = testPicturesBucket();
  return () => new PictureUrls(bucket);
};

/** A ready variant as the images function records it; any field can be overridden. */
export const readyVariant = (overrides: Partial<ReadyVariant> = {}): ReadyVariant => ({
  status: 'ready',
  uploadId: newUploadId(),
  contentType: 'image/jpeg',
  size: 245_760,
  width: 1_600,
  height: 1_200,
  sha256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
  uploadedDate: '2026-11-28T09:00:00.000Z',
  ...overrides,
});

/**
 * Writes `variant` (default a ready picture) on each file item of a job, as the images function does: the file
 * item only, nothing else of the job.
 */
export const writeVariant = async (
  documents: DynamoDBDocumentClient,
  tableName: string,
  jobId: number,
  fileIds: readonly number[],
  name: Variant,
  variant: (fileId: number) => StoredVariant = () => readyVariant(),
): Promise<void> => {
  await mapConcurrently(fileIds, 16, (fileId) =>
    documents.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: jobKeys.pk(jobId), sk: jobKeys.fileSk(fileId) },
        UpdateExpression: 'SET #variant = :variant',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#variant': name },
        ExpressionAttributeValues: { ':variant': variant(fileId) },
      }),
    ),
  );
};

/** Gives each file a ready original, as if the customer had uploaded it and it was checked. */
export const readyOriginals = (
  documents: DynamoDBDocumentClient,
  tableName: string,
  jobId: number,
  fileIds: readonly number[],
): Promise<void> => writeVariant(documents, tableName, jobId, fileIds, 'original');

/** Gives each file a ready edited version, as if staff had uploaded it and it was checked. */
export const readyEdits = (
  documents: DynamoDBDocumentClient,
  tableName: string,
  jobId: number,
  fileIds: readonly number[],
): Promise<void> => writeVariant(documents, tableName, jobId, fileIds, 'edited');

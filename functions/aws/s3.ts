/**
 * The S3 client of a container, for the pictures' bucket (docs/contract.md §6b), created once from the
 * configuration: path-style against the local S3 stand-in (`S3_ENDPOINT`), the regional endpoint in AWS. The
 * API's functions only sign URLs with it — locally, with the credentials the client resolves once and caches —
 * so signing a thousand upload targets sends no request. Checksums are added only where S3 requires them: a
 * presigned URL must not carry a checksum of an empty body the uploader never sends.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { type Config, config, ConfigError } from '../config';

/** The pictures' bucket and the client that signs for it. */
export interface PicturesBucket {
  client: S3Client;
  bucket: string;
}

/**
 * Builds an S3 client for a configuration (tests pass their own). `cacheMiddleware` (the SDK's own option) resolves
 * each command's middleware once: for a client that sends many of one command and whose middleware nobody changes
 * after its first request (the containers' clients stay without it: the cloud rehearsal watches them through
 * middleware it adds).
 */
export const createS3Client = (
  settings: Pick<Config, 'region' | 'images'>,
  options: { cacheMiddleware?: boolean } = {},
): S3Client =>
  new S3Client({
    region: settings.region,
    ...(options.cacheMiddleware === true ? { cacheMiddleware: true } : {}),
    ...(settings.images?.endpoint === undefined ? {} : { endpoint: settings.images.endpoint, forcePathStyle: true }),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });

let bucket: (PicturesBucket & { settings: Config['images'] }) | undefined;

/**
 * The container's pictures bucket and its client, made on first use (and again should the configuration name
 * another bucket or endpoint: the local runtime may start a stack after another in one process). A function asked
 * to sign for pictures without `IMAGES_BUCKET` is deployed wrong: a {@link ConfigError}, answered as an internal
 * error.
 */
export const picturesBucket = (): PicturesBucket => {
  const settings = config();
  if (bucket !== undefined && bucket.settings === settings.images) return bucket;
  if (settings.images === undefined) throw new ConfigError('IMAGES_BUCKET is required to sign picture URLs');
  bucket?.client.destroy();
  bucket = { client: createS3Client(settings), bucket: settings.images.bucket, settings: settings.images };
  return bucket;
};

/** Forgets the container's client (the local runtime and tests switch buckets). */
export const resetPicturesBucket = (): void => {
  bucket?.client.destroy();
  bucket = undefined;
};

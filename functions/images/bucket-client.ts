/**
 * The pictures' bucket as a container reaches it: one S3 client per container, made on first use from the
 * configuration (`IMAGES_BUCKET`; locally `S3_ENDPOINT`, the S3 stand-in, addressed path-style).
 */
import { S3Client } from '@aws-sdk/client-s3';
import { config, ConfigError } from '../config';

/** The bucket and the client that reaches it. */
export interface ImagesBucket {
  client: S3Client;
  bucket: string;
}

let current: ImagesBucket | undefined;

/** The container's bucket client; throws {@link ConfigError} where the function was given no bucket. */
export const imagesBucket = (): ImagesBucket => {
  if (current !== undefined) return current;
  const settings = config();
  if (settings.images === undefined) throw new ConfigError('IMAGES_BUCKET is required by the images function');
  const { bucket, endpoint } = settings.images;
  current = {
    bucket,
    client: new S3Client({
      region: settings.region,
      ...(endpoint === undefined ? {} : { endpoint, forcePathStyle: true }),
    }),
  };
  return current;
};

/** Forgets the container's client (the local runtime and tests switch endpoints). */
export const resetImagesBucket = (): void => {
  current?.client.destroy();
  current = undefined;
};

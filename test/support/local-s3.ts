/**
 * The AWS SDK's S3 client as the tests point it at the local S3 stand-in (local/s3/): path-style, the stand-in's
 * credential unless told otherwise, and checksums only where S3 requires them (as the product's presigning
 * client sends them).
 */
import { S3Client } from '@aws-sdk/client-s3';

export const LOCAL_S3_CREDENTIAL = { accessKeyId: 'local', secretAccessKey: 'local' };

export const localS3Client = (endpoint: string, credentials = LOCAL_S3_CREDENTIAL): S3Client =>
  new S3Client({
    endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });

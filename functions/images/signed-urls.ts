/**
 * The URLs the API hands out for pictures, signed locally by the AWS SDK's presigners (no request to S3 per URL):
 *
 * - an **upload target** for one variant of one file: a presigned POST (the key, a size range of 1 byte to 200 MB
 *   and the content type bound by its policy), or — when the file declared its `size` and `sha256` — a presigned
 *   PUT whose signed headers bind that exact length, the content type and the checksum, so S3 refuses any other
 *   bytes (`x-amz-checksum-sha256` travels as a signed header, which S3 checks against the body). Valid one hour.
 * - **download URLs** (presigned GET, 15 minutes) of an upload and its renditions; the download is named by the
 *   file's own name.
 *
 * The content type bound is the one the file's name suggests; what the picture really is, the images function
 * decides by its bytes.
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { IMAGE_LIMITS } from './render';

export const UPLOAD_TARGET_SECONDS = 3_600;
export const DOWNLOAD_URL_SECONDS = 900;

/** Where and how to send a picture's bytes. */
export type UploadTarget =
  | { url: string; method: 'POST'; fields: Record<string, string>; expiresAt: string }
  | { url: string; method: 'PUT'; headers: Record<string, string>; expiresAt: string };

/** What a file declared about its bytes when it was created. */
export interface DeclaredBytes {
  size?: number;
  /** Base64 SHA-256. */
  sha256?: string;
}

const TYPES_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpe: 'image/jpeg',
  png: 'image/png',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  webp: 'image/webp',
  avif: 'image/avif',
};

/** The content type a file's name suggests (`image/jpeg` when it suggests none we take). */
export const contentTypeForName = (fileName: string): string =>
  TYPES_BY_EXTENSION[/\.([^./]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? ''] ?? 'image/jpeg';

/** The target of one upload to `key`. `now` in milliseconds (tests fix it). */
export const uploadTarget = async (
  client: S3Client,
  bucket: string,
  key: string,
  fileName: string,
  declared: DeclaredBytes,
  now: number = Date.now(),
): Promise<UploadTarget> => {
  const contentType = contentTypeForName(fileName);
  const expiresAt = new Date(Math.floor(now / 1000) * 1000 + UPLOAD_TARGET_SECONDS * 1000).toISOString();
  if (declared.size !== undefined && declared.sha256 !== undefined) {
    const headers = { 'Content-Type': contentType, 'x-amz-checksum-sha256': declared.sha256 };
    const url = await getSignedUrl(
      client,
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        ContentType: contentType,
        ContentLength: declared.size,
        ChecksumSHA256: declared.sha256,
      }),
      {
        expiresIn: UPLOAD_TARGET_SECONDS,
        signingDate: new Date(now),
        signableHeaders: new Set(['content-type', 'content-length']),
        unhoistableHeaders: new Set(['x-amz-checksum-sha256']),
      },
    );
    return { url, method: 'PUT', headers, expiresAt };
  }
  const minimum = declared.size ?? 1;
  const maximum = declared.size ?? IMAGE_LIMITS.maxBytes;
  const post = await createPresignedPost(client, {
    Bucket: bucket,
    Key: key,
    Conditions: [
      ['content-length-range', minimum, maximum],
      ['eq', '$Content-Type', contentType],
    ],
    Fields: { 'Content-Type': contentType },
    Expires: UPLOAD_TARGET_SECONDS,
  });
  return { url: post.url, method: 'POST', fields: post.fields, expiresAt };
};

/** A presigned GET of `key`, valid 15 minutes; `downloadName` makes it a download under that name. */
export const downloadUrl = (
  client: S3Client,
  bucket: string,
  key: string,
  options: { downloadName?: string; now?: number } = {},
): Promise<string> =>
  getSignedUrl(
    client,
    new GetObjectCommand({
      Bucket: bucket,
      Key: key,
      ...(options.downloadName === undefined
        ? {}
        : { ResponseContentDisposition: contentDisposition(options.downloadName) }),
    }),
    { expiresIn: DOWNLOAD_URL_SECONDS, ...(options.now === undefined ? {} : { signingDate: new Date(options.now) }) },
  );

/**
 * `attachment` with the file's name: an ASCII fallback (anything else replaced by `_`, quotes and backslashes
 * too) and the exact name as RFC 8187 UTF-8 (`filename*`), which every current browser prefers.
 */
export const contentDisposition = (fileName: string): string => {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  )}`;
};

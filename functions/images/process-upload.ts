/**
 * What the images function does with one new object (docs/contract.md §6b "After an upload"): an upload's key
 * names the file and the variant (`object-keys.ts`; any other key is passed by), the object is read once and
 * never past the size limit, checked and rendered (`render.ts`), its preview and thumbnail written, and only then
 * the variant recorded `ready` on the file — or `invalid`, with the reason, when the bytes are no picture the
 * service takes.
 *
 * A verdict on the bytes is recorded, never thrown: S3 would otherwise deliver the event again and again. What
 * throws is what another attempt can get past — S3 or DynamoDB unavailable, a write that kept losing races — so
 * the event's retries and dead-letter queue apply.
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { S3EventRecord } from 'aws-lambda';
import type { StoredVariant } from './file-images';
import { parseUploadKey, renditionKey, type UploadAddress } from './object-keys';
import { IMAGE_LIMITS, RENDITION_TYPE, renderImage, tooLargeReason } from './render';

/** The limits a picture is checked against (the service's own, {@link IMAGE_LIMITS}, unless a test lowers them). */
export interface ImageLimits {
  maxBytes: number;
  maxPixels: number;
}

/** What recording a variant came to (as `jobs/store/file-images-write.ts` answers). */
export type RecordOutcome = 'recorded' | 'superseded' | 'no_file';

/** What became of one event record. */
export type UploadOutcome =
  | { kind: 'ignored'; key: string }
  | { kind: 'gone'; address: UploadAddress }
  | { kind: StoredVariant['status']; address: UploadAddress; recorded: RecordOutcome; reason?: string };

export interface UploadProcessorOptions {
  /** The client that reads the upload and writes its renditions. */
  s3: () => S3Client;
  /** Records a variant on its file item. */
  record: (address: UploadAddress, value: StoredVariant) => Promise<RecordOutcome>;
  /** Default {@link IMAGE_LIMITS}; may be lowered (tests), never raised. */
  limits?: ImageLimits;
}

/** An object key as S3 event records carry it: URL-encoded as in a form (a space is `+`). */
export const eventObjectKey = (record: S3EventRecord): string =>
  decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));

const capped = (limits: ImageLimits | undefined): ImageLimits => ({
  maxBytes: Math.min(limits?.maxBytes ?? IMAGE_LIMITS.maxBytes, IMAGE_LIMITS.maxBytes),
  maxPixels: Math.min(limits?.maxPixels ?? IMAGE_LIMITS.maxPixels, IMAGE_LIMITS.maxPixels),
});

/** A stream's bytes, or `undefined` as soon as they exceed `maxBytes` (the rest is not read). */
const readAtMost = async (body: unknown, maxBytes: number): Promise<Buffer | undefined> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) return undefined;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks, size);
};

/** Lets go of a response body that will not be read. */
const discard = (body: unknown): void => {
  const destroy = (body as { destroy?: () => void } | undefined)?.destroy;
  if (typeof destroy === 'function') destroy.call(body);
};

/**
 * The upload's bytes, read once: `too_large` without reading them when S3 says they are over the limit, `gone`
 * when the object no longer exists.
 */
const readUpload = async (
  client: S3Client,
  bucket: string,
  key: string,
  maxBytes: number,
): Promise<{ bytes: Buffer } | { tooLarge: number } | 'gone'> => {
  let output;
  try {
    output = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  } catch (error) {
    if ((error as { name?: unknown }).name === 'NoSuchKey') return 'gone';
    throw error;
  }
  const length = output.ContentLength;
  if (length !== undefined && length > maxBytes) {
    discard(output.Body);
    return { tooLarge: length };
  }
  const bytes = await readAtMost(output.Body, maxBytes);
  return bytes === undefined ? { tooLarge: length ?? maxBytes + 1 } : { bytes };
};

/** Handles one record of an S3 event. */
export const processUpload = async (record: S3EventRecord, options: UploadProcessorOptions): Promise<UploadOutcome> => {
  const key = eventObjectKey(record);
  const address = parseUploadKey(key);
  if (address === undefined || !record.eventName.startsWith('ObjectCreated:')) return { kind: 'ignored', key };
  const limits = capped(options.limits);
  const bucket = record.s3.bucket.name;
  const uploadedDate = new Date(record.eventTime).toISOString();
  const invalid = async (reason: string): Promise<UploadOutcome> => {
    const recorded = await options.record(address, {
      status: 'invalid',
      uploadId: address.uploadId,
      reason,
      uploadedDate,
    });
    return { kind: 'invalid', address, recorded, reason };
  };

  const announced = record.s3.object.size;
  if (typeof announced === 'number' && announced > limits.maxBytes) return invalid(tooLargeReason(announced, limits));
  const client = options.s3();
  const read = await readUpload(client, bucket, key, limits.maxBytes);
  if (read === 'gone') return { kind: 'gone', address };
  if ('tooLarge' in read) return invalid(tooLargeReason(read.tooLarge, limits));

  const image = await renderImage(read.bytes, limits);
  if (image.status === 'invalid') return invalid(image.reason);
  await Promise.all(
    (['preview', 'thumbnail'] as const).map((rendition) =>
      client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: renditionKey(address, rendition),
          Body: image[rendition].bytes,
          ContentType: RENDITION_TYPE,
        }),
      ),
    ),
  );
  const recorded = await options.record(address, {
    status: 'ready',
    uploadId: address.uploadId,
    contentType: image.contentType,
    size: image.size,
    width: image.width,
    height: image.height,
    sha256: image.sha256,
    uploadedDate,
  });
  return { kind: 'ready', address, recorded };
};

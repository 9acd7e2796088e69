/**
 * The pictures as the API hands them out (docs/contract.md §6b), for one request: upload targets bound to a new
 * upload of one variant of one file, and the stored state of a variant as a caller reads it — a ready picture
 * with its thumbnail, preview and download URLs (presigned GETs, 15 minutes, the download named by the file's
 * name), an invalid one with its reason, `null` before any upload. The upload id a stored variant carries is
 * the service's own bookkeeping and is never answered.
 *
 * One instance signs with one client and one clock for the whole request: the credentials are resolved once
 * (the client caches them) and every URL of an answer expires at the same moment.
 */
import type { PicturesBucket } from '../aws/s3';
import type { StoredVariant } from './file-images';
import { newUploadId, renditionKey, type UploadAddress, uploadKey, type Variant } from './object-keys';
import { type DeclaredBytes, downloadUrl, type UploadTarget, uploadTarget } from './signed-urls';

/** A variant ready to be shown and delivered, with its URLs. */
export interface ReadyVariantView {
  status: 'ready';
  contentType: string;
  size: number;
  width: number;
  height: number;
  sha256: string;
  uploadedDate: string;
  thumbnailUrl: string;
  previewUrl: string;
  downloadUrl: string;
}

/** Bytes the service did not take, and why. */
export interface InvalidVariantView {
  status: 'invalid';
  reason: string;
  uploadedDate: string;
}

/** A variant as the API answers it: `null` until its first upload arrived. */
export type VariantView = ReadyVariantView | InvalidVariantView | null;

/**
 * A stored variant as the API answers it when it carries no URL: `null` before any upload, an invalid picture
 * with its reason; `undefined` for a ready one, which needs {@link PictureUrls.view}.
 */
export const unsignedView = (stored: StoredVariant | null | undefined): InvalidVariantView | null | undefined => {
  if (stored === undefined || stored === null) return null;
  if (stored.status === 'ready') return undefined;
  return { status: 'invalid', reason: stored.reason, uploadedDate: stored.uploadedDate };
};

/** The file a picture belongs to: what its object keys name. */
export interface PictureOwner {
  accountId: number;
  jobId: number;
  fileId: number;
}

/** Signs a request's picture URLs with one client and one clock. */
export class PictureUrls {
  private readonly bucket: PicturesBucket;
  private readonly now: number;

  public constructor(bucket: PicturesBucket, now: number = Date.now()) {
    this.bucket = bucket;
    this.now = now;
  }

  /** The target of a new upload of `variant` of a file: a key of its own (a new upload id), valid one hour. */
  public uploadTarget(
    owner: PictureOwner,
    variant: Variant,
    fileName: string,
    declared: DeclaredBytes = {},
  ): Promise<UploadTarget> {
    const key = uploadKey({ ...owner, variant, uploadId: newUploadId(this.now) });
    return uploadTarget(this.bucket.client, this.bucket.bucket, key, fileName, declared, this.now);
  }

  /** A stored variant as the API answers it, with its URLs when it is ready. */
  public async view(
    owner: PictureOwner,
    variant: Variant,
    fileName: string,
    stored: StoredVariant | null | undefined,
  ): Promise<VariantView> {
    if (stored?.status !== 'ready') return unsignedView(stored) ?? null;
    const address: UploadAddress = { ...owner, variant, uploadId: stored.uploadId };
    const sign = (key: string, downloadName?: string) =>
      downloadUrl(this.bucket.client, this.bucket.bucket, key, {
        now: this.now,
        ...(downloadName === undefined ? {} : { downloadName }),
      });
    const [thumbnailUrl, previewUrl, download] = await Promise.all([
      sign(renditionKey(address, 'thumbnail')),
      sign(renditionKey(address, 'preview')),
      sign(uploadKey(address), fileName),
    ]);
    return {
      status: 'ready',
      contentType: stored.contentType,
      size: stored.size,
      width: stored.width,
      height: stored.height,
      sha256: stored.sha256,
      uploadedDate: stored.uploadedDate,
      thumbnailUrl,
      previewUrl,
      downloadUrl: download,
    };
  }
}

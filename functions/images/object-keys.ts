/**
 * Where a picture lives in the bucket. Every key names the account, the job, the file and the variant, so a URL
 * signed for one key can only ever reach one object of one file. Each upload target gets an upload id of its own:
 * a re-upload never overwrites the bytes an earlier version (a delivered edit) still points to.
 *
 * - `uploads/<accountId>/<jobId>/<fileId>/<variant>/<uploadId>` — the bytes as uploaded; the bucket announces
 *   only this prefix to the images function.
 * - `renditions/<accountId>/<jobId>/<fileId>/<variant>/<uploadId>/preview.webp` and `…/thumbnail.webp` — what the
 *   images function makes of them.
 */
import { randomBytes } from 'node:crypto';

export const VARIANTS = ['original', 'edited'] as const;
export type Variant = (typeof VARIANTS)[number];

export const UPLOADS_PREFIX = 'uploads/';
export const RENDITIONS_PREFIX = 'renditions/';

export type Rendition = 'preview' | 'thumbnail';

/** What an upload's key names. */
export interface UploadAddress {
  accountId: number;
  jobId: number;
  fileId: number;
  variant: Variant;
  uploadId: string;
}

/** A new upload id: the time in base 36 (so ids sort by when their target was made), then 64 random bits. */
export const newUploadId = (now: number = Date.now()): string =>
  `${now.toString(36).padStart(9, '0')}${randomBytes(8).toString('hex')}`;

const UPLOAD_ID = /^[0-9a-z]{9}[0-9a-f]{16}$/;

const base = (address: UploadAddress): string =>
  `${address.accountId}/${address.jobId}/${address.fileId}/${address.variant}/${address.uploadId}`;

/** The key an upload writes. */
export const uploadKey = (address: UploadAddress): string => `${UPLOADS_PREFIX}${base(address)}`;

/** The key of a rendition of an upload. */
export const renditionKey = (address: UploadAddress, rendition: Rendition): string =>
  `${RENDITIONS_PREFIX}${base(address)}/${rendition}.webp`;

const ID = /^[1-9][0-9]{0,15}$/;

/** What an upload key names, or `undefined` for any other key (the images function ignores those). */
export const parseUploadKey = (key: string): UploadAddress | undefined => {
  if (!key.startsWith(UPLOADS_PREFIX)) return undefined;
  const parts = key.slice(UPLOADS_PREFIX.length).split('/');
  if (parts.length !== 5) return undefined;
  const [accountId, jobId, fileId, variant, uploadId] = parts as [string, string, string, string, string];
  if (!ID.test(accountId) && accountId !== '0') return undefined;
  if (!ID.test(jobId) || !ID.test(fileId) || !UPLOAD_ID.test(uploadId)) return undefined;
  if (!(VARIANTS as readonly string[]).includes(variant)) return undefined;
  return {
    accountId: Number(accountId),
    jobId: Number(jobId),
    fileId: Number(fileId),
    variant: variant as Variant,
    uploadId,
  };
};

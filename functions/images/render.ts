/**
 * A picture checked and rendered, with a bounded decoder: its type by its bytes (`image-type.ts`), its size and
 * pixel count against the service's limits before anything is decoded (a decompression bomb declares its size in
 * its header, and is refused there), then one decode that fails on a corrupt or truncated file. A picture that
 * passes gets a preview (longest side 2,048 px) and a thumbnail (longest side 320 px, made from the preview, so the
 * original is decoded once), both WebP — small, and with the transparency a cut-out product photo keeps.
 *
 * Nothing here throws for a bad picture: it is described as invalid, with a reason a person can act on.
 */
import { createHash } from 'node:crypto';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { sniffImageType, type ImageType } from './image-type';

/** The service's limits on a picture. */
export const IMAGE_LIMITS = {
  /** 200 MB. */
  maxBytes: 200_000_000,
  /** 100 megapixels. */
  maxPixels: 100_000_000,
} as const;

/** The longest side of each rendition, in pixels. */
export const PREVIEW_SIDE = 2_048;
export const THUMBNAIL_SIDE = 320;
export const RENDITION_TYPE = 'image/webp';

/** A rendition written beside the picture. */
export interface Rendition {
  bytes: Buffer;
  width: number;
  height: number;
}

/** A picture that may be shown and delivered. */
export interface ReadyImage {
  status: 'ready';
  contentType: ImageType;
  size: number;
  /** As displayed: after the EXIF orientation is applied. */
  width: number;
  height: number;
  /** The SHA-256 of the bytes, base64 (the form an uploader declares it in). */
  sha256: string;
  preview: Rendition;
  thumbnail: Rendition;
}

/** A picture the service does not take, and why. */
export interface InvalidImage {
  status: 'invalid';
  reason: string;
}

export type RenderedImage = ReadyImage | InvalidImage;

/** The decoder sharp must pick for each recognised type: bytes that start as one type and decode as another are refused. */
const DECODERS: Record<ImageType, string> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/tiff': 'tiff',
  'image/webp': 'webp',
  'image/avif': 'heif',
};

const invalid = (reason: string): InvalidImage => ({ status: 'invalid', reason });

const describeBytes = (bytes: number): string => `${bytes.toLocaleString('en-US')} bytes`;

/** Why a file of `size` bytes is refused, when it is over the limit (the images function says it before reading). */
export const tooLargeReason = (size: number, limits: { maxBytes: number } = IMAGE_LIMITS): string =>
  `The file is ${describeBytes(size)}; at most ${describeBytes(limits.maxBytes)} are taken.`;

/** Checks a picture and renders its preview and thumbnail; `limits` may be lowered (tests), never raised. */
export const renderImage = async (
  bytes: Buffer,
  limits: { maxBytes: number; maxPixels: number } = IMAGE_LIMITS,
): Promise<RenderedImage> => {
  if (bytes.length === 0) return invalid('The file is empty.');
  if (bytes.length > limits.maxBytes) return invalid(tooLargeReason(bytes.length, limits));
  const contentType = sniffImageType(bytes);
  if (contentType === undefined)
    return invalid('The file is not a picture of a type the service takes (JPEG, PNG, TIFF, WebP or AVIF).');
  const input = { limitInputPixels: limits.maxPixels, failOn: 'error' as const, sequentialRead: true };
  let metadata: Metadata;
  try {
    // The header alone (no pixel is decoded), read without the pixel limit so a bomb is named as one below.
    metadata = await sharp(bytes, { failOn: 'error', limitInputPixels: false }).metadata();
  } catch {
    return invalid(`The file starts as ${contentType} but cannot be read as one.`);
  }
  if (metadata.format !== DECODERS[contentType])
    return invalid(`The file starts as ${contentType} but cannot be read as one.`);
  const pixels = metadata.width * metadata.height;
  if (pixels > limits.maxPixels)
    return invalid(
      `The picture declares ${metadata.width} × ${metadata.height} pixels; at most ${(limits.maxPixels / 1e6).toLocaleString('en-US')} megapixels are taken.`,
    );
  let preview: Rendition;
  let thumbnail: Rendition;
  try {
    preview = await rendition(sharp(bytes, input).autoOrient(), PREVIEW_SIDE);
    thumbnail = await rendition(sharp(preview.bytes), THUMBNAIL_SIDE);
  } catch {
    return invalid(`The ${contentType} picture is corrupt or truncated.`);
  }
  return {
    status: 'ready',
    contentType,
    size: bytes.length,
    width: metadata.autoOrient.width,
    height: metadata.autoOrient.height,
    sha256: createHash('sha256').update(bytes).digest('base64'),
    preview,
    thumbnail,
  };
};

const rendition = async (image: Sharp, side: number): Promise<Rendition> => {
  const { data, info } = await image
    .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
    .webp({ quality: 80 })
    .toBuffer({ resolveWithObject: true });
  return { bytes: data, width: info.width, height: info.height };
};

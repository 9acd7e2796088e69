/**
 * A picture checked and rendered (functions/images/render.ts) on real bytes that sharp makes here: each type the
 * service takes becomes ready with its preview and thumbnail; a non-image, a file that starts as one type and is
 * another, a truncated JPEG, a decompression bomb and a file over the size limit are described as invalid with a
 * reason — never thrown.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { sniffImageType } from '../../../functions/images/image-type';
import { IMAGE_LIMITS, PREVIEW_SIDE, renderImage, THUMBNAIL_SIDE } from '../../../functions/images/render';

/** A picture of `width` × `height` with some structure in it (a gradient), in `format`. */
const picture = async (width: number, height: number, format: 'jpeg' | 'png' | 'tiff' | 'webp' | 'avif') => {
  const raw = Buffer.alloc(width * height * 3);
  for (let index = 0; index < raw.length; index += 3) {
    const pixel = index / 3;
    raw[index] = (pixel % width) % 256;
    raw[index + 1] = Math.floor(pixel / width) % 256;
    raw[index + 2] = 128;
  }
  const image = sharp(raw, { raw: { width, height, channels: 3 } });
  // AVIF's encoder at its default effort takes tens of seconds for a picture this size; the least effort suffices.
  return (format === 'avif' ? image.avif({ effort: 0 }) : image.toFormat(format)).toBuffer();
};

/** A PNG of only its signature, its header and its end: the header may declare any size (a bomb's trick). */
const pngDeclaring = (width: number, height: number): Buffer => {
  const chunk = (type: string, data: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
};

const crc32 = (bytes: Buffer): number => {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
};

describe('renderImage', () => {
  // Large enough that the preview is scaled down; AVIF, slow to encode and decode, is tried at a smaller size.
  it.each([
    ['jpeg', 'image/jpeg', 2100, 1400, { width: PREVIEW_SIDE, height: 1365 }],
    ['png', 'image/png', 2100, 1400, { width: PREVIEW_SIDE, height: 1365 }],
    ['tiff', 'image/tiff', 2100, 1400, { width: PREVIEW_SIDE, height: 1365 }],
    ['webp', 'image/webp', 2100, 1400, { width: PREVIEW_SIDE, height: 1365 }],
    ['avif', 'image/avif', 480, 320, { width: 480, height: 320 }],
  ] as const)(
    'takes a %s picture, decided by its bytes, with its preview and thumbnail',
    async (format, type, width, height, preview) => {
      const bytes = await picture(width, height, format);

      const image = await renderImage(bytes);

      expect(image).toMatchObject({
        status: 'ready',
        contentType: type,
        size: bytes.length,
        width,
        height,
        sha256: createHash('sha256').update(bytes).digest('base64'),
        preview,
        thumbnail: { width: THUMBNAIL_SIDE, height: 213 },
      });
      if (image.status !== 'ready') return;
      expect(sniffImageType(image.preview.bytes)).toBe('image/webp');
      expect(await sharp(image.thumbnail.bytes).metadata()).toMatchObject({ format: 'webp', width: 320, height: 213 });
    },
  );

  it('never enlarges a small picture: its renditions keep its size', async () => {
    const image = await renderImage(await picture(200, 100, 'png'));
    expect(image).toMatchObject({ status: 'ready', preview: { width: 200, height: 100 }, thumbnail: { width: 200 } });
  });

  it('reports the size as displayed, after the EXIF orientation', async () => {
    const rotated = await sharp(await picture(400, 300, 'jpeg'))
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    expect(await renderImage(rotated)).toMatchObject({
      status: 'ready',
      width: 300,
      height: 400,
      preview: { width: 300, height: 400 },
    });
  });

  it('refuses what is not a picture, whatever it is called', async () => {
    expect(await renderImage(Buffer.from('%PDF-1.7 not a picture at all'))).toEqual({
      status: 'invalid',
      reason: 'The file is not a picture of a type the service takes (JPEG, PNG, TIFF, WebP or AVIF).',
    });
    expect(await renderImage(Buffer.alloc(0))).toEqual({ status: 'invalid', reason: 'The file is empty.' });
    const gif = await sharp(await picture(10, 10, 'png'))
      .gif()
      .toBuffer();
    expect(await renderImage(gif)).toMatchObject({ status: 'invalid' });
  });

  it('refuses a truncated JPEG as corrupt', async () => {
    const whole = await picture(1200, 800, 'jpeg');
    const image = await renderImage(whole.subarray(0, Math.floor(whole.length / 2)));
    expect(image).toEqual({ status: 'invalid', reason: 'The image/jpeg picture is corrupt or truncated.' });
  });

  it('refuses bytes that start as one type and are not it', async () => {
    const fake = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.from('no JPEG follows')]);
    expect(await renderImage(fake)).toEqual({
      status: 'invalid',
      reason: 'The file starts as image/jpeg but cannot be read as one.',
    });
  });

  it('refuses a decompression bomb (a tiny PNG declaring 50,000 × 50,000 pixels) from its header, before decoding', async () => {
    const bomb = pngDeclaring(50_000, 50_000);
    expect(bomb.length).toBeLessThan(200);
    const before = process.memoryUsage().rss;

    const image = await renderImage(bomb);

    expect(image).toEqual({
      status: 'invalid',
      reason: 'The picture declares 50000 × 50000 pixels; at most 100 megapixels are taken.',
    });
    // 2.5 gigapixels decoded would take gigabytes; nothing of the kind was allocated.
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 ** 2);
  });

  it('refuses a file over the size limit without reading it as a picture', async () => {
    const bytes = await picture(100, 100, 'png');
    const image = await renderImage(bytes, { ...IMAGE_LIMITS, maxBytes: bytes.length - 1 });
    expect(image).toEqual({
      status: 'invalid',
      reason: `The file is ${bytes.length.toLocaleString('en-US')} bytes; at most ${(bytes.length - 1).toLocaleString('en-US')} bytes are taken.`,
    });
  });

  it('keeps the limits of the service: 200 MB and 100 megapixels', () => {
    expect(IMAGE_LIMITS).toEqual({ maxBytes: 200_000_000, maxPixels: 100_000_000 });
  });
});

/**
 * What a picture is, decided by its first bytes — never by its name or the type its uploader declared. Only the
 * five types the service takes are recognised; anything else is not an image here.
 *
 * The signatures: JPEG starts `FF D8 FF`; PNG with its eight-byte signature `89 50 4E 47 0D 0A 1A 0A`; TIFF with
 * `II*\0` (little-endian) or `MM\0*` (big-endian); WebP is a RIFF container whose form type is `WEBP`; AVIF is an
 * ISO base media file whose `ftyp` box names the `avif` or `avis` brand (as its major or a compatible brand).
 */

/** The picture types the service takes, by their media type. */
export const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/tiff', 'image/webp', 'image/avif'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0): boolean =>
  bytes.length >= at + signature.length && signature.every((byte, index) => bytes[at + index] === byte);

const ascii = (text: string): number[] => [...text].map((character) => character.charCodeAt(0));

/** The brands of an ISO BMFF `ftyp` box at the start of the bytes (major first), or none. */
const ftypBrands = (bytes: Uint8Array): string[] => {
  if (!startsWith(bytes, ascii('ftyp'), 4)) return [];
  const size = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
  if (size < 16 || size > bytes.length) return [];
  const text = (at: number): string => String.fromCharCode(...bytes.subarray(at, at + 4));
  const brands = [text(8)];
  for (let at = 16; at + 4 <= size; at += 4) brands.push(text(at));
  return brands;
};

/** The type of a picture from its first bytes (a few dozen suffice), or `undefined` when it is none we take. */
export const sniffImageType = (bytes: Uint8Array): ImageType | undefined => {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'image/tiff';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  const brands = ftypBrands(bytes);
  if (brands.includes('avif') || brands.includes('avis')) return 'image/avif';
  return undefined;
};

/**
 * Picture keys (functions/images/object-keys.ts) name one variant of one file of one job of one account, and the
 * images function reads back only keys of that shape.
 */
import { describe, expect, it } from 'vitest';
import { contentDisposition, contentTypeForName } from '../../../functions/images/signed-urls';
import {
  newUploadId,
  parseUploadKey,
  renditionKey,
  uploadKey,
  type UploadAddress,
} from '../../../functions/images/object-keys';

const address: UploadAddress = {
  accountId: 1001,
  jobId: 10_003,
  fileId: 200_017,
  variant: 'edited',
  uploadId: newUploadId(0),
};

describe('picture keys', () => {
  it('name the account, job, file, variant and upload, and read back as what they name', () => {
    expect(uploadKey(address)).toBe(`uploads/1001/10003/200017/edited/${address.uploadId}`);
    expect(parseUploadKey(uploadKey(address))).toEqual(address);
    expect(renditionKey(address, 'thumbnail')).toBe(
      `renditions/1001/10003/200017/edited/${address.uploadId}/thumbnail.webp`,
    );
  });

  it('give every upload an id of its own that sorts by when it was made', () => {
    const ids = [newUploadId(1_000), newUploadId(2_000), newUploadId(2_000)];
    expect(new Set(ids).size).toBe(3);
    expect([...ids].sort()[0]).toBe(ids[0]);
  });

  it.each([
    ['a rendition', renditionKey(address, 'preview')],
    ['another variant', uploadKey(address).replace('/edited/', '/clipped/')],
    ['a non-numeric job', uploadKey(address).replace('/10003/', '/x/')],
    ['a missing upload id', `uploads/1001/10003/200017/edited`],
    ['an extra level', `${uploadKey(address)}/more`],
    ['another prefix', uploadKey(address).replace('uploads/', 'elsewhere/')],
  ])('ignore %s', (_, key) => {
    expect(parseUploadKey(key)).toBeUndefined();
  });
});

describe('what an upload target binds', () => {
  it.each([
    ['IMG_1.JPG', 'image/jpeg'],
    ['scan.tiff', 'image/tiff'],
    ['cut-out.png', 'image/png'],
    ['photo.avif', 'image/avif'],
    ['photo.webp', 'image/webp'],
    ['no-extension', 'image/jpeg'],
    ['document.pdf', 'image/jpeg'],
  ])('the content type of %s is %s', (name, type) => {
    expect(contentTypeForName(name)).toBe(type);
  });

  it('names a download by the file name, with an ASCII fallback and the exact UTF-8 name', () => {
    expect(contentDisposition('Café "noir".jpg')).toBe(
      `attachment; filename="Caf_ _noir_.jpg"; filename*=UTF-8''Caf%C3%A9%20%22noir%22.jpg`,
    );
  });
});

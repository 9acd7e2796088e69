/**
 * The local S3's directory store (local/s3/object-store.ts): objects put together keep each distinct body once, and
 * read back exactly as objects put one by one — across a restart, under later puts and deletes — while a data
 * directory of objects put one by one stays readable.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { directoryObjectStore, type StoredObject } from '../../../local/s3/object-store';

const BUCKET = 'pictures';

const object = (text: string, contentType = 'image/jpeg'): StoredObject => ({
  body: Buffer.from(text),
  contentType,
  etag: `etag-of-${text}`,
  lastModified: '2026-01-02T03:04:05.000Z',
  metadata: {},
});

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'object-store-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Every file under the store's directory, by its path from there. */
const filesIn = (directory: string): string[] =>
  readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));

describe('the local S3 directory store', () => {
  it('keeps each distinct body of objects put together once, however many keys share it', async () => {
    const shared = [object('first picture'), object('second picture', 'image/webp')];
    const entries = Array.from({ length: 500 }, (_, index) => ({
      key: `uploads/${index}`,
      object: shared[index % 2]!,
    }));

    await directoryObjectStore(root).putMany(BUCKET, entries);

    // Two bodies and one index, not a file per key.
    expect(filesIn(root)).toHaveLength(3);
  });

  it('reads objects put together back with the same bytes and description, after a restart too', async () => {
    const first = object('first picture');
    const second = { ...object('second picture', 'image/webp'), metadata: { source: 'demo' } };
    const store = directoryObjectStore(root);
    await store.putMany(BUCKET, [
      { key: 'a/1', object: first },
      { key: 'a/2', object: second },
      { key: 'a/3', object: first },
    ]);

    for (const reader of [store, directoryObjectStore(root)]) {
      expect(await reader.get(BUCKET, 'a/1')).toEqual(first);
      expect(await reader.get(BUCKET, 'a/2')).toEqual(second);
      expect(await reader.get(BUCKET, 'a/3')).toEqual(first);
      expect(await reader.get(BUCKET, 'a/4')).toBeUndefined();
      expect(await reader.get('another-bucket', 'a/1')).toBeUndefined();
    }
  });

  it('lets a later put or delete of a key put together win, after a restart too', async () => {
    const store = directoryObjectStore(root);
    await store.putMany(BUCKET, [
      { key: 'replaced', object: object('old') },
      { key: 'deleted', object: object('old') },
      { key: 'deleted-then-put', object: object('old') },
    ]);
    await store.put(BUCKET, 'replaced', object('new'));
    await store.delete(BUCKET, 'deleted');
    await store.delete(BUCKET, 'deleted-then-put');
    await store.put(BUCKET, 'deleted-then-put', object('again'));

    for (const reader of [store, directoryObjectStore(root)]) {
      expect(await reader.get(BUCKET, 'replaced')).toEqual(object('new'));
      expect(await reader.get(BUCKET, 'deleted')).toBeUndefined();
      expect(await reader.get(BUCKET, 'deleted-then-put')).toEqual(object('again'));
    }
  });

  it('lets objects put together win over earlier ones of the same keys, put alone, deleted or put together', async () => {
    const store = directoryObjectStore(root);
    await store.put(BUCKET, 'alone', object('alone'));
    await store.putMany(BUCKET, [{ key: 'deleted', object: object('packed') }]);
    await store.delete(BUCKET, 'deleted');
    await store.putMany(BUCKET, [{ key: 'twice', object: object('first pack') }]);

    await store.putMany(BUCKET, [
      { key: 'alone', object: object('pack') },
      { key: 'deleted', object: object('pack') },
      { key: 'twice', object: object('pack') },
    ]);

    for (const reader of [store, directoryObjectStore(root)]) {
      for (const key of ['alone', 'deleted', 'twice']) expect(await reader.get(BUCKET, key)).toEqual(object('pack'));
    }
  });

  it('reads a data directory of objects put one by one, as earlier versions wrote it', async () => {
    const writer = directoryObjectStore(root);
    await writer.put(BUCKET, 'kept/one', { ...object('kept'), checksumSha256: 'c2hhMjU2' });

    expect(await directoryObjectStore(root).get(BUCKET, 'kept/one')).toEqual({
      ...object('kept'),
      checksumSha256: 'c2hhMjU2',
    });
    expect(filesIn(root).map((file) => file.slice(root.length + 1))).toEqual([
      expect.stringMatching(/^[0-9a-f]{64}\.object$/),
    ]);
  });
});

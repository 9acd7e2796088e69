/**
 * Where the local S3 stand-in keeps its objects: in memory (`DATA_DIR=:memory:`) or in a directory, one body and
 * its metadata in one file per object, named by the SHA-256 of bucket and key (a key may hold any character). A
 * write goes to a temporary file first and is renamed into place, so a reader never sees half an object.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** An object as S3 describes it. */
export interface StoredObject {
  body: Buffer;
  contentType: string;
  /** The MD5 of the body, hex: S3's ETag of a single-part upload. */
  etag: string;
  lastModified: string;
  /** `x-amz-meta-*` headers, names without the prefix. */
  metadata: Record<string, string>;
  /** The SHA-256 checksum the uploader declared (base64), when it declared one. */
  checksumSha256?: string;
}

/** The objects of every bucket of the stand-in. */
export interface ObjectStore {
  put(bucket: string, key: string, object: StoredObject): Promise<void>;
  get(bucket: string, key: string): Promise<StoredObject | undefined>;
  delete(bucket: string, key: string): Promise<void>;
}

/** A store that keeps nothing once the process ends. */
export const memoryObjectStore = (): ObjectStore => {
  const objects = new Map<string, StoredObject>();
  const name = (bucket: string, key: string): string => `${bucket}/${key}`;
  return {
    put: async (bucket, key, object) => {
      objects.set(name(bucket, key), object);
    },
    get: async (bucket, key) => objects.get(name(bucket, key)),
    delete: async (bucket, key) => {
      objects.delete(name(bucket, key));
    },
  };
};

type Metadata = Omit<StoredObject, 'body'> & { bucket: string; key: string };

/**
 * A store under `root`: one file per object, `<hash>.object`, holding the length of its metadata (4 bytes), the
 * metadata as JSON, then the body, so an object and its description are replaced together.
 */
export const directoryObjectStore = (root: string): ObjectStore => {
  const path = (bucket: string, key: string): string =>
    join(root, `${createHash('sha256').update(`${bucket}\n${key}`).digest('hex')}.object`);
  return {
    put: async (bucket, key, object) => {
      await mkdir(root, { recursive: true });
      const { body, ...described } = object;
      const metadata = Buffer.from(JSON.stringify({ ...described, bucket, key } satisfies Metadata));
      const length = Buffer.alloc(4);
      length.writeUInt32BE(metadata.length);
      const target = path(bucket, key);
      const temporary = `${target}.${randomUUID()}.tmp`;
      await writeFile(temporary, Buffer.concat([length, metadata, body]));
      await rename(temporary, target);
    },
    get: async (bucket, key) => {
      let file: Buffer;
      try {
        file = await readFile(path(bucket, key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      const length = file.readUInt32BE(0);
      const {
        bucket: _bucket,
        key: _key,
        ...described
      } = JSON.parse(file.subarray(4, 4 + length).toString('utf8')) as Metadata;
      return { ...described, body: file.subarray(4 + length) };
    },
    delete: async (bucket, key) => {
      await rm(path(bucket, key), { force: true });
    },
  };
};

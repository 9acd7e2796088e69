/**
 * A job's pictures through their whole life, over real HTTP and the local S3 stand-in, as a platform sends them:
 * the customer creates a job and uploads each original through the target the create answered (a presigned POST
 * form for one file, a presigned PUT binding the declared size and checksum for the other), sees each file ready
 * with a thumbnail and asks for an offer; staff download the originals, upload edited versions through fresh
 * targets and deliver; the customer sees the edited previews, rejects one with a position and accepts the other;
 * staff upload a new edit and deliver again; the customer accepts it and the job is finished. Every download is
 * compared with what was uploaded by its SHA-256.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IssuedTokens, ok, startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
let customer: IssuedTokens;
let staff: IssuedTokens;

beforeAll(async () => {
  stack = await startTestStack();
  customer = await stack.issue({ grants: ['jobs', 'reject'] });
  staff = await stack.issue({ grants: ['jobs', 'reject'], role: 'operator', accountId: 1 });
});

afterAll(async () => {
  await stack?.stop();
});

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('base64');

/** A distinct JPEG picture of the given size and colour. */
const picture = (width: number, height: number, background: string): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background } })
    .jpeg({ quality: 85 })
    .toBuffer();

type Target =
  | { url: string; method: 'POST'; fields: Record<string, string>; expiresAt: string }
  | { url: string; method: 'PUT'; headers: Record<string, string>; expiresAt: string };

/** Sends bytes to an upload target as it says: every field of a POST form then the file, or a PUT with its headers. */
const upload = async (target: Target, bytes: Buffer, fileName: string): Promise<number> => {
  if (target.method === 'PUT') {
    return (await fetch(target.url, { method: 'PUT', headers: target.headers, body: bytes })).status;
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(target.fields)) form.append(name, value);
  form.append('file', new Blob([bytes], { type: target.fields['Content-Type'] }), fileName);
  return (await fetch(target.url, { method: 'POST', body: form })).status;
};

interface Variant {
  status: string;
  sha256: string;
  width: number;
  height: number;
  thumbnailUrl: string;
  previewUrl: string;
  downloadUrl: string;
}
interface ListedFile {
  id: number;
  fileName: string;
  original: Variant | null;
  edited: Variant | null;
}

/** What a presigned GET answers: its status, type, disposition and the bytes' checksum. */
const download = async (url: string) => {
  const answer = await fetch(url);
  const bytes = new Uint8Array(await answer.arrayBuffer());
  return {
    status: answer.status,
    contentType: answer.headers.get('content-type'),
    disposition: answer.headers.get('content-disposition'),
    sha256: sha256(bytes),
    bytes,
  };
};

describe('the pictures of one job, end to end over HTTP and the local S3', () => {
  it('uploads originals, delivers edited versions, reviews them by their previews and finishes the job', async () => {
    const front = await picture(640, 480, '#3366aa');
    const side = await picture(480, 640, '#aa6633');
    const created = ok(
      await stack.request('/jobs', {
        tokens: customer,
        body: {
          name: 'Pictures through their life',
          files: [{ fileName: 'front.jpg' }, { fileName: 'side.jpg', size: side.length, sha256: sha256(side) }],
        },
      }),
      201,
    ).json as { job: { id: number; version: number }; files: { id: number; upload: Target }[] };
    const jobId = created.job.id;
    const [frontFile, sideFile] = created.files as [(typeof created.files)[0], (typeof created.files)[0]];
    expect(frontFile.upload.method).toBe('POST');
    expect(sideFile.upload.method).toBe('PUT');
    let etag = `"${created.job.version}"`;

    const files = async (tokens: IssuedTokens, query = ''): Promise<ListedFile[]> =>
      ok(await stack.request(`/jobs/${jobId}/files${query}`, { method: 'GET', tokens })).json.files as ListedFile[];
    const fileOf = (listed: ListedFile[], id: number): ListedFile => listed.find((file) => file.id === id)!;
    const move = async (status: string, tokens: IssuedTokens) => {
      const answer = ok(
        await stack.request(`/jobs/${jobId}`, {
          method: 'PATCH',
          tokens,
          headers: { 'Content-Type': 'application/json', 'If-Match': etag },
          body: { status },
        }),
      );
      etag = answer.headers.get('etag') as string;
    };
    const editedTarget = async (fileId: number): Promise<Target> =>
      ok(
        await stack.request(`/jobs/${jobId}/files/${fileId}/upload`, {
          tokens: staff,
          body: { variant: 'edited' },
        }),
      ).json.upload as Target;

    // The customer's originals, through the targets the create answered; a PUT of other bytes than declared is
    // refused by the bucket (their length is not the one signed: 403, as S3 answers a signature that does not hold).
    expect(await upload(sideFile.upload, front, 'side.jpg')).toBe(403);
    expect(await upload(frontFile.upload, front, 'front.jpg')).toBe(204);
    expect(await upload(sideFile.upload, side, 'side.jpg')).toBe(200);
    await stack.imagesProcessed();

    const offered = await files(customer);
    for (const [id, bytes, width, height] of [
      [frontFile.id, front, 640, 480],
      [sideFile.id, side, 480, 640],
    ] as const) {
      const original = fileOf(offered, id).original!;
      expect(original).toMatchObject({ status: 'ready', sha256: sha256(bytes), width, height });
      const thumbnail = await download(original.thumbnailUrl);
      expect(thumbnail).toMatchObject({ status: 200, contentType: 'image/webp' });
      const { width: thumbWidth, height: thumbHeight } = await sharp(thumbnail.bytes).metadata();
      expect(Math.max(thumbWidth!, thumbHeight!)).toBe(320);
    }
    await move('CJ_REQUEST_OFFER', customer);
    for (const status of ['CJ_ACCEPT', 'CJ_JOB_PAID', 'CJ_WORK_PROGRESS']) await move(status, staff);

    // Staff download the originals, byte for byte, named by the files' names.
    const atWork = await files(staff);
    for (const [id, bytes, name] of [
      [frontFile.id, front, 'front.jpg'],
      [sideFile.id, side, 'side.jpg'],
    ] as const) {
      const original = await download(fileOf(atWork, id).original!.downloadUrl);
      expect(original).toMatchObject({ status: 200, sha256: sha256(bytes) });
      expect(original.disposition).toContain(name);
    }

    // Staff upload edited versions through fresh targets and deliver both.
    const frontEdit = await picture(640, 480, '#f4f4f4');
    const sideEdit = await picture(480, 640, '#eeeeee');
    expect(await upload(await editedTarget(frontFile.id), frontEdit, 'front.jpg')).toBe(204);
    expect(await upload(await editedTarget(sideFile.id), sideEdit, 'side.jpg')).toBe(204);
    await stack.imagesProcessed();
    ok(await stack.request(`/jobs/${jobId}/delivery`, { tokens: staff, body: {} }));

    // The customer reviews the edited previews, rejects the side view at a position and accepts the front view.
    const inReview = await files(customer, '?review=pending');
    expect(inReview.map((file) => file.id).sort()).toEqual([frontFile.id, sideFile.id].sort());
    for (const [id, bytes] of [
      [frontFile.id, frontEdit],
      [sideFile.id, sideEdit],
    ] as const) {
      const edited = fileOf(inReview, id).edited!;
      expect(edited).toMatchObject({ status: 'ready', sha256: sha256(bytes) });
      expect(await download(edited.previewUrl)).toMatchObject({ status: 200, contentType: 'image/webp' });
      expect((await download(edited.downloadUrl)).sha256).toBe(sha256(bytes));
    }
    ok(
      await stack.request('/reject', {
        tokens: customer,
        body: {
          files: [
            { fileId: sideFile.id, rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.5, yPercent: 0.9 }] }] },
          ],
        },
      }),
    );
    ok(await stack.request('/accept', { tokens: customer, body: { fileIds: [frontFile.id] } }));

    // Staff upload a new edit of the side view and deliver it again; the customer sees the new bytes and accepts.
    const sideReworked = await picture(480, 640, '#fafafa');
    expect(await upload(await editedTarget(sideFile.id), sideReworked, 'side.jpg')).toBe(204);
    await stack.imagesProcessed();
    ok(await stack.request(`/jobs/${jobId}/delivery`, { tokens: staff, body: { fileIds: [sideFile.id] } }));
    const reworked = fileOf(await files(customer, '?review=pending'), sideFile.id).edited!;
    expect((await download(reworked.downloadUrl)).sha256).toBe(sha256(sideReworked));
    const accepted = ok(await stack.request('/accept', { tokens: customer, body: { fileIds: [sideFile.id] } }));
    expect(accepted.json.jobs).toEqual([{ id: jobId, status: 'CJ_FINISHED' }]);
  });
});

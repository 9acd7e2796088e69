/**
 * `seed-demo --stack <name>`: the demo clients, sessions and jobs of `npm start`, loaded into a deployed
 * stack, and the same curl commands printed for its stage URL. A stack that already holds jobs is refused
 * unless `--force` (the demo jobs would be upserted over any job of the same id).
 *
 * The demo jobs' pictures are uploaded after the jobs, into the stack's pictures bucket under the upload keys the
 * images function renders from (`local/demo/pictures.ts`): S3's event has the function check, render and record
 * each one as it does a customer's upload, so the command writes uploads only — no rendition, no picture
 * attribute — with the operator policy's one S3 grant (PutObject under `uploads/`). S3's SDK and the pictures
 * (sharp draws them) are loaded only then, so that no other command loads them.
 */
import { config } from '../../../functions/config';
import { demoCommandsFor, seedDemoData } from '../../demo/seeding';
import { demoJobs } from '../../demo/data';
import { type CliCommand, CommandFailedError, message, noPositionals, UsageError } from './command';
import { authStore, jobRepository } from './target';

/** Whether the jobs table holds at least one job (one page of a scan at most). */
const holdsJobs = async (): Promise<boolean> => {
  for await (const _ of jobRepository().scanJobIds()) return true;
  return false;
};

/** Puts the demo pictures in the stack's bucket, or says why the demo has none. */
const uploadPictures = async (bucket: string | undefined): Promise<void> => {
  if (bucket === undefined) {
    message('The stack has no pictures bucket (deployed before pictures): the demo jobs have no pictures.');
    return;
  }
  const [{ PutObjectCommand }, { createS3Client }, { uploadDemoPictures }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('../../../functions/aws/s3'),
    import('../../demo/pictures'),
  ]);
  // Thousands of puts of one command: the SDK resolves the command's middleware once, not for every put.
  const s3 = createS3Client(
    { region: config().region, images: { bucket, endpoint: undefined } },
    { cacheMiddleware: true },
  );
  try {
    const put = async (key: string, bytes: Buffer): Promise<void> => {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentType: 'image/jpeg' }));
    };
    const count = await uploadDemoPictures(demoJobs(), put);
    message(
      `Uploaded ${count} demo pictures to ${bucket}; the images function renders them within a few minutes ` +
        '(until then a file shows no thumbnail).',
    );
  } finally {
    s3.destroy();
  }
};

export const seedDemoCommand: CliCommand = {
  name: 'seed-demo',
  usage: `seed-demo --stack <name> [--force]
      Loads the demo jobs, clients and sessions of npm start into a deployed stack and prints curl commands for
      its stage URL; refuses a stack that already holds jobs unless --force (demo jobs replace jobs of their ids).`,
  options: { force: { type: 'boolean' } },
  run: async ({ values, positionals, target }) => {
    noPositionals('seed-demo', positionals);
    if (target.stack === undefined) {
      throw new UsageError('seed-demo needs --stack <name>: the local stack seeds itself on its first npm start');
    }
    if (values.force !== true && (await holdsJobs())) {
      throw new CommandFailedError(
        `The jobs table of ${target.description} already holds jobs; seed-demo --force upserts the demo jobs ` +
          'beside them (replacing any job of the same id).',
      );
    }
    message(`Seeding demo clients, sessions and ${demoJobs().length} jobs into ${target.description}…`);
    const demo = await seedDemoData(await authStore(), jobRepository());
    await uploadPictures(target.stack.imagesBucket);
    const baseUrl = target.stack.apiUrl.replace(/\/+$/, '');
    const out = (line = ''): void => {
      process.stdout.write(`${line}\n`);
    };
    out('Try it (demo credentials; sessions last 30 days; jobs are searchable once the indexer has caught up,');
    out(`which \`npm run cli -- status --stack ${target.stack.name}\` shows as documents beside jobs):`);
    for (const { title, command } of demoCommandsFor(demo, baseUrl)) {
      out();
      out(`# ${title}`);
      out(command);
    }
    return 0;
  },
};

/**
 * `seed-demo --stack <name>`: the demo clients, sessions and jobs of `npm start`, loaded into a deployed
 * stack, and the same curl commands printed for its stage URL. A stack that already holds jobs is refused
 * unless `--force` (the demo jobs would be upserted over any job of the same id).
 */
import { demoCommandsFor, seedDemoData } from '../../demo/seeding';
import { demoJobs } from '../../demo/data';
import { type CliCommand, CommandFailedError, message, noPositionals, UsageError } from './command';
import { authStore, jobRepository } from './target';

/** Whether the jobs table holds at least one job (one page of a scan at most). */
const holdsJobs = async (): Promise<boolean> => {
  for await (const _ of jobRepository().scanJobIds()) return true;
  return false;
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

/**
 * `migrate`: brings the jobs table's items written by earlier versions up to the current format (file items
 * at their padded sort keys, job items with their review counts). Safe on a live table and to run again.
 */
import { migrateJobs } from '../migrate';
import { createProgressBar } from '../progress';
import { type CliCommand, message, noPositionals, printJson } from './command';
import { jobsTable } from './target';

export const migrateCommand: CliCommand = {
  name: 'migrate',
  usage: `migrate
      Moves file items written before their sort keys were zero-padded to the padded keys and gives job
      items written before the review counts their counts; safe while the API writes, and to run again.`,
  options: {},
  run: async ({ positionals, target }) => {
    noPositionals('migrate', positionals);
    message(`Migrating the jobs table of ${target.description}…`);
    const bar = createProgressBar({ label: 'Migrating', unit: 'jobs' });
    const result = await migrateJobs({
      table: jobsTable(),
      onProgress: (progress) => bar.update(progress.migrated, progress.found),
    });
    bar.finish(`${result.migrated} of ${result.found} migrated, ${result.failed.length} failed`);
    for (const failure of result.failed) message(`job ${failure.jobId}: ${failure.reason} (run migrate again)`);
    printJson(result);
    return result.failed.length === 0 ? 0 : 1;
  },
};

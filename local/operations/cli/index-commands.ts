/**
 * The search index's commands: `reindex` rebuilds it from the jobs table, `verify-index` compares the two
 * (`status` is in status-command.ts).
 */
import { searchIndex } from '../../../functions/search/engine';
import { createProgressBar } from '../progress';
import { reindex } from '../reindex';
import { verifyIndex } from '../verify-index';
import { type CliCommand, message, noPositionals, printJson } from './command';
import { assertSharedIndex, checkSearchDomain, commandFor, jobRepository } from './target';

export const reindexCommand: CliCommand = {
  name: 'reindex',
  usage: `reindex
      Rebuilds the search index from the jobs table.`,
  options: {},
  run: async ({ positionals, target }) => {
    noPositionals('reindex', positionals);
    assertSharedIndex(target);
    await checkSearchDomain(target);
    message(`Rebuilding the search index of ${target.description}…`);
    const bar = createProgressBar({ label: 'Reindexing', unit: 'jobs' });
    const result = await reindex({
      repository: jobRepository(),
      index: await searchIndex(),
      onProgress: (progress) => bar.update(progress.scanned, undefined, `${progress.failed} failed`),
    });
    bar.finish(`${result.indexed} indexed, ${result.failed.length} failed`);
    for (const failure of result.failed) message(`job ${failure.jobId}: ${failure.reason}`);
    printJson(result);
    return result.failed.length === 0 ? 0 : 1;
  },
};

export const verifyIndexCommand: CliCommand = {
  name: 'verify-index',
  usage: `verify-index
      Compares the search index with the jobs table; exits 1 on any difference.`,
  options: {},
  run: async ({ positionals, target }) => {
    noPositionals('verify-index', positionals);
    assertSharedIndex(target);
    await checkSearchDomain(target);
    const repair = commandFor(target, 'reindex');
    const report = await verifyIndex({ repository: jobRepository(), index: await searchIndex(), repair });
    printJson(report);
    if (report.problem !== undefined) message(report.problem);
    else if (!report.ok) message(`The search index differs from the jobs table; run \`${repair}\` to rebuild it.`);
    return report.ok ? 0 : 1;
  },
};

/**
 * The search index's commands: `reindex` rebuilds it from the jobs table, `verify-index` compares the two,
 * `status` says where the commands act and, for a deployed stack, the OpenSearch domain's state.
 */
import { searchIndex } from '../../../functions/search/engine';
import { describeSearchDomain, notReadyReason } from '../domain-status';
import { createProgressBar } from '../progress';
import { reindex } from '../reindex';
import { verifyIndex } from '../verify-index';
import { type CliCommand, message, noPositionals, printJson } from './command';
import { assertSharedIndex, checkSearchDomain, jobRepository } from './target';

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
    const report = await verifyIndex({ repository: jobRepository(), index: await searchIndex() });
    printJson(report);
    if (!report.ok)
      message('The search index differs from the jobs table; run `npm run cli -- reindex` to rebuild it.');
    return report.ok ? 0 : 1;
  },
};

export const statusCommand: CliCommand = {
  name: 'status',
  usage: `status
      Prints where the commands act; with --stack also the OpenSearch domain's state (endpoint, engine,
      processing); exits 1 when that domain cannot take reindex or verify-index now.`,
  options: {},
  run: async ({ positionals, target }) => {
    noPositionals('status', positionals);
    const env = process.env;
    const tables = { jobsTable: env.JOBS_TABLE, authTable: env.AUTH_TABLE };
    if (target.stack === undefined) {
      printJson({
        target: target.description,
        ...tables,
        dynamodbEndpoint: env.DYNAMODB_ENDPOINT,
        searchEngine: 'embedded',
        searchIndex: target.searchIndexInMemory ? ':memory:' : env.SEARCH_DB_PATH,
      });
      return 0;
    }
    const domain = await describeSearchDomain(target.stack.opensearchDomain, target.stack.region);
    const reason = notReadyReason(domain);
    printJson({
      target: target.description,
      ...tables,
      searchEngine: 'opensearch',
      searchIndex: target.stack.opensearchIndex,
      domain: { ...domain, ready: reason === undefined, ...(reason === undefined ? {} : { notReadyReason: reason }) },
    });
    if (reason !== undefined) message(`The OpenSearch domain is not ready: ${reason}.`);
    return reason === undefined ? 0 : 1;
  },
};

/**
 * `status`: where the commands act and the search index's health — what its name points at, the live index's
 * document count beside the table's job count (DynamoDB's own count, never a Scan: ../table-count.ts), the
 * indices beside it that it does not name (a rebuild's leftovers, with their size), and the command that
 * repairs or removes what is wrong. For a deployed stack, also the OpenSearch domain's state from its control
 * plane (the index is read only when the domain can serve).
 */
import { searchIndex } from '../../../functions/search/engine';
import type { IndexHealth } from '../../../functions/search/search-index';
import { describeSearchDomain, notReadyReason } from '../domain-status';
import { indexNameProblem, unaliasedIndicesNote } from '../index-health';
import { countTableJobs } from '../table-count';
import { type CliCommand, message, noPositionals, printJson } from './command';
import { commandFor, type Target, useDomainEndpoint } from './target';

/** The index's health beside the table's job count, and what is wrong with it (if anything). */
const indexReport = async (target: Target) => {
  const health: IndexHealth = await (await searchIndex()).health();
  const table = await countTableJobs(process.env.JOBS_TABLE as string);
  const problem = indexNameProblem(health, commandFor(target, 'reindex'));
  return {
    ...health,
    tableJobs: table.jobs,
    tableCounts: { items: table.items, fileItems: table.fileItems, refreshed: table.refreshed },
    healthy: problem === undefined,
    ...(problem === undefined ? {} : { problem }),
  };
};

/** Says the report's findings on standard error; the exit code. */
const conclude = (index: Awaited<ReturnType<typeof indexReport>> | undefined, target: Target): number => {
  if (index === undefined) return 0;
  const leftovers = unaliasedIndicesNote(index, commandFor(target, 'reindex'));
  if (leftovers !== undefined) message(leftovers);
  if (index.problem !== undefined) {
    message(index.problem);
    return 1;
  }
  if (index.documents !== index.tableJobs) {
    message(
      `The index holds ${index.documents} documents; DynamoDB counts about ${index.tableJobs} jobs in the table ` +
        `(a count it refreshes about every six hours). The indexer may still be catching up; ` +
        `\`${commandFor(target, 'verify-index')}\` compares them job by job.`,
    );
  }
  return 0;
};

export const statusCommand: CliCommand = {
  name: 'status',
  usage: `status
      Prints where the commands act and the search index's health (its indices, documents beside the table's
      jobs as DynamoDB counts them, indices it does not name with their size); with --stack also the OpenSearch
      domain's state (endpoint, engine, processing). Exits 1 when the index's name points at no index or at
      several, or the domain cannot take reindex or verify-index now.`,
  options: {},
  run: async ({ positionals, target }) => {
    noPositionals('status', positionals);
    const env = process.env;
    const tables = { jobsTable: env.JOBS_TABLE, authTable: env.AUTH_TABLE };
    if (target.stack === undefined) {
      const index = target.searchIndexInMemory ? undefined : await indexReport(target);
      printJson({
        target: target.description,
        ...tables,
        dynamodbEndpoint: env.DYNAMODB_ENDPOINT,
        searchEngine: 'embedded',
        searchIndex: target.searchIndexInMemory ? ':memory:' : env.SEARCH_DB_PATH,
        ...(index === undefined ? {} : { index }),
      });
      return conclude(index, target);
    }
    const domain = await describeSearchDomain(target.stack.opensearchDomain, target.stack.region);
    const reason = notReadyReason(domain);
    if (reason === undefined) useDomainEndpoint(domain);
    const index = reason === undefined ? await indexReport(target) : undefined;
    printJson({
      target: target.description,
      ...tables,
      searchEngine: 'opensearch',
      searchIndex: target.stack.opensearchIndex,
      domain: { ...domain, ready: reason === undefined, ...(reason === undefined ? {} : { notReadyReason: reason }) },
      ...(index === undefined ? {} : { index }),
    });
    if (reason !== undefined) {
      message(`The OpenSearch domain is not ready: ${reason}.`);
      return 1;
    }
    return conclude(index, target);
  },
};

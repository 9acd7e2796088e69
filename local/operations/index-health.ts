/**
 * What an operator is told about the search index's name: healthy when it points at exactly one concrete
 * index; none or several are said in a sentence naming the command that repairs them (`reindex` builds one
 * index and moves the name onto it alone).
 */
import type { IndexHealth } from '../../functions/search/search-index';

/** The sentence saying what is wrong with the index's name, or `undefined` when it is healthy. */
export const indexNameProblem = (health: IndexHealth, repair: string): string | undefined => {
  if (health.indices.length === 1) return undefined;
  if (health.indices.length === 0) {
    return `The search index "${health.name}" points at no index, so searches find nothing; run \`${repair}\` to build it from the jobs table.`;
  }
  return (
    `The search index "${health.name}" points at ${health.indices.length} indices (${health.indices.join(', ')}), ` +
    `so searches may answer twice for one job and writes fail; run \`${repair}\` to rebuild one index and move ` +
    `"${health.name}" onto it alone.`
  );
};

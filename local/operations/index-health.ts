/**
 * What an operator is told about the search index's name: healthy when it points at exactly one concrete
 * index; none or several are said in a sentence naming the command that repairs them (`reindex` builds one
 * index and moves the name onto it alone). Indices beside it that it does not name (what an interrupted
 * rebuild leaves) are said with their size and the command that removes them.
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

const size = (bytes: number): string => {
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
};

/**
 * The sentence listing the indices the name does not point at, each with its documents and size, and the
 * command that deletes them (`reindex` deletes every one older than the index it builds), or `undefined`
 * when there are none.
 */
export const unaliasedIndicesNote = (health: IndexHealth, repair: string): string | undefined => {
  const unaliased = health.unaliased ?? [];
  if (unaliased.length === 0) return undefined;
  const listed = unaliased.map((index) => `${index.name} (${index.documents} documents, ${size(index.bytes)})`);
  return (
    `${unaliased.length === 1 ? 'An index' : `${unaliased.length} indices`} beside "${health.name}" that it does ` +
    `not point at: ${listed.join(', ')}. Unless a reindex is running now (its new index is one of these), ` +
    `\`${repair}\` removes them: it deletes every index older than the one it builds that no alias names.`
  );
};

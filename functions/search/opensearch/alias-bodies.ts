/**
 * The two requests that decide where the alias points: the creation of the first concrete index, and the
 * rebuild's swap. Both keep one rule: the alias is on exactly one index, and that index is its write index.
 *
 * Whatever else runs at the same moment (stream writes, another first-index creation, another rebuild):
 *
 * - The swap removes the alias from every index that carries it *when OpenSearch applies the swap*, not from
 *   a list read before: a `remove` action whose `indices` is a wildcard (`*`, which OpenSearch's published
 *   description allows for `indices`) is resolved against the cluster state the atomic `_aliases` request
 *   is applied to, and `must_exist: false` makes an index without the alias no error. The `add` in the same
 *   request then names the new index the alias's write index (`is_write_index`).
 * - The first index is created with the alias as its write index. OpenSearch allows one write index per
 *   alias and refuses a second, so a first-index creation that loses a race with a rebuild's swap fails
 *   instead of leaving the alias on two indices (the caller checks the alias again; see
 *   `OpenSearchSearchIndex.prepare`).
 *
 * An alias on several indices would be read by every search (each job counted once per index) and refuse
 * every write through it (`no write index is defined for alias`), so neither may ever happen.
 */
import type { AliasAction, CreateIndexBody, UpdateAliasesBody } from './api-types';
import { INDEX_DEFINITION } from './index-definition';

/** The number of the first concrete index behind an alias: `{alias}-v0`. */
export const FIRST_INDEX_VERSION = 0;

/** The name of a concrete index behind `alias`: `jobs-v0`, `jobs-v1732…`. */
export const concreteIndexName = (alias: string, version: number | string): string => `${alias}-v${version}`;

/** The body of `PUT /{alias}-v0`: the mapping, and the alias with this index as its write index. */
export const firstIndexBody = (alias: string): CreateIndexBody => ({
  ...INDEX_DEFINITION,
  aliases: { [alias]: { is_write_index: true } },
});

/**
 * The body of the one atomic `POST /_aliases` that makes `fresh` the alias's only index and its write
 * index. `legacy`: the alias's name is a concrete index of its own (a domain written before aliases were
 * used), which the same request deletes (`remove_index`) so the name can become the alias.
 */
export const swapBody = (alias: string, fresh: string, legacy: boolean): UpdateAliasesBody => {
  const actions: AliasAction[] = [
    ...(legacy ? [{ remove_index: { index: alias } }] : []),
    { remove: { indices: ['*'], alias, must_exist: false } },
    { add: { index: fresh, alias, is_write_index: true } },
  ];
  return { actions };
};

/**
 * The two requests that decide where the alias points: the creation of the first concrete index, and the
 * rebuild's swap. Both keep one rule: the alias is on exactly one index, and that index is its write index.
 *
 * How OpenSearch applies a `POST /_aliases` (its `TransportIndicesAliasesAction` and
 * `MetadataIndexAliasesService`): the cluster manager first resolves each action against the cluster state
 * it holds when the request arrives — index names and wildcards to concrete indices, and for a `remove` the
 * aliases those indices carry *at that moment* (an index that does not carry the alias then yields no
 * removal at all) — and then applies the resolved actions in a later cluster-state update, all or none.
 * Resolution and application are two moments, so the swap cannot rely on what it resolved; what makes it
 * safe whatever runs beside it (stream writes, a first-index creation, another rebuild) is checked when the
 * update is applied:
 *
 * - **One write index per alias.** Applying actions (or creating an index with aliases) that would leave
 *   an alias with two write indices fails as a whole with `illegal_state_exception` (OpenSearch's metadata
 *   validation). Every index this project puts under the alias is its write index, so a swap or a
 *   first-index creation that would add a second one beside an index another swap or creation just put
 *   there is refused, changing nothing.
 * - **`must_exist`.** The swap removes the alias from each index it read as live with `must_exist: true`;
 *   should one of them lose the alias between resolution and application, the whole request fails
 *   (`aliases_not_found_exception`). (`must_exist` on `remove` parses from OpenSearch 2.12 on: the CLI
 *   refuses older engines.)
 *
 * Either refusal sends the rebuild back to read where the alias points now (`OpenSearchSearchIndex.rebuild`).
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
 * The body of the one atomic `POST /_aliases` that moves the alias from the indices it was read on (`live`)
 * to `fresh`, its only index and write index. Each `live` index must still carry the alias when the request
 * is applied (`must_exist`). `legacy`: the alias's name is a concrete index of its own (a domain written
 * before aliases were used), which the same request deletes (`remove_index`) so the name can become the alias.
 */
export const swapBody = (alias: string, fresh: string, live: readonly string[], legacy: boolean): UpdateAliasesBody => {
  const actions: AliasAction[] = [
    ...(legacy ? [{ remove_index: { index: alias } }] : []),
    ...live.map((index): AliasAction => ({ remove: { index, alias, must_exist: true } })),
    { add: { index: fresh, alias, is_write_index: true } },
  ];
  return { actions };
};

/**
 * What OpenSearch answers a swap that lost a race between its read of the alias and its application: a second
 * write index, a live index that lost the alias, or one that is gone. The swap then reads the alias again.
 */
export const SWAP_RACES: ReadonlySet<string> = new Set([
  'illegal_state_exception',
  'aliases_not_found_exception',
  'index_not_found_exception',
]);

/** Attempts at the swap while other swaps or first-index creations keep winning the race. */
export const MAX_SWAP_ATTEMPTS = 5;

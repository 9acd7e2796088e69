/**
 * The order of the concrete indices behind an alias, read from their names: `{alias}-v0` (the first index,
 * made at deploy time or by the indexer) before every rebuild's `{alias}-v<epoch ms>-<8 hex>`, and rebuilds by
 * the moment they started (the random part breaks a tie). A rebuild compares its own index with the live one
 * by this order: it never moves the alias onto an index older than the live one, and after its swap it
 * deletes the older indices no alias names (retired ones), never a newer one (another rebuild filling it).
 */

/** The position of an index in the order: its start moment, then its random part. */
export interface IndexVersion {
  started: number;
  tiebreak: string;
}

const NAME = /^(\d+)(?:-([0-9a-f]{8}))?$/;

/** The version of `index`, a concrete index of `alias`; `undefined` for a name this project never makes. */
export const indexVersion = (alias: string, index: string): IndexVersion | undefined => {
  const prefix = `${alias}-v`;
  if (!index.startsWith(prefix)) return undefined;
  const match = NAME.exec(index.slice(prefix.length));
  if (match === null) return undefined;
  const started = Number(match[1]);
  const tiebreak = match[2] ?? '';
  // `-v0` is the first index; a rebuild's name always has its random part.
  if ((started === 0) !== (tiebreak === '')) return undefined;
  return { started, tiebreak };
};

/** Whether index `a` is older than index `b` (both versions of the same alias). */
export const olderThan = (a: IndexVersion, b: IndexVersion): boolean =>
  a.started < b.started || (a.started === b.started && a.tiebreak < b.tiebreak);

/** The newest of `indices` by version (names this project never makes are not considered). */
export const newestOf = (
  alias: string,
  indices: readonly string[],
): { name: string; version: IndexVersion } | undefined => {
  let newest: { name: string; version: IndexVersion } | undefined;
  for (const name of indices) {
    const version = indexVersion(alias, name);
    if (version !== undefined && (newest === undefined || olderThan(newest.version, version)))
      newest = { name, version };
  }
  return newest;
};

/**
 * The indices to delete once the alias is on `live`: every `{alias}-v*` index of `all` (each with the aliases
 * it carries) that carries no alias at all and is older than `live`.
 */
export const retiredIndices = (
  alias: string,
  live: IndexVersion,
  all: ReadonlyMap<string, readonly string[]>,
): string[] =>
  [...all]
    .filter(([name, aliases]) => {
      const version = indexVersion(alias, name);
      return aliases.length === 0 && version !== undefined && olderThan(version, live);
    })
    .map(([name]) => name)
    .sort();

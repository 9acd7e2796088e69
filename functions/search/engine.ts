/**
 * The container's search engine. Everything in a process that searches or indexes asks
 * {@link searchIndex} and gets the same instance: one embedded database per `SEARCH_DB_PATH` (so the
 * local stream poller and the search handler share even an in-memory database), or one OpenSearch
 * client. Each engine is loaded with a dynamic `import()`, so a Lambda bundle only runs the one it uses.
 */
import { type Config, config } from '../config';
import type { SearchIndex } from './search-index';

/** Settings of the embedded engine (SQLite FTS5). */
export interface EmbeddedSettings {
  engine: 'embedded';
  /** A file path, or `:memory:`. */
  path: string;
  /** How long a write waits for another process's lock, in milliseconds. */
  busyTimeoutMs?: number;
}

/** Settings of the OpenSearch engine. */
export interface OpenSearchSettings {
  engine: 'opensearch';
  /** The domain endpoint: `https://…amazonaws.com` (signed with SigV4) or a plain `http://` node. */
  url: string;
  /** The index (or alias) name. */
  index: string;
  /** The AWS region the domain lives in (for SigV4). */
  region: string;
  /** Time budget of one request, in milliseconds. */
  timeoutMs: number;
  /** Make each bulk write visible to search before it returns (tests); off in production. */
  refreshOnWrite?: boolean;
}

/** How to construct a search engine. */
export type SearchIndexSettings = EmbeddedSettings | OpenSearchSettings;

/** The settings of the engine a configuration selects. */
export const settingsFromConfig = (settings: Config): SearchIndexSettings =>
  settings.searchEngine === 'embedded'
    ? { engine: 'embedded', path: settings.searchDbPath, busyTimeoutMs: settings.dependencyTimeoutMs }
    : {
        engine: 'opensearch',
        // readConfig guarantees the URL when the engine is OpenSearch.
        url: settings.opensearchUrl ?? '',
        index: settings.opensearchIndex,
        region: settings.region,
        timeoutMs: settings.dependencyTimeoutMs,
      };

/** Constructs a new engine; the caller owns it and closes it. */
export const createSearchIndex = async (settings: SearchIndexSettings): Promise<SearchIndex> => {
  if (settings.engine === 'embedded') {
    const { EmbeddedSearchIndex } = await import('./embedded/embedded-search-index');
    return new EmbeddedSearchIndex(
      settings.busyTimeoutMs === undefined
        ? { path: settings.path }
        : { path: settings.path, busyTimeoutMs: settings.busyTimeoutMs },
    );
  }
  const { OpenSearchSearchIndex } = await import('./opensearch/opensearch-search-index');
  return new OpenSearchSearchIndex(settings);
};

/** Which shared instance settings map to: same database file or same index on the same node. */
const instanceKey = (settings: SearchIndexSettings): string =>
  settings.engine === 'embedded' ? `embedded:${settings.path}` : `opensearch:${settings.url}#${settings.index}`;

const instances = new Map<string, Promise<SearchIndex>>();

/**
 * The process's shared engine for the current configuration, created on first use. Do not close it;
 * {@link resetSearchIndex} does.
 */
export const searchIndex = (): Promise<SearchIndex> => {
  const settings = settingsFromConfig(config());
  const key = instanceKey(settings);
  const existing = instances.get(key);
  if (existing !== undefined) return existing;
  const created = createSearchIndex(settings);
  instances.set(key, created);
  created.catch(() => instances.delete(key));
  return created;
};

/** Closes and forgets every shared engine (tests, and the local runtime on shutdown). */
export const resetSearchIndex = async (): Promise<void> => {
  const open = [...instances.values()];
  instances.clear();
  await Promise.allSettled(open.map(async (instance) => (await instance).close()));
};

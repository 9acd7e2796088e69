/**
 * The container's search engine. Everything in a process that searches or indexes asks
 * {@link searchIndex} and gets the same instance: one embedded database per `SEARCH_DB_PATH` (so the
 * local stream poller and the search handler share even an in-memory database), or one OpenSearch
 * client.
 *
 * Lambda runs OpenSearch only. The embedded engine (SQLite FTS5) lives with the local runtime, in
 * local/search/embedded/, and is plugged in by it with {@link useEmbeddedEngine}: the local server, the CLI,
 * `npm run invoke` and the tests register it; a Lambda bundle never contains it.
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
  /** Time budget of one `_bulk` request, in milliseconds (default: {@link timeoutMs}). */
  writeTimeoutMs?: number;
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
        writeTimeoutMs: settings.indexWriteTimeoutMs,
      };

/** Opens the embedded engine on a database (supplied by the local runtime). */
export type EmbeddedEngineFactory = (settings: EmbeddedSettings) => SearchIndex;

let embeddedEngine: EmbeddedEngineFactory | undefined;

/** Plugs in the embedded engine: the local runtime's entry points and the tests call this once. */
export const useEmbeddedEngine = (factory: EmbeddedEngineFactory): void => {
  embeddedEngine = factory;
};

/** Thrown when the configuration asks for the embedded engine in a process that has none (a Lambda bundle). */
export class EngineUnavailableError extends Error {
  public override readonly name = 'EngineUnavailableError';
}

/** Constructs a new engine; the caller owns it and closes it. */
export const createSearchIndex = async (settings: SearchIndexSettings): Promise<SearchIndex> => {
  if (settings.engine === 'embedded') {
    if (embeddedEngine === undefined) {
      throw new EngineUnavailableError(
        'SEARCH_ENGINE=embedded is served by the local runtime only (npm start, npm run invoke, the CLI); ' +
          'a deployed function searches OpenSearch: set SEARCH_ENGINE=opensearch and OPENSEARCH_URL',
      );
    }
    return embeddedEngine(settings);
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

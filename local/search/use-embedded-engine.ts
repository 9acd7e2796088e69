/**
 * Plugs the embedded engine (SQLite FTS5) into the functions' engine selection. Imported for its effect by
 * every local entry point — the server of `npm start`, the CLI, `npm run invoke`, the benchmarks — and by the
 * tests' setup, so `SEARCH_ENGINE=embedded` works wherever the local runtime runs and nowhere else.
 */
import { useEmbeddedEngine } from '../../functions/search/engine';
import { EmbeddedSearchIndex } from './embedded/embedded-search-index';

useEmbeddedEngine((settings) =>
  settings.busyTimeoutMs === undefined
    ? new EmbeddedSearchIndex({ path: settings.path })
    : new EmbeddedSearchIndex({ path: settings.path, busyTimeoutMs: settings.busyTimeoutMs }),
);

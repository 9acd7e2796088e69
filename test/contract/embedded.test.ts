/**
 * The search contract against the embedded engine (SQLite FTS5), in memory and on a file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createSearchIndex } from '../../functions/search/engine';
import { searchIndexContract } from './search-index.contract';

searchIndexContract('embedded, in memory', () => createSearchIndex({ engine: 'embedded', path: ':memory:' }));

const directory = mkdtempSync(join(tmpdir(), 'search-contract-'));
let files = 0;

searchIndexContract(
  'embedded, on a file',
  () => createSearchIndex({ engine: 'embedded', path: join(directory, `index-${++files}.sqlite`) }),
  // Another process on the same file; it gives up on a lock held by a rebuild after a short wait.
  () => createSearchIndex({ engine: 'embedded', path: join(directory, `index-${files}.sqlite`), busyTimeoutMs: 200 }),
);

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { readConfig, resetConfig } from '../../../functions/config';
import { toSearchDocument } from '../../../functions/search/search-document';
import { EmbeddedSearchIndex } from '../../../local/search/embedded/embedded-search-index';
import { createSearchIndex, resetSearchIndex, searchIndex, settingsFromConfig } from '../../../functions/search/engine';
import { OpenSearchSearchIndex } from '../../../functions/search/opensearch/opensearch-search-index';
import { makeJob } from '../../support/jobs';

const BASE_ENV = { JOBS_TABLE: 'jobs', AUTH_TABLE: 'auth' };
const directory = mkdtempSync(join(tmpdir(), 'search-engine-'));

/** Points the process configuration at an embedded database. */
const useEmbedded = (path: string): void => {
  Object.assign(process.env, { ...BASE_ENV, SEARCH_ENGINE: 'embedded', SEARCH_DB_PATH: path });
  resetConfig();
};

describe('search engine selection', () => {
  const saved = { ...process.env };

  afterEach(async () => {
    await resetSearchIndex();
    process.env = { ...saved };
    resetConfig();
  });

  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it('gives everyone in the process the same embedded index, even in memory', async () => {
    useEmbedded(':memory:');
    const writer = await searchIndex();
    const reader = await searchIndex();
    expect(reader).toBe(writer);
    await writer.apply([{ type: 'upsert', document: toSearchDocument(makeJob({ id: 1 }), 1) }]);
    expect((await reader.get(1))?.summary.id).toBe(1);
  });

  it('gives each database path its own index', async () => {
    useEmbedded(join(directory, 'a.sqlite'));
    const first = await searchIndex();
    useEmbedded(join(directory, 'b.sqlite'));
    const second = await searchIndex();
    expect(second).not.toBe(first);
    expect(first).toBeInstanceOf(EmbeddedSearchIndex);
  });

  it('closes and forgets the shared indexes on reset', async () => {
    useEmbedded(':memory:');
    const before = await searchIndex();
    await before.apply([{ type: 'upsert', document: toSearchDocument(makeJob({ id: 1 }), 1) }]);
    await resetSearchIndex();
    const after = await searchIndex();
    expect(after).not.toBe(before);
    expect(await after.get(1)).toBeUndefined();
  });

  it('lets two connections share one database file, as the server and the CLI do', async () => {
    const path = join(directory, 'shared.sqlite');
    const server = await createSearchIndex({ engine: 'embedded', path });
    const cli = await createSearchIndex({ engine: 'embedded', path });
    await cli.apply([{ type: 'upsert', document: toSearchDocument(makeJob({ id: 3 }), 1) }]);
    expect(
      (
        await server.search({
          field: 'Global',
          text: '',
          globalFields: [],
          globalMatchesAccountNumber: false,
          offset: 0,
          limit: 5,
        })
      ).total,
    ).toBe(1);
    await Promise.all([server.close(), cli.close()]);
  });

  it('reads the engine settings from the configuration', () => {
    expect(
      settingsFromConfig(readConfig({ ...BASE_ENV, SEARCH_ENGINE: 'embedded', SEARCH_DB_PATH: '/tmp/x.sqlite' })),
    ).toEqual({ engine: 'embedded', path: '/tmp/x.sqlite', busyTimeoutMs: 3_000 });
    expect(
      settingsFromConfig(
        readConfig({
          ...BASE_ENV,
          SEARCH_ENGINE: 'opensearch',
          OPENSEARCH_URL: 'https://search-jobs.eu-west-1.es.amazonaws.com',
          OPENSEARCH_INDEX: 'jobs-v1',
          AWS_REGION: 'eu-west-1',
          DEPENDENCY_TIMEOUT_MS: '2500',
        }),
      ),
    ).toEqual({
      engine: 'opensearch',
      url: 'https://search-jobs.eu-west-1.es.amazonaws.com',
      index: 'jobs-v1',
      region: 'eu-west-1',
      timeoutMs: 2_500,
      writeTimeoutMs: 15_000,
    });
  });

  it('gives bulk writes their own time budget, INDEX_WRITE_TIMEOUT_MS, longer than a request of the API', () => {
    const env = {
      ...BASE_ENV,
      SEARCH_ENGINE: 'opensearch',
      OPENSEARCH_URL: 'https://search-jobs.eu-west-1.es.amazonaws.com',
    };
    expect(settingsFromConfig(readConfig({ ...env, INDEX_WRITE_TIMEOUT_MS: '20000' }))).toMatchObject({
      timeoutMs: 3_000,
      writeTimeoutMs: 20_000,
    });
    expect(() => readConfig({ ...env, INDEX_WRITE_TIMEOUT_MS: '0' })).toThrow(/INDEX_WRITE_TIMEOUT_MS/);
  });

  it('builds an OpenSearch index without contacting the node', async () => {
    const index = await createSearchIndex({
      engine: 'opensearch',
      url: 'https://search-jobs.eu-west-1.es.amazonaws.com',
      index: 'jobs',
      region: 'eu-west-1',
      timeoutMs: 1_000,
    });
    expect(index).toBeInstanceOf(OpenSearchSearchIndex);
    await index.close();
  });
});

// Last in the file: it resets the module registry, after which classes imported above are other copies.
describe('search engine selection in a Lambda bundle', () => {
  it('has no embedded engine unless the local runtime plugs it in, and says what to use instead', async () => {
    // A fresh copy of the module, as in a Lambda bundle: nothing has called useEmbeddedEngine on it.
    vi.resetModules();
    const bare = await import('../../../functions/search/engine');
    const attempt = bare.createSearchIndex({ engine: 'embedded', path: ':memory:' });
    await expect(attempt).rejects.toBeInstanceOf(bare.EngineUnavailableError);
    await expect(attempt).rejects.toThrow(/SEARCH_ENGINE=opensearch/);
  });
});

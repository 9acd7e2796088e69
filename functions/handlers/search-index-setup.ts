/**
 * Lambda entry of the search index's setup, a CloudFormation custom resource the stack creates before
 * the API serves (docs/deploy.md): on `Create` and `Update` it makes sure the alias the functions address
 * exists — the engine's own first-index creation ({@link OpenSearchSearchIndex.prepare}), idempotent — so a
 * new stage answers its first search with the empty page. `Delete` changes nothing: the index holds derived
 * data only and goes (or stays) with the domain.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { sleep } from '../async';
import { customResource } from '../aws/custom-resource';
import { config } from '../config';
import { logger } from '../observability';
import { settingsFromConfig } from '../search/engine';
import { OpenSearchSearchIndex } from '../search/opensearch/opensearch-search-index';
import { SearchUnavailableError } from '../search/search-index';

/** Attempts at the setup while the new domain is still unavailable, and the first wait between them. */
const ATTEMPTS = 4;
const FIRST_WAIT_MS = 2_000;

/** Prepares the index, again after a pause while the domain answers as unavailable (just created). */
const prepareWithPatience = async (index: OpenSearchSearchIndex): Promise<'created' | 'existed'> => {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await index.prepare();
    } catch (error) {
      if (!(error instanceof SearchUnavailableError) || attempt === ATTEMPTS) throw error;
      logger.warn('Search domain unavailable; trying again', { attempt, error });
      await sleep(FIRST_WAIT_MS * 2 ** (attempt - 1));
    }
  }
};

/** Creates the first index and the alias unless they exist; the physical id is the alias. */
export const setUpSearchIndex = customResource(
  async (event) => {
    if (event.RequestType === 'Delete') return { physicalResourceId: event.PhysicalResourceId };
    const settings = settingsFromConfig(config());
    if (settings.engine !== 'opensearch') throw new Error('The search index setup runs against OpenSearch only');
    const index = new OpenSearchSearchIndex(settings);
    try {
      const outcome = await prepareWithPatience(index);
      logger.info('Search index ready', { alias: settings.index, outcome });
      return { physicalResourceId: settings.index, data: { Alias: settings.index } };
    } finally {
      await index.close();
    }
  },
  (error) => logger.error('Search index setup failed', { error }),
);

/** The Lambda handler. */
export const handler = middy(setUpSearchIndex).use(injectLambdaContext(logger));

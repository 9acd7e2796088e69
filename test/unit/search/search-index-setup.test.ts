/**
 * The deploy-time search index setup (functions/handlers/search-index-setup.ts) on CloudFormation custom
 * resource events: it always answers CloudFormation at the event's pre-signed URL — `SUCCESS` once the alias
 * exists, `FAILED` with a reason when it cannot be made to exist — so a deployment never waits on it.
 * A fake node stands in for OpenSearch, another for the pre-signed URL.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfig } from '../../../functions/config';
import { handler } from '../../../functions/handlers/search-index-setup';
import { lambdaContext } from '../../support/api-event';
import { setupEvent } from '../../support/cloudformation-events';
import { FakeOpenSearchCluster, FakeOpenSearchNode } from '../../support/fake-opensearch';

let search: FakeOpenSearchNode;
let cloudFormation: FakeOpenSearchNode;
let cluster: FakeOpenSearchCluster;
let responseUrl: string;
const saved = { ...process.env };

const event = (type: 'Create' | 'Update' | 'Delete') => setupEvent(type, responseUrl);

/** The answers CloudFormation received, in order. */
const answers = () => cloudFormation.requests.map((request) => JSON.parse(request.body) as Record<string, unknown>);

describe('the search index setup at deploy time', () => {
  beforeAll(async () => {
    search = new FakeOpenSearchNode(() => ({ status: 500 }));
    cloudFormation = new FakeOpenSearchNode(() => ({ status: 200 }));
    const searchUrl = await search.start();
    responseUrl = await cloudFormation.start();
    Object.assign(process.env, {
      JOBS_TABLE: 'jobs',
      AUTH_TABLE: 'auth',
      SEARCH_ENGINE: 'opensearch',
      OPENSEARCH_URL: searchUrl,
      OPENSEARCH_INDEX: 'jobs',
      DEPENDENCY_TIMEOUT_MS: '1000',
    });
    resetConfig();
  });

  beforeEach(() => {
    cluster = new FakeOpenSearchCluster();
    search.reply = cluster.reply;
    search.requests.length = 0;
    cloudFormation.requests.length = 0;
  });

  afterEach(() => {
    process.env.SEARCH_ENGINE = 'opensearch';
    resetConfig();
  });

  afterAll(async () => {
    await search.stop();
    await cloudFormation.stop();
    process.env = saved;
    resetConfig();
  });

  it('creates the first index with the alias on a new domain and answers SUCCESS with the alias as its id', async () => {
    await handler(event('Create'), lambdaContext());
    expect(cluster.aliasTargets('jobs')).toEqual(['jobs-v0']);
    // OpenSearch may no longer create an index under the alias's names by itself.
    expect(cluster.autoCreateIndex).toBe('-jobs,-jobs-v*,+*');
    expect(answers()).toEqual([
      {
        Status: 'SUCCESS',
        PhysicalResourceId: 'jobs',
        Data: { Alias: 'jobs' },
        StackId: event('Create').StackId,
        RequestId: 'request-Create',
        LogicalResourceId: 'SearchIndexSetup',
      },
    ]);
    // The pre-signed URL is signed without a content type: the answer carries none.
    expect(cloudFormation.requests[0]).toMatchObject({ method: 'PUT', contentType: '', path: '/answer' });
  });

  it('changes nothing on an update where the alias exists, and answers SUCCESS', async () => {
    cluster.createIndex('jobs-v1700000000000-0a1b2c3d', { jobs: { is_write_index: true } });
    await handler(event('Update'), lambdaContext());
    expect(search.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'PUT /_cluster/settings',
      'HEAD /jobs',
    ]);
    expect(cluster.autoCreateIndex).toBe('-jobs,-jobs-v*,+*');
    expect(answers()[0]).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'jobs' });
  });

  it('answers a delete with SUCCESS and sends OpenSearch nothing: the index goes with the domain', async () => {
    process.env.SEARCH_ENGINE = 'embedded';
    resetConfig();
    await handler(event('Delete'), lambdaContext());
    expect(search.requests).toEqual([]);
    expect(answers()[0]).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'jobs' });
  });

  it('tries again while the new domain answers as unavailable, then answers SUCCESS', async () => {
    let unavailable = 1;
    search.reply = (request) => (unavailable-- > 0 ? { status: 503, body: {} } : cluster.reply(request));
    await handler(event('Create'), lambdaContext());
    expect(cluster.aliasTargets('jobs')).toEqual(['jobs-v0']);
    expect(answers()).toHaveLength(1);
    expect(answers()[0]).toMatchObject({ Status: 'SUCCESS' });
  });

  it('answers FAILED with the reason when OpenSearch refuses, so the deployment stops instead of waiting', async () => {
    search.reply = () => ({ status: 403, body: { message: 'User is not authorized' } });
    await handler(event('Create'), lambdaContext({ logStreamName: '2026/01/01/[$LATEST]abc' }));
    const [answer] = answers();
    expect(answer).toMatchObject({ Status: 'FAILED', RequestId: 'request-Create' });
    // A create that never succeeded has no id of its own: the log stream names it, as AWS's module does.
    expect(answer?.PhysicalResourceId).toBe('2026/01/01/[$LATEST]abc');
    expect(answer?.Reason).toContain('ResponseError');
    expect(answer?.Reason).toContain('2026/01/01/[$LATEST]abc');
  });

  it('answers FAILED when the function is configured for the embedded engine', async () => {
    process.env.SEARCH_ENGINE = 'embedded';
    resetConfig();
    await handler(event('Create'), lambdaContext());
    expect(answers()[0]).toMatchObject({ Status: 'FAILED', Reason: expect.stringContaining('OpenSearch only') });
  });
});

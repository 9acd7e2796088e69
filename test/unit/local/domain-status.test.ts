/**
 * The search domain as the OpenSearch control plane reports it (`DescribeDomain`), on a mocked client:
 * which states let the CLI rebuild or verify the index, and what it tells the operator otherwise.
 */
import {
  DescribeDomainCommand,
  type DomainStatus,
  OpenSearchClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-opensearch';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  assertSearchDomainReady,
  describeSearchDomain,
  SearchDomainNotFoundError,
  SearchDomainNotReadyError,
} from '../../../local/operations/domain-status';

const openSearch = mockClient(OpenSearchClient);

const ACTIVE: DomainStatus = {
  DomainId: '123456789012/jobs-prod-3f9a1c',
  DomainName: 'jobs-prod-3f9a1c',
  ARN: 'arn:aws:es:eu-west-1:123456789012:domain/jobs-prod-3f9a1c',
  Created: true,
  Deleted: false,
  Processing: false,
  UpgradeProcessing: false,
  Endpoint: 'search-jobs-prod-3f9a1c-abcdefghijklmnopqrstuvwxyz.eu-west-1.es.amazonaws.com',
  EngineVersion: 'OpenSearch_3.7',
  DomainProcessingStatus: 'Active',
  ClusterConfig: {
    InstanceType: 'r6g.large.search',
    InstanceCount: 3,
    ZoneAwarenessEnabled: true,
    ZoneAwarenessConfig: { AvailabilityZoneCount: 3 },
  },
};

const answer = (status: Partial<DomainStatus>) =>
  openSearch
    .on(DescribeDomainCommand, { DomainName: 'jobs-prod-3f9a1c' })
    .resolves({ DomainStatus: { ...ACTIVE, ...status } });

beforeEach(() => {
  openSearch.reset();
});

afterAll(() => {
  openSearch.restore();
});

describe('describing the search domain', () => {
  it('reads the endpoint, engine, processing state and data nodes', async () => {
    answer({});
    const state = await describeSearchDomain('jobs-prod-3f9a1c', 'eu-west-1', new OpenSearchClient({}));
    expect(state).toEqual({
      name: 'jobs-prod-3f9a1c',
      url: 'https://search-jobs-prod-3f9a1c-abcdefghijklmnopqrstuvwxyz.eu-west-1.es.amazonaws.com',
      engineVersion: 'OpenSearch_3.7',
      processingStatus: 'Active',
      processing: false,
      dataNodes: { instanceType: 'r6g.large.search', count: 3, zones: 3 },
    });
    expect(() => assertSearchDomainReady(state)).not.toThrow();
  });

  it('uses the VPC endpoint of a domain inside a VPC', async () => {
    answer({ Endpoint: undefined, Endpoints: { vpc: 'vpc-jobs-prod-xyz.eu-west-1.es.amazonaws.com' } });
    const state = await describeSearchDomain('jobs-prod-3f9a1c', 'eu-west-1', new OpenSearchClient({}));
    expect(state.url).toBe('https://vpc-jobs-prod-xyz.eu-west-1.es.amazonaws.com');
  });

  it('names the domain and the region when the control plane does not know it', async () => {
    openSearch
      .on(DescribeDomainCommand)
      .rejects(new ResourceNotFoundException({ $metadata: {}, message: 'Domain not found: jobs-prod-3f9a1c' }));
    const failure = describeSearchDomain('jobs-prod-3f9a1c', 'eu-west-1', new OpenSearchClient({}));
    await expect(failure).rejects.toThrow(SearchDomainNotFoundError);
    await expect(failure).rejects.toThrow('"jobs-prod-3f9a1c" does not exist in eu-west-1');
  });

  it.each([
    [{ DomainProcessingStatus: 'Deleting', Deleted: true } as const, 'it is being deleted'],
    [{ DomainProcessingStatus: 'Creating', Created: false, Endpoint: undefined } as const, 'still being created'],
    [{ DomainProcessingStatus: 'Isolated' } as const, 'isolated'],
    [{ EngineVersion: 'Elasticsearch_7.10' }, 'Elasticsearch_7.10 is older than OpenSearch_2.12'],
    [{ EngineVersion: 'OpenSearch_1.3' }, 'OpenSearch_1.3 is older than OpenSearch_2.12'],
    // 2.0–2.11 parse no must_exist on an alias removal: the rebuild's swap would be refused.
    [{ EngineVersion: 'OpenSearch_2.11' }, 'OpenSearch_2.11 is older than OpenSearch_2.12'],
    [{ EngineVersion: 'OpenSearch_2.9' }, 'remove with must_exist'],
  ])('refuses a domain that cannot take requests now (%o)', async (status, reason) => {
    answer(status);
    const state = await describeSearchDomain('jobs-prod-3f9a1c', 'eu-west-1', new OpenSearchClient({}));
    expect(() => assertSearchDomainReady(state)).toThrow(SearchDomainNotReadyError);
    expect(() => assertSearchDomainReady(state)).toThrow(reason);
  });

  it('accepts a domain in the middle of a configuration change, and says it is processing', async () => {
    answer({ DomainProcessingStatus: 'Modifying', Processing: true });
    const state = await describeSearchDomain('jobs-prod-3f9a1c', 'eu-west-1', new OpenSearchClient({}));
    expect(state).toMatchObject({ processingStatus: 'Modifying', processing: true });
    expect(() => assertSearchDomainReady(state)).not.toThrow();
  });

  it('derives the state from the flags of an answer without DomainProcessingStatus', async () => {
    answer({ DomainProcessingStatus: undefined, Processing: true });
    const modifying = await describeSearchDomain('jobs-prod-3f9a1c', 'eu-west-1', new OpenSearchClient({}));
    expect(modifying.processingStatus).toBe('Modifying');
    openSearch.reset();
    answer({ DomainProcessingStatus: undefined, Deleted: true });
    const deleting = await describeSearchDomain('jobs-prod-3f9a1c', 'eu-west-1', new OpenSearchClient({}));
    expect(deleting.processingStatus).toBe('Deleting');
  });

  it.each(['OpenSearch_2.12', 'OpenSearch_2.19', 'OpenSearch_3.0', 'OpenSearch_3.7'])(
    'accepts an engine at the floor or newer (%s)',
    async (EngineVersion) => {
      answer({ EngineVersion });
      const state = await describeSearchDomain('jobs-prod-3f9a1c', 'eu-west-1', new OpenSearchClient({}));
      expect(() => assertSearchDomainReady(state)).not.toThrow();
    },
  );

  it('counts one zone when zone awareness is off', async () => {
    answer({ ClusterConfig: { InstanceType: 't3.small.search', InstanceCount: 1, ZoneAwarenessEnabled: false } });
    const state = await describeSearchDomain('jobs-prod-3f9a1c', 'eu-west-1', new OpenSearchClient({}));
    expect(state.dataNodes).toEqual({ instanceType: 't3.small.search', count: 1, zones: 1 });
  });
});

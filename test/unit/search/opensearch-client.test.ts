import { describe, expect, it } from 'vitest';
import { awsService } from '../../../functions/search/opensearch/client';

describe('OpenSearch client signing', () => {
  it('signs requests to a managed AWS domain as the es service', () => {
    expect(awsService('https://search-jobs-abc123.eu-west-1.es.amazonaws.com')).toBe('es');
    expect(awsService('https://vpc-jobs-abc123.eu-west-1.es.amazonaws.com:443')).toBe('es');
  });

  it('signs requests to OpenSearch Serverless as the aoss service', () => {
    expect(awsService('https://abc123.eu-west-1.aoss.amazonaws.com')).toBe('aoss');
  });

  it('sends plain requests to a local node', () => {
    expect(awsService('http://localhost:9200')).toBeUndefined();
    expect(awsService('http://127.0.0.1:9200')).toBeUndefined();
    expect(awsService('https://amazonaws.com.example.org')).toBeUndefined();
  });
});

/**
 * The OpenSearch client built from the library's transport layer, against a fake node (a local
 * node:http server): which service it signs for, that it really signs (and only when it should),
 * and how it answers responses and failures.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  awsService,
  type ClientSettings,
  createClient,
  isTransientClientError,
  type OpenSearchClient,
  responseErrorType,
  responseStatus,
} from '../../../functions/search/opensearch/client';
import { FakeOpenSearchNode, type ReplyTo } from '../../support/fake-opensearch';

/** What the node answers unless a test says otherwise. */
const acknowledged: ReplyTo = () => ({ status: 200, body: { acknowledged: true } });

const TEST_CREDENTIALS = { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret-key' };
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

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

describe('OpenSearch client', () => {
  let node: FakeOpenSearchNode;
  let settings: ClientSettings;
  let client: OpenSearchClient | undefined;

  const open = (made: OpenSearchClient): OpenSearchClient => {
    client = made;
    return made;
  };

  beforeEach(async () => {
    node = new FakeOpenSearchNode(acknowledged);
    settings = { url: await node.start(), region: 'us-east-1', timeoutMs: 2_000 };
  });

  afterEach(async () => {
    await client?.close();
    client = undefined;
    await node.stop();
  });

  it('signs every request with SigV4 for the AWS service, region and credentials', async () => {
    const signed = open(
      createClient(settings, { service: 'es', getCredentials: () => Promise.resolve(TEST_CREDENTIALS) }),
    );
    await signed.request({ method: 'POST', path: '/jobs/_search', body: { size: 0 } });
    const [request] = node.requests;
    const date = String(request?.headers['x-amz-date']);
    expect(date).toMatch(/^\d{8}T\d{6}Z$/);
    expect(request?.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=AKIDTEST/${date.slice(0, 8)}/us-east-1/es/aws4_request, ` +
          'SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*x-amz-date[a-z0-9;-]*, Signature=[0-9a-f]{64}$',
      ),
    );
    expect(request?.headers['x-amz-content-sha256']).toBe(sha256('{"size":0}'));
  });

  it('signs for OpenSearch Serverless as the aoss service', async () => {
    const signed = open(
      createClient(settings, { service: 'aoss', getCredentials: () => Promise.resolve(TEST_CREDENTIALS) }),
    );
    await signed.request({ method: 'GET', path: '/jobs/_doc/1' });
    expect(node.requests[0]?.headers.authorization).toContain('/us-east-1/aoss/aws4_request');
  });

  it('sends no authorization to a local node', async () => {
    const plain = open(createClient(settings));
    await plain.request({ method: 'POST', path: '/jobs/_search', body: { size: 0 } });
    const [request] = node.requests;
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.headers['x-amz-date']).toBeUndefined();
  });

  it('sends a JSON body as application/json and the query string as given', async () => {
    const plain = open(createClient(settings));
    node.reply = () => ({ status: 200, body: { hits: { total: { value: 3 } } } });
    const response = await plain.request({
      method: 'POST',
      path: '/jobs/_search',
      querystring: { ignore_unavailable: true },
      body: { query: { match_all: {} } },
    });
    expect(response).toEqual({ statusCode: 200, body: { hits: { total: { value: 3 } } } });
    const [request] = node.requests;
    expect(request?.url).toBe('/jobs/_search?ignore_unavailable=true');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual({ query: { match_all: {} } });
  });

  it('sends bulk lines as NDJSON, each line ending in a newline', async () => {
    const plain = open(createClient(settings));
    await plain.request({
      method: 'POST',
      path: '/_bulk',
      bulkBody: [{ delete: { _index: 'jobs', _id: '2' } }, { index: { _index: 'jobs', _id: '3' } }, { jobId: 3 }],
    });
    const [request] = node.requests;
    expect(request?.headers['content-type']).toBe('application/x-ndjson');
    expect(request?.body).toBe(
      '{"delete":{"_index":"jobs","_id":"2"}}\n{"index":{"_index":"jobs","_id":"3"}}\n{"jobId":3}\n',
    );
  });

  it('answers HEAD with whether the resource exists', async () => {
    const plain = open(createClient(settings));
    node.reply = (request) => ({ status: request.url === '/jobs' ? 200 : 404 });
    await expect(plain.request({ method: 'HEAD', path: '/jobs', ignore: [404] })).resolves.toEqual({
      statusCode: 200,
      body: true,
    });
    await expect(plain.request({ method: 'HEAD', path: '/other', ignore: [404] })).resolves.toEqual({
      statusCode: 404,
      body: false,
    });
  });

  it('rejects an error status with its status and error type, unless the status is ignored', async () => {
    const plain = open(createClient(settings));
    node.reply = () => ({ status: 400, body: { error: { type: 'resource_already_exists_exception' } } });
    const error = await plain.request({ method: 'PUT', path: '/jobs', body: {} }).catch((caught: unknown) => caught);
    expect(responseStatus(error)).toBe(400);
    expect(responseErrorType(error)).toBe('resource_already_exists_exception');
    expect(isTransientClientError(error)).toBe(false);
    await expect(plain.request({ method: 'PUT', path: '/jobs', body: {}, ignore: [400] })).resolves.toMatchObject({
      statusCode: 400,
    });
  });

  it('treats throttling and server errors as transient', async () => {
    const plain = open(createClient(settings));
    for (const status of [429, 500, 503]) {
      node.reply = () => ({ status, body: { error: { type: 'boom' } } });
      const error = await plain.request({ method: 'GET', path: '/jobs' }).catch((caught: unknown) => caught);
      expect(isTransientClientError(error), String(status)).toBe(true);
      expect(responseStatus(error), String(status)).toBe(status);
    }
  });

  it('treats an unreachable node as transient, with no response status', async () => {
    await node.stop();
    const plain = open(createClient(settings));
    const error = await plain.request({ method: 'GET', path: '/jobs' }).catch((caught: unknown) => caught);
    expect(isTransientClientError(error)).toBe(true);
    expect(responseStatus(error)).toBeUndefined();
    node = new FakeOpenSearchNode(acknowledged);
    await node.start();
  });
});

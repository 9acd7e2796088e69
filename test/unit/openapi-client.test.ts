/**
 * The typed client: generated from the current openapi.yaml, and sending what the API requires on
 * every call (a fake fetch records the requests; the end-to-end suite calls the real service).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createJobsApiClient } from '../../client/index';
import { CLIENT_SCHEMA, generateClientTypes } from '../../scripts/generate-client';

/** A fetch that records each request and answers with a canned JSON answer. */
const recordingFetch = (status: number, body: unknown) => {
  const requests: Request[] = [];
  const fetch = async (input: Request): Promise<Response> => {
    requests.push(input);
    return new Response(JSON.stringify(body), {
      status,
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'X-Request-Id': 'r-1',
        'Cache-Control': 'no-store',
      },
    });
  };
  return { fetch, requests };
};

const tokens = { clientToken: 'client-token', sessionToken: 'session-token' };

describe('the typed client', () => {
  it('is generated from the current openapi.yaml (run `npm run generate:client` after changing it)', async () => {
    expect(readFileSync(CLIENT_SCHEMA, 'utf8')).toBe(await generateClientTypes());
  });

  it('sends Accept, both tokens and a JSON body to the base URL', async () => {
    const { fetch, requests } = recordingFetch(200, { _type: 'SearchResponseBody', totalJobs: 0, jobs: [] });
    const api = createJobsApiClient('http://api.test/prod/', tokens, { fetch });
    const { data } = await api.POST('/search', { body: { field: 'JobName', query: 'spring', statuses: ['CJ_NEW'] } });
    expect(data?.totalJobs).toBe(0);
    const request = requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('http://api.test/prod/search');
    expect(request.headers.get('accept')).toBe('application/json');
    expect(request.headers.get('x-client-token')).toBe('client-token');
    expect(request.headers.get('x-session-token')).toBe('session-token');
    expect(request.headers.get('content-type')).toBe('application/json');
    expect(await request.json()).toEqual({ field: 'JobName', query: 'spring', statuses: ['CJ_NEW'] });
  });

  it('hands an error answer back as a typed error body', async () => {
    const body = { code: 'invalid_session', message: 'The session token is unknown.', requestId: 'r-1' };
    const { fetch } = recordingFetch(401, body);
    const api = createJobsApiClient('http://api.test', tokens, { fetch });
    const { data, error, response } = await api.GET('/search/fields');
    expect(data).toBeUndefined();
    expect(response.status).toBe(401);
    expect(error?.code).toBe('invalid_session');
  });
});

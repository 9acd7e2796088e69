/**
 * Micro-benchmark of the HTTP chain: the cost of each middleware's check on a passing request, and of
 * the whole chain (middy included) around an empty handler, with authentication answered from memory.
 * Not a test; numbers depend on the machine.
 *
 *   npx tsx bench/middlewares/middlewares.ts [iterations=20000]
 */
import { performance } from 'node:perf_hooks';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Principal } from '../../functions/auth/principal';
import { acceptCheck } from '../../functions/http/middlewares/accept';
import { authentication } from '../../functions/http/middlewares/authentication';
import { authorization } from '../../functions/http/middlewares/authorization';
import { bodyParser } from '../../functions/http/middlewares/body-parser';
import { bodySize } from '../../functions/http/middlewares/body-size';
import { contentTypeCheck } from '../../functions/http/middlewares/content-type';
import { errorFormatter } from '../../functions/http/middlewares/error-formatter';
import { methodCheck } from '../../functions/http/middlewares/method';
import { requestContext } from '../../functions/http/middlewares/request-context';
import { requiredHeaders } from '../../functions/http/middlewares/required-headers';
import type { HttpMiddleware, HttpRequest } from '../../functions/http/middlewares/types';
import { validation } from '../../functions/http/middlewares/validation';
import { routeFor } from '../../functions/http/routes';
import { parseSearchCriteria } from '../../functions/http/search-criteria';
import type { EndpointContext, HttpState } from '../../functions/http/state';

const ITERATIONS = Number(process.argv[2] ?? 20_000);

const principal: Principal = {
  clientId: 'c',
  clientName: 'Bench',
  grants: ['search', 'reject'],
  sessionId: 's',
  userId: 'u',
  accountId: 42,
  role: 'user',
};
const authenticator = () => ({ authenticate: async () => principal });

const body = JSON.stringify({
  field: 'JobName',
  query: 'spring catalogue',
  page: 2,
  statuses: ['CJ_NEW', 'CJ_ACCEPT'],
});

const event = (): APIGatewayProxyEvent =>
  ({
    httpMethod: 'POST',
    path: '/search',
    resource: '/search',
    headers: {
      accept: 'text/html, application/json;q=0.9',
      'content-type': 'application/json; charset=utf-8',
      'x-client-token': 'client-token',
      'x-session-token': 'session-token',
    },
    multiValueHeaders: {},
    body,
    isBase64Encoded: false,
    requestContext: { requestId: 'bench' },
  }) as unknown as APIGatewayProxyEvent;

/** The search endpoint's own parser: the generated schema validator and the contract's extra rules. */
const parse = parseSearchCriteria;

const request = (): HttpRequest<never> => ({
  event: event(),
  context: {} as HttpRequest<never>['context'],
  response: undefined,
  error: undefined,
  internal: { requestId: 'bench', principal, decodedBody: { encoding: 'json', value: JSON.parse(body) } },
});

const route = routeFor('/search');
const middlewares: Array<[string, HttpMiddleware<never>]> = [
  ['requestContext', requestContext()],
  ['methodCheck', methodCheck({ route })],
  ['acceptCheck', acceptCheck()],
  ['contentTypeCheck', contentTypeCheck()],
  ['requiredHeaders', requiredHeaders()],
  ['authentication (in memory)', authentication({ authenticator })],
  ['authorization', authorization({ grant: 'search' })],
  ['bodySize', bodySize()],
  ['bodyParser', bodyParser()],
  ['validation', validation({ parse })],
];

const measure = async (name: string, run: () => unknown): Promise<void> => {
  for (let i = 0; i < Math.min(1_000, ITERATIONS); i++) await run();
  const start = performance.now();
  for (let i = 0; i < ITERATIONS; i++) await run();
  const nsPerOp = ((performance.now() - start) * 1e6) / ITERATIONS;
  console.log(`${name.padEnd(32)} ${nsPerOp.toFixed(0).padStart(8)} ns/op`);
};

const main = async (): Promise<void> => {
  console.log(`HTTP chain micro-benchmark, ${ITERATIONS} iterations, Node ${process.version}`);
  for (const [name, middleware] of middlewares) {
    const shared = request();
    await measure(name, () => middleware.before?.(shared));
  }

  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, EndpointContext, HttpState>(async () => ({
    statusCode: 200,
    headers: {},
    body: '{}',
  })).use([
    requestContext(),
    httpHeaderNormalizer(),
    methodCheck({ route }),
    acceptCheck(),
    contentTypeCheck(),
    requiredHeaders(),
    authentication({ authenticator }),
    authorization({ grant: 'search' }),
    bodySize(),
    bodyParser(),
    validation({ parse }),
    errorFormatter({
      logger: { info: () => undefined, error: () => undefined } as never,
      metrics: { addMetric: () => undefined, publishStoredMetrics: () => undefined },
    }),
  ]);
  await measure('whole chain (200)', () => chain(event(), {} as never));
  const refused = { ...event(), headers: { accept: '*/*' } } as unknown as APIGatewayProxyEvent;
  await measure('whole chain (406 answer)', () => chain({ ...refused }, {} as never));
};

await main();

/**
 * The stage throttle shared out over the API's methods (lib/stage-throttle.ts): the shares never add up to more
 * than the stage's totals, follow the endpoints' weights, and a total too small to give every method a request
 * stops synthesis with a clear message.
 */
import { describe, expect, it } from 'vitest';
import { methodsOf } from '../../lib/rest-api';
import {
  DEFAULT_ENDPOINT_WEIGHT,
  ENDPOINT_WEIGHTS,
  endpointWeight,
  shareStageThrottle,
  StageThrottleError,
  type ThrottledMethod,
} from '../../lib/stage-throttle';
import { ROUTES } from '../../functions/http/routes';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';

/** The API's methods as the stack builds them from the route table (a stand-in object per function). */
const routeTableMethods = (): ThrottledMethod[] => {
  const handlers = new Map<string, IFunction>();
  const handlerOf = (name: string): IFunction => {
    if (!handlers.has(name)) handlers.set(name, { functionName: name } as unknown as IFunction);
    return handlers.get(name)!;
  };
  return methodsOf(
    ROUTES.map((route) => ({ path: route.path, method: route.method, handler: handlerOf(route.functionName) })),
  );
};

const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);

describe('the stage throttle shared over the methods', () => {
  it('weighs only endpoints of the route table, 100 in all for the endpoints it lists', () => {
    const listed = ROUTES.map((route) => `${route.method} ${route.path}`);
    for (const endpoint of Object.keys(ENDPOINT_WEIGHTS)) expect(listed, endpoint).toContain(endpoint);
    expect(sum(Object.values(ENDPOINT_WEIGHTS))).toBe(100);
  });

  it('gives each method its endpoints’ part of the weight, of 100 requests a second and of a burst of 200', () => {
    const shares = shareStageThrottle(routeTableMethods(), { rateLimit: 100, burstLimit: 200 });
    const byMethod = Object.fromEntries(shares.map((share) => [`${share.httpMethod} ${share.path}`, share]));
    // Endpoints added to the route table after the weights were set weigh the default.
    const totalWeight = sum(ROUTES.map((route) => endpointWeight(route.method, route.path)));
    const part = (weight: number, total: number): number => Math.floor((total * weight) / totalWeight);
    expect(byMethod['ANY /search']).toEqual(
      expect.objectContaining({ rateLimit: part(24, 100), burstLimit: part(24, 200) }),
    );
    // GET /jobs/{id} by ANY (the read function), PATCH by the write function's own method.
    expect(byMethod['ANY /jobs/{id}']).toEqual(
      expect.objectContaining({ rateLimit: part(10, 100), burstLimit: part(10, 200) }),
    );
    expect(byMethod['PATCH /jobs/{id}']).toEqual(
      expect.objectContaining({ rateLimit: part(4, 100), burstLimit: part(4, 200) }),
    );
    expect(sum(shares.map((share) => share.rateLimit))).toBeLessThanOrEqual(100);
    expect(sum(shares.map((share) => share.burstLimit))).toBeLessThanOrEqual(200);
  });

  it('never shares out more than the totals, whatever they are', () => {
    for (const [rateLimit, burstLimit] of [
      [50, 50],
      [73, 151],
      [999, 2000],
      [10_000, 5_000],
    ] as const) {
      const shares = shareStageThrottle(routeTableMethods(), { rateLimit, burstLimit });
      expect(sum(shares.map((share) => share.rateLimit))).toBeLessThanOrEqual(rateLimit);
      expect(sum(shares.map((share) => share.burstLimit))).toBeLessThanOrEqual(burstLimit);
    }
  });

  it('weighs an endpoint it does not know at the default weight, and shrinks the others’ shares for it', () => {
    const methods = [
      ...routeTableMethods(),
      { path: '/uploads', httpMethod: 'ANY', endpoints: [{ method: 'POST', path: '/uploads' }] },
    ];
    // A total of one request a second per unit of weight.
    const totalWeight = sum(ROUTES.map((route) => endpointWeight(route.method, route.path))) + DEFAULT_ENDPOINT_WEIGHT;
    const shares = shareStageThrottle(methods, { rateLimit: totalWeight, burstLimit: 2 * totalWeight });
    expect(shares.find((share) => share.path === '/uploads')).toMatchObject({
      rateLimit: DEFAULT_ENDPOINT_WEIGHT,
      burstLimit: 2 * DEFAULT_ENDPOINT_WEIGHT,
    });
    expect(sum(shares.map((share) => share.rateLimit))).toBe(totalWeight);
  });

  it('refuses totals too small to give every method one request a second, naming the method and the settings', () => {
    expect(() => shareStageThrottle(routeTableMethods(), { rateLimit: 10, burstLimit: 200 })).toThrow(
      StageThrottleError,
    );
    expect(() => shareStageThrottle(routeTableMethods(), { rateLimit: 10, burstLimit: 200 })).toThrow(
      /throttleRateLimit 10.*too small to share over \d+ methods/,
    );
  });
});

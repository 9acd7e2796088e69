/**
 * The stage throttle, shared out over the API's methods. API Gateway applies a stage's throttle to each method
 * on its own (every method of the stage gets the whole rate), so a stage throttle of 100 requests a second on
 * sixteen methods admits 1,600 a second in all, sixteen times what the functions are sized for. Here the stage's
 * rate and burst are the totals: each method gets a share of them by the weight of the endpoints it serves,
 * rounded down, so the methods' limits together never exceed the configured totals. docs/deploy.md shows the
 * arithmetic for the default configuration.
 */

/**
 * Each endpoint's weight: its expected part of the traffic, in percent of the default route table. Searching is
 * what customers do most; reading a job and its files follows; writes, reviews and sign-ins come in bursts;
 * the field list and the statuses are read once per session; a platform's backend registers and checks its webhooks
 * rarely. An endpoint missing here weighs
 * {@link DEFAULT_ENDPOINT_WEIGHT}.
 */
export const ENDPOINT_WEIGHTS: Readonly<Record<string, number>> = {
  'POST /search': 24,
  'GET /search/fields': 5,
  'POST /reject': 10,
  'POST /accept': 5,
  'POST /sessions': 10,
  'DELETE /sessions/current': 2,
  'GET /jobs/{id}': 10,
  'GET /jobs/{id}/files': 10,
  'GET /statuses': 2,
  'POST /jobs': 6,
  'PATCH /jobs/{id}': 4,
  'POST /jobs/{id}/delivery': 4,
  'POST /jobs/{id}/files/{fileId}/upload': 2,
  'POST /webhooks': 1,
  'GET /webhooks': 1,
  'DELETE /webhooks/{webhookId}': 2,
  'GET /webhooks/{webhookId}/deliveries': 2,
};

/** The weight of an endpoint {@link ENDPOINT_WEIGHTS} does not list (a new endpoint, until it is weighed). */
export const DEFAULT_ENDPOINT_WEIGHT = 2;

/** The weight of one endpoint, `POST /search`. */
export const endpointWeight = (method: string, path: string): number =>
  ENDPOINT_WEIGHTS[`${method} ${path}`] ?? DEFAULT_ENDPOINT_WEIGHT;

/** One method of the stage (`ANY` or a verb on a resource path) and the endpoints it serves. */
export interface ThrottledMethod {
  /** Resource path, `/jobs/{id}`. */
  path: string;
  /** The API Gateway method, `ANY` or `PATCH`. */
  httpMethod: string;
  /** The endpoints the method serves (an `ANY` method serves every method of its path that its function answers). */
  endpoints: readonly { method: string; path: string }[];
}

/** A method's share of the stage throttle. */
export interface MethodThrottle {
  path: string;
  httpMethod: string;
  /** Requests a second. */
  rateLimit: number;
  /** Requests at once. */
  burstLimit: number;
}

/** The stage's totals cannot give every method at least one request (a second, at once). */
export class StageThrottleError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'StageThrottleError';
  }
}

/**
 * Shares the stage's rate and burst over its methods by weight, each share rounded down. Throws when a method's
 * share would be 0 (API Gateway would refuse every request to it): the totals are too small for the methods.
 */
export const shareStageThrottle = (
  methods: readonly ThrottledMethod[],
  totals: { rateLimit: number; burstLimit: number },
): MethodThrottle[] => {
  const weights = methods.map((method) =>
    method.endpoints.reduce((sum, endpoint) => sum + endpointWeight(endpoint.method, endpoint.path), 0),
  );
  const totalWeight = weights.reduce((sum, weight) => sum + weight, 0);
  return methods.map((method, index) => {
    const share = (total: number): number => Math.floor((total * weights[index]!) / totalWeight);
    const throttle = {
      path: method.path,
      httpMethod: method.httpMethod,
      rateLimit: share(totals.rateLimit),
      burstLimit: share(totals.burstLimit),
    };
    if (throttle.rateLimit < 1 || throttle.burstLimit < 1) {
      throw new StageThrottleError(
        `The stage throttle (throttleRateLimit ${totals.rateLimit}, throttleBurstLimit ${totals.burstLimit}) is ` +
          `too small to share over ${methods.length} methods: ${method.httpMethod} ${method.path} would get ` +
          `${throttle.rateLimit} requests a second and a burst of ${throttle.burstLimit}; raise both`,
      );
    }
    return throttle;
  });
};

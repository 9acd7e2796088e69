/**
 * The Powertools tracer's handler middleware — a `## handler` subsegment annotated with `ColdStart`
 * and `Service`, an error recorded as metadata — switched on per deployment with
 * `DETAILED_TRACING=true` (the stack's `detailedTracing` context).
 *
 * Off, nothing is loaded: the tracer and the X-Ray SDK under it cost about 40 ms of every cold start
 * (BENCHMARKS.md, cold start), which is most of what the functions add to the DynamoDB client's own
 * initialisation. On, they are loaded by the first request and kept for the container's life. Either
 * way Lambda's active tracing (the stack's `Tracing.ACTIVE`) records every invocation and its
 * initialisation in X-Ray; detailed tracing adds the handler's own subsegment inside it.
 *
 * A stack deployed with detailed tracing off does not even bundle the tracer (lib/handler-function.ts
 * `externalModulesFor`): setting `DETAILED_TRACING=true` by hand on such a function logs one warning
 * and leaves it untraced. Switch it with the `detailedTracing` context and deploy.
 */
import { logger, SERVICE_NAME } from '../../observability';
import type { HttpMiddleware, HttpRequest } from './types';

export interface DetailedTracingOptions {
  /** Whether detailed tracing is on; asked once, by the first request. Default: `DETAILED_TRACING`. */
  enabled: () => boolean;
  /** Loads the middleware that does the tracing. Default: the Powertools tracer's `captureLambdaHandler`. */
  load: () => Promise<HttpMiddleware>;
}

/** Whether an environment switches detailed tracing on: `DETAILED_TRACING=true` (any case). */
export const detailedTracingEnabled = (env: NodeJS.ProcessEnv = process.env): boolean =>
  env.DETAILED_TRACING?.trim().toLowerCase() === 'true';

/** The Powertools tracer and its handler middleware; responses stay out of the trace (they hold job data). */
export const loadPowertoolsTracing = async (): Promise<HttpMiddleware> => {
  const [{ Tracer }, { captureLambdaHandler }] = await Promise.all([
    import('@aws-lambda-powertools/tracer'),
    import('@aws-lambda-powertools/tracer/middleware'),
  ]);
  return captureLambdaHandler(new Tracer({ serviceName: SERVICE_NAME }), { captureResponse: false });
};

const defaults: DetailedTracingOptions = {
  enabled: () => detailedTracingEnabled(),
  load: loadPowertoolsTracing,
};

/**
 * Middleware factory: delegates to the tracer's middleware when detailed tracing is on, and does
 * nothing otherwise. A tracer that cannot be loaded is logged once and the function goes on untraced:
 * tracing never fails a request.
 */
export const detailedTracing = (opts: Partial<DetailedTracingOptions> = {}): HttpMiddleware => {
  const options: DetailedTracingOptions = { ...defaults, ...opts };
  let tracing: Promise<HttpMiddleware | undefined> | undefined;

  const tracingMiddleware = (): Promise<HttpMiddleware | undefined> =>
    (tracing ??= options.enabled()
      ? options.load().catch((error: unknown) => {
          logger.warn('Detailed tracing is on but the tracer could not be loaded; continuing without it', {
            error,
          });
          return undefined;
        })
      : Promise.resolve(undefined));

  const detailedTracingBefore = async (request: HttpRequest): Promise<void> => {
    await (await tracingMiddleware())?.before?.(request);
  };

  const detailedTracingAfter = async (request: HttpRequest): Promise<void> => {
    await (await tracingMiddleware())?.after?.(request);
  };

  const detailedTracingOnError = async (request: HttpRequest): Promise<void> => {
    await (await tracingMiddleware())?.onError?.(request);
  };

  return { before: detailedTracingBefore, after: detailedTracingAfter, onError: detailedTracingOnError };
};

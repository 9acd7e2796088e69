/**
 * The REST API: one resource per endpoint path (`{id}` a path parameter). The function of the path's first
 * route takes every method (`ANY`), so its middy chain answers wrong methods with 405 and `Allow`; another
 * function serving the same path (a path read by one function and written by another) takes its own
 * methods, which API Gateway matches before `ANY`. What API Gateway
 * answers by itself (unknown paths, oversized bodies, throttling, integration failures and timeouts,
 * blocked requests) carries the contract's JSON error body, and API Gateway's request id both in it and
 * in `X-Request-Id`, as the functions' answers do. `x-gateway-responses` in openapi.yaml and the table in
 * docs/deploy.md list the same answers (test/infra checks all three agree). Both its log groups, access
 * logs and the execution logs API Gateway would otherwise create by itself, belong to the stack.
 */
import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  type MethodDeploymentOptions,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ERROR_CATALOGUE, type ErrorCode } from '../functions/http/errors';
import { shareStageThrottle, type ThrottledMethod } from './stage-throttle';

/** One method of one resource path and the function that serves it. */
export interface ApiRoute {
  /** Resource path, `/search/fields` or `/jobs/{id}`. */
  path: string;
  /** The HTTP method, `GET`. */
  method: string;
  handler: IFunction;
}

export interface JobsRestApiProps {
  /** API name in the console. */
  name: string;
  /** Stage name (the first path segment of the URL). */
  stageName: string;
  routes: ApiRoute[];
  /** The stage's total steady rate (requests a second), shared over its methods (`lib/stage-throttle.ts`). */
  throttleRateLimit: number;
  /** The stage's total burst (requests at once), shared over its methods likewise. */
  throttleBurstLimit: number;
  logRetention: RetentionDays;
  /** How long API Gateway waits for a function; past it the client gets 503. */
  integrationTimeout: Duration;
}

/** A gateway-generated answer and the contract error it becomes. */
export interface GatewayAnswer {
  type: ResponseType;
  code: ErrorCode;
  /** Extra static headers. */
  headers?: Record<string, string>;
}

/** The contract error body with API Gateway's request id, as a gateway response template. */
export const gatewayErrorTemplate = (code: ErrorCode): string =>
  JSON.stringify({ code, message: ERROR_CATALOGUE[code].message, requestId: '$context.requestId' });

/**
 * What API Gateway answers by itself, mapped to contract errors: a path without a resource (API Gateway
 * calls it a missing authentication token) is 404; a body too large for API Gateway (10 MB) or for a
 * synchronous Lambda invocation (6 MB; API Gateway reports that as too large, not as a failure) is 413;
 * throttling, integration failures and a function that runs out of time (the contract's timed-out
 * dependency, not a request timeout) are 503 with `Retry-After`, never a 500, a 504 or a 408; so is a
 * request the optional per-client limits block.
 */
export const GATEWAY_ANSWERS: readonly GatewayAnswer[] = [
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, code: 'not_found' },
  { type: ResponseType.RESOURCE_NOT_FOUND, code: 'not_found' },
  { type: ResponseType.REQUEST_TOO_LARGE, code: 'payload_too_large' },
  { type: ResponseType.THROTTLED, code: 'service_unavailable', headers: { 'Retry-After': '1' } },
  { type: ResponseType.INTEGRATION_TIMEOUT, code: 'service_unavailable', headers: { 'Retry-After': '1' } },
  { type: ResponseType.INTEGRATION_FAILURE, code: 'service_unavailable', headers: { 'Retry-After': '1' } },
  { type: ResponseType.DEFAULT_5XX, code: 'service_unavailable', headers: { 'Retry-After': '1' } },
  // A request over a per-client limit (lib/rate-limits.ts); the limits count over a minute.
  { type: ResponseType.WAF_FILTERED, code: 'service_unavailable', headers: { 'Retry-After': '60' } },
];

/**
 * The media types API Gateway treats as binary: all of them. A request body of a binary media type reaches
 * the function as its exact bytes, base64-encoded with `isBase64Encoded: true`; without a match API
 * Gateway hands the function a UTF-8 string made of whatever bytes came, so a body that is not UTF-8
 * would reach the function already converted, and might be accepted. With every body as bytes the
 * function itself refuses one that is not UTF-8 (`400 invalid_json`, docs/contract.md §1), as it does
 * behind the local server, and counts the 1 MiB limit in the bytes sent. Answers are unchanged: API
 * Gateway decodes a function's answer only when the function marks it `isBase64Encoded`, and the functions
 * answer JSON text, never so marked.
 */
export const BINARY_MEDIA_TYPES: readonly string[] = ['*/*'];

/** Headers every answer carries (static values are quoted for API Gateway). */
const COMMON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

/** Headers mapped from the request context: the request id, as `requestId` in the body carries it. */
const CONTEXT_HEADERS = { 'X-Request-Id': 'context.requestId' };

const quoted = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `'${value}'`]));

/**
 * The access log's fields: one JSON object per request, each value an API Gateway `$context` variable for REST
 * access logs. Beside who called what and the answer's status, size and latency, the fields tell apart what
 * went wrong: API Gateway's own answer (`errorResponseType`: `THROTTLED`, `WAF_FILTERED`, `INTEGRATION_TIMEOUT`,
 * `INTEGRATION_FAILURE`, `DEFAULT_5XX`, …, and its message), what Lambda said (`integrationServiceStatus`, the
 * Lambda service's status; `integrationStatus`, the function's own answer; `integrationError`, a function that
 * threw or ran out of time), how long the function took, and what AWS WAF decided. `integrationRequestId` is the
 * Lambda request id, the `function_request_id` of the function's log lines. docs/deploy.md shows how to read it.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  extendedRequestId: '$context.extendedRequestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  httpMethod: '$context.httpMethod',
  resourcePath: '$context.resourcePath',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  errorMessage: '$context.error.messageString',
  errorResponseType: '$context.error.responseType',
  integrationServiceStatus: '$context.integration.integrationStatus',
  integrationStatus: '$context.integration.status',
  integrationError: '$context.integration.error',
  integrationErrorMessage: '$context.integrationErrorMessage',
  integrationLatency: '$context.integration.latency',
  integrationRequestId: '$context.integration.requestId',
  wafResponseCode: '$context.wafResponseCode',
  wafStatus: '$context.waf.status',
  wafError: '$context.waf.error',
  wafLatency: '$context.waf.latency',
  xrayTraceId: '$context.xrayTraceId',
} as const;

/** Variables whose value API Gateway writes already quoted (`$context.error.messageString`: the message, escaped). */
const QUOTED_BY_API_GATEWAY: ReadonlySet<string> = new Set(['$context.error.messageString']);

/** The access log format: {@link ACCESS_LOG_FIELDS} as one JSON object per line. */
export const accessLogFormat = (): string =>
  `{${Object.entries(ACCESS_LOG_FIELDS)
    .map(([key, variable]) => `"${key}":${QUOTED_BY_API_GATEWAY.has(variable) ? variable : `"${variable}"`}`)
    .join(',')}}`;

/**
 * The log group API Gateway writes a stage's execution logs to. API Gateway creates it on its first write
 * unless it exists, and then it never expires and outlives the stack; so the stack creates it first.
 */
export const executionLogGroupName = (restApiId: string, stageName: string): string =>
  `API-Gateway-Execution-Logs_${restApiId}/${stageName}`;

/** One API Gateway method: a resource path, `ANY` or a verb, the function behind it and the endpoints it serves. */
export interface ApiMethod extends ThrottledMethod {
  handler: IFunction;
}

/**
 * The API Gateway methods of the routes: per path, `ANY` for the function of the path's first route (it serves
 * that function's endpoints of the path and answers other methods with 405), and the own method of each endpoint
 * another function serves.
 */
export const methodsOf = (routes: readonly ApiRoute[]): ApiMethod[] =>
  [...new Set(routes.map((route) => route.path))].flatMap((path) => {
    const onPath = routes.filter((route) => route.path === path);
    const fallback = onPath[0]!.handler;
    const endpoint = (route: ApiRoute) => ({ method: route.method, path: route.path });
    return [
      {
        path,
        httpMethod: 'ANY',
        handler: fallback,
        endpoints: onPath.filter((route) => route.handler === fallback).map(endpoint),
      },
      ...onPath
        .filter((route) => route.handler !== fallback)
        .map((route) => ({ path, httpMethod: route.method, handler: route.handler, endpoints: [endpoint(route)] })),
    ];
  });

/** The REST API of the endpoints. */
export class JobsRestApi extends Construct {
  public readonly api: RestApi;
  /** The stage's execution logs (errors, with `loggingLevel` ERROR). */
  public readonly executionLogs: LogGroup;

  public constructor(scope: Construct, id: string, props: JobsRestApiProps) {
    super(scope, id);
    const methods = methodsOf(props.routes);
    const throttles = shareStageThrottle(methods, {
      rateLimit: props.throttleRateLimit,
      burstLimit: props.throttleBurstLimit,
    });
    const logging = { loggingLevel: MethodLoggingLevel.ERROR, dataTraceEnabled: false, metricsEnabled: true };
    // Each method's own share; the stage default (every method without one, none today) gets the smallest share.
    const methodOptions = Object.fromEntries(
      throttles.map((throttle): [string, MethodDeploymentOptions] => [
        `${throttle.path}/${throttle.httpMethod}`,
        { ...logging, throttlingRateLimit: throttle.rateLimit, throttlingBurstLimit: throttle.burstLimit },
      ]),
    );
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api = new RestApi(this, 'Api', {
      restApiName: props.name,
      description: 'Jobs API: job search and file rejection',
      endpointTypes: [EndpointType.REGIONAL],
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      // The account-wide CloudWatch role belongs to the JobsApi-account stack (lib/api-gateway-account.ts).
      cloudWatchRole: false,
      deployOptions: {
        stageName: props.stageName,
        tracingEnabled: true,
        ...logging,
        throttlingRateLimit: Math.min(...throttles.map((throttle) => throttle.rateLimit)),
        throttlingBurstLimit: Math.min(...throttles.map((throttle) => throttle.burstLimit)),
        methodOptions,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(accessLogFormat()),
      },
    });

    this.executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: executionLogGroupName(this.api.restApiId, props.stageName),
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // The stage starts logging once it exists, so the group must exist before it.
    this.api.deploymentStage.node.addDependency(this.executionLogs);

    for (const method of methods) {
      this.api.root
        .resourceForPath(method.path)
        .addMethod(
          method.httpMethod,
          new LambdaIntegration(method.handler, { proxy: true, timeout: props.integrationTimeout }),
        );
    }

    for (const answer of GATEWAY_ANSWERS) {
      this.api.addGatewayResponse(`Gateway${answer.type.responseType}`, {
        type: answer.type,
        statusCode: String(ERROR_CATALOGUE[answer.code].status),
        responseHeaders: { ...quoted({ ...COMMON_HEADERS, ...answer.headers }), ...CONTEXT_HEADERS },
        templates: { 'application/json': gatewayErrorTemplate(answer.code) },
      });
    }
  }

  /** The base URL of the deployed stage. */
  public get url(): string {
    return this.api.url;
  }
}

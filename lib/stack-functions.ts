/**
 * The stack's Lambda functions: one per API handler module of the route table, and the four that events drive —
 * the indexer and the events function (the jobs table's stream), the images function (the bucket's uploads) and
 * the webhooks' sender (its queue). Each gets the common environment and only the settings of its own; what it may
 * call is granted in `function-permissions.ts`, what invokes it is wired by the constructs of its event source.
 */
import type { Duration } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { type ApiFunctionName, apiFunctions } from '../functions/http/routes';
import { HandlerFunction, type HandlerFunctionProps, NATIVE_NODE_MODULES } from './handler-function';
import { IMAGES_MEMORY_MIB } from './image-renditions';
import type { JobsApiConfig } from './stack-config';
import { INDEX_WRITE_TIMEOUT } from './stream-indexer';
import {
  API_DEPENDENCY_TIMEOUT,
  API_FUNCTION_TIMEOUT,
  EVENTS_TIMEOUT,
  IMAGES_TIMEOUT,
  INDEXER_TIMEOUT,
  WEBHOOKS_SENDER_TIMEOUT,
} from './timeouts';

/** A handler module's name as a construct name: `search-fields` → `SearchFields`. */
type PascalCase<Name extends string> = Name extends `${infer Head}-${infer Tail}`
  ? `${Capitalize<Head>}${PascalCase<Tail>}`
  : Capitalize<Name>;

/** The functions events drive, by construct name. */
type EventFunctionName = 'Indexer' | 'Images' | 'Events' | 'WebhooksSender';

/** The functions of the stack, by construct name: one per API function of the route table, and those events drive. */
export type FunctionName = PascalCase<ApiFunctionName> | EventFunctionName;

/** The name of a handler module's function: `search-fields` → `SearchFields`. */
export const functionNameOf = (module: string): FunctionName =>
  module
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('') as FunctionName;

/** The API functions: one per handler module, serving every endpoint of the route table that names it. */
export const API_FUNCTIONS = apiFunctions().map(({ functionName, routes }) => ({
  name: functionNameOf(functionName),
  module: functionName,
  description: routes.map((route) => `${route.method} ${route.path}`).join(' and '),
}));

/** What differs between the functions events drive. */
interface EventFunction {
  module: string;
  description: string;
  memoryMiB: number;
  timeout: Duration;
  /** Settings of its own, beside the common environment. */
  environment?: Record<string, string>;
  extra?: Pick<HandlerFunctionProps, 'nativeModules' | 'reservedConcurrency'>;
}

export interface StackFunctionsProps {
  config: JobsApiConfig;
  logRetention: RetentionDays;
  /** What every function is told: its tables, the search domain and the shared timeouts. */
  environment: Record<string, string>;
  /** Settings only some functions need. */
  ownEnvironment: Partial<Record<FunctionName, Record<string, string>>>;
}

/** Creates every function of the stack in `scope`, by construct name. */
export const createStackFunctions = (
  scope: Construct,
  { config, logRetention, environment, ownEnvironment }: StackFunctionsProps,
): Record<FunctionName, HandlerFunction> => {
  const functions: Partial<Record<FunctionName, HandlerFunction>> = {};
  for (const endpoint of API_FUNCTIONS) {
    functions[endpoint.name] = new HandlerFunction(scope, endpoint.name, {
      module: endpoint.module,
      logicalId: `${endpoint.name}Function`,
      description: `Jobs API ${endpoint.description}`,
      memoryMiB: config.apiMemoryMiB,
      timeout: API_FUNCTION_TIMEOUT,
      detailedTracing: config.detailedTracing,
      environment: {
        ...environment,
        DEPENDENCY_TIMEOUT_MS: String(API_DEPENDENCY_TIMEOUT.toMilliseconds()),
        ...ownEnvironment[endpoint.name],
      },
      logRetention,
    });
  }
  const eventFunctions: Record<EventFunctionName, EventFunction> = {
    Indexer: {
      module: 'indexer',
      description: 'search indexer (jobs table stream)',
      memoryMiB: 512,
      timeout: INDEXER_TIMEOUT,
      environment: { INDEX_WRITE_TIMEOUT_MS: String(INDEX_WRITE_TIMEOUT.toMilliseconds()) },
    },
    Images: {
      module: 'images',
      description: 'images (previews and thumbnails of uploads)',
      memoryMiB: IMAGES_MEMORY_MIB,
      timeout: IMAGES_TIMEOUT,
      extra: {
        nativeModules: { modules: ['sharp'], nodeModules: NATIVE_NODE_MODULES },
        reservedConcurrency: config.imagesConcurrency,
      },
    },
    Events: {
      module: 'events',
      description: 'events (jobs table stream to the event bus)',
      memoryMiB: 512,
      timeout: EVENTS_TIMEOUT,
    },
    WebhooksSender: {
      module: 'webhooks-sender',
      description: "webhooks' sender (the webhooks queue to the registered endpoints)",
      memoryMiB: 256,
      timeout: WEBHOOKS_SENDER_TIMEOUT,
    },
  };
  for (const [name, fn] of Object.entries(eventFunctions) as [EventFunctionName, EventFunction][]) {
    functions[name] = new HandlerFunction(scope, name, {
      module: fn.module,
      logicalId: `${name}Function`,
      description: `Jobs API ${fn.description}`,
      memoryMiB: fn.memoryMiB,
      timeout: fn.timeout,
      detailedTracing: config.detailedTracing,
      environment: { ...environment, ...fn.environment, ...ownEnvironment[name] },
      logRetention,
      ...fn.extra,
    });
  }
  return functions as Record<FunctionName, HandlerFunction>;
};

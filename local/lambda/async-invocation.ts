/**
 * Asynchronous invocation, as Lambda runs a function S3 notifies: the caller does not wait for the function; a
 * failed invocation (an error, or a timeout) is retried twice, after a pause that grows; an event that failed
 * every attempt goes to the dead-letter callback, the local stand-in for the function's dead-letter queue.
 * Lambda pauses about one and then two minutes; locally the pauses are seconds (configurable), so a developer
 * sees the outcome while still looking. Documented at
 * <https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html>.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { describeError } from '../../functions/errors';
import { InvocationTimeoutError, withBudget } from './invocation-budget';

/** A function invoked asynchronously: its result is not used. */
export type AsyncHandler<E> = (event: E, context: Context) => Promise<unknown>;

/** An event that failed every attempt. */
export interface AsyncDeadLetter<E> {
  /** When it was given up on (ISO 8601). */
  at: string;
  functionName: string;
  /** Why the last attempt failed. */
  reason: string;
  attempts: number;
  event: E;
}

export interface AsyncInvokerOptions<E> {
  handler: AsyncHandler<E>;
  functionName: string;
  region: string;
  /** The function's timeout, in milliseconds (default 60 s). */
  timeoutMs?: number;
  /** The pauses before each retry, in milliseconds (default 1 s and 2 s: two retries, as Lambda makes). */
  retryDelaysMs?: readonly number[];
  /** Receives an event that failed every attempt. */
  onDeadLetter: (letter: AsyncDeadLetter<E>) => Promise<void> | void;
  /** Told of each failed attempt that will be retried. */
  onRetry?: (reason: string, attempt: number) => void;
  /** Waits `ms` (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_RETRY_DELAYS_MS = [1_000, 2_000] as const;

const contextFor = (functionName: string, region: string, timeoutMs: number): Context => {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${functionName}`,
    memoryLimitInMB: '2048',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local-async-invocation',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

/**
 * An asynchronous invoker of `options.handler`: each call runs the function on the event, retries it as Lambda
 * does and resolves once the event succeeded or was dead-lettered — it never rejects (unless the dead-letter
 * callback does), so whoever announces events can wait for them to settle.
 */
export const asyncInvoker =
  <E>(options: AsyncInvokerOptions<E>) =>
  async (event: E): Promise<void> => {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const delays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    let reason = '';
    for (let attempt = 1; attempt <= delays.length + 1; attempt++) {
      try {
        await withBudget(
          Promise.resolve().then(() =>
            options.handler(event, contextFor(options.functionName, options.region, timeoutMs)),
          ),
          timeoutMs,
          () => new InvocationTimeoutError(`The ${options.functionName} function`, timeoutMs),
        );
        return;
      } catch (error) {
        reason = describeError(error);
      }
      const delay = delays[attempt - 1];
      if (delay === undefined) break;
      options.onRetry?.(reason, attempt);
      await sleep(delay);
    }
    await options.onDeadLetter({
      at: new Date().toISOString(),
      functionName: options.functionName,
      reason,
      attempts: delays.length + 1,
      event,
    });
  };

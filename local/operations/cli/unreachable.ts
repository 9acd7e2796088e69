/**
 * What the CLI says when nothing answers where it looks for DynamoDB: the endpoint it tried, and the settings
 * that chose it, so that the reader can start the stack or point the CLI at the one that runs. A bare
 * `connect ECONNREFUSED 127.0.0.1:8000` names neither.
 */
import { DEFAULT_DATA_DIR, DEFAULT_DYNAMODB_PORT } from '../../paths';

/** How many `cause` (and aggregated) links are followed. */
const MAX_DEPTH = 6;

interface ErrorShape {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** Whether an error, one of its causes or one of the errors it aggregates is a refused connection. */
export const isConnectionRefused = (error: unknown, depth = 0): boolean => {
  if (depth > MAX_DEPTH || typeof error !== 'object' || error === null) return false;
  const shape = error as ErrorShape;
  if (shape.code === 'ECONNREFUSED') return true;
  if (typeof shape.message === 'string' && /\bECONNREFUSED\b/.test(shape.message)) return true;
  const aggregated = Array.isArray(shape.errors) ? shape.errors : [];
  return [shape.cause, ...aggregated].some((inner) => isConnectionRefused(inner, depth + 1));
};

/**
 * The message for a refused connection to the local stack's DynamoDB, or `undefined` when the error is
 * something else or the target is a deployed stack. `tried` is the endpoint the CLI sent its requests to;
 * `env` the environment as the CLI was started (before it chose its target).
 */
export const unreachableLocalStack = (
  error: unknown,
  tried: string | undefined,
  env: NodeJS.ProcessEnv,
  stack: string | undefined,
): string | undefined => {
  if (stack !== undefined || !isConnectionRefused(error)) return undefined;
  const setting = (name: string, fallback: string | number): string => {
    const value = env[name]?.trim();
    return value ? `${name}=${value}` : `${name} unset: ${fallback}`;
  };
  const endpoint = env.DYNAMODB_ENDPOINT?.trim();
  return [
    `Nothing answers at ${tried ?? endpoint ?? `http://localhost:${DEFAULT_DYNAMODB_PORT}`}, where the CLI looked ` +
      "for the local stack's DynamoDB (connection refused). Is `npm start` running?",
    endpoint
      ? `DYNAMODB_ENDPOINT=${endpoint} chose it (it wins over DYNAMODB_PORT).`
      : `DYNAMODB_ENDPOINT is unset, so ${setting('DYNAMODB_PORT', DEFAULT_DYNAMODB_PORT)} chose it.`,
    `Set DYNAMODB_PORT (or DYNAMODB_ENDPOINT) and DATA_DIR (${setting('DATA_DIR', DEFAULT_DATA_DIR)}) as for the ` +
      'npm start you mean, or give --stack <name> to act on a deployed stack.',
  ].join('\n');
};

/**
 * The local stack for a benchmark process: on a DynamoDB Local of its own ({@link startBenchDynamo}), in memory,
 * with no demo data, on free ports. The runtime is imported only here, so a suite can set the environment it
 * needs (`ALLOW_LOCAL_WEBHOOKS`) before the stack's modules read it.
 */
import type { LocalStack } from '../../local/stack/runtime';
import { startBenchDynamo } from './dynamo';

export interface BenchStack {
  stack: LocalStack;
  /** Stops the stack, then its DynamoDB Local. */
  stop(): Promise<void>;
}

/** Starts the local stack with tables named after `tablePrefix`. */
export const startBenchStack = async (tablePrefix: string): Promise<BenchStack> => {
  const dynamo = await startBenchDynamo();
  const { startLocalStack } = await import('../../local/stack/runtime');
  const stack = await startLocalStack({
    port: 0,
    s3Port: 0,
    dataDir: ':memory:',
    dynamodbEndpoint: dynamo.local.endpoint,
    tablePrefix,
    seedDemo: false,
    log: () => {},
  }).catch(async (error: unknown) => {
    await dynamo.stop();
    throw error;
  });
  return {
    stack,
    stop: async () => {
      await stack.stop();
      await dynamo.stop();
    },
  };
};

import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The endpoints of the DynamoDB Locals started for the run, one per worker (test/support/global-setup.ts). */
    dynamodbEndpoints: string[];
    /** The directories of their database files, in the same order. */
    dynamodbDatabases: string[];
    /** The bundles of the scripts the tests run as processes, by script path (test/support/script-bundles.ts). */
    scriptBundles: Record<string, string>;
  }
}

import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The endpoint of the DynamoDB Local started once for the whole run (test/support/global-setup.ts). */
    dynamodbEndpoint: string;
    /** The bundles of the scripts the tests run as processes, by script path (test/support/script-bundles.ts). */
    scriptBundles: Record<string, string>;
  }
}

import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The endpoint of the DynamoDB Local started once for the whole run (test/support/global-setup.ts). */
    dynamodbEndpoint: string;
  }
}

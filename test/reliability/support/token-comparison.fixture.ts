/**
 * Not used by any code: a source file with the two kinds of token comparison the token-comparison
 * check must find, so that tokens.test.ts can show the check is not blind. Nothing imports it.
 */

interface Stored {
  clientToken: string;
}

/** A timing-unsafe comparison of two secrets (what the service must never do). */
export const unsafeEquals = (clientToken: string, stored: Stored): boolean => clientToken === stored.clientToken;

/** A timing-unsafe prefix check on a secret. */
export const unsafePrefix = (sessionToken: string, prefix: string): boolean => sessionToken.startsWith(prefix);

/** Harmless: a type check and a comparison with a literal. */
export const harmless = (sessionToken: unknown): boolean =>
  typeof sessionToken === 'string' && sessionToken !== 'anonymous';

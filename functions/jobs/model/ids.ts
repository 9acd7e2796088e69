/**
 * The one range of job and file ids: integers from 1 to 9,007,199,254,740,991 (2^53 − 1, the largest
 * integer a JSON number carries exactly). Import, the stream reader, search criteria and reject all
 * judge ids here, so a job that can be imported can also be indexed, found by its number and have its
 * files rejected.
 */

/** The smallest id. */
export const MIN_ID = 1;

/** The largest id: 2^53 − 1, 16 decimal digits. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/** Whether a value is an id. */
export const isId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= MIN_ID;

const DECIMAL = /^[0-9]+$/;

/**
 * A non-negative integer written in decimal digits alone (leading zeros allowed: `0042` is 42), when
 * it is at most {@link MAX_ID}; `undefined` for anything else (`-1`, `4.2`, `1e3`, 17 digits).
 */
export const parseDecimal = (text: string): number | undefined => {
  if (!DECIMAL.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
};

/** An id written in decimal digits alone, or `undefined` when the text is not one. */
export const parseId = (text: string): number | undefined => {
  const value = parseDecimal(text);
  return isId(value) ? value : undefined;
};

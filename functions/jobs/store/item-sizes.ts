/**
 * How large the writes of a review are: a conservative estimate of a DynamoDB item's stored size, and the
 * budgets one file item and one transaction must stay within (docs/reject.md). A rejection is refused past
 * either budget, an acceptance past the transaction's, and a delivery cuts its transactions to fit it.
 */
/**
 * The largest estimated size, in bytes, a file item may have after a rejection. DynamoDB refuses items
 * over 400 KB (409,600 bytes); the 29,600 bytes between (7%) absorb any difference between
 * {@link estimatedItemSize} and the service's own accounting, which is published as rules, not as code.
 */
export const ITEM_SIZE_BUDGET = 380_000;

/**
 * The largest estimated size, in bytes, of everything one transaction touches. DynamoDB
 * refuses a transaction whose items add up to more than 4 MB (4,194,304 bytes). Each action counts with
 * its whole item (after the change for an update, as read for a check), the strictest reading of that
 * rule; the 694,304 bytes left (17%) hold the keys, expressions and placeholders of up to 100 actions
 * (under 1 KB each) with room to spare.
 */
export const TRANSACTION_SIZE_BUDGET = 3_500_000;

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * A number's stored size: DynamoDB keeps one byte per two significant digits plus about one byte. Every
 * digit of its decimal text is counted as significant and two bytes are added (three when negative), so
 * the estimate never falls short.
 */
const numberBytes = (value: number | bigint): number => {
  const text = String(value);
  const digits = text.replace(/[^0-9]/g, '').length;
  return 2 + Math.ceil(digits / 2) + (text.startsWith('-') ? 1 : 0);
};

const isDefined = (value: unknown): boolean => value !== undefined;

/** The stored size of one attribute value, by DynamoDB's published sizing rules, rounded up. */
export const attributeValueBytes = (value: unknown): number => {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8Bytes(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberBytes(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set || Array.isArray(value)) {
    const elements = [...(value as Iterable<unknown>)];
    return elements.reduce<number>((total, element) => total + 1 + attributeValueBytes(element), 3);
  }
  if (typeof value === 'object') {
    return Object.entries(value)
      .filter(([, field]) => isDefined(field))
      .reduce((total, [name, field]) => total + 1 + utf8Bytes(name) + attributeValueBytes(field), 3);
  }
  return utf8Bytes(String(value));
};

/**
 * A conservative estimate of an item's stored size in bytes: the UTF-8 length of every attribute name
 * plus the size of every value (strings by their UTF-8 length, numbers by their digits, lists and maps
 * with DynamoDB's per-container and per-element overhead). Attributes left undefined are not stored.
 */
export const estimatedItemSize = (item: object): number =>
  Object.entries(item)
    .filter(([, value]) => isDefined(value))
    .reduce((total, [name, value]) => total + utf8Bytes(name) + attributeValueBytes(value), 0);

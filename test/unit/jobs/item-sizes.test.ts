/**
 * The size estimate of a rejection's writes (functions/jobs/store/item-sizes.ts): DynamoDB's published sizing
 * rules, rounded up, so the estimate never falls short of what the service counts.
 */
import { describe, expect, it } from 'vitest';
import {
  attributeValueBytes,
  estimatedItemSize,
  ITEM_SIZE_BUDGET,
  TRANSACTION_SIZE_BUDGET,
} from '../../../functions/jobs/store/item-sizes';

describe('attributeValueBytes', () => {
  it('counts null, undefined and booleans as one byte', () => {
    for (const value of [null, undefined, true, false]) expect(attributeValueBytes(value)).toBe(1);
  });

  it('counts a string by its UTF-8 length', () => {
    expect(attributeValueBytes('')).toBe(0);
    expect(attributeValueBytes('abc')).toBe(3);
    expect(attributeValueBytes('é')).toBe(2);
    expect(attributeValueBytes('€')).toBe(3);
  });

  it('counts a number as two bytes and one per two digits, one more when negative', () => {
    expect(attributeValueBytes(0)).toBe(3);
    expect(attributeValueBytes(7)).toBe(3);
    expect(attributeValueBytes(42)).toBe(3);
    expect(attributeValueBytes(123)).toBe(4);
    expect(attributeValueBytes(12.5)).toBe(4);
    expect(attributeValueBytes(-42)).toBe(4);
    expect(attributeValueBytes(-123)).toBe(5);
    expect(attributeValueBytes(12345678901234567890n)).toBe(12);
  });

  it('counts binary data by its length', () => {
    expect(attributeValueBytes(new Uint8Array(10))).toBe(10);
  });

  it('counts a list or set as three bytes and one more per element beside its own size', () => {
    expect(attributeValueBytes([])).toBe(3);
    expect(attributeValueBytes(['ab', 'c'])).toBe(3 + (1 + 2) + (1 + 1));
    expect(attributeValueBytes(new Set(['ab', 'c']))).toBe(3 + (1 + 2) + (1 + 1));
    expect(attributeValueBytes([[1]])).toBe(3 + 1 + (3 + 1 + 3));
  });

  it('counts a map as three bytes and, per defined field, one byte, its name and its value', () => {
    expect(attributeValueBytes({})).toBe(3);
    expect(attributeValueBytes({ ab: 'xyz', c: true })).toBe(3 + (1 + 2 + 3) + (1 + 1 + 1));
    expect(attributeValueBytes({ ab: 'xyz', gone: undefined })).toBe(3 + (1 + 2 + 3));
  });

  it('counts anything else by the UTF-8 length of its text', () => {
    expect(attributeValueBytes(Symbol.for('x') as unknown as string)).toBe(
      Buffer.byteLength(String(Symbol.for('x')), 'utf8'),
    );
  });
});

describe('estimatedItemSize', () => {
  it('adds the UTF-8 length of each defined attribute name and its value', () => {
    expect(estimatedItemSize({})).toBe(0);
    expect(estimatedItemSize({ pk: 'JOB#1', n: 42, reason: undefined })).toBe(2 + 5 + (1 + 3));
    expect(estimatedItemSize({ é: '' })).toBe(2);
  });
});

describe('budgets', () => {
  it('keep room under DynamoDB limits of 400 KB an item and 4 MB a transaction', () => {
    expect(ITEM_SIZE_BUDGET).toBe(380_000);
    expect(ITEM_SIZE_BUDGET).toBeLessThan(409_600);
    expect(TRANSACTION_SIZE_BUDGET).toBe(3_500_000);
    expect(TRANSACTION_SIZE_BUDGET).toBeLessThan(4_194_304);
  });
});

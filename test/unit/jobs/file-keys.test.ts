/**
 * The sort keys of file items: padded to 16 digits so a key range lists a job's files in id order, the
 * former unpadded key known for items written before the padding, and the job item's mark that every file
 * of its job has the padded key.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FILE_KEYS, hasPaddedFileKeys, jobKeys } from '../../../functions/tables';

const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });

describe('the sort key of a file', () => {
  it('sorts as the ids do, whatever their number of digits', () => {
    fc.assert(
      fc.property(id, id, (a, b) => {
        const [ka, kb] = [jobKeys.fileSk(a), jobKeys.fileSk(b)];
        expect(Math.sign(ka.localeCompare(kb, 'en', { sensitivity: 'variant' }))).toBe(Math.sign(a - b));
        expect(ka < kb).toBe(a < b);
      }),
    );
    expect(jobKeys.fileSk(9)).toBe('FILE#0000000000000009');
    expect(jobKeys.fileSk(Number.MAX_SAFE_INTEGER)).toBe('FILE#9007199254740991');
  });

  it('lies within the range after any smaller id, and outside it otherwise', () => {
    fc.assert(
      fc.property(id, id, (after, fileId) => {
        const range = jobKeys.filesAfter(after);
        const key = jobKeys.fileSk(fileId);
        const inside = range !== undefined && key >= range.from && key <= range.to;
        expect(inside).toBe(fileId > after);
      }),
    );
    expect(jobKeys.filesAfter(undefined)).toEqual({ from: 'FILE#0000000000000001', to: 'FILE#9007199254740991' });
    expect(jobKeys.filesAfter(Number.MAX_SAFE_INTEGER)).toBeUndefined();
  });

  it('sorts after no job item key of its partition: the range never holds the job item', () => {
    const range = jobKeys.filesAfter(undefined)!;
    expect(jobKeys.jobSk >= range.from && jobKeys.jobSk <= range.to).toBe(false);
  });

  it('had the unpadded form before, which is read beside the padded one until the migration moved it', () => {
    expect(jobKeys.legacyFileSk(42)).toBe('FILE#42');
    expect(jobKeys.fileSks(42)).toEqual(['FILE#0000000000000042', 'FILE#42']);
    expect(jobKeys.fileSks(1_234_567_890_123_456)).toEqual(['FILE#1234567890123456']);
  });
});

describe('the file id of a sort key', () => {
  it('is read back from a padded file key, and from no other key', () => {
    for (const id of [1, 42, 1_234_567_890_123_456, Number.MAX_SAFE_INTEGER])
      expect(jobKeys.fileIdOfSk(jobKeys.fileSk(id))).toBe(id);
    for (const other of ['FILE#42', 'JOB', 'FILE#9999999999999999', 'FILE#00000000000000x1', 42, undefined])
      expect(jobKeys.fileIdOfSk(other)).toBeUndefined();
  });
});

describe('the mark of a job whose files all have padded keys', () => {
  it('is read from the job item, absent on items written before the padding', () => {
    expect(hasPaddedFileKeys({ [FILE_KEYS.attribute]: 'padded' })).toBe(true);
    expect(hasPaddedFileKeys({})).toBe(false);
    expect(hasPaddedFileKeys({ [FILE_KEYS.attribute]: 'other' })).toBe(false);
    expect(hasPaddedFileKeys(undefined)).toBe(false);
  });
});

/**
 * One id range everywhere: a job or file id is an integer from 1 to 9,007,199,254,740,991 (the largest
 * integer a JSON number carries exactly). Import, the stream reader, search criteria and reject accept
 * exactly that range, so a job can never be imported yet skipped by the indexer or unreachable by search.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jobIdOf } from '../../../functions/indexing/stream-records';
import { isId, MAX_ID, parseId } from '../../../functions/jobs/model/ids';
import { parseRejectRequest } from '../../../functions/http/reject-request';
import { validateJob } from '../../../local/operations/validate-job';
import { textCondition } from '../../../functions/search/query-text';
import type { SearchQuery } from '../../../functions/search/search-index';
import { makeFile, makeJob } from '../../support/jobs';

const IN_RANGE = [1, 42, 999_999_999_999_999, 1_000_000_000_000_000, Number.MAX_SAFE_INTEGER];
const OUT_OF_RANGE = [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, 1e17];

const imported = (id: number): boolean => {
  try {
    validateJob({ ...makeJob({ files: [makeFile({ id })] }), id });
    return true;
  } catch {
    return false;
  }
};

const streamed = (id: number): number | undefined =>
  jobIdOf({ dynamodb: { Keys: { pk: { S: `JOB#${id}` }, sk: { S: 'JOB' } } } } as DynamoDBRecord);

const searchedFor = (text: string) =>
  textCondition({
    field: 'JobNumber',
    text,
    globalFields: [],
    globalMatchesAccountNumber: false,
    offset: 0,
    limit: 20,
  } satisfies SearchQuery);

const rejectable = (fileId: number): boolean => {
  try {
    parseRejectRequest({ encoding: 'json', fields: { files: [{ fileId, customRejection: 'Too dark' }] } });
    parseRejectRequest({ encoding: 'form', fields: { fileId: String(fileId), customRejection: 'Too dark' } });
    return true;
  } catch {
    return false;
  }
};

describe('one id range', () => {
  it('is 1 to 2^53 - 1', () => {
    expect(MAX_ID).toBe(9_007_199_254_740_991);
    for (const id of IN_RANGE) expect(isId(id), String(id)).toBe(true);
    for (const id of OUT_OF_RANGE) expect(isId(id), String(id)).toBe(false);
  });

  it.each(IN_RANGE)('accepts %d in import, stream reading, search and reject alike', (id) => {
    expect(imported(id)).toBe(true);
    expect(streamed(id)).toBe(id);
    expect(searchedFor(String(id))).toEqual({ kind: 'some', exact: [{ field: 'jobId', value: id }] });
    expect(rejectable(id)).toBe(true);
  });

  it.each([0, Number.MAX_SAFE_INTEGER + 1])('refuses %d in import, stream reading, search and reject alike', (id) => {
    expect(imported(id)).toBe(false);
    expect(streamed(id)).toBeUndefined();
    expect(searchedFor(String(id))).toEqual({ kind: 'some', exact: [] });
    expect(rejectable(id)).toBe(false);
  });

  it('reads ids from decimal digits only', () => {
    expect(parseId('0042')).toBe(42);
    expect(parseId('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    for (const text of ['', '0', '-1', '+1', '4.2', '1e3', '0x10', '4 2', '9007199254740992', '12345678901234567']) {
      expect(parseId(text), text).toBeUndefined();
    }
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  foldedFieldText,
  parseInteger,
  significantWords,
  TEXT_FIELD_IDS,
  textCondition,
} from '../../../functions/search/query-text';
import type { SearchDocument, SearchQuery } from '../../../functions/search/search-index';

const query = (overrides: Partial<SearchQuery>): SearchQuery => ({
  field: 'Global',
  text: '',
  globalFields: ['JobName', 'FileName'],
  globalMatchesAccountNumber: false,
  offset: 0,
  limit: 20,
  ...overrides,
});

const document: SearchDocument = {
  summary: {
    id: 1,
    accountId: 2,
    status: 'CJ_NEW',
    guid: 'G',
    name: 'Spring Catalogue',
    description: 'Crème brûlée',
    acceptedDate: null,
    createdDate: '2024-01-01T00:00:00.000Z',
    deliveredDate: null,
    orderedDate: null,
    reviewedDate: null,
    realCost: 0,
    fileCount: 2,
  },
  version: 1,
  accountName: 'ACME Café',
  invoiceReference: 'INV-2024/07',
  jobTags: ['Red', 'blue-green'],
  fileNames: ['cem_test15.JPG', 'b.png'],
  fileTags: ['shoe'],
  fileInstructions: ['Crop tight'],
};

describe('query text', () => {
  it('lists the eight text fields of docs/contract.md §3', () => {
    expect(TEXT_FIELD_IDS).toEqual([
      'AccountName',
      'JobName',
      'FileName',
      'JobInstruction',
      'JobTags',
      'FileTags',
      'FileInstruction',
      'InvoiceReference',
    ]);
  });

  it('indexes each text field as its folded words joined by spaces', () => {
    expect(foldedFieldText(document, 'AccountName')).toBe('acme cafe');
    expect(foldedFieldText(document, 'JobName')).toBe('spring catalogue');
    expect(foldedFieldText(document, 'FileName')).toBe('cem test15 jpg b png');
    expect(foldedFieldText(document, 'JobInstruction')).toBe('creme brulee');
    expect(foldedFieldText(document, 'JobTags')).toBe('red blue green');
    expect(foldedFieldText(document, 'FileTags')).toBe('shoe');
    expect(foldedFieldText(document, 'FileInstruction')).toBe('crop tight');
    expect(foldedFieldText(document, 'InvoiceReference')).toBe('inv 2024 07');
  });

  it('reads only plain non-negative integers as numbers', () => {
    expect(parseInteger('42')).toBe(42);
    expect(parseInteger('0042')).toBe(42);
    expect(parseInteger('9007199254740991')).toBe(9_007_199_254_740_991);
    for (const text of ['', '-1', '+1', '4.2', '1e3', '0x10', '4 2', 'x', '9007199254740992', '12345678901234567']) {
      expect(parseInteger(text), text).toBeUndefined();
    }
  });

  it('has no text condition for an empty or blank query', () => {
    expect(textCondition(query({ text: '' }))).toEqual({ kind: 'all' });
    expect(textCondition(query({ text: ' \t ', field: 'JobNumber' }))).toEqual({ kind: 'all' });
  });

  it('has no text condition for a text query without words', () => {
    expect(textCondition(query({ text: '*-"', field: 'JobName' }))).toEqual({ kind: 'all' });
    expect(textCondition(query({ text: '()' }))).toEqual({ kind: 'all' });
  });

  it('cuts a text field query into folded words', () => {
    expect(textCondition(query({ field: 'FileName', text: 'CEM_Tést15' }))).toEqual({
      kind: 'some',
      words: { words: ['cem', 'test15'], fields: ['FileName'] },
      exact: [],
    });
  });

  it('matches nothing for a job or account number that is not an integer', () => {
    expect(textCondition(query({ field: 'JobNumber', text: '12a' }))).toEqual({ kind: 'some', exact: [] });
    expect(textCondition(query({ field: 'AccountNumber', text: '-3' }))).toEqual({ kind: 'some', exact: [] });
    expect(textCondition(query({ field: 'JobNumber', text: ' 12 ' }))).toEqual({
      kind: 'some',
      exact: [{ field: 'jobId', value: 12 }],
    });
  });

  it('compares GUIDs in lower case', () => {
    expect(textCondition(query({ field: 'Guid', text: ' ABC-DEF ' }))).toEqual({
      kind: 'some',
      exact: [{ field: 'guid', value: 'abc-def' }],
    });
  });

  it('lets a Global query match words, the job number, the GUID and, when allowed, the account number', () => {
    expect(textCondition(query({ text: '15' }))).toEqual({
      kind: 'some',
      words: { words: ['15'], fields: ['JobName', 'FileName'] },
      exact: [
        { field: 'jobId', value: 15 },
        { field: 'guid', value: '15' },
      ],
    });
    expect(textCondition(query({ text: '15', globalMatchesAccountNumber: true }))).toMatchObject({
      exact: [
        { field: 'jobId', value: 15 },
        { field: 'guid', value: '15' },
        { field: 'accountId', value: 15 },
      ],
    });
  });

  it('ignores non-text fields given as Global fields', () => {
    expect(textCondition(query({ text: 'x', globalFields: ['JobNumber', 'Guid', 'JobTags'] }))).toMatchObject({
      words: { words: ['x'], fields: ['JobTags'] },
    });
  });
});

describe('significant words', () => {
  it('drops repeated words and words that start another word, keeping query order', () => {
    expect(significantWords(['spr', 'cat', 'spring', 'cat', 'ca', 'x'])).toEqual(['cat', 'spring', 'x']);
    expect(significantWords(['a', 'ab', 'abc'])).toEqual(['abc']);
    expect(significantWords([])).toEqual([]);
  });

  it('matches exactly the jobs the full word list matches', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-c]{1,3}$/), { maxLength: 6 }),
        fc.array(fc.stringMatching(/^[a-c]{1,4}$/), { maxLength: 5 }),
        (queryWords, jobWords) => {
          const matches = (list: string[]) =>
            list.every((word) => jobWords.some((jobWord) => jobWord.startsWith(word)));
          expect(matches(significantWords(queryWords))).toBe(matches(queryWords));
        },
      ),
    );
  });

  it('reaches both engines: a text condition carries only the significant words', () => {
    const condition = textCondition({
      field: 'JobName',
      text: 'spr Spring cat cat',
      globalFields: [],
      globalMatchesAccountNumber: false,
      offset: 0,
      limit: 20,
    });
    expect(condition).toEqual({ kind: 'some', words: { words: ['spring', 'cat'], fields: ['JobName'] }, exact: [] });
  });
});

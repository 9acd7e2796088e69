/**
 * The run-time check of a search document (functions/search/document-check.ts): a document of the promised
 * shape passes, and a document with a missing or ill-typed field is refused with a message naming the first
 * offending field, what it must hold and what it held.
 */
import { describe, expect, it } from 'vitest';
import {
  conversionProblem,
  InvalidDocumentError,
  searchDocumentProblem,
} from '../../../functions/search/document-check';
import type { SearchDocument } from '../../../functions/search/search-index';

const valid = (): SearchDocument => ({
  summary: {
    id: 1,
    accountId: 0,
    status: 'CJ_NEW',
    guid: 'G',
    name: 'Spring Catalogue',
    description: '',
    acceptedDate: null,
    createdDate: '2024-01-01T00:00:00.000Z',
    deliveredDate: '2024-01-02T00:00:00.000Z',
    orderedDate: null,
    reviewedDate: null,
    realCost: 0,
    fileCount: 0,
  },
  version: 0,
  accountName: 'ACME',
  invoiceReference: '',
  jobTags: [],
  fileNames: ['a.jpg'],
  fileTags: [],
  fileInstructions: [],
});

/** The problem of a valid document with one summary field set to `value`. */
const withSummary = (name: string, value: unknown): string | undefined =>
  searchDocumentProblem({ ...valid(), summary: { ...valid().summary, [name]: value } } as unknown as SearchDocument);

/** The problem of a valid document with one top-level field set to `value`. */
const withField = (name: string, value: unknown): string | undefined =>
  searchDocumentProblem({ ...valid(), [name]: value } as unknown as SearchDocument);

describe('searchDocumentProblem', () => {
  it('passes a document of the promised shape, at the lowest values each count allows', () => {
    expect(searchDocumentProblem(valid())).toBeUndefined();
  });

  it('passes every optional date as null or a datetime', () => {
    for (const name of ['acceptedDate', 'deliveredDate', 'orderedDate', 'reviewedDate']) {
      expect(withSummary(name, null)).toBeUndefined();
      expect(withSummary(name, '2024-05-06T07:08:09.000Z')).toBeUndefined();
    }
  });

  it('refuses what is not an object', () => {
    for (const [value, shown] of [
      [null, 'null'],
      [[], '[]'],
      ['doc', '"doc"'],
      [undefined, 'nothing'],
    ] as const) {
      expect(searchDocumentProblem(value as unknown as SearchDocument)).toBe(
        `the document must be an object, got ${shown}`,
      );
    }
  });

  it('refuses a version that is not a non-negative integer', () => {
    expect(withField('version', -1)).toBe('version must be a non-negative integer, got -1');
    expect(withField('version', 1.5)).toBe('version must be a non-negative integer, got 1.5');
    expect(withField('version', '1')).toBe('version must be a non-negative integer, got "1"');
    expect(withField('version', 2 ** 53)).toBe(`version must be a non-negative integer, got ${2 ** 53}`);
    expect(withField('version', undefined)).toBe('version must be a non-negative integer, got nothing');
  });

  it('refuses a summary that is not an object', () => {
    expect(withField('summary', [])).toBe('summary must be an object, got []');
    expect(withField('summary', undefined)).toBe('summary must be an object, got nothing');
  });

  it('names the summary field at fault and what it must hold', () => {
    expect(withSummary('id', 0)).toBe('summary.id must be a positive integer, got 0');
    expect(withSummary('accountId', -1)).toBe('summary.accountId must be a non-negative integer, got -1');
    expect(withSummary('status', 'CJ_GONE')).toBe('summary.status must be a job status, got "CJ_GONE"');
    expect(withSummary('guid', undefined)).toBe('summary.guid must be a string, got nothing');
    expect(withSummary('name', 7)).toBe('summary.name must be a string, got 7');
    expect(withSummary('description', null)).toBe('summary.description must be a string, got null');
    expect(withSummary('acceptedDate', 'soon')).toBe('summary.acceptedDate must be a datetime or null, got "soon"');
    expect(withSummary('createdDate', null)).toBe('summary.createdDate must be a datetime, got null');
    expect(withSummary('deliveredDate', 0)).toBe('summary.deliveredDate must be a datetime or null, got 0');
    expect(withSummary('orderedDate', 'x')).toBe('summary.orderedDate must be a datetime or null, got "x"');
    expect(withSummary('reviewedDate', '')).toBe('summary.reviewedDate must be a datetime or null, got ""');
    expect(withSummary('realCost', '1')).toBe('summary.realCost must be a finite number, got "1"');
    expect(withSummary('realCost', Number.POSITIVE_INFINITY)).toBe(
      'summary.realCost must be a finite number, got null',
    );
    expect(withSummary('fileCount', -1)).toBe('summary.fileCount must be a non-negative integer, got -1');
  });

  it('names the text field at fault and what it must hold', () => {
    expect(withField('accountName', undefined)).toBe('accountName must be a string, got nothing');
    expect(withField('invoiceReference', 1)).toBe('invoiceReference must be a string, got 1');
    expect(withField('jobTags', 'a')).toBe('jobTags must be a list of strings, got "a"');
    expect(withField('fileNames', ['a', 2])).toBe('fileNames must be a list of strings, got ["a",2]');
    expect(withField('fileTags', [null])).toBe('fileTags must be a list of strings, got [null]');
    expect(withField('fileInstructions', {})).toBe('fileInstructions must be a list of strings, got {}');
  });

  it('names the first offending field, summary fields before text fields', () => {
    const document = { ...valid(), summary: { ...valid().summary, name: 1, guid: 2 }, accountName: 3 };
    expect(searchDocumentProblem(document as unknown as SearchDocument)).toBe('summary.guid must be a string, got 2');
  });

  it('shows a value up to 60 characters whole, and a longer one cut to 57 and an ellipsis', () => {
    const fits = 'x'.repeat(58); // 60 characters with its quotes
    expect(withSummary('status', fits)).toBe(`summary.status must be a job status, got "${fits}"`);
    const long = 'y'.repeat(59); // 61 characters with its quotes
    expect(withSummary('status', long)).toBe(`summary.status must be a job status, got "${'y'.repeat(56)}...`);
  });
});

describe('conversionProblem', () => {
  it('quotes the message of an error, and the text of anything else thrown', () => {
    expect(conversionProblem(new TypeError('x is undefined'))).toBe(
      'the document could not be converted: x is undefined',
    );
    expect(conversionProblem('broken')).toBe('the document could not be converted: broken');
  });
});

describe('InvalidDocumentError', () => {
  it('is an error named for what it is, carrying its message', () => {
    const error = new InvalidDocumentError('summary.id must be a positive integer, got 0');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('InvalidDocumentError');
    expect(error.message).toBe('summary.id must be a positive integer, got 0');
  });
});

/**
 * The run-time check of a search document's shape. Documents are built from job items as the table
 * holds them, and an item edited outside the API (or left by an older writer) can lack a field or hold
 * one of the wrong type; the type system cannot see that. The index's writers check every document they
 * build (`search/search-document.ts`) and fail that one job, instead of handing the engine a document it
 * fails on with a `TypeError` that takes the whole bulk write, and every other job in it, down. Both
 * engines check again and answer such a document `rejected`, alone.
 */
import { isJobStatus } from '../jobs/model/model';
import type { SearchDocument } from './search-index';

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isCount = (value: unknown, min: number): boolean =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min;

const isInstant = (value: unknown): boolean => typeof value === 'string' && !Number.isNaN(Date.parse(value));

const isStringList = (value: unknown): boolean =>
  Array.isArray(value) && value.every((element) => typeof element === 'string');

/** A field, the check of its value and what the check expects. */
type FieldCheck = readonly [name: string, check: (value: unknown) => boolean, expected: string];

const checksOf = (fields: Record<string, [check: (value: unknown) => boolean, expected: string]>): FieldCheck[] =>
  Object.entries(fields).map(([name, [check, expected]]) => [name, check, expected]);

/** Each summary field and what it must hold. */
const SUMMARY_FIELDS = checksOf({
  id: [(value) => isCount(value, 1), 'a positive integer'],
  accountId: [(value) => isCount(value, 0), 'a non-negative integer'],
  status: [isJobStatus, 'a job status'],
  guid: [(value) => typeof value === 'string', 'a string'],
  name: [(value) => typeof value === 'string', 'a string'],
  description: [(value) => typeof value === 'string', 'a string'],
  acceptedDate: [(value) => value === null || isInstant(value), 'a datetime or null'],
  createdDate: [isInstant, 'a datetime'],
  deliveredDate: [(value) => value === null || isInstant(value), 'a datetime or null'],
  orderedDate: [(value) => value === null || isInstant(value), 'a datetime or null'],
  reviewedDate: [(value) => value === null || isInstant(value), 'a datetime or null'],
  realCost: [(value) => typeof value === 'number' && Number.isFinite(value), 'a finite number'],
  fileCount: [(value) => isCount(value, 0), 'a non-negative integer'],
});

/** Each text field of the document and what it must hold. */
const TEXT_FIELDS = checksOf({
  accountName: [(value) => typeof value === 'string', 'a string'],
  invoiceReference: [(value) => typeof value === 'string', 'a string'],
  jobTags: [isStringList, 'a list of strings'],
  fileNames: [isStringList, 'a list of strings'],
  fileTags: [isStringList, 'a list of strings'],
  fileInstructions: [isStringList, 'a list of strings'],
});

const shown = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/**
 * What is wrong with a document that claims to be a {@link SearchDocument}, naming the first offending
 * field (`summary.guid must be a string, got nothing`); `undefined` when it has the promised shape.
 */
export const searchDocumentProblem = (document: SearchDocument): string | undefined => {
  const fields: unknown = document;
  if (!isObject(fields)) return `the document must be an object, got ${shown(fields)}`;
  if (!isCount(fields.version, 0)) return `version must be a non-negative integer, got ${shown(fields.version)}`;
  const summary = fields.summary;
  if (!isObject(summary)) return `summary must be an object, got ${shown(summary)}`;
  for (const [name, check, expected] of SUMMARY_FIELDS) {
    if (!check(summary[name])) return `summary.${name} must be ${expected}, got ${shown(summary[name])}`;
  }
  for (const [name, check, expected] of TEXT_FIELDS) {
    if (!check(fields[name])) return `${name} must be ${expected}, got ${shown(fields[name])}`;
  }
  return undefined;
};

/** Why a document could not be converted for an engine, from whatever its conversion threw. */
export const conversionProblem = (error: unknown): string =>
  `the document could not be converted: ${error instanceof Error ? error.message : String(error)}`;

/** Thrown by either engine for a document it cannot index (a poison record, never retried). */
export class InvalidDocumentError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'InvalidDocumentError';
  }
}

/**
 * A search document as the embedded engine stores it: the `jobs` row, the FTS5 texts and scope.
 */
import { InvalidDocumentError, searchDocumentProblem } from '../../../functions/search/document-check';
import { foldedFieldText } from '../../../functions/search/query-text';
import type { SearchDocument } from '../../../functions/search/search-index';
import { scopeText, TEXT_COLUMN_FIELDS } from './schema';

/** The values of a `jobs` row and its `jobs_text` row. */
export interface JobRow {
  id: number;
  version: number;
  accountId: number;
  status: string;
  guid: string;
  created: number;
  delivered: number | null;
  document: string;
  /** Folded texts, in FTS5 column order. */
  texts: string[];
  /** The `scope` column: the account and status tokens. */
  scope: string;
}

const instant = (value: string | null, name: string): number | null => {
  if (value === null) return null;
  const millis = Date.parse(value);
  if (Number.isNaN(millis)) throw new InvalidDocumentError(`${name} is not a datetime: ${JSON.stringify(value)}`);
  return millis;
};

const integer = (value: number, name: string): number => {
  if (!Number.isSafeInteger(value)) throw new InvalidDocumentError(`${name} is not an integer: ${value}`);
  return value;
};

/** Converts a search document into its row, or throws {@link InvalidDocumentError}. */
export const toJobRow = (document: SearchDocument): JobRow => {
  const problem = searchDocumentProblem(document);
  if (problem !== undefined) throw new InvalidDocumentError(problem);
  const { summary } = document;
  const created = instant(summary.createdDate, 'createdDate');
  if (created === null) throw new InvalidDocumentError('createdDate is missing');
  const accountId = integer(summary.accountId, 'accountId');
  return {
    id: integer(summary.id, 'id'),
    version: integer(document.version, 'version'),
    accountId,
    status: summary.status,
    guid: summary.guid.toLowerCase(),
    created,
    delivered: instant(summary.deliveredDate, 'deliveredDate'),
    document: JSON.stringify(document),
    texts: TEXT_COLUMN_FIELDS.map((field) => foldedFieldText(document, field)),
    scope: scopeText(accountId, summary.status),
  };
};

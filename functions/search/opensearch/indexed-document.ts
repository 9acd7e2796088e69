/**
 * A search document as OpenSearch stores it: the filter and sort fields, the folded texts of every
 * text field, and the whole document (not indexed) for `get()` and the summaries search returns.
 */
import { InvalidDocumentError, searchDocumentProblem } from '../document-check';
import { foldedFieldText, TEXT_FIELD_IDS, type TextFieldId } from '../query-text';
import type { SearchDocument } from '../search-index';

/** The `_source` of an indexed job. */
export interface IndexedDocument {
  jobId: number;
  accountId: number;
  status: string;
  guid: string;
  /** Epoch milliseconds. */
  created: number;
  /** Epoch milliseconds, or null when the job was not delivered. */
  delivered: number | null;
  text: Record<TextFieldId, string>;
  document: SearchDocument;
}

const instant = (value: string, name: string): number => {
  const millis = Date.parse(value);
  if (Number.isNaN(millis)) throw new InvalidDocumentError(`${name} is not a datetime: ${JSON.stringify(value)}`);
  return millis;
};

/** Builds the `_source` of a search document, or throws {@link InvalidDocumentError}. */
export const indexedDocument = (document: SearchDocument): IndexedDocument => {
  const problem = searchDocumentProblem(document);
  if (problem !== undefined) throw new InvalidDocumentError(problem);
  const { summary } = document;
  return {
    jobId: summary.id,
    accountId: summary.accountId,
    status: summary.status,
    guid: summary.guid.toLowerCase(),
    created: instant(summary.createdDate, 'createdDate'),
    delivered: summary.deliveredDate === null ? null : instant(summary.deliveredDate, 'deliveredDate'),
    text: Object.fromEntries(TEXT_FIELD_IDS.map((field) => [field, foldedFieldText(document, field)])) as Record<
      TextFieldId,
      string
    >,
    document,
  };
};

/**
 * The `_bulk` request of an `apply()` and the outcome of each of its items. Every action carries the
 * job's version as an external version with `external_gte`: a write wins when its version is at least
 * the stored one, so a redelivered or reordered older record can never overwrite newer data.
 */
import { conversionProblem, InvalidDocumentError } from '../document-check';
import type { IndexOperation, IndexOutcome } from '../search-index';
import type { BulkAction, BulkItemResult, BulkResponse, BulkResponseItem } from './api-types';
import { type IndexedDocument, indexedDocument } from './indexed-document';

/**
 * The action line of a bulk item (`index` or `delete`, each with the job's external version). It names no
 * index: the request's path does (`/{alias}/_bulk`), and the domain refuses explicit indices in bulk bodies
 * (`rest.action.multi.allow_explicit_index: false`).
 */
export type { BulkAction };

/** The bulk body's lines, and which operation each action belongs to (invalid operations are not sent). */
export interface BulkRequest {
  body: (BulkAction | IndexedDocument)[];
  /** For each operation, in order: its position among the sent actions, or its rejection. */
  slots: ({ sent: number } | { rejected: string })[];
}

/** Builds the bulk request of a list of operations. */
export const bulkRequest = (operations: IndexOperation[]): BulkRequest => {
  const body: BulkRequest['body'] = [];
  const slots: BulkRequest['slots'] = [];
  let sent = 0;
  for (const operation of operations) {
    if (operation.type === 'delete') {
      body.push({
        delete: {
          _id: String(operation.jobId),
          version: operation.version,
          version_type: 'external_gte',
        },
      });
      slots.push({ sent: sent++ });
      continue;
    }
    try {
      const source = indexedDocument(operation.document);
      body.push(
        {
          index: {
            _id: String(operation.document.summary.id),
            version: operation.document.version,
            version_type: 'external_gte',
          },
        },
        source,
      );
      slots.push({ sent: sent++ });
    } catch (error) {
      // The conversion is pure: whatever it throws is about this document alone, never the others.
      slots.push({ rejected: error instanceof InvalidDocumentError ? error.message : conversionProblem(error) });
    }
  }
  return { body, slots };
};

/** What the engine reads of one item of a bulk response (the value under its `index`/`delete` key). */
export type BulkItem = Pick<BulkItemResult, 'status' | 'result' | 'error'>;

/** What the engine reads of the response body of a `_bulk` request. */
export type BulkAnswer = Pick<BulkResponse, 'errors'> & { items: Partial<Record<keyof BulkResponseItem, BulkItem>>[] };

const describe = (item: BulkItem): string =>
  [item.status, item.error?.type, item.error?.reason].filter((part) => part !== undefined).join(' ');

/**
 * The outcome of one bulk item: written → `indexed`; a version conflict (409) → `stale`; a delete of
 * a job the index does not hold (404) → `indexed` (the index already agrees: the job is absent, and
 * the tombstone is recorded); throttling (429) and server errors (5xx) → `retryable`; any other 4xx
 * (a mapping or validation failure of this document) → `rejected`.
 */
export const itemOutcome = (action: 'index' | 'delete', item: BulkItem): IndexOutcome => {
  if (item.status >= 200 && item.status < 300) return { status: 'indexed' };
  if (item.status === 409) return { status: 'stale' };
  if (item.status === 404 && action === 'delete' && item.error === undefined) return { status: 'indexed' };
  if (item.status === 429 || item.status >= 500) return { status: 'retryable', reason: describe(item) };
  return { status: 'rejected', reason: describe(item) };
};

/** Maps a bulk response back onto the operations, in order. */
export const bulkOutcomes = (request: BulkRequest, response: BulkAnswer): IndexOutcome[] =>
  request.slots.map((slot): IndexOutcome => {
    if ('rejected' in slot) return { status: 'rejected', reason: slot.rejected };
    const entry = response.items[slot.sent];
    const [action, item] = entry === undefined ? [] : (Object.entries(entry)[0] ?? []);
    if (item === undefined || (action !== 'index' && action !== 'delete')) {
      return { status: 'retryable', reason: 'the bulk response has no result for this operation' };
    }
    return itemOutcome(action, item);
  });

/** OpenSearch's error type for a missing index (or a target that is not an alias under `require_alias`). */
export const INDEX_MISSING = 'index_not_found_exception';

/**
 * Whether a bulk answer says its target is missing: through the alias, that it is not an alias (a new domain,
 * or an index deleted by hand); into a concrete index, that the index is gone.
 */
export const aliasMissing = (response: BulkAnswer): boolean =>
  response.errors &&
  response.items.some((entry) => {
    const item = Object.values(entry)[0];
    return item?.status === 404 && item.error?.type === INDEX_MISSING;
  });

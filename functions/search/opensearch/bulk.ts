/**
 * The `_bulk` requests of an `apply()` and the outcome of each of their items. Every action carries the
 * job's version as an external version with `external_gte`: a write wins when its version is at least
 * the stored one, so a redelivered or reordered older record can never overwrite newer data.
 *
 * The operations of one `apply()` are cut into requests of at most {@link BULK_LIMITS} (5 MiB of body, 1,000
 * actions): a small domain refuses an HTTP body over 10 MiB whole, which would fail every job of the batch on
 * every retry. An item that alone exceeds what any domain accepts ({@link MAX_BULK_ITEM_BYTES}) is never sent.
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

/** How large one `_bulk` request may grow. */
export interface BulkLimits {
  /** Bytes of NDJSON body (a single item larger than this is sent alone). */
  bytes: number;
  /** Actions. */
  actions: number;
}

/** The limits of every `_bulk` request: 5 MiB, well under the 10 MiB body a small (t3) domain accepts. */
export const BULK_LIMITS: BulkLimits = { bytes: 5 * 1024 * 1024, actions: 1_000 };

/** The largest HTTP body the smallest domains accept (`http.max_content_length`): an item alone over it is refused. */
export const MAX_BULK_ITEM_BYTES = 10 * 1024 * 1024;

/** One operation's part of a bulk body: its lines and their bytes on the wire, or why it is not sent. */
type BulkItemLines = { lines: BulkRequest['body']; bytes: number } | { rejected: string };

/** The bytes of NDJSON lines as the client sends them: each line's JSON and its newline. */
export const ndjsonBytes = (lines: readonly object[]): number =>
  lines.reduce((sum, line) => sum + Buffer.byteLength(JSON.stringify(line)) + 1, 0);

/** The lines of one operation, or why it cannot be sent. */
const itemLines = (operation: IndexOperation): BulkItemLines => {
  let lines: BulkRequest['body'];
  if (operation.type === 'delete') {
    lines = [{ delete: { _id: String(operation.jobId), version: operation.version, version_type: 'external_gte' } }];
  } else {
    try {
      const source = indexedDocument(operation.document);
      const { id } = operation.document.summary;
      lines = [
        { index: { _id: String(id), version: operation.document.version, version_type: 'external_gte' } },
        source,
      ];
    } catch (error) {
      // The conversion is pure: whatever it throws is about this document alone, never the others.
      return { rejected: error instanceof InvalidDocumentError ? error.message : conversionProblem(error) };
    }
  }
  const bytes = ndjsonBytes(lines);
  if (bytes > MAX_BULK_ITEM_BYTES) {
    return { rejected: `its bulk item has ${bytes} bytes, more than the ${MAX_BULK_ITEM_BYTES} a domain accepts` };
  }
  return { lines, bytes };
};

/** The request of a run of operations' items. */
const requestOf = (items: readonly BulkItemLines[]): BulkRequest => {
  const body: BulkRequest['body'] = [];
  const slots: BulkRequest['slots'] = [];
  let sent = 0;
  for (const item of items) {
    if ('rejected' in item) {
      slots.push({ rejected: item.rejected });
      continue;
    }
    body.push(...item.lines);
    slots.push({ sent: sent++ });
  }
  return { body, slots };
};

/** Builds the one bulk request of a list of operations, whatever its size. */
export const bulkRequest = (operations: IndexOperation[]): BulkRequest => requestOf(operations.map(itemLines));

/**
 * Builds the bulk requests of a list of operations, in order, each within `limits`: every operation is in
 * exactly one of them (a rejected one too, as a slot that sends nothing), so their outcomes, concatenated, are
 * the operations' outcomes in order.
 */
export const bulkRequests = (operations: IndexOperation[], limits: BulkLimits = BULK_LIMITS): BulkRequest[] => {
  const requests: BulkRequest[] = [];
  let run: BulkItemLines[] = [];
  let bytes = 0;
  let actions = 0;
  for (const item of operations.map(itemLines)) {
    const size = 'rejected' in item ? 0 : item.bytes;
    const action = 'rejected' in item ? 0 : 1;
    if (actions > 0 && (bytes + size > limits.bytes || actions + action > limits.actions)) {
      requests.push(requestOf(run));
      run = [];
      bytes = 0;
      actions = 0;
    }
    run.push(item);
    bytes += size;
    actions += action;
  }
  if (run.length > 0) requests.push(requestOf(run));
  return requests;
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

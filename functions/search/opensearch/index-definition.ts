/**
 * The OpenSearch index the engine creates on first use: explicit mapping, no dynamic fields.
 *
 * Text is indexed already folded by `text.words()` (see {@link indexedDocument}), so both engines cut
 * words identically; the analyzer repeats the same rules (split on anything that is not a letter or a
 * digit, lower-case, ASCII folding) so the index stays correct for any text that reaches it.
 * `index_prefixes` indexes every 1–19 character prefix of each word (an edge n-gram subfield OpenSearch
 * manages itself), which `match_bool_prefix` uses for the prefix matching docs/contract.md §4 asks for;
 * longer prefixes fall back to a term-dictionary walk, so words of any length match exactly.
 */
import type { TextFieldId } from '../query-text';
import type { CreateIndexBody } from './api-types';
import { TEXT_FIELD_IDS } from '../query-text';

/** The indexed field of each text field (under the `text` object). */
export const textFieldPath = (field: TextFieldId): string => `text.${field}`;

/** Names of the indexed fields the queries use. */
export const FIELDS = {
  jobId: 'jobId',
  accountId: 'accountId',
  status: 'status',
  guid: 'guid',
  created: 'created',
  delivered: 'delivered',
  summary: 'document.summary',
} as const;

/** The analyzer of every text field. */
export const TEXT_ANALYZER = 'folded_words';

const textField = {
  type: 'text',
  analyzer: TEXT_ANALYZER,
  index_prefixes: { min_chars: 1, max_chars: 19 },
  norms: false,
} as const;

/**
 * The body of the create-index request.
 *
 * `index.gc_deletes` keeps delete tombstones (with their external version) for 24 hours — the
 * retention of a DynamoDB stream — so a redelivered older upsert cannot resurrect a deleted job. The
 * slow-log thresholds make the slow logs the domain publishes to CloudWatch record something: OpenSearch
 * leaves every threshold off (-1) by default. A search of this index answers in milliseconds, so half a
 * second is worth a look and two seconds a warning.
 */
export const INDEX_DEFINITION = {
  settings: {
    index: {
      gc_deletes: '24h',
      max_result_window: 10_000,
      search: {
        slowlog: {
          threshold: {
            query: { warn: '2s', info: '500ms' },
            fetch: { warn: '1s', info: '200ms' },
          },
        },
      },
      indexing: {
        slowlog: { threshold: { index: { warn: '2s', info: '500ms' } } },
      },
    },
    analysis: {
      tokenizer: {
        letters_and_digits: { type: 'pattern', pattern: '[^\\p{L}\\p{N}]+' },
      },
      normalizer: {
        lowercase: { type: 'custom', filter: ['lowercase'] },
      },
      analyzer: {
        [TEXT_ANALYZER]: { type: 'custom', tokenizer: 'letters_and_digits', filter: ['lowercase', 'asciifolding'] },
      },
    },
  },
  mappings: {
    dynamic: 'strict',
    properties: {
      [FIELDS.jobId]: { type: 'long' },
      [FIELDS.accountId]: { type: 'long' },
      [FIELDS.status]: { type: 'keyword' },
      [FIELDS.guid]: { type: 'keyword', normalizer: 'lowercase' },
      [FIELDS.created]: { type: 'date', format: 'epoch_millis' },
      [FIELDS.delivered]: { type: 'date', format: 'epoch_millis' },
      text: {
        properties: Object.fromEntries(TEXT_FIELD_IDS.map((field) => [field, textField])),
      },
      /** The whole SearchDocument, returned by `get()` and (its summary) by search; not indexed. */
      document: { type: 'object', enabled: false },
    },
  },
} as const satisfies CreateIndexBody;

import { describe, expect, it } from 'vitest';
import { INDEX_DEFINITION, TEXT_ANALYZER } from '../../../functions/search/opensearch/index-definition';
import { TEXT_FIELD_IDS } from '../../../functions/search/query-text';

describe('OpenSearch index definition', () => {
  const { properties } = INDEX_DEFINITION.mappings;

  it('rejects fields it does not map', () => {
    expect(INDEX_DEFINITION.mappings.dynamic).toBe('strict');
  });

  it('maps filters and sort keys as exact types', () => {
    expect(properties.jobId).toEqual({ type: 'long' });
    expect(properties.accountId).toEqual({ type: 'long' });
    expect(properties.status).toEqual({ type: 'keyword' });
    expect(properties.created).toEqual({ type: 'date', format: 'epoch_millis' });
    expect(properties.delivered).toEqual({ type: 'date', format: 'epoch_millis' });
  });

  it('compares GUIDs case-insensitively through a lower-case normalizer', () => {
    expect(properties.guid).toEqual({ type: 'keyword', normalizer: 'lowercase' });
    expect(INDEX_DEFINITION.settings.analysis.normalizer.lowercase).toEqual({ type: 'custom', filter: ['lowercase'] });
  });

  it('indexes every text field with the word analyzer and 1–19 character prefixes', () => {
    expect(Object.keys(properties.text.properties)).toEqual([...TEXT_FIELD_IDS]);
    for (const field of TEXT_FIELD_IDS) {
      expect(properties.text.properties[field]).toEqual({
        type: 'text',
        analyzer: TEXT_ANALYZER,
        index_prefixes: { min_chars: 1, max_chars: 19 },
        norms: false,
      });
    }
  });

  it('splits words on anything but letters and digits, lower-cases and folds diacritics', () => {
    const { analysis } = INDEX_DEFINITION.settings;
    expect(analysis.analyzer[TEXT_ANALYZER]).toEqual({
      type: 'custom',
      tokenizer: 'letters_and_digits',
      filter: ['lowercase', 'asciifolding'],
    });
    expect(analysis.tokenizer.letters_and_digits).toEqual({ type: 'pattern', pattern: '[^\\p{L}\\p{N}]+' });
  });

  it('keeps the whole document unindexed for reads', () => {
    expect(properties.document).toEqual({ type: 'object', enabled: false });
  });

  it('keeps delete tombstones as long as a stream keeps records, allows 10 000 results, and sets slow-log thresholds', () => {
    expect(INDEX_DEFINITION.settings.index).toEqual({
      gc_deletes: '24h',
      max_result_window: 10_000,
      // OpenSearch's defaults are -1 (off): without thresholds the published slow logs stay empty.
      search: {
        slowlog: { threshold: { query: { warn: '2s', info: '500ms' }, fetch: { warn: '1s', info: '200ms' } } },
      },
      indexing: { slowlog: { threshold: { index: { warn: '2s', info: '500ms' } } } },
    });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldText, words, wordText } from '../../../functions/search/text';

describe('text folding shared by the index and the query', () => {
  it.each([
    ['Café', 'cafe'],
    ['Crème Brûlée', 'creme brulee'],
    ['Ørsted Foto', 'orsted foto'],
    ['Łódź', 'lodz'],
    ['Straße', 'strasse'],
    ['Æble', 'aeble'],
    ['Œuvre', 'oeuvre'],
    ['Þór', 'thor'],
    ['Đakovo', 'dakovo'],
    ['Ħamrun', 'hamrun'],
    ['Dıyarbakır', 'diyarbakir'],
    ['Ŧest', 'test'],
    ['Ðe', 'de'],
    ['GROẞ', 'gross'],
    ['Łódź Ørsted Æble', 'lodz orsted aeble'],
    ['ＡＢＣ１２３', 'abc123'],
  ])('folds %s to %s', (text, folded) => {
    expect(foldText(text)).toBe(folded);
  });

  it('cuts file names on punctuation and underscores', () => {
    expect(words('cem_test15.JPG')).toEqual(['cem', 'test15', 'jpg']);
  });

  it('treats search-engine syntax as separators', () => {
    expect(words('"spr*" OR cat:NEAR(-x) {a b}^2')).toEqual(['spr', 'or', 'cat', 'near', 'x', 'a', 'b', '2']);
  });

  it('yields no words for text without letters or digits', () => {
    expect(words(' *** () -- ')).toEqual([]);
  });

  it('folds ASCII text exactly as the full Unicode folding does', () => {
    const full = (text: string): string =>
      text
        .normalize('NFKD')
        .replace(/\p{M}+/gu, '')
        .toLowerCase();
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)) }),
        (text) => {
          expect(foldText(text)).toBe(full(text));
        },
      ),
    );
    expect(foldText('IMG_4821.JPG Spring SHOES')).toBe('img_4821.jpg spring shoes');
  });

  it('is idempotent: folding folded words changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const once = words(text);
        expect(words(once.join(' '))).toEqual(once);
      }),
    );
  });

  it('joins the words of a text with single spaces, the same as words(text).join(" ")', () => {
    expect(wordText('  cem_test15.JPG -- Crème  Brûlée ')).toBe('cem test15 jpg creme brulee');
    expect(wordText(' *** ')).toBe('');
    const unit = fc.oneof(
      fc.constantFrom(' ', '_', '.', '-', '\u00a0', 'Σ', 'ß', 'é', 'e\u0301'),
      fc.string({ unit: 'grapheme' }),
    );
    fc.assert(
      fc.property(
        fc.array(unit).map((parts) => parts.join('')),
        (text) => {
          expect(wordText(text)).toBe(words(text).join(' '));
        },
      ),
    );
  });

  it('reads several texts joined by a space as the words of each in turn', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' })), (texts) => {
        expect(wordText(texts.join(' '))).toBe(texts.flatMap(words).join(' '));
      }),
    );
  });
});

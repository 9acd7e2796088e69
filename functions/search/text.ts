/**
 * Text normalisation shared by everything that indexes or queries text, so the index and the query
 * always agree: words are runs of letters and digits; case and diacritics are folded
 * (`Café` → `cafe`, `Ørsted` → `orsted`, `Straße` → `strasse`); everything else (punctuation, `_`, `.`,
 * spaces, symbols) separates words.
 */

const COMBINING_MARKS = /\p{M}+/gu;
const WORD = /[\p{L}\p{N}]+/gu;

/**
 * Latin letters that carry a diacritic or ligature but have no Unicode decomposition, so NFKD alone
 * would keep them: written here as the letters a person types on a plain keyboard.
 */
const UNDECOMPOSABLE: Readonly<Record<string, string>> = {
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ħ: 'h',
  ı: 'i',
  ŧ: 't',
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  œ: 'oe',
  þ: 'th',
  ð: 'd',
};
const UNDECOMPOSABLE_LETTERS = new RegExp(`[${Object.keys(UNDECOMPOSABLE).join('')}]`, 'gu');

/** Folds case and removes diacritics: `Crème Brûlée` → `creme brulee`, `Łódź` → `lodz`. */
export const foldText = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .toLowerCase()
    .replace(UNDECOMPOSABLE_LETTERS, (letter) => UNDECOMPOSABLE[letter] ?? letter);

/** Cuts text into folded words: `cem_test15.JPG` → `['cem', 'test15', 'jpg']`. */
export const words = (text: string): string[] => foldText(text).match(WORD) ?? [];

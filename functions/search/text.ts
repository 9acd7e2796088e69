/**
 * Text normalisation shared by everything that indexes or queries text, so the index and the query
 * always agree: words are runs of letters and digits; case and diacritics are folded
 * (`Café` → `cafe`); everything else (punctuation, `_`, `.`, spaces, symbols) separates words.
 */

const COMBINING_MARKS = /\p{M}+/gu;
const WORD = /[\p{L}\p{N}]+/gu;

/** Folds case and removes diacritics: `Crème Brûlée` → `creme brulee`. */
export const foldText = (text: string): string => text.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase();

/** Cuts text into folded words: `cem_test15.JPG` → `['cem', 'test15', 'jpg']`. */
export const words = (text: string): string[] => foldText(text).match(WORD) ?? [];

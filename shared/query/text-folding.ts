/**
 * CASEI and ACCENTI, the CQL2 text folds, and the sort key built from them. One definition for
 * every backend: SQLite registers them as SQL functions (shared/search/sqlite/sql-functions.ts),
 * the engines fold text the same way when they write documents and compile filters.
 */

/**
 * Letters whose diacritic is part of the code point (no canonical decomposition), mapped to
 * their base letter so that ACCENTI('København') equals ACCENTI('Kobenhavn').
 */
const UNDECOMPOSABLE_DIACRITICS: Readonly<Record<string, string>> = {
  ø: 'o',
  Ø: 'O',
  đ: 'd',
  Đ: 'D',
  ł: 'l',
  Ł: 'L',
  ħ: 'h',
  Ħ: 'H',
  ŧ: 't',
  Ŧ: 'T',
  ƀ: 'b',
  Ƀ: 'B',
  ɨ: 'i',
  Ɨ: 'I',
  ƶ: 'z',
  Ƶ: 'Z',
  ǥ: 'g',
  Ǥ: 'G',
  ı: 'i',
};
const UNDECOMPOSABLE_PATTERN = new RegExp(
  `[${Object.keys(UNDECOMPOSABLE_DIACRITICS).join('')}]`,
  'gu',
);

/** Printable ASCII text, which both folds leave unchanged apart from case (a fast path). */
const ASCII_ONLY = /^[ -~\t\n\r]*$/;

/**
 * CASEI: a case-insensitive representation of a string. Compatibility-normalises (NFKC), then
 * upper- and lower-cases, which gives the full Unicode case folding for comparison purposes
 * ('ß' and 'SS' both fold to 'ss', final sigma folds to sigma).
 */
export function foldCase(value: string): string {
  // ASCII is its own NFKC/NFC form and has no final sigma: lower case is the whole fold.
  if (ASCII_ONLY.test(value)) return value.toLowerCase();
  return value.normalize('NFKC').toUpperCase().toLowerCase().replace(/ς/g, 'σ').normalize('NFC');
}

/**
 * ACCENTI: an accent-insensitive representation of a string. Decomposes (NFD), removes the
 * non-spacing combining marks, maps letters with a built-in stroke (ø, ł, đ …) to their base
 * letter and recomposes (NFC). Case is kept.
 */
export function stripAccents(value: string): string {
  // ASCII has no combining marks and no stroked letters: nothing to strip (the common case).
  if (ASCII_ONLY.test(value)) return value;
  return value
    .normalize('NFD')
    .replace(/\p{Mn}/gu, '')
    .replace(UNDECOMPOSABLE_PATTERN, (letter) => UNDECOMPOSABLE_DIACRITICS[letter] ?? letter)
    .normalize('NFC');
}

/**
 * The key text is sorted by: case- and accent-insensitive (CASEI of ACCENTI, so "Ñunç",
 * "nunc" and "NUNC" sort together), compared by code point. Both backends sort by it, with the
 * raw value as the tie-breaker: SQLite through a registered function, the engines through a
 * keyword copy written at indexing time.
 */
export function textSortKey(value: string): string {
  return foldCase(stripAccents(value));
}

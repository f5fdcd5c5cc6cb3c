/**
 * PropertyIsLike patterns: FES lets each request choose its own wildcard, single-character and
 * escape characters; CQL2 LIKE fixes them to `%`, `_` and `\`. This module rewrites one into the
 * other so that every backend only ever sees the CQL2 form.
 */
import { FilterError } from '../../errors/index.js';

/** The three characters (strings, in fact) a PropertyIsLike element declares. */
export interface LikeCharacters {
  wildCard: string;
  singleChar: string;
  escapeChar: string;
}

/** CQL2 LIKE's own characters, used when a request leaves an attribute out. */
export const CQL2_LIKE_CHARACTERS: Readonly<LikeCharacters> = Object.freeze({
  wildCard: '%',
  singleChar: '_',
  escapeChar: '\\',
});

/** Escapes a literal character for a CQL2 LIKE pattern. */
function literalCharacter(character: string): string {
  return character === '%' || character === '_' || character === '\\'
    ? `\\${character}`
    : character;
}

/** Checks that the declared characters are usable and distinct. */
function checkCharacters({ wildCard, singleChar, escapeChar }: LikeCharacters): void {
  if (wildCard === '') throw new FilterError('PropertyIsLike: wildCard must not be empty');
  if (singleChar === '') throw new FilterError('PropertyIsLike: singleChar must not be empty');
  if (wildCard === singleChar) {
    throw new FilterError(
      `PropertyIsLike: wildCard and singleChar are both "${wildCard}"; they must differ`,
    );
  }
  if (escapeChar !== '' && (escapeChar === wildCard || escapeChar === singleChar)) {
    throw new FilterError(
      `PropertyIsLike: escapeChar "${escapeChar}" must differ from wildCard and singleChar`,
    );
  }
}

/**
 * Rewrites a FES PropertyIsLike literal into a CQL2 LIKE pattern: the request's wildcard becomes
 * `%`, its single character `_`, whatever its escape character protects becomes a literal, and
 * literal `%`, `_` and `\` are escaped with `\`. Markers may be several characters long; the
 * longest one matching at a position wins. A trailing escape character stands for itself.
 */
export function translateLikePattern(pattern: string, characters: LikeCharacters): string {
  checkCharacters(characters);
  const { wildCard, singleChar, escapeChar } = characters;
  // Longest marker first, so that e.g. wildCard "**" beats singleChar "*".
  const markers = [
    { text: wildCard, output: '%' },
    { text: singleChar, output: '_' },
  ].sort((a, b) => b.text.length - a.text.length);
  let result = '';
  let index = 0;
  while (index < pattern.length) {
    if (escapeChar !== '' && pattern.startsWith(escapeChar, index)) {
      index += escapeChar.length;
      if (index >= pattern.length) {
        result += [...escapeChar].map(literalCharacter).join('');
        break;
      }
      // The escaped token is a whole marker (or the escape itself) when one starts here,
      // otherwise the next character.
      const escaped =
        [escapeChar, wildCard, singleChar]
          .filter((token) => pattern.startsWith(token, index))
          .sort((a, b) => b.length - a.length)[0] ??
        String.fromCodePoint(pattern.codePointAt(index) ?? 0);
      result += [...escaped].map(literalCharacter).join('');
      index += escaped.length;
      continue;
    }
    const marker = markers.find((candidate) => pattern.startsWith(candidate.text, index));
    if (marker !== undefined) {
      result += marker.output;
      index += marker.text.length;
      continue;
    }
    const character = String.fromCodePoint(pattern.codePointAt(index) ?? 0);
    result += literalCharacter(character);
    index += character.length;
  }
  return result;
}

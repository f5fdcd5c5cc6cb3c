/**
 * Lexical rules of CQL2 text that the JSON parser and the printers need too: reserved words,
 * the identifier production, the characters a character literal may hold, and the validation
 * of DATE and TIMESTAMP strings. The peggy grammar (cql2-text.peggy) carries its own copy of
 * these rules; test/unit/cql2/cql2-lexical.test.ts checks that both agree.
 */

/**
 * The CQL2 keywords (OGC 21-065, clause 8, "CQL2 Text"), plus INTERVAL, which the BNF uses as
 * a keyword too. A property with one of these names must be double-quoted in CQL2 text.
 */
export const CQL2_RESERVED_WORDS: readonly string[] = [
  'A_CONTAINEDBY',
  'A_CONTAINS',
  'A_EQUALS',
  'A_OVERLAPS',
  'ACCENTI',
  'AND',
  'BBOX',
  'BETWEEN',
  'CASEI',
  'DATE',
  'DIV',
  'FALSE',
  'GEOMETRYCOLLECTION',
  'IN',
  'INTERVAL',
  'IS',
  'LIKE',
  'LINESTRING',
  'MULTILINESTRING',
  'MULTIPOINT',
  'MULTIPOLYGON',
  'NOT',
  'NULL',
  'OR',
  'POINT',
  'POLYGON',
  'S_CONTAINS',
  'S_CROSSES',
  'S_DISJOINT',
  'S_EQUALS',
  'S_INTERSECTS',
  'S_OVERLAPS',
  'S_TOUCHES',
  'S_WITHIN',
  'T_AFTER',
  'T_BEFORE',
  'T_CONTAINS',
  'T_DISJOINT',
  'T_DURING',
  'T_EQUALS',
  'T_FINISHEDBY',
  'T_FINISHES',
  'T_INTERSECTS',
  'T_MEETS',
  'T_METBY',
  'T_OVERLAPPEDBY',
  'T_OVERLAPS',
  'T_STARTEDBY',
  'T_STARTS',
  'TIMESTAMP',
  'TRUE',
];

const RESERVED = new Set(CQL2_RESERVED_WORDS);

/** Whether a word is a CQL2 keyword (ASCII case-insensitive, as keywords are matched). */
export function isCql2ReservedWord(word: string): boolean {
  return /^[A-Za-z_]+$/.test(word) && RESERVED.has(word.toUpperCase());
}

/** `identifierStart` of the BNF, as the body of a Unicode regular-expression class. */
const IDENTIFIER_START =
  ':_A-Za-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFE' +
  '\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF' +
  '\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';

/** `identifierPart` of the BNF: a start character, ".", a digit or a combining mark. */
const IDENTIFIER_PART = `${IDENTIFIER_START}.0-9\\u0300-\\u036F\\u203F-\\u2040`;

// eslint-disable-next-line no-misleading-character-class -- code point ranges of the BNF, 'u' flag
const IDENTIFIER = new RegExp(`^[${IDENTIFIER_START}][${IDENTIFIER_PART}]*$`, 'u');

/** Whether a name matches the BNF `identifier` production (reserved or not). */
export function isCql2Identifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

/**
 * Whether a string can be written as a CQL2 text character literal: every character is in the
 * BNF `alpha`, `digit` or `whitespace` productions, a quote, or a control character with an
 * escape (\a \b \t \n \v \f \r). Left out: other C0 controls, lone surrogates, U+FFFE, U+FFFF.
 */
export function isCql2TextString(value: string): boolean {
  for (const character of value) {
    const code = character.codePointAt(0) ?? 0;
    if (code < 0x07 || (code > 0x0d && code < 0x20)) return false;
    if ((code >= 0xd800 && code <= 0xdfff) || code === 0xfffe || code === 0xffff) return false;
  }
  return true;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z$/i;

/** Days in a month of the proleptic Gregorian calendar. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Why a 'YYYY-MM-DD' string is not a calendar date, or undefined when it is one. */
export function describeInvalidDate(value: string): string | undefined {
  const match = DATE.exec(value);
  if (!match) return `"${value}" is not a date of the form YYYY-MM-DD`;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12) return `"${value}" has no month ${match[2]}`;
  if (day < 1 || day > daysInMonth(year, month)) {
    return `"${value}" has no day ${match[3]} in that month`;
  }
  return undefined;
}

/**
 * Why a 'YYYY-MM-DDThh:mm:ss[.f]Z' string is not a valid UTC instant, or undefined when it is
 * one. Leap seconds (ss = 60) are refused: no backend can store them.
 */
export function describeInvalidTimestamp(value: string): string | undefined {
  const match = TIMESTAMP.exec(value);
  const date = match?.[1];
  if (!match || date === undefined) {
    return `"${value}" is not a UTC timestamp of the form YYYY-MM-DDThh:mm:ss[.f]Z`;
  }
  const dateProblem = describeInvalidDate(date);
  if (dateProblem) return dateProblem;
  if (Number(match[2]) > 23) return `"${value}" has no hour ${match[2]}`;
  if (Number(match[3]) > 59) return `"${value}" has no minute ${match[3]}`;
  if (Number(match[4]) > 59) return `"${value}" has no second ${match[4]}`;
  return undefined;
}

/**
 * The canonical spelling of a valid timestamp: upper-case T and Z, and no trailing zeros in
 * the fraction of a second ('…05:30:00.000000Z' → '…05:30:00Z'), so that equal instants give
 * equal syntax trees whichever way they were written.
 */
export function normalizeTimestamp(value: string): string {
  const upper = value.toUpperCase();
  return upper.replace(/(\.\d*?)0+Z$/, '$1Z').replace(/\.Z$/, 'Z');
}

/**
 * Messages for failures of the generated peggy parsers (CQL2 text, CSW CQL_TEXT): the line and
 * column, what was expected and what was found, in the words a user writes the language in.
 */

/** What a peggy parser expected at the failure position (as its generated .d.ts declares). */
export type PeggyExpectation =
  | { type: 'literal'; text: string; ignoreCase: boolean }
  | { type: 'class'; parts: (string | [string, string])[]; inverted: boolean; ignoreCase: boolean }
  | { type: 'any' }
  | { type: 'end' }
  | { type: 'other'; description: string };

/** The parts of a peggy SyntaxError a message is made from. */
export interface PeggyFailure {
  message: string;
  expected: PeggyExpectation[] | null;
  location: { start: { line: number; column: number; offset: number } };
}

/** How one language words its syntax errors. */
export interface SyntaxErrorStyle {
  /** The language name in "Invalid <language> at line …". */
  language: string;
  /** Rewrites the list of expected alternatives (grouping, dropping redundant ones). */
  refineExpected?: (expected: string[]) => string[];
  /** Text appended to the message, e.g. a hint about reserved words. */
  hint?: (text: string, offset: number, expected: string[]) => string;
}

/** How many alternatives a message lists before it abbreviates. */
const MAX_LISTED_EXPECTATIONS = 24;

/** Describes one expectation the way a user would write it (a class of symbols as each). */
function describeExpectation(expectation: PeggyExpectation): string[] {
  switch (expectation.type) {
    case 'literal':
      return [`"${expectation.ignoreCase ? expectation.text.toUpperCase() : expectation.text}"`];
    case 'end':
      return ['end of input'];
    case 'other':
      // Whitespace is allowed almost everywhere; listing it only adds noise.
      return expectation.description === 'whitespace' ? [] : [expectation.description];
    case 'any':
      return ['any character'];
    case 'class':
      // peggy merges alternatives of single symbols ("+" / "-") into a class.
      return !expectation.inverted && expectation.parts.every((part) => typeof part === 'string')
        ? expectation.parts.map((part) => JSON.stringify(part))
        : ['a character'];
  }
}

/** Joins alternatives as `a, b or c`, abbreviating long lists. */
function joinAlternatives(items: string[]): string {
  const listed = items.slice(0, MAX_LISTED_EXPECTATIONS);
  const more = items.length - listed.length;
  if (more > 0) return `one of ${listed.join(', ')} (or ${more} more)`;
  const [only] = listed;
  if (listed.length === 1 && only !== undefined) return only;
  return `${listed.slice(0, -1).join(', ')} or ${listed[listed.length - 1]}`;
}

/** The token at an offset, for "found …": a word or number, or a single character. */
function describeFound(text: string, offset: number): string {
  if (offset >= text.length) return 'end of input';
  const rest = text.slice(offset);
  const word = /^[\p{L}\p{N}_:.]+/u.exec(rest)?.[0] ?? String.fromCodePoint(rest.codePointAt(0)!);
  const shown = word.length > 24 ? `${word.slice(0, 24)}…` : word;
  return JSON.stringify(shown);
}

/** The message for a peggy failure: position, then the reason or expected/found. */
export function describeSyntaxError(
  failure: PeggyFailure,
  text: string,
  style: SyntaxErrorStyle,
): string {
  const { line, column, offset } = failure.location.start;
  const where = `Invalid ${style.language} at line ${line}, column ${column}`;
  if (failure.expected === null) return `${where}: ${failure.message}`;
  let expected = [...new Set(failure.expected.flatMap(describeExpectation))].sort(
    (a, b) => Number(a === 'end of input') - Number(b === 'end of input'),
  );
  if (style.refineExpected) expected = style.refineExpected(expected);
  return (
    `${where}: expected ${joinAlternatives(expected)}, found ${describeFound(text, offset)}` +
    (style.hint?.(text, offset, expected) ?? '')
  );
}

/**
 * CQL2 text → filter AST, through the parser generated from cql2-text.peggy. Every failure is
 * a FilterError whose message names the line and column, what was expected and what was found.
 */
import { FilterError } from '../../errors/index.js';
import type { Expression } from '../filter-ast.js';
import { isCql2ReservedWord } from './cql2-lexical.js';
import {
  parse,
  SyntaxError as PeggySyntaxError,
  type ParserExpectation,
} from './cql2-text-parser.generated.js';

// peggy formats an English message for every syntax error, which toFilterError replaces;
// skipping it makes a failed parse a third cheaper.
PeggySyntaxError.buildMessage = () => 'syntax error';

/** How many alternatives an error message lists before it abbreviates. */
const MAX_LISTED_EXPECTATIONS = 24;

/** Describes one expectation the way a user would write it (a class of symbols as each). */
function describeExpectation(expectation: ParserExpectation): string[] {
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

/** Keywords that must be followed by "(": a property of that name fails right after it. */
const KEYWORDS_BEFORE_PARENTHESIS =
  /^(accenti|casei|date|timestamp|interval|bbox|point|linestring|polygon|multipoint|multilinestring|multipolygon|geometrycollection|[sta]_[a-z]+)$/i;

/** The keywords that start a spatial literal, listed as one alternative when all expected. */
const SPATIAL_KEYWORDS = [
  'POINT',
  'LINESTRING',
  'POLYGON',
  'MULTIPOINT',
  'MULTILINESTRING',
  'MULTIPOLYGON',
  'GEOMETRYCOLLECTION',
  'BBOX',
].map((keyword) => `"${keyword}"`);

/** Replaces the full set of spatial literal keywords by "spatial literal". */
function groupSpatialKeywords(expected: string[]): string[] {
  if (!SPATIAL_KEYWORDS.every((keyword) => expected.includes(keyword))) return expected;
  const first = expected.findIndex((item) => SPATIAL_KEYWORDS.includes(item));
  const rest = expected.filter((item) => !SPATIAL_KEYWORDS.includes(item));
  rest.splice(first, 0, 'spatial literal');
  return rest;
}

/** Joins alternatives as `a, b or c`, abbreviating long lists. */
function joinAlternatives(items: string[]): string {
  const listed = items.slice(0, MAX_LISTED_EXPECTATIONS);
  const more = items.length - listed.length;
  if (more > 0) return `one of ${listed.join(', ')} (or ${more} more)`;
  if (listed.length === 1) return listed[0];
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

/**
 * A hint when a "(" was expected just after a keyword, which is the usual reason a property
 * such as `date` fails to parse.
 */
function reservedWordHint(text: string, offset: number, expected: string[]): string {
  if (!expected.includes('"("')) return '';
  const word = /([A-Za-z_]+)\s*$/.exec(text.slice(0, offset))?.[1];
  if (word === undefined || !isCql2ReservedWord(word) || !KEYWORDS_BEFORE_PARENTHESIS.test(word)) {
    return '';
  }
  return ` (${word} is a reserved word; write "${word}" in double quotes for a property of that name)`;
}

/** Turns a peggy failure into the project's error with a readable position and reason. */
function toFilterError(error: InstanceType<typeof PeggySyntaxError>, text: string): FilterError {
  const { line, column, offset } = error.location.start;
  const where = `Invalid CQL2 text at line ${line}, column ${column}`;
  if (error.expected === null) return new FilterError(`${where}: ${error.message}`);
  const expected = [...new Set(error.expected.flatMap(describeExpectation))]
    // A function name is an identifier too; "property name" says enough.
    .filter((e, _i, all) => e !== 'identifier' || !all.includes('property name'))
    .sort((a, b) => Number(a === 'end of input') - Number(b === 'end of input'));
  return new FilterError(
    `${where}: expected ${joinAlternatives(groupSpatialKeywords(expected))}, found ${describeFound(text, offset)}` +
      reservedWordHint(text, offset, expected),
  );
}

/** Parses a CQL2 text filter into the shared filter AST. */
export function parseCql2Text(text: string): Expression {
  if (typeof text !== 'string') throw new FilterError('A CQL2 text filter must be a string');
  try {
    return parse(text);
  } catch (error) {
    if (error instanceof PeggySyntaxError) throw toFilterError(error, text);
    if (error instanceof RangeError) {
      throw new FilterError('Invalid CQL2 text: the expression is nested too deeply', {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * CQL2 text → filter AST, through the parser generated from cql2-text.peggy. Every failure is
 * a FilterError whose message names the line and column, what was expected and what was found.
 */
import { checkFilterTextSize, type QueryLimits } from '../query-limits.js';
import { deepFreeze } from '../../deep-freeze.js';
import { FilterError } from '../../errors/index.js';
import type { Expression } from '../filter-ast.js';
import { isCql2ReservedWord } from './cql2-lexical.js';
import { parse, SyntaxError as PeggySyntaxError } from './cql2-text-parser.generated.js';
import { describeSyntaxError, type SyntaxErrorStyle } from './syntax-error-message.js';

// peggy formats an English message for every syntax error, which describeSyntaxError replaces;
// skipping it makes a failed parse a third cheaper.
PeggySyntaxError.buildMessage = () => 'syntax error';

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

const CQL2_TEXT_STYLE: SyntaxErrorStyle = {
  language: 'CQL2 text',
  refineExpected: (expected) =>
    groupSpatialKeywords(
      // A function name is an identifier too; "property name" says enough.
      expected.filter((e, _i, all) => e !== 'identifier' || !all.includes('property name')),
    ),
  hint: reservedWordHint,
};

/** How many parsed texts are kept, and the longest text kept. */
export const PARSED_TEXTS_KEPT = 256;
const LONGEST_TEXT_KEPT = 8192;

/**
 * Texts parsed lately and their trees, least recently used first. A portal or a harvester sends
 * the same filter with every page, and parsing one is the largest part of a filtered search's
 * own CPU (about 0.16 ms for a spatial and temporal filter of 200 characters). The trees are
 * frozen, so a request cannot change the one the next request gets.
 */
const parsedTexts = new Map<string, Expression>();

function parseKept(text: string): Expression {
  const kept = parsedTexts.get(text);
  if (kept !== undefined) {
    parsedTexts.delete(text);
    parsedTexts.set(text, kept);
    return kept;
  }
  const expression = deepFreeze(parse(text));
  if (text.length <= LONGEST_TEXT_KEPT) {
    parsedTexts.set(text, expression);
    if (parsedTexts.size > PARSED_TEXTS_KEPT) {
      parsedTexts.delete(parsedTexts.keys().next().value as string);
    }
  }
  return expression;
}

/**
 * Parses a CQL2 text filter into the shared filter AST (frozen; the same tree for the same
 * text while it is among the last PARSED_TEXTS_KEPT parsed). With limits, a text far over them
 * is refused before it is parsed.
 */
export function parseCql2Text(text: string, limits?: QueryLimits): Expression {
  if (typeof text !== 'string') throw new FilterError('A CQL2 text filter must be a string');
  if (limits) checkFilterTextSize(text, limits);
  try {
    return parseKept(text);
  } catch (error) {
    if (error instanceof PeggySyntaxError) {
      throw new FilterError(describeSyntaxError(error, text, CQL2_TEXT_STYLE));
    }
    if (error instanceof RangeError) {
      throw new FilterError('Invalid CQL2 text: the expression is nested too deeply', {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * CSW constraints and sort keys → SearchQuery parts. Pure.
 *
 * - FILTER: FES 1.1 (`ogc:`) or 2.0 (`fes:`) through shared/query/fes. A namespaced filter is
 *   read as its namespace says (OWSLib's CSW 3.0 client labels FES 2.0 filters "1.1.0"); an
 *   unqualified one as `constraint_language_version` says, or as either version.
 * - CQL_TEXT: classic OGC CQL (OGC 07-006r1) through shared/query/cql-text, which builds the
 *   same filter tree the FES parser builds for the equivalent filter (comparisons, LIKE/ILIKE,
 *   BETWEEN, IN, IS NULL, BEFORE/AFTER/DURING, the spatial functions and BBOX, DWITHIN/BEYOND),
 *   so both languages go through the same CSW name mapping below.
 * - Property names are queryable names or aliases (dc:title, apiso:Modified, ows:BoundingBox …),
 *   optionally as a minimal XPath (`/csw:Record/dc:title`); a prefixed name that is not a
 *   queryable is an InvalidParameterValue. Names are replaced by their canonical name.
 * - csw:AnyText is free text: each word of the literal (wildcards removed) must occur in the
 *   record, accent- and case-insensitively, like `q`. Where AnyText predicates are ANDed or
 *   ORed only with each other they become the query's free text (the backend's full-text
 *   index); elsewhere (under NOT, or ORed with other predicates) a word matches the title,
 *   abstract or a keyword.
 * - List-valued queryables (dc:subject, dc:format, …) compare by membership: `=` is "one of the
 *   values equals", `<>` "none equals". Case-insensitive or LIKE comparisons on them are not
 *   supported (OptionNotSupported).
 */
import { checkFilterTextSize, type QueryLimits } from '../../../../shared/query/query-limits.js';
import { FilterError } from '../../../../shared/errors/index.js';
import { parseCqlText } from '../../../../shared/query/cql-text/index.js';
import {
  parseFesFilter,
  parseFesVersion,
  toTimeLiteral,
  type FesVersion,
} from '../../../../shared/query/fes/index.js';
import {
  literal,
  operator,
  propertyRef,
  type Expression,
} from '../../../../shared/query/filter-ast.js';
import { parseList } from '../../../../shared/query/params.js';
import { findQueryable, type Queryable } from '../../../../shared/query/queryables.js';
import type { SortKey } from '../../../../shared/query/search-query.js';
import {
  parseXml,
  XmlParseError,
  type XmlElement,
  type XmlLimits,
} from '../../../../shared/xml/index.js';
import { invalidParameter, optionNotSupported } from './csw-errors.js';

const LOCATOR = 'Constraint';

/** Most free-text alternatives a combination of AnyText predicates and `q` may produce. */
const MAX_TEXT_TERMS = 64;

/** A constraint as a request carries it. */
export type ConstraintInput =
  | { language: 'FILTER'; xml: string | XmlElement; version?: string | undefined }
  | { language: 'CQL_TEXT'; text: string };

/** The parts of a SearchQuery a constraint fills in. */
export interface ConstraintParts {
  text?: string[][] | undefined;
  filter?: Expression | undefined;
}

function filterElementOf(root: XmlElement): XmlElement | undefined {
  if (root.local === 'Filter') return root;
  return root.children.find((item) => item.local === 'Filter');
}

function parseFilter(
  xml: string | XmlElement,
  announced: string | undefined,
  limits: Partial<XmlLimits>,
): Expression {
  let root: XmlElement;
  if (typeof xml === 'string') {
    try {
      root = parseXml(xml, limits).root;
    } catch (error) {
      if (error instanceof XmlParseError) {
        throw invalidParameter(
          LOCATOR,
          `The FILTER constraint is not usable XML: ${error.message}`,
        );
      }
      throw error;
    }
  } else {
    root = xml;
  }
  const filter = filterElementOf(root);
  let version: FesVersion | undefined;
  if (announced !== undefined && filter !== undefined && filter.ns === '') {
    version = parseFesVersion(announced);
  }
  return parseFesFilter(root, version);
}

/** Applies `fn` bottom-up to every node of an expression. */
function mapExpression(expression: Expression, fn: (node: Expression) => Expression): Expression {
  switch (expression.kind) {
    case 'op':
      return fn({ ...expression, args: expression.args.map((item) => mapExpression(item, fn)) });
    case 'interval':
      return fn({
        ...expression,
        start: mapExpression(expression.start, fn),
        end: mapExpression(expression.end, fn),
      });
    case 'array':
      return fn({ ...expression, items: expression.items.map((item) => mapExpression(item, fn)) });
    default:
      return fn(expression);
  }
}

/** Strips a minimal XPath (`/csw:Record/dc:title`, `csw30:Record/dc:title`) to the name. */
export function stripRecordPath(name: string): string {
  return name.replace(/^\/?(?:[A-Za-z][\w.-]*:)?(?:Record|MD_Metadata)\//, '').replace(/^\//, '');
}

/** True for csw:AnyText in any of its spellings. */
export function isAnyTextName(name: string): boolean {
  return /^(?:[A-Za-z][\w.-]*:)?anytext$/i.test(stripRecordPath(name));
}

/** The registered queryable for a property name (XPath form allowed), if any. */
function queryableOf(name: string): Queryable | undefined {
  const stripped = stripRecordPath(name);
  return findQueryable(CSW_ALIASES[stripped] ?? stripped);
}

function unwrapFolds(expression: Expression): { inner: Expression; folded: boolean } {
  let inner = expression;
  let folded = false;
  while (inner.kind === 'op' && (inner.op === 'casei' || inner.op === 'accenti')) {
    const [argument, ...others] = inner.args;
    if (argument === undefined || others.length > 0) break;
    if (inner.op === 'casei') folded = true;
    inner = argument;
  }
  return { inner, folded };
}

/** The words of a literal or LIKE pattern: wildcards separate words, `\x` is a literal x. */
function wordsOf(value: string, pattern: boolean): string[] {
  let plain = '';
  for (let index = 0; index < value.length; index += 1) {
    const character = value[index];
    if (pattern && character === '\\' && index + 1 < value.length) {
      plain += value[index + 1];
      index += 1;
    } else if (pattern && (character === '%' || character === '_')) {
      plain += ' ';
    } else {
      plain += character;
    }
  }
  return plain.split(/\s+/u).filter((word) => word !== '');
}

/** The words of an AnyText predicate, or undefined when the node is not one. */
function anyTextWords(node: Expression): string[] | undefined {
  if (node.kind !== 'op' || node.args.length !== 2) return undefined;
  if (node.op !== 'like' && node.op !== '=') return undefined;
  const [first, second] = node.args.map((item) => unwrapFolds(item).inner);
  if (first === undefined || second === undefined) return undefined;
  const [property, value] =
    first.kind === 'property' ? [first, second] : second.kind === 'property' ? [second, first] : [];
  if (property?.kind !== 'property' || !isAnyTextName(property.name)) return undefined;
  if (value?.kind !== 'literal' || typeof value.value !== 'string') {
    throw invalidParameter(LOCATOR, `csw:AnyText can only be compared with a text literal`);
  }
  return wordsOf(value.value, node.op === 'like');
}

const TRUE: Expression = operator('=', literal(1), literal(1));

/** A word as a filter: in the title, the abstract, or equal to a keyword. */
function wordFilter(word: string): Expression {
  const escaped = word.replace(/[\\%_]/g, (character) => `\\${character}`);
  const fold = (expression: Expression): Expression =>
    operator('casei', operator('accenti', expression));
  const pattern = fold(literal(`%${escaped}%`));
  return operator(
    'or',
    operator('like', fold(propertyRef('title')), pattern),
    operator('like', fold(propertyRef('description')), pattern),
    operator('a_contains', propertyRef('keywords'), { kind: 'array', items: [literal(word)] }),
  );
}

function anyTextFilter(words: string[]): Expression {
  const [only] = words;
  if (only === undefined) return TRUE;
  return words.length === 1 ? wordFilter(only) : operator('and', ...words.map(wordFilter));
}

/**
 * CSW names for queryables the registry spells differently: dc:date (and the CSW 3.0
 * TemporalExtent) is the record's time extent.
 */
const CSW_ALIASES: Readonly<Record<string, string>> = {
  'dc:date': 'datetime',
  'dct:temporal': 'datetime',
  'csw:TemporalExtent': 'datetime',
  'csw30:TemporalExtent': 'datetime',
};

/** A property name as the backends read it: an exact registry name or alias is kept. */
function normaliseName(written: string): string {
  const stripped = stripRecordPath(written);
  const name = CSW_ALIASES[stripped] ?? stripped;
  const queryable = findQueryable(name);
  if (queryable !== undefined) {
    return queryable.name === name || queryable.aliases.includes(name) ? name : queryable.name;
  }
  if (name.includes(':') || name.includes('/')) {
    throw invalidParameter(LOCATOR, `"${written}" is not a queryable of this catalogue`);
  }
  return name;
}

const COMPARISONS = new Set(['=', '<>', '<', '<=', '>', '>=', 'between']);
const ARITHMETIC = new Set(['+', '-', '*', '/']);
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function isArithmetic(node: Expression): boolean {
  return node.kind === 'op' && ARITHMETIC.has(node.op);
}

/**
 * FES literals are untyped text: operands of arithmetic, and literals compared with an
 * arithmetic expression, are numbers when they read as numbers.
 */
function typeNumericLiterals(node: Expression): Expression {
  if (node.kind !== 'op') return node;
  const numeric =
    ARITHMETIC.has(node.op) || (COMPARISONS.has(node.op) && node.args.some(isArithmetic));
  if (!numeric) return node;
  return {
    ...node,
    args: node.args.map((item) =>
      item.kind === 'literal' && typeof item.value === 'string' && DECIMAL.test(item.value.trim())
        ? { kind: 'literal', value: Number(item.value) }
        : item,
    ),
  };
}

/** Text literals compared with a date-time queryable become DATE / TIMESTAMP literals. */
function typeTimeLiterals(node: Expression): Expression {
  if (node.kind !== 'op' || !COMPARISONS.has(node.op)) return node;
  const isTime = node.args.some(
    (item) => item.kind === 'property' && findQueryable(item.name)?.type === 'datetime',
  );
  if (!isTime) return node;
  return {
    ...node,
    args: node.args.map((item) => {
      if (item.kind !== 'literal' || typeof item.value !== 'string') return item;
      const time = toTimeLiteral(item.value);
      if (time === undefined) {
        throw invalidParameter(LOCATOR, `"${item.value}" is not an ISO 8601 date or date-time`);
      }
      return time;
    }),
  };
}

/** Checks and canonicalises property names; list-valued comparisons become membership tests. */
function normaliseNode(node: Expression): Expression {
  if (node.kind === 'property') {
    if (isAnyTextName(node.name)) return node;
    return { kind: 'property', name: normaliseName(node.name) };
  }
  if (node.kind !== 'op') return node;
  node = typeNumericLiterals(typeTimeLiterals(node));
  if (node.kind !== 'op') return node;
  const anyText = node.args
    .map((item) => unwrapFolds(item).inner)
    .find((inner) => inner.kind === 'property' && isAnyTextName(inner.name));
  if (anyText !== undefined) {
    throw invalidParameter(
      LOCATOR,
      'csw:AnyText can only be used with PropertyIsLike or PropertyIsEqualTo and a text literal',
    );
  }
  const arrayProperty = node.args
    .map((item) => unwrapFolds(item))
    .find(({ inner }) => inner.kind === 'property' && findQueryable(inner.name)?.type === 'array');
  if (arrayProperty === undefined || arrayProperty.inner.kind !== 'property') return node;
  const name = arrayProperty.inner.name;
  if (node.op === '=' || node.op === '<>') {
    const value = node.args
      .map((item) => unwrapFolds(item))
      .find(({ inner }) => inner !== arrayProperty.inner);
    if (arrayProperty.folded || value?.folded) {
      throw optionNotSupported(
        LOCATOR,
        `"${name}" holds a list of values; only case-sensitive comparison (matchCase="true") is supported on it`,
      );
    }
    if (value?.inner.kind !== 'literal') {
      throw invalidParameter(LOCATOR, `"${name}" can only be compared with a literal`);
    }
    const membership = operator('a_contains', propertyRef(name), {
      kind: 'array',
      items: [value.inner],
    });
    return node.op === '=' ? membership : operator('not', membership);
  }
  if (node.op === 'like') {
    throw optionNotSupported(
      LOCATOR,
      `"${name}" holds a list of values; PropertyIsLike is not supported on it (use PropertyIsEqualTo, or csw:AnyText)`,
    );
  }
  return node;
}

/** Rewrites AnyText predicates nested anywhere into word filters, and normalises names. */
function normaliseFilter(expression: Expression): Expression {
  return mapExpression(expression, (node) => {
    const words = anyTextWords(node);
    if (words !== undefined) return anyTextFilter(words);
    return normaliseNode(node);
  });
}

/** ANDs two free-text conditions (each an OR of word lists). */
export function andText(
  a: string[][] | undefined,
  b: string[][] | undefined,
): string[][] | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const terms = a.flatMap((left) => b.map((right) => [...left, ...right]));
  if (terms.length > MAX_TEXT_TERMS) {
    throw invalidParameter(LOCATOR, 'The free-text conditions combine into too many alternatives');
  }
  return terms;
}

function splitTop(expression: Expression): ConstraintParts {
  const words = anyTextWords(expression);
  if (words !== undefined) return words.length === 0 ? {} : { text: [words] };
  if (expression.kind === 'op' && expression.op === 'and') {
    let text: string[][] | undefined;
    const filters: Expression[] = [];
    for (const argument of expression.args) {
      const part = splitTop(argument);
      text = andText(text, part.text);
      if (part.filter !== undefined) filters.push(part.filter);
    }
    const filter = filters.length <= 1 ? filters[0] : operator('and', ...filters);
    return { text, filter };
  }
  if (expression.kind === 'op' && expression.op === 'or') {
    const alternatives = expression.args.map(anyTextWords);
    if (alternatives.every((item) => item !== undefined)) {
      const terms = alternatives;
      return terms.some((item) => item.length === 0) ? {} : { text: terms };
    }
  }
  return { filter: normaliseFilter(expression) };
}

/**
 * Applies the CSW reading of a filter tree: AnyText predicates become free text where they are
 * plain conjuncts (or alternatives), property names are checked and canonicalised, and
 * list-valued comparisons become membership tests.
 */
export function splitCswFilter(expression: Expression): ConstraintParts {
  return splitTop(expression);
}

/**
 * Parses a CSW constraint (FILTER or CQL_TEXT) into free text and a filter expression.
 * Parse failures are InvalidParameterValue errors located at `Constraint`; with query limits,
 * a CQL_TEXT far over them is a QueryLimitError.
 */
export function parseConstraint(
  input: ConstraintInput,
  limits: Partial<XmlLimits> = {},
  queryLimits?: QueryLimits,
): ConstraintParts {
  // A CQL_TEXT far over the query limits is refused before it is parsed (the XML of a FILTER
  // is bounded by the XML limits).
  if (input.language === 'CQL_TEXT' && queryLimits) checkFilterTextSize(input.text, queryLimits);
  try {
    const expression =
      input.language === 'FILTER'
        ? parseFilter(input.xml, input.version, limits)
        : parseCqlText(input.text);
    return splitCswFilter(expression);
  } catch (error) {
    if (error instanceof FilterError) {
      // The CQL text parser's own messages already say "Invalid CQL text" and where.
      const language = input.language === 'FILTER' ? 'Filter' : 'CQL text';
      const message = error.message.startsWith(`Invalid ${language}`)
        ? error.message
        : `Invalid ${language}: ${error.message}`;
      throw invalidParameter(LOCATOR, message);
    }
    throw error;
  }
}

/** Resolves sort key names (aliases, XPath forms) to sortable canonical queryables. */
export function resolveSortKeys(keys: SortKey[], locator = 'SortBy'): SortKey[] {
  return keys.map(({ field, direction }) => {
    const queryable = queryableOf(field);
    if (queryable === undefined || !queryable.sortable) {
      throw invalidParameter(locator, `"${field}" is not a sortable property`);
    }
    return { field: queryable.name, direction };
  });
}

/** Parses the KVP `sortBy=name[:A|D],…` (ASC/DESC accepted too). */
export function parseKvpSortBy(value: string): SortKey[] {
  const keys = parseList(value).map((part): SortKey => {
    const match = /^(.*?)(?::(A|D|ASC|DESC))?$/i.exec(part);
    const field = match?.[1] ?? part;
    const order = (match?.[2] ?? 'A').toUpperCase();
    return { field, direction: order.startsWith('D') ? 'desc' : 'asc' };
  });
  if (keys.length === 0) throw invalidParameter('SortBy', 'SortBy names no property');
  return resolveSortKeys(keys);
}

/**
 * The backend field of a GetDomain valueReference / PropertyName: a queryable (CSW spellings
 * and XPath forms accepted) or a record property. Geometries and AnyText have no value domain.
 */
export function resolveDomainProperty(name: string, locator = 'valueReference'): string {
  if (isAnyTextName(name)) {
    throw invalidParameter(locator, 'csw:AnyText has no list of values');
  }
  let field: string;
  try {
    field = normaliseName(name);
  } catch {
    throw invalidParameter(locator, `"${name}" is not a queryable of this catalogue`);
  }
  const queryable = findQueryable(field);
  if (queryable?.type === 'geometry') {
    throw invalidParameter(locator, `"${name}" is a geometry; it has no list of values`);
  }
  return queryable?.name ?? field;
}

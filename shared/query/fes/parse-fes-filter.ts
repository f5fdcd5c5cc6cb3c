/**
 * OGC Filter Encoding (FES 1.1 `ogc:Filter`, FES 2.0 `fes:Filter`) → the shared filter AST.
 *
 * Decisions (see also crs-axis-order.ts and parse-gml.ts):
 * - Property names (PropertyName / ValueReference) are kept exactly as written; the queryables
 *   registry resolves aliases such as `dc:title` or `apiso:Modified` later. Both element names
 *   are accepted in both versions.
 * - Literals stay strings, except when the other side of a comparison (or BETWEEN) is a
 *   registered queryable: a `number`/`integer` queryable makes the literal a number (a FilterError
 *   when it is not numeric), a `datetime` one makes it a DATE or TIMESTAMP when it reads as one.
 *   Text is trimmed.
 * - `matchCase="false"` wraps both sides in CASEI (ignored for number and date comparisons).
 * - PropertyIsBetween becomes BETWEEN when the bounds are numbers, otherwise `>= AND <=` (CQL2
 *   BETWEEN is numeric only).
 * - PropertyIsLike accepts `escapeChar` (FES 1.1 and 2.0) and `escape` (FES 1.0); a missing
 *   attribute defaults to the CQL2 character (`%`, `_`, `\`).
 * - DWithin / Beyond become `s_dwithin` / `s_beyond` with the distance converted to metres.
 * - FeatureId / GmlObjectId / ResourceId become `id IN (…)`; consecutive ones are grouped.
 * - Functions become an `op` named after the function (a name that is an operator is refused).
 * Anything else — an unknown element, an element from the other FES version, a malformed
 * document — is a FilterError that names it.
 */
import { FilterError } from '../../errors/index.js';
import { parseXml, XmlParseError, type XmlElement, type XmlLimits } from '../../xml/index.js';
import { betweenOrRange, type Expression, type PropertyRef } from '../filter-ast.js';
import { findQueryable } from '../queryables.js';
import { metresPerUnit } from './distance-units.js';
import { describeElement, FES_NAMESPACE, fesVersionOf, type FesVersion } from './fes-names.js';
import {
  DEFAULT_GML_LIMITS,
  GML_GEOMETRY_ELEMENTS,
  GML_TIME_ELEMENTS,
  isGmlElement,
  parseGmlGeometry,
  parseGmlTime,
  type GmlLimits,
} from './parse-gml.js';
import { toTimeLiteral } from './time-literal.js';
import { CQL2_LIKE_CHARACTERS, translateLikePattern } from './like-pattern.js';

/** Options for parsing a filter; callers take the limits from configuration. */
export interface FesParseOptions {
  /** Limits for parsing XML text (ignored when an element is passed). */
  xmlLimits?: Partial<XmlLimits>;
  /** Limits on geometry operands. */
  gmlLimits?: GmlLimits;
}

const COMPARISON: Readonly<Record<string, string>> = {
  PropertyIsEqualTo: '=',
  PropertyIsNotEqualTo: '<>',
  PropertyIsLessThan: '<',
  PropertyIsGreaterThan: '>',
  PropertyIsLessThanOrEqualTo: '<=',
  PropertyIsGreaterThanOrEqualTo: '>=',
};

const SPATIAL: Readonly<Record<string, string>> = {
  Equals: 's_equals',
  Disjoint: 's_disjoint',
  Touches: 's_touches',
  Within: 's_within',
  Overlaps: 's_overlaps',
  Crosses: 's_crosses',
  Intersects: 's_intersects',
  Contains: 's_contains',
};

const DISTANCE: Readonly<Record<string, string>> = {
  DWithin: 's_dwithin',
  Beyond: 's_beyond',
};

/** FES 2.0 temporal operators → CQL2 (OWL-Time) temporal functions. */
const TEMPORAL: Readonly<Record<string, string>> = {
  After: 't_after',
  Before: 't_before',
  Begins: 't_starts',
  BegunBy: 't_startedBy',
  TContains: 't_contains',
  During: 't_during',
  EndedBy: 't_finishedBy',
  Ends: 't_finishes',
  TEquals: 't_equals',
  Meets: 't_meets',
  MetBy: 't_metBy',
  TOverlaps: 't_overlaps',
  OverlappedBy: 't_overlappedBy',
  AnyInteracts: 't_intersects',
};

/** CQL2 temporal functions defined on intervals only (an instant literal is an error). */
const INTERVAL_ONLY = new Set([
  't_contains',
  't_during',
  't_finishedBy',
  't_finishes',
  't_meets',
  't_metBy',
  't_overlappedBy',
  't_overlaps',
  't_startedBy',
  't_starts',
]);

const ARITHMETIC = { Add: '+', Sub: '-', Mul: '*', Div: '/' } as const;

/** Operator names a FES Function may not take (they mean something else in the AST). */
const RESERVED_FUNCTION_NAMES = new Set(
  [
    'and',
    'or',
    'not',
    'like',
    'between',
    'in',
    'isNull',
    'casei',
    'accenti',
    'div',
    ...Object.values(SPATIAL),
    ...Object.values(DISTANCE),
    ...Object.values(TEMPORAL),
    't_disjoint',
    'a_equals',
    'a_contains',
    'a_containedBy',
    'a_overlaps',
  ].map((name) => name.toLowerCase()),
);

const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

interface Context {
  /** The FES versions whose elements are accepted (both for an unqualified filter). */
  versions: readonly FesVersion[];
  gmlLimits: GmlLimits;
}

/** A table entry by element name (own keys only: an element may be called "constructor"). */
function lookup<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Which FES versions define each element (local name); absent = both. */
const ONLY_IN: Readonly<Record<string, FesVersion>> = {
  FeatureId: '1.1',
  GmlObjectId: '1.1',
  Add: '1.1',
  Sub: '1.1',
  Mul: '1.1',
  Div: '1.1',
  ResourceId: '2.0',
  PropertyIsNil: '2.0',
  ...Object.fromEntries(Object.keys(TEMPORAL).map((name) => [name, '2.0' as const])),
};

/** The element's local name when it is a FES element of an accepted version, else undefined. */
function fesLocal(element: XmlElement, context: Context): string | undefined {
  const version = fesVersionOf(element);
  if (element.ns !== '' && (version === undefined || !context.versions.includes(version))) {
    return undefined;
  }
  const only = lookup(ONLY_IN, element.local);
  if (only !== undefined && !context.versions.includes(only)) return undefined;
  return element.local;
}

function unsupported(element: XmlElement, where: string, context: Context): FilterError {
  const version = fesVersionOf(element);
  const only = lookup(ONLY_IN, element.local);
  let hint = '';
  if (version !== undefined && !context.versions.includes(version)) {
    hint = ` (that is FES ${version}; this filter is FES ${context.versions.join(' / ')})`;
  } else if (only !== undefined && !context.versions.includes(only)) {
    hint = ` (${element.local} exists only in FES ${only})`;
  }
  return new FilterError(`Unsupported element ${describeElement(element)} in ${where}${hint}`);
}

/** The unqualified attribute `local` of an element. */
function plainAttribute(element: XmlElement, local: string): string | undefined {
  return element.attributes.find((item) => item.ns === '' && item.local === local)?.value;
}

function parseBooleanAttribute(element: XmlElement, local: string, fallback: boolean): boolean {
  const value = plainAttribute(element, local);
  if (value === undefined) return fallback;
  const text = value.trim();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw new FilterError(
    `${describeElement(element)}: ${local}="${value}" is not a boolean (true or false)`,
  );
}

function checkMatchAction(element: XmlElement): void {
  const value = plainAttribute(element, 'matchAction');
  if (value !== undefined && !['All', 'Any', 'One'].includes(value.trim())) {
    throw new FilterError(
      `${describeElement(element)}: matchAction="${value}" must be All, Any or One`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Expressions

function parseLiteral(element: XmlElement, context: Context): Expression {
  const [inner, ...more] = element.children;
  if (more.length > 0) {
    throw new FilterError(`${describeElement(element)} holds more than one element`);
  }
  if (inner !== undefined) {
    if (isGmlElement(inner) && GML_GEOMETRY_ELEMENTS.has(inner.local)) {
      return parseGmlGeometry(inner, context.gmlLimits);
    }
    if (isGmlElement(inner) && GML_TIME_ELEMENTS.has(inner.local)) return parseGmlTime(inner);
    throw new FilterError(
      `Unsupported element ${describeElement(inner)} inside ${describeElement(element)}`,
    );
  }
  return { kind: 'literal', value: element.text.trim() };
}

function parsePropertyName(element: XmlElement): PropertyRef {
  if (element.children.length > 0) {
    throw new FilterError(`${describeElement(element)} must hold a name, not elements`);
  }
  const name = element.text.trim();
  if (name === '') throw new FilterError(`${describeElement(element)} is empty`);
  return { kind: 'property', name };
}

function parseFunction(element: XmlElement, context: Context): Expression {
  const name = plainAttribute(element, 'name')?.trim() ?? '';
  if (!FUNCTION_NAME.test(name)) {
    throw new FilterError(
      `${describeElement(element)} needs a valid name attribute, got "${name}"`,
    );
  }
  if (RESERVED_FUNCTION_NAMES.has(name.toLowerCase())) {
    throw new FilterError(`Function name "${name}" is reserved for a filter operator`);
  }
  return {
    kind: 'op',
    op: name,
    args: element.children.map((item) => parseExpression(item, context)),
  };
}

/** A FES expression: PropertyName / ValueReference, Literal, Function or (1.1) arithmetic. */
function parseExpression(element: XmlElement, context: Context): Expression {
  const local = fesLocal(element, context);
  switch (local) {
    case 'PropertyName':
    case 'ValueReference':
      return parsePropertyName(element);
    case 'Literal':
      return parseLiteral(element, context);
    case 'Function':
      return parseFunction(element, context);
    case 'Add':
    case 'Sub':
    case 'Mul':
    case 'Div': {
      const operands = element.children.map((item) => parseExpression(item, context));
      if (operands.length !== 2) {
        throw new FilterError(`${describeElement(element)} needs exactly two expressions`);
      }
      return { kind: 'op', op: ARITHMETIC[local], args: operands };
    }
    default:
      throw unsupported(element, 'an expression', context);
  }
}

/** The registered type of the property an expression is, if it is one. */
function queryableType(expression: Expression): string | undefined {
  return expression.kind === 'property' ? findQueryable(expression.name)?.type : undefined;
}

function isNumericType(type: string | undefined): boolean {
  return type === 'number' || type === 'integer';
}

/** Types a string literal after the registered queryable it is compared with. */
function typeLiteral(expression: Expression, partner: Expression): Expression {
  if (expression.kind !== 'literal' || typeof expression.value !== 'string') return expression;
  const type = queryableType(partner);
  const text = expression.value;
  if (isNumericType(type)) {
    const value = Number(text);
    if (!NUMBER.test(text) || !Number.isFinite(value)) {
      const name = partner.kind === 'property' ? partner.name : '';
      throw new FilterError(`"${text}" is not a number, but ${name} is numeric`);
    }
    return { kind: 'literal', value };
  }
  if (type === 'datetime') return toTimeLiteral(text) ?? expression;
  return expression;
}

/** Types literals on either side after the property on the other side. */
function typePair(left: Expression, right: Expression): [Expression, Expression] {
  return [typeLiteral(left, right), typeLiteral(right, left)];
}

/** True when the comparison is textual (so CASEI applies). */
function isTextual(...operands: Expression[]): boolean {
  return operands.every(
    (operand) =>
      !(operand.kind === 'literal' && typeof operand.value !== 'string') &&
      operand.kind !== 'date' &&
      operand.kind !== 'timestamp' &&
      !isNumericType(queryableType(operand)) &&
      queryableType(operand) !== 'datetime',
  );
}

const casei = (expression: Expression): Expression => ({
  kind: 'op',
  op: 'casei',
  args: [expression],
});

// ---------------------------------------------------------------------------------------------
// Predicates

/** `items` as a tuple of `count` items, or undefined when it holds another number. */
function exactly<T>(items: readonly T[], count: 1): [T] | undefined;
function exactly<T>(items: readonly T[], count: 2): [T, T] | undefined;
function exactly<T>(items: readonly T[], count: number): T[] | undefined {
  return items.length === count ? [...items] : undefined;
}

function expressionsOf(element: XmlElement, context: Context, count: 1): [Expression];
function expressionsOf(element: XmlElement, context: Context, count: 2): [Expression, Expression];
function expressionsOf(element: XmlElement, context: Context, count: 1 | 2): Expression[] {
  const operands = element.children.map((item) => parseExpression(item, context));
  if (operands.length !== count) {
    throw new FilterError(
      `${describeElement(element)} needs exactly ${count} expression${count === 1 ? '' : 's'}, found ${operands.length}`,
    );
  }
  return operands;
}

function parseComparison(element: XmlElement, op: string, context: Context): Expression {
  const matchCase = parseBooleanAttribute(element, 'matchCase', true);
  checkMatchAction(element);
  const [left, right] = typePair(...expressionsOf(element, context, 2));
  if (!matchCase && isTextual(left, right)) {
    return { kind: 'op', op, args: [casei(left), casei(right)] };
  }
  return { kind: 'op', op, args: [left, right] };
}

function parseLike(element: XmlElement, context: Context): Expression {
  const matchCase = parseBooleanAttribute(element, 'matchCase', true);
  const operands = exactly(element.children, 2);
  if (operands === undefined) {
    throw new FilterError(
      `${describeElement(element)} needs a property and a Literal pattern, found ${element.children.length} elements`,
    );
  }
  const [subjectElement, patternElement] = operands;
  const subject = parseExpression(subjectElement, context);
  if (fesLocal(patternElement, context) !== 'Literal' || patternElement.children.length > 0) {
    throw new FilterError(`${describeElement(element)}: the pattern must be a text Literal`);
  }
  const pattern = translateLikePattern(patternElement.text.trim(), {
    wildCard: plainAttribute(element, 'wildCard') ?? CQL2_LIKE_CHARACTERS.wildCard,
    singleChar: plainAttribute(element, 'singleChar') ?? CQL2_LIKE_CHARACTERS.singleChar,
    escapeChar:
      plainAttribute(element, 'escapeChar') ??
      plainAttribute(element, 'escape') ??
      CQL2_LIKE_CHARACTERS.escapeChar,
  });
  const literal: Expression = { kind: 'literal', value: pattern };
  const args = matchCase ? [subject, literal] : [casei(subject), casei(literal)];
  return { kind: 'op', op: 'like', args };
}

function boundary(element: XmlElement, local: string, context: Context): Expression {
  const found = exactly(
    element.children.filter((item) => fesLocal(item, context) === local),
    1,
  );
  if (found === undefined) {
    throw new FilterError(`${describeElement(element)} needs exactly one ${local}`);
  }
  return expressionsOf(found[0], context, 1)[0];
}

function parseBetween(element: XmlElement, context: Context): Expression {
  const others = exactly(
    element.children.filter((item) => {
      const local = fesLocal(item, context);
      return local !== 'LowerBoundary' && local !== 'UpperBoundary';
    }),
    1,
  );
  if (others === undefined || element.children.length !== 3) {
    throw new FilterError(
      `${describeElement(element)} needs one expression, a LowerBoundary and an UpperBoundary`,
    );
  }
  const subject = parseExpression(others[0], context);
  const lower = typeLiteral(boundary(element, 'LowerBoundary', context), subject);
  const upper = typeLiteral(boundary(element, 'UpperBoundary', context), subject);
  return betweenOrRange(subject, lower, upper);
}

/** A spatial operand: a GML geometry, or an expression that is not a plain text literal. */
function parseSpatialOperand(element: XmlElement, context: Context): Expression {
  if (element.ns !== '' && isGmlElement(element)) {
    if (GML_GEOMETRY_ELEMENTS.has(element.local)) {
      return parseGmlGeometry(element, context.gmlLimits);
    }
    throw new FilterError(`Unsupported geometry element ${describeElement(element)}`);
  }
  if (element.ns === '' && GML_GEOMETRY_ELEMENTS.has(element.local)) {
    return parseGmlGeometry(element, context.gmlLimits);
  }
  const expression = parseExpression(element, context);
  if (
    expression.kind === 'literal' ||
    expression.kind === 'date' ||
    expression.kind === 'timestamp'
  ) {
    throw new FilterError(
      `${describeElement(element)}: a spatial operand must be a property, a function or a GML geometry`,
    );
  }
  return expression;
}

function parseBbox(element: XmlElement, context: Context): Expression {
  const [first, second, ...more] = element.children;
  if (first === undefined || more.length > 0) {
    throw new FilterError(
      `${describeElement(element)} needs an optional property and a gml:Envelope`,
    );
  }
  const property: Expression =
    second === undefined ? { kind: 'property', name: 'geometry' } : parseExpression(first, context);
  const envelope = second ?? first;
  const box = isGmlElement(envelope) && ['Envelope', 'Box'].includes(envelope.local);
  if (!box) {
    throw new FilterError(
      `${describeElement(element)} needs a gml:Envelope, found ${describeElement(envelope)}`,
    );
  }
  return {
    kind: 'op',
    op: 's_intersects',
    args: [property, parseGmlGeometry(envelope, context.gmlLimits)],
  };
}

function parseSpatial(element: XmlElement, op: string, context: Context): Expression {
  if (element.children.length !== 2) {
    throw new FilterError(
      `${describeElement(element)} needs exactly two operands (a property and a geometry)`,
    );
  }
  return {
    kind: 'op',
    op,
    args: element.children.map((item) => parseSpatialOperand(item, context)),
  };
}

function parseDistance(element: XmlElement, op: string, context: Context): Expression {
  const distances = exactly(
    element.children.filter((item) => fesLocal(item, context) === 'Distance'),
    1,
  );
  const operands = element.children.filter((item) => fesLocal(item, context) !== 'Distance');
  if (distances === undefined || operands.length !== 2) {
    throw new FilterError(
      `${describeElement(element)} needs a property, a geometry and one Distance`,
    );
  }
  const [distance] = distances;
  const text = distance.text.trim();
  const value = Number(text);
  if (distance.children.length > 0 || !NUMBER.test(text) || !Number.isFinite(value) || value < 0) {
    throw new FilterError(`${describeElement(distance)}: "${text}" is not a non-negative number`);
  }
  const unit = plainAttribute(distance, 'uom') ?? plainAttribute(distance, 'units');
  if (unit === undefined || unit.trim() === '') {
    throw new FilterError(`${describeElement(distance)} needs a units (FES 1.1) or uom attribute`);
  }
  const metres = value * metresPerUnit(unit);
  if (!Number.isFinite(metres)) {
    throw new FilterError(
      `${describeElement(distance)}: "${text}" ${unit} is too large a distance`,
    );
  }
  return {
    kind: 'op',
    op,
    args: [
      ...operands.map((item) => parseSpatialOperand(item, context)),
      { kind: 'literal', value: metres },
      { kind: 'literal', value: 'm' },
    ],
  };
}

function parseTemporalOperand(element: XmlElement, context: Context): Expression {
  if (isGmlElement(element) && GML_TIME_ELEMENTS.has(element.local)) return parseGmlTime(element);
  const expression = parseExpression(element, context);
  if (expression.kind === 'literal' && typeof expression.value === 'string') {
    const time = toTimeLiteral(expression.value);
    if (time === undefined) {
      throw new FilterError(
        `${describeElement(element)}: "${expression.value}" is not an ISO 8601 date or date-time`,
      );
    }
    return time;
  }
  if (expression.kind === 'geometry' || expression.kind === 'bbox') {
    throw new FilterError(`${describeElement(element)}: a temporal operand cannot be a geometry`);
  }
  return expression;
}

function parseTemporal(element: XmlElement, op: string, context: Context): Expression {
  if (element.children.length !== 2) {
    throw new FilterError(
      `${describeElement(element)} needs exactly two operands (a property and a gml:TimeInstant or gml:TimePeriod)`,
    );
  }
  const args = element.children.map((item) => parseTemporalOperand(item, context));
  if (
    INTERVAL_ONLY.has(op) &&
    args.some((arg) => arg.kind === 'date' || arg.kind === 'timestamp')
  ) {
    throw new FilterError(
      `${describeElement(element)} compares periods: use a gml:TimePeriod, not a gml:TimeInstant`,
    );
  }
  return { kind: 'op', op, args };
}

function parseId(element: XmlElement, local: string): string {
  let id: string | undefined;
  if (local === 'FeatureId') id = plainAttribute(element, 'fid');
  else if (local === 'ResourceId') id = plainAttribute(element, 'rid');
  else
    id = element.attributes.find((item) => item.local === 'id' && isGmlNamespace(item.ns))?.value;
  if (id === undefined || id.trim() === '') {
    throw new FilterError(`${describeElement(element)} has no identifier attribute`);
  }
  return id.trim();
}

function isGmlNamespace(ns: string): boolean {
  return ns === 'http://www.opengis.net/gml' || ns === 'http://www.opengis.net/gml/3.2';
}

const ID_ELEMENTS = new Set(['FeatureId', 'GmlObjectId', 'ResourceId']);

/**
 * The predicates among an element's children, with runs of identifier elements grouped into a
 * single `id IN (…)`.
 */
function parsePredicates(element: XmlElement, context: Context): Expression[] {
  const predicates: Expression[] = [];
  let ids: Expression[] | undefined;
  for (const item of element.children) {
    const local = fesLocal(item, context);
    if (local !== undefined && ID_ELEMENTS.has(local)) {
      if (ids === undefined) {
        ids = [];
        predicates.push({
          kind: 'op',
          op: 'in',
          args: [
            { kind: 'property', name: 'id' },
            { kind: 'array', items: ids },
          ],
        });
      }
      ids.push({ kind: 'literal', value: parseId(item, local) });
      continue;
    }
    ids = undefined;
    predicates.push(parsePredicate(item, context));
  }
  return predicates;
}

/** One predicate element (comparison, logical, spatial or temporal operator). */
function parsePredicate(element: XmlElement, context: Context): Expression {
  const local = fesLocal(element, context);
  if (local === undefined) throw unsupported(element, 'a filter', context);
  const comparison = lookup(COMPARISON, local);
  if (comparison !== undefined) return parseComparison(element, comparison, context);
  const spatial = lookup(SPATIAL, local);
  if (spatial !== undefined) return parseSpatial(element, spatial, context);
  const distance = lookup(DISTANCE, local);
  if (distance !== undefined) return parseDistance(element, distance, context);
  const temporal = lookup(TEMPORAL, local);
  if (temporal !== undefined && context.versions.includes('2.0')) {
    return parseTemporal(element, temporal, context);
  }
  switch (local) {
    case 'And':
    case 'Or': {
      const operands = parsePredicates(element, context);
      const [first, ...rest] = operands;
      if (first === undefined) {
        throw new FilterError(`${describeElement(element)} has no predicates`);
      }
      if (rest.length === 0) return first;
      return { kind: 'op', op: local === 'And' ? 'and' : 'or', args: operands };
    }
    case 'Not': {
      const operands = parsePredicates(element, context);
      if (operands.length !== 1) {
        throw new FilterError(`${describeElement(element)} needs exactly one predicate`);
      }
      return { kind: 'op', op: 'not', args: operands };
    }
    case 'PropertyIsLike':
      return parseLike(element, context);
    case 'PropertyIsNull':
    case 'PropertyIsNil':
      return { kind: 'op', op: 'isNull', args: expressionsOf(element, context, 1) };
    case 'PropertyIsBetween':
      return parseBetween(element, context);
    case 'BBOX':
      return parseBbox(element, context);
    default:
      throw unsupported(element, 'a filter', context);
  }
}

// ---------------------------------------------------------------------------------------------
// Entry point

/** Parses XML text into its root element, turning XML rejections into FilterErrors. */
export function parseFesRoot(
  input: string | XmlElement,
  xmlLimits?: Partial<XmlLimits>,
): XmlElement {
  if (typeof input !== 'string') return input;
  try {
    return parseXml(input, xmlLimits).root;
  } catch (error) {
    if (error instanceof XmlParseError) {
      throw new FilterError(`Filter rejected: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

/** The Filter element itself, when given a csw:Constraint that wraps it. */
function filterElement(root: XmlElement): XmlElement {
  if (root.local === 'Filter') return root;
  if (root.local === 'Constraint') {
    const filters = exactly(
      root.children.filter((item) => item.local === 'Filter'),
      1,
    );
    if (filters !== undefined) return filters[0];
    if (root.children.some((item) => item.local === 'CqlText')) {
      throw new FilterError('The Constraint holds CqlText, not a Filter Encoding filter');
    }
    throw new FilterError(`${describeElement(root)} must contain exactly one Filter`);
  }
  throw new FilterError(`Expected a Filter element, found ${describeElement(root)}`);
}

/** Decides which FES versions a filter's elements may come from. */
function versionsFor(filter: XmlElement, version: FesVersion | undefined): FesVersion[] {
  const written = fesVersionOf(filter);
  if (filter.ns !== '' && written === undefined) {
    throw new FilterError(
      `${describeElement(filter)} is not in a Filter Encoding namespace (${FES_NAMESPACE['1.1']} or ${FES_NAMESPACE['2.0']})`,
    );
  }
  if (written !== undefined && version !== undefined && written !== version) {
    throw new FilterError(
      `Expected a FES ${version} filter (${FES_NAMESPACE[version]}), found ${describeElement(filter)}`,
    );
  }
  const chosen = written ?? version;
  return chosen === undefined ? ['1.1', '2.0'] : [chosen];
}

/**
 * Parses an OGC Filter Encoding filter — FES 1.1 (`ogc:Filter`, CSW 2.0.2) or FES 2.0
 * (`fes:Filter`, CSW 3.0) — into the shared filter AST. Takes the filter's XML text, or an
 * element already parsed by shared/xml (a Filter, or the csw:Constraint around it). `version`
 * is what the request announced: a filter in the other version's namespace is refused, and an
 * unqualified filter is read as that version (as either when not given).
 */
export function parseFesFilter(
  input: string | XmlElement,
  version?: FesVersion,
  options: FesParseOptions = {},
): Expression {
  const filter = filterElement(parseFesRoot(input, options.xmlLimits));
  const context: Context = {
    versions: versionsFor(filter, version),
    gmlLimits: options.gmlLimits ?? DEFAULT_GML_LIMITS,
  };
  const [predicate, ...more] = parsePredicates(filter, context);
  if (predicate === undefined) throw new FilterError('The Filter is empty');
  if (more.length > 0) {
    throw new FilterError(
      'A Filter holds one predicate (or a list of identifiers); combine predicates with And or Or',
    );
  }
  return predicate;
}

/**
 * The one checking pass over a parsed filter (filter-ast.ts), run once per request where a
 * protocol builds its SearchQuery. It refuses, with a FilterError (400) naming the problem,
 * what no backend could answer: unknown functions, wrong numbers of arguments, operands of the
 * wrong kind (a value where a condition belongs, a registered string in arithmetic, a
 * non-geometry in S_*, an instant in an interval-only T_*), invalid dates, timestamps, boxes
 * and geometries, intervals that end before they start. It returns the checked tree
 * (checked-filter.ts): canonical operators, resolved properties, normalised literals and
 * arithmetic, CASEI and ACCENTI on literals folded. Backends only translate that tree. This file
 * alone names a tree a CheckedFilter: checkFilter, and the composers of checked filters
 * (andChecked, notChecked, logicalOperands) at its end.
 */
import type { Position } from 'geojson';
import { FilterError, UnknownQueryableError } from '../errors/index.js';
import type { Bbox } from '../records/core-record.js';
import { parseTimestamp, parseTimeValue } from '../records/time.js';
import { bboxToGeometry, isRectangle, positionsOf } from './bbox-geometry.js';
import type {
  CheckedBbox,
  CheckedExpression,
  CheckedFilter,
  CheckedGeometry,
  CheckedLiteral,
  CheckedOperator,
  CheckedProperty,
  CheckedTime,
  StaticType,
} from './checked-filter.js';
import {
  canonicalOperator,
  operatorArity,
  operatorClass,
  operatorLabel,
  type ArithmeticOp,
  type FilterOp,
  type TemporalOp,
} from './cql2/cql2-operators.js';
import { printCql2Text } from './cql2/print-cql2-text.js';
import { findPositionFault, snapCrs84, snapGeometry } from './crs84.js';
import { readGeometry } from './cql2-functions.js';
import type { Expression, OperatorNode } from './filter-ast.js';
import { findQueryable } from './queryables.js';
import { checkFilterLimits, type QueryLimits } from './query-limits.js';
import { foldCase, stripAccents } from './text-folding.js';

// ---------------------------------------------------------------------------------------------
// Messages

/** A short CQL2 text rendering of a (parsed or checked) expression, for error messages. */
export function describeFilter(expression: Expression | CheckedExpression): string {
  const node = expression;
  if (node.kind === 'property') {
    return /^[A-Za-z_][A-Za-z0-9_.:]*$/.test(node.name) ? node.name : `"${node.name}"`;
  }
  if (node.kind === 'op' && ['casei', 'accenti'].includes(node.op.toLowerCase())) {
    return `${node.op.toUpperCase()}(${node.args.map(describeFilter).join(', ')})`;
  }
  if (node.kind === 'date') return `DATE('${node.value}')`;
  if (node.kind === 'timestamp') return `TIMESTAMP('${node.value}')`;
  if (node.kind === 'literal') {
    return typeof node.value === 'string'
      ? `'${node.value.replace(/'/g, "''")}'`
      : String(node.value);
  }
  let text: string;
  try {
    text = printCql2Text(node);
  } catch {
    text = node.kind === 'op' ? `${node.op}(…)` : node.kind;
  }
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/** A type as messages name it. */
export function typeName(type: StaticType): string {
  return type === 'time' ? 'date/timestamp' : type === 'unknown' ? 'value' : type;
}

function unknownFunction(node: OperatorNode): FilterError {
  return new FilterError(
    `Unknown function "${node.op}" in ${describeFilter(node)}; this catalogue offers no custom functions`,
  );
}

/**
 * The argument at `index` of a node whose arity checkedOp has checked; a FilterError naming the
 * node should it be missing after all.
 */
function argumentAt<T>(args: readonly T[], index: number, node: Expression): T {
  const argument = args[index];
  if (argument === undefined) {
    throw new FilterError(`${describeFilter(node)} has no argument ${index + 1}`);
  }
  return argument;
}

/** The canonical operator of a node, after checking its arity. */
function checkedOp(node: OperatorNode): FilterOp {
  const op = canonicalOperator(node.op);
  if (op === undefined) throw unknownFunction(node);
  const [fewest, most] = operatorArity(op);
  const count = node.args.length;
  if (count < fewest || count > most) {
    if (operatorClass(op) === 'distance') {
      throw new FilterError(
        `${operatorLabel(op)} takes two geometries, a distance and its units in ${describeFilter(node)}`,
      );
    }
    throw new FilterError(
      `${operatorLabel(op)} takes ${fewest} argument${fewest === 1 ? '' : 's'}, got ${count} in ${describeFilter(node)}`,
    );
  }
  return op;
}

// ---------------------------------------------------------------------------------------------
// Properties

/** The static type of a registered queryable's values. */
function queryableType(type: string): StaticType {
  switch (type) {
    case 'integer':
    case 'number':
      return 'number';
    case 'datetime':
      return 'time';
    default:
      return type as StaticType;
  }
}

/**
 * The properties the filter being checked may name beyond the core queryables (those the
 * catalogue learned from its records), or undefined when any name is accepted. Set by
 * checkFilter for the length of one synchronous check.
 */
let knownProperties: ReadonlySet<string> | undefined;

/**
 * Resolves a property name: exact registry names and aliases, else the record's own. When the
 * check is given the catalogue's known properties, a name that is neither a queryable (in any
 * case) nor known is an UnknownQueryableError naming it.
 */
export function resolveProperty(name: string): CheckedProperty {
  if (name.length === 0 || name.length > 256 || /["\\\p{Cc}]/u.test(name)) {
    throw new FilterError(`Invalid property name ${JSON.stringify(name.slice(0, 64))}`);
  }
  const candidate = findQueryable(name);
  if (candidate === undefined && knownProperties !== undefined && !knownProperties.has(name)) {
    throw new UnknownQueryableError(name);
  }
  const queryable =
    candidate && (candidate.name === name || candidate.aliases.includes(name))
      ? candidate
      : undefined;
  return queryable
    ? { kind: 'property', name, queryable, type: queryableType(queryable.type) }
    : { kind: 'property', name, type: 'unknown' };
}

// ---------------------------------------------------------------------------------------------
// Literals

/** A date's span (its whole UTC day) or a timestamp's instant. */
function checkTime(expression: { kind: 'date' | 'timestamp'; value: string }): CheckedTime {
  const { kind, value } = expression;
  if (kind === 'date') {
    const span = /^\d{4}-\d{2}-\d{2}$/.test(value) ? parseTimeValue(value) : undefined;
    if (!span) throw new FilterError(`DATE('${value}') is not a calendar date`);
    return { kind, value, start: span.start, end: span.end };
  }
  const instant = parseTimestamp(value);
  if (!instant) throw new FilterError(`TIMESTAMP('${value}') is not an RFC 3339 UTC timestamp`);
  return { kind, value, start: instant, end: instant };
}

/** Checks a position; its longitude and latitude (snapped onto a bound within the tolerance). */
function checkPosition(position: Position, where: Expression): [number, number] {
  const fault = findPositionFault(position);
  const [x, y] = position;
  if (fault === 'shape' || x === undefined || y === undefined) {
    throw new FilterError(`${describeFilter(where)} has a coordinate that is not a number pair`);
  }
  const snapped = snapCrs84(x, y);
  if (fault === 'range' || snapped === undefined) {
    throw new FilterError(
      `${describeFilter(where)} has the coordinate (${x} ${y}) outside CRS84 (longitude ±180, latitude ±90)`,
    );
  }
  return snapped;
}

function checkBbox(expression: Expression & { kind: 'bbox' }): CheckedBbox {
  const numbers = expression.bbox;
  if (numbers.length !== 4 && numbers.length !== 6) {
    throw new FilterError(`${describeFilter(expression)} must have 4 or 6 numbers`);
  }
  const at = (index: number): number => argumentAt(numbers, index, expression);
  const [west, south] = checkPosition([at(0), at(1)], expression);
  const [east, north] = checkPosition(
    numbers.length === 4 ? [at(2), at(3)] : [at(3), at(4)],
    expression,
  );
  if (south > north) {
    throw new FilterError(`${describeFilter(expression)} has its south edge above its north edge`);
  }
  const box: Bbox = [west, south, east, north];
  return { kind: 'bbox', bbox: numbers, box, geometry: bboxToGeometry(box), envelope: box };
}

/** Checks a geometry: CRS84 coordinates and valid (OGC simple features) structure. */
function checkGeometry(expression: Expression & { kind: 'geometry' }): CheckedGeometry {
  const positions = positionsOf(expression.geometry);
  if (positions.length === 0) throw new FilterError(`${describeFilter(expression)} is empty`);
  const pairs = positions.map((position) => checkPosition(position, expression));
  const geometry = snapGeometry(expression.geometry);
  let valid: boolean;
  try {
    valid = isRectangle(geometry) || readGeometry(geometry).isValid();
  } catch {
    valid = false;
  }
  if (!valid) {
    throw new FilterError(
      `${describeFilter(expression)} is not a valid geometry (for example a self-intersecting or unclosed ring)`,
    );
  }
  const xs = pairs.map(([x]) => x);
  const ys = pairs.map(([, y]) => y);
  const envelope: Bbox = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  return { kind: 'geometry', geometry, envelope };
}

// ---------------------------------------------------------------------------------------------
// Values

/** The static type of a checked value. */
export function staticType(expression: CheckedExpression): StaticType {
  switch (expression.kind) {
    case 'literal':
      return typeof expression.value as 'string' | 'number' | 'boolean';
    case 'date':
    case 'timestamp':
      return 'time';
    case 'property':
      return expression.type;
    case 'op':
      return operatorClass(expression.op) === 'fold' ? 'string' : 'number';
    case 'bbox':
    case 'geometry':
      return 'geometry';
    default:
      return 'array';
  }
}

/** Evaluates arithmetic on two numbers as SQL would; undefined when the result is NULL. */
export function foldArithmetic(op: ArithmeticOp, a: number, b: number): number | undefined {
  const results: Record<ArithmeticOp, () => number> = {
    '+': () => a + b,
    '-': () => a - b,
    '*': () => a * b,
    '/': () => a / b,
    '%': () => a % b,
    div: () => Math.trunc(a / b),
    '^': () => a ** b,
  };
  const result = results[op]();
  return Number.isFinite(result) ? result : undefined;
}

/** Checks an expression used as a value (an operand of a comparison or a function). */
function checkScalar(expression: Expression): CheckedExpression {
  switch (expression.kind) {
    case 'literal':
      return { kind: 'literal', value: expression.value };
    case 'date':
    case 'timestamp':
      return checkTime(expression);
    case 'property': {
      const property = resolveProperty(expression.name);
      if (property.type === 'geometry') {
        throw new FilterError(
          `"${expression.name}" is a geometry; compare it with a spatial operator such as S_EQUALS`,
        );
      }
      if (property.type === 'array') {
        throw new FilterError(
          `"${expression.name}" is an array; use an array operator such as A_CONTAINS or A_OVERLAPS`,
        );
      }
      return property;
    }
    case 'interval':
      throw new FilterError(
        `${describeFilter(expression)} is an interval; intervals are only operands of temporal operators (T_*)`,
      );
    case 'geometry':
    case 'bbox':
      throw new FilterError(
        `${describeFilter(expression)} is a geometry; geometries are only operands of spatial operators (S_*)`,
      );
    case 'array':
      throw new FilterError(
        `${describeFilter(expression)} is an array; arrays are only operands of IN and array operators (A_*)`,
      );
    case 'op':
      return checkFunction(expression);
  }
}

/** CASEI, ACCENTI and arithmetic as values, folded on literals; predicates are refused here. */
function checkFunction(node: OperatorNode): CheckedExpression {
  const op = canonicalOperator(node.op);
  if (op === undefined) throw unknownFunction(node);
  const cls = operatorClass(op);
  if (cls !== 'fold' && cls !== 'arithmetic') {
    throw new FilterError(`${describeFilter(node)} is a predicate and cannot be used as a value`);
  }
  checkedOp(node);
  const args = node.args.map(checkScalar);
  if (cls === 'fold') {
    const argument = argumentAt(args, 0, node);
    const type = staticType(argument);
    if (type !== 'string' && type !== 'unknown') {
      throw new FilterError(
        `${operatorLabel(op)} needs a string, but ${describeFilter(argumentAt(node.args, 0, node))} is a ${typeName(type)}`,
      );
    }
    if (argument.kind === 'literal' && typeof argument.value === 'string') {
      return { kind: 'literal', value: (op === 'casei' ? foldCase : stripAccents)(argument.value) };
    }
    return { kind: 'op', op, args };
  }
  args.forEach((argument, index) => {
    const type = staticType(argument);
    if (type !== 'number' && type !== 'unknown') {
      throw new FilterError(
        `"${op}" needs numbers, but ${describeFilter(argumentAt(node.args, index, node))} is a ${typeName(type)}`,
      );
    }
  });
  const a = argumentAt(args, 0, node);
  const b = argumentAt(args, 1, node);
  if (
    a.kind === 'literal' &&
    b.kind === 'literal' &&
    typeof a.value === 'number' &&
    typeof b.value === 'number'
  ) {
    const folded = foldArithmetic(op as ArithmeticOp, a.value, b.value);
    if (folded !== undefined) return { kind: 'literal', value: folded };
  }
  return { kind: 'op', op, args };
}

// ---------------------------------------------------------------------------------------------
// Temporal operands

/**
 * The temporal relations (CQL2 Table 7) as conditions on the operands' ends: every term holds
 * (`any`: one of them), each comparing an end of a or b with an end of the other. Both backends
 * translate this one table; `intervalsOnly` relations refuse instants.
 */
export type TimeEndName = 'aStart' | 'aEnd' | 'bStart' | 'bEnd';
export type EndComparison = 'lt' | 'gt' | 'le' | 'eq';
export interface TemporalRelation {
  intervalsOnly: boolean;
  any?: boolean;
  terms: readonly (readonly [EndComparison, TimeEndName, TimeEndName])[];
}

/** A relation from its terms, each written `end op end` (op one of < > <= =). */
function relation(intervalsOnly: boolean, join: 'all' | 'any', ...terms: string[]) {
  const ops: Record<string, EndComparison> = { '<': 'lt', '>': 'gt', '<=': 'le', '=': 'eq' };
  return {
    intervalsOnly,
    ...(join === 'any' && { any: true }),
    terms: terms.map((text) => {
      const [x, op, y] = text.split(' ');
      const comparison = op === undefined ? undefined : ops[op];
      if (comparison === undefined || x === undefined || y === undefined) {
        throw new Error(`Malformed temporal relation term "${text}"`);
      }
      return [comparison, x as TimeEndName, y as TimeEndName] as const;
    }),
  };
}

export const TEMPORAL_RELATIONS: Readonly<Record<TemporalOp, TemporalRelation>> = {
  t_before: relation(false, 'all', 'aEnd < bStart'),
  t_after: relation(false, 'all', 'aStart > bEnd'),
  t_meets: relation(true, 'all', 'aEnd = bStart'),
  t_metBy: relation(true, 'all', 'aStart = bEnd'),
  t_overlaps: relation(true, 'all', 'aStart < bStart', 'bStart < aEnd', 'aEnd < bEnd'),
  t_overlappedBy: relation(true, 'all', 'bStart < aStart', 'aStart < bEnd', 'bEnd < aEnd'),
  t_starts: relation(true, 'all', 'aStart = bStart', 'aEnd < bEnd'),
  t_startedBy: relation(true, 'all', 'aStart = bStart', 'aEnd > bEnd'),
  t_during: relation(true, 'all', 'aStart > bStart', 'aEnd < bEnd'),
  t_contains: relation(true, 'all', 'aStart < bStart', 'aEnd > bEnd'),
  t_finishes: relation(true, 'all', 'aStart > bStart', 'aEnd = bEnd'),
  t_finishedBy: relation(true, 'all', 'aStart < bStart', 'aEnd = bEnd'),
  t_equals: relation(false, 'all', 'aStart = bStart', 'aEnd = bEnd'),
  t_disjoint: relation(false, 'any', 'aEnd < bStart', 'aStart > bEnd'),
  // NOT disjoint.
  t_intersects: relation(false, 'all', 'aStart <= bEnd', 'bStart <= aEnd'),
};

/**
 * The terms of a temporal relation between operands a and b, each a comparison of two of their
 * ends built by `compare`, and whether one of them (rather than all) must hold.
 */
export function temporalTerms<E, Q>(
  op: FilterOp,
  a: { start: E; end: E },
  b: { start: E; end: E },
  compare: (comparison: EndComparison, x: E, y: E) => Q,
): { terms: Q[]; any: boolean } {
  const ends: Record<TimeEndName, E> = {
    aStart: a.start,
    aEnd: a.end,
    bStart: b.start,
    bEnd: b.end,
  };
  const relation = TEMPORAL_RELATIONS[op as TemporalOp];
  return {
    terms: relation.terms.map(([comparison, x, y]) => compare(comparison, ends[x], ends[y])),
    any: relation.any === true,
  };
}

/** Names that mean the record's whole time interval in temporal operators. */
const RECORD_INTERVAL_NAMES = new Set(['datetime', 'time']);

/** A string a time may be written as (the cast CQL2 permits), as the span it covers. */
export function timeText(value: unknown): { start: string; end: string } | undefined {
  return typeof value === 'string' ? parseTimeValue(value) : undefined;
}

/** One end of an INTERVAL(): '..', a date/timestamp (or its text) or a property. */
function checkIntervalEnd(expression: Expression): CheckedExpression {
  if (expression.kind === 'literal' && expression.value === '..') return { ...expression };
  const scalar = checkScalar(expression);
  if (scalar.kind === 'literal') {
    const span = timeText(scalar.value);
    if (span) {
      const value = scalar.value as string;
      const kind = /^\d{4}-\d{2}-\d{2}$/.test(value) ? 'date' : 'timestamp';
      return { kind, value, ...span };
    }
  }
  const type = staticType(scalar);
  if (type === 'time' || type === 'unknown') return scalar;
  throw new FilterError(
    `An interval end must be a date, a timestamp, '..' or a property; ${describeFilter(expression)} is a ${typeName(type)}`,
  );
}

function isInterval(operand: CheckedExpression): boolean {
  return operand.kind === 'interval' || (operand.kind === 'property' && !!operand.recordInterval);
}

/** An operand of a temporal operator: an interval, an instant or a property. */
function checkTimeOperand(expression: Expression): CheckedExpression {
  if (expression.kind === 'interval') {
    const start = checkIntervalEnd(expression.start);
    const end = checkIntervalEnd(expression.end);
    if (
      (start.kind === 'date' || start.kind === 'timestamp') &&
      (end.kind === 'date' || end.kind === 'timestamp') &&
      start.start > end.end
    ) {
      throw new FilterError(`${describeFilter(expression)} starts after it ends`);
    }
    return { kind: 'interval', start, end };
  }
  if (expression.kind === 'property' && RECORD_INTERVAL_NAMES.has(expression.name)) {
    const property = resolveProperty(expression.name);
    if (property.queryable?.name === 'start_datetime') return { ...property, recordInterval: true };
  }
  const scalar = checkScalar(expression);
  const type = staticType(scalar);
  if (type === 'time' || type === 'unknown') return scalar;
  throw new FilterError(
    `Temporal operators need dates, timestamps or intervals; ${describeFilter(expression)} is a ${typeName(type)}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Spatial and array operands

function checkSpatialOperand(expression: Expression, op: FilterOp): CheckedExpression {
  switch (expression.kind) {
    case 'bbox':
      return checkBbox(expression);
    case 'geometry':
      return checkGeometry(expression);
    case 'property': {
      const property = resolveProperty(expression.name);
      if (property.type === 'geometry') return property;
      throw new FilterError(
        `${operatorLabel(op)} needs geometries, but "${expression.name}" is not a spatial property; the geometry queryable is "geometry" (alias "geom")`,
      );
    }
    default:
      checkScalar(expression);
      throw new FilterError(
        `${operatorLabel(op)} needs geometries, but ${describeFilter(expression)} is not a geometry`,
      );
  }
}

/** The units distance operators accept (FES DWithin/Beyond arrive converted to metres). */
const METRE_UNITS = new Set(['m', 'metre', 'meter', 'metres', 'meters']);

function checkArrayItem(expression: Expression): CheckedExpression {
  if (expression.kind === 'array') {
    return { kind: 'array', items: expression.items.map(checkArrayItem) };
  }
  const scalar = checkScalar(expression);
  if (scalar.kind !== 'literal' && scalar.kind !== 'date' && scalar.kind !== 'timestamp') {
    throw new FilterError(`Array items must be literals; ${describeFilter(expression)} is not`);
  }
  return scalar;
}

function checkArrayOperand(expression: Expression, op: FilterOp): CheckedExpression {
  if (expression.kind === 'array') {
    return { kind: 'array', items: expression.items.map(checkArrayItem) };
  }
  if (expression.kind === 'property') {
    const property = resolveProperty(expression.name);
    if (property.type === 'geometry' || property.type === 'time') {
      throw new FilterError(
        `${operatorLabel(op)} needs arrays, but "${expression.name}" is a ${typeName(property.type)}`,
      );
    }
    return property;
  }
  throw new FilterError(
    `${operatorLabel(op)} needs arrays, but ${describeFilter(expression)} is not an array or a property`,
  );
}

/** The JSON values of a checked array literal (dates and timestamps as written). */
export function arrayValues(array: CheckedExpression & { kind: 'array' }): unknown[] {
  return array.items.map((item) =>
    item.kind === 'array' ? arrayValues(item) : (item as CheckedLiteral | CheckedTime).value,
  );
}

/** Any operand of IS NULL: a property of any type, or a literal (checked as it stands). */
function checkNullOperand(expression: Expression): CheckedExpression {
  switch (expression.kind) {
    case 'property':
      return resolveProperty(expression.name);
    case 'interval':
      return checkTimeOperand(expression);
    case 'bbox':
      return checkBbox(expression);
    case 'geometry':
      return checkGeometry(expression);
    case 'array':
      return { kind: 'array', items: expression.items.map(checkArrayItem) };
    default:
      return checkScalar(expression);
  }
}

// ---------------------------------------------------------------------------------------------
// Predicates

/**
 * Checks that values compared together (=, <, BETWEEN, IN) have one static type: a registered
 * string never compares with a number. A time compares with a string that is a time (the cast
 * CQL2 permits); values of unknown type compare with anything (and are NULL when they differ).
 */
function checkComparable(node: CheckedOperator, scalars: CheckedExpression[]): StaticType {
  const typed = scalars
    .map((scalar) => ({ scalar, type: staticType(scalar) }))
    .filter(({ type }) => type !== 'unknown');
  const [first] = typed;
  if (first === undefined) return 'unknown';
  const reference = typed.find(({ type }) => type === 'time') ?? first;
  for (const { scalar, type } of typed) {
    if (type === reference.type) continue;
    if (reference.type === 'time' && scalar.kind === 'literal' && timeText(scalar.value)) continue;
    throw new FilterError(
      `Cannot compare ${describeFilter(scalar)} (${typeName(type)}) with ${describeFilter(reference.scalar)} (${typeName(reference.type)}) in ${describeFilter(node)}`,
    );
  }
  return reference.type;
}

function checkPredicate(expression: Expression): CheckedExpression {
  switch (expression.kind) {
    case 'literal':
      if (typeof expression.value === 'boolean')
        return { kind: 'literal', value: expression.value };
      throw new FilterError(`${describeFilter(expression)} is not a condition`);
    case 'property': {
      const property = checkScalar(expression) as CheckedProperty;
      if (property.type === 'boolean' || property.type === 'unknown') return property;
      throw new FilterError(`"${expression.name}" is not a boolean property and not a condition`);
    }
    case 'op':
      return checkOperator(expression);
    default:
      throw new FilterError(`${describeFilter(expression)} is not a condition`);
  }
}

function checkOperator(node: OperatorNode): CheckedOperator | CheckedLiteral {
  const canonical = canonicalOperator(node.op);
  if (canonical === undefined) throw unknownFunction(node);
  const cls = operatorClass(canonical);
  if (cls === 'fold' || cls === 'arithmetic') {
    throw new FilterError(`${describeFilter(node)} is a value, not a condition`);
  }
  const op = checkedOp(node);
  const checked = (args: CheckedExpression[]): CheckedOperator => ({ kind: 'op', op, args });
  switch (cls) {
    case 'logical':
      return checked(node.args.map(checkPredicate));
    case 'comparison':
    case 'between': {
      const comparison = checked(node.args.map(checkScalar));
      const type = checkComparable(comparison, comparison.args);
      if (cls === 'between' && type === 'boolean') {
        throw new FilterError(
          `BETWEEN needs numbers, strings or times in ${describeFilter(comparison)}`,
        );
      }
      return comparison;
    }
    case 'like':
      return checked(
        node.args.map((argument) => {
          const scalar = checkScalar(argument);
          const type = staticType(scalar);
          if (type !== 'string' && type !== 'unknown') {
            throw new FilterError(
              `LIKE needs strings, but ${describeFilter(argument)} is a ${typeName(type)}`,
            );
          }
          return scalar;
        }),
      );
    case 'in': {
      const list = argumentAt(node.args, 1, node);
      if (list.kind !== 'array') {
        throw new FilterError(
          `IN needs a list of values in parentheses in ${describeFilter(node)}`,
        );
      }
      const value = checkScalar(argumentAt(node.args, 0, node));
      const items = list.items.map(checkScalar);
      const membership = checked([value, { kind: 'array', items }]);
      checkComparable(membership, [value, ...items]);
      return membership;
    }
    case 'isNull':
      return checked([checkNullOperand(argumentAt(node.args, 0, node))]);
    case 'spatial':
      return checked(node.args.map((argument) => checkSpatialOperand(argument, op)));
    case 'distance':
      return checkDistance(node, op);
    case 'temporal': {
      const args = node.args.map(checkTimeOperand);
      if (TEMPORAL_RELATIONS[op as TemporalOp].intervalsOnly) {
        args.forEach((operand, index) => {
          if (!isInterval(operand)) {
            throw new FilterError(
              `${operatorLabel(op)} compares intervals, but ${describeFilter(argumentAt(node.args, index, node))} is an instant; use INTERVAL(…) or T_AFTER, T_BEFORE, T_DISJOINT, T_EQUALS, T_INTERSECTS`,
            );
          }
        });
      }
      return checked(args);
    }
    default:
      return checked(node.args.map((argument) => checkArrayOperand(argument, op)));
  }
}

/** FES DWithin / Beyond: [geometry, geometry, distance in metres, units]. */
function checkDistance(node: OperatorNode, op: FilterOp): CheckedOperator {
  const distance = checkScalar(argumentAt(node.args, 2, node));
  if (distance.kind !== 'literal' || typeof distance.value !== 'number' || distance.value < 0) {
    throw new FilterError(`The distance of ${describeFilter(node)} must be a non-negative number`);
  }
  const units = node.args[3];
  if (units && !(units.kind === 'literal' && METRE_UNITS.has(String(units.value)))) {
    throw new FilterError(`The distance of ${describeFilter(node)} must be in metres`);
  }
  const a = checkSpatialOperand(argumentAt(node.args, 0, node), op);
  const b = checkSpatialOperand(argumentAt(node.args, 1, node), op);
  return { kind: 'op', op, args: [a, b, distance, { kind: 'literal', value: 'm' }] };
}

/**
 * Names a condition the checker made (or composed from checked filters) a CheckedFilter: the one
 * place the brand is given.
 */
const asCheckedFilter = (condition: CheckedExpression): CheckedFilter => condition as CheckedFilter;

/**
 * Checks a parsed filter and returns the checked tree every backend translates. Throws a
 * FilterError (400) naming the problem for a filter no backend could answer; given the query
 * limits, a QueryLimitError first for a filter over them (before any literal is validated).
 * Given the catalogue's known properties (learned from its records), a property that is neither
 * a core queryable nor known is an UnknownQueryableError (400) naming it; without them any
 * property is accepted (filters built inside the catalogue, CSW and OpenSearch requests).
 */
export function checkFilter(
  filter: Expression,
  limits?: QueryLimits,
  properties?: ReadonlySet<string>,
): CheckedFilter {
  if (limits) checkFilterLimits(filter, limits);
  knownProperties = properties;
  try {
    return asCheckedFilter(checkPredicate(filter));
  } finally {
    knownProperties = undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Composing checked filters

/**
 * The conjunction of checked filters, itself checked: undefined for none (absent filters are
 * skipped), the filter itself for one, else one AND whose operands are the filters', an AND
 * among them giving its own operands (one level: their insides stay as checked).
 */
export function andChecked(
  first: CheckedFilter,
  ...rest: (CheckedFilter | undefined)[]
): CheckedFilter;
export function andChecked(...filters: (CheckedFilter | undefined)[]): CheckedFilter | undefined;
export function andChecked(...filters: (CheckedFilter | undefined)[]): CheckedFilter | undefined {
  const present = filters.filter((filter): filter is CheckedFilter => filter !== undefined);
  if (present.length <= 1) return present[0];
  const args = present.flatMap((filter) =>
    filter.kind === 'op' && filter.op === 'and' ? filter.args : [filter],
  );
  const [only] = args;
  return asCheckedFilter(
    args.length === 1 && only !== undefined ? only : { kind: 'op', op: 'and', args },
  );
}

/** The negation of a checked filter, itself checked. */
export function notChecked(filter: CheckedFilter): CheckedFilter {
  return asCheckedFilter({ kind: 'op', op: 'not', args: [filter] });
}

/**
 * The operator and operands of a checked AND, OR or NOT, each operand a checked filter (the
 * checker checked them as conditions); undefined for any other filter.
 */
export function logicalOperands(
  filter: CheckedFilter,
): { op: 'and' | 'or' | 'not'; operands: CheckedFilter[] } | undefined {
  if (filter.kind !== 'op' || !(filter.op === 'and' || filter.op === 'or' || filter.op === 'not')) {
    return undefined;
  }
  return { op: filter.op, operands: filter.args.map(asCheckedFilter) };
}

/**
 * An exact in-memory evaluator of a checked filter (checked-filter.ts, made by check-filter.ts)
 * over one record, with the semantics of the embedded SQLite backend
 * (shared/search/sqlite/compile-filter.ts), written for backends that narrow a search on their
 * own index and decide the last step in Node (the engines: shared/search/engine/refine-search.ts).
 * It only evaluates: every check (operators, arity, types, literals) was made once by the
 * checker. The filter is compiled once into a closure, applied to each candidate.
 *
 * Three-valued logic as in SQL: a missing property, a value of another type and any operation
 * on NULL give NULL (null here), which AND / OR / NOT propagate; only TRUE selects a record.
 * Values are read from the index document every backend indexes (records/index-document.ts):
 * registered queryables by their canonical name, other names from the record's own
 * properties. Strings compare by code point (SQLite's BINARY collation on UTF-8), times as the
 * span they cover, geometries with the shared DE-9IM evaluators (jsts).
 */
import type { Geometry } from 'geojson';
import type { Bbox, CoreRecord } from '../records/core-record.js';
import { indexedProperties, type IndexDocument } from '../records/index-document.js';
import { bboxToGeometry } from './bbox-geometry.js';
import {
  arrayValues,
  describeFilter,
  foldArithmetic,
  staticType,
  temporalTerms,
  timeText,
} from './check-filter.js';
import type {
  CheckedExpression,
  CheckedFilter,
  CheckedLiteral,
  CheckedOperator,
  CheckedProperty,
  StaticType,
} from './checked-filter.js';
import { operatorClass, type ArithmeticOp, type ComparisonOp } from './cql2/cql2-operators.js';
import {
  ARRAY_CONVERSE,
  arrayRelation,
  distanceToTarget,
  matchesLike,
  readDistanceTarget,
  readGeometry,
  relateArrays,
  relateGeometries,
  SPATIAL_CONVERSE,
  spatialRelation,
  timeSpanEnd,
  timeSpanStart,
  type JtsGeometry,
} from './cql2-functions.js';
import { COLUMN_QUERYABLES } from './queryables.js';
import { foldCase, stripAccents } from './text-folding.js';

/** TRUE, FALSE or NULL (unknown). */
export type Truth = boolean | null;

/**
 * What a filter reads of one record: its index document's properties, footprint and time
 * interval, and its bbox as written.
 */
export interface FilterSubject {
  document: Pick<IndexDocument, 'properties' | 'geometry' | 'timeStart' | 'timeEnd'>;
  bbox: Bbox | null;
}

/** The filter as a function of a record: TRUE selects it, FALSE and NULL do not. */
export type RecordPredicate = (subject: FilterSubject) => Truth;

/** The subject a filter is evaluated on, for a record. */
export function buildFilterSubject(record: CoreRecord): FilterSubject {
  return {
    document: {
      properties: indexedProperties(record),
      geometry: record.geometry ?? null,
      timeStart: record.time?.start ?? null,
      timeEnd: record.time?.end ?? null,
    },
    bbox: record.bbox ?? null,
  };
}

// ---------------------------------------------------------------------------------------------
// Three-valued logic and SQL values

/** A value as SQL holds it: text, a number (booleans are 1 and 0) or NULL. */
type SqlValue = string | number | null;
type Getter<T = SqlValue> = (subject: FilterSubject) => T;

const not3 = (a: Truth): Truth => (a === null ? null : !a);

/** AND (decisive FALSE) or OR (decisive TRUE) in three-valued logic. */
function join3(parts: Truth[], decisive: boolean): Truth {
  let unknown = false;
  for (const part of parts) {
    if (part === decisive) return decisive;
    if (part === null) unknown = true;
  }
  return unknown ? null : !decisive;
}

const and3 = (parts: Truth[]): Truth => join3(parts, false);
const or3 = (parts: Truth[]): Truth => join3(parts, true);

/** A UTF-16 code unit rearranged so that unit order is code point order (as UTF-8 bytes). */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/** Compares text as SQLite's BINARY collation does (UTF-8 bytes, that is code points). */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** `a op b` on two SQL values: NULL when either is NULL; text after numbers, as in SQLite. */
function compareValues(op: ComparisonOp, a: SqlValue, b: SqlValue): Truth {
  if (a === null || b === null) return null;
  let order: number;
  if (typeof a === 'number' && typeof b === 'number') order = a < b ? -1 : a > b ? 1 : 0;
  else if (typeof a === 'string' && typeof b === 'string') order = compareText(a, b);
  else order = typeof a === 'number' ? -1 : 1;
  switch (op) {
    case '=':
      return order === 0;
    case '<>':
      return order !== 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Properties

/** Where a checked property's value is read. */
/** The queryables kept as values of their own, read as written. */
const COLUMNS: ReadonlySet<string> = new Set(COLUMN_QUERYABLES);

interface StoredProperty {
  column: boolean;
  /** The key in the index document's properties. */
  key: string;
}

function storedProperty(property: CheckedProperty): StoredProperty {
  const key = property.queryable?.name ?? property.name;
  // A queryable SQLite keeps in its own column is used as written (a time is its own single
  // instant), never through JSON.
  return { column: property.queryable !== undefined && COLUMNS.has(key), key };
}

/** The stored value of a property: undefined when the record lacks it. */
function stored(subject: FilterSubject, property: StoredProperty): unknown {
  const value = subject.document.properties[property.key];
  return value === null ? undefined : value;
}

type Constant = string | number | boolean;

/** A property read as one type; NULL when the stored value has another. */
function typedProperty(property: StoredProperty, type: 'string' | 'number' | 'boolean'): Getter {
  if (property.column) {
    return (subject) => {
      const value = stored(subject, property);
      return typeof value === 'string' || typeof value === 'number' ? value : null;
    };
  }
  switch (type) {
    case 'string':
      return (subject) => {
        const value = stored(subject, property);
        return typeof value === 'string' ? value : null;
      };
    case 'number':
      return (subject) => {
        const value = stored(subject, property);
        return typeof value === 'number' ? value : null;
      };
    case 'boolean':
      return (subject) => {
        const value = stored(subject, property);
        return typeof value === 'boolean' ? (value ? 1 : 0) : null;
      };
  }
}

/** The raw value of a property (booleans as 1 / 0, arrays as their JSON text). */
function rawProperty(property: StoredProperty): Getter {
  return (subject) => {
    const value = stored(subject, property);
    if (value === undefined) return null;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (typeof value === 'string' || typeof value === 'number') return value;
    return JSON.stringify(value);
  };
}

/** The kind of a property's value ('s', 'n' or 'b'), so that only values of one kind compare. */
function propertyKind(property: StoredProperty): Getter<string | null> {
  return (subject) => {
    const value = stored(subject, property);
    if (property.column) return value === undefined ? null : 's';
    switch (typeof value) {
      case 'number':
        return 'n';
      case 'string':
        return 's';
      case 'boolean':
        return 'b';
      default:
        return null;
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Scalars

/** A time value's first and last instant (ISO text), and whether they are one instant. */
interface TimeBound {
  lo: Getter<string | null>;
  hi: Getter<string | null>;
  exact: boolean;
}

interface TimeValue {
  start: TimeBound;
  end: TimeBound;
  interval: boolean;
}

interface Scalar {
  type: StaticType;
  constant?: Constant;
  property?: StoredProperty;
  value?: Getter;
  time?: TimeValue;
}

const always =
  <T>(value: T): Getter<T> =>
  () =>
    value;

/** A node the checker never leaves where the evaluator meets it: a checker bug, not a 400. */
function unchecked(expression: CheckedExpression): Error {
  return new Error(`Filter not checked: ${describeFilter(expression)} out of place`);
}

/**
 * The first `count` arguments of a checked operator (the checker fixed its arity), each through
 * `map`; `unchecked` should any be missing.
 */
function operands<R>(node: CheckedOperator, count: 1, map: (argument: CheckedExpression) => R): [R];
function operands<R>(
  node: CheckedOperator,
  count: 2,
  map: (argument: CheckedExpression) => R,
): [R, R];
function operands<R>(
  node: CheckedOperator,
  count: 3,
  map: (argument: CheckedExpression) => R,
): [R, R, R];
function operands<R>(
  node: CheckedOperator,
  count: number,
  map: (argument: CheckedExpression) => R,
): R[] {
  const taken = node.args.slice(0, count);
  if (taken.length < count) throw unchecked(node);
  return taken.map(map);
}

const itself = (argument: CheckedExpression): CheckedExpression => argument;

function literalBound(start: string, end: string): TimeBound {
  return { lo: always(start), hi: always(end), exact: start === end };
}

function instant(bound: TimeBound): TimeValue {
  return { start: bound, end: bound, interval: false };
}

function propertyBound(property: StoredProperty): TimeBound {
  if (property.column) {
    const value: Getter<string | null> = (subject) => {
      const found = stored(subject, property);
      return typeof found === 'string' ? found : null;
    };
    return { lo: value, hi: value, exact: true };
  }
  return {
    lo: (subject) => timeSpanStart(stored(subject, property)) ?? null,
    hi: (subject) => timeSpanEnd(stored(subject, property)) ?? null,
    exact: false,
  };
}

function timeOf(scalar: Scalar): TimeValue {
  if (scalar.time) return scalar.time;
  if (scalar.property) return instant(propertyBound(scalar.property));
  const span = timeText(scalar.constant);
  if (span) return instant(literalBound(span.start, span.end));
  throw new Error('Filter not checked: a value compared as a time is not one');
}

function compileScalar(expression: CheckedExpression): Scalar {
  switch (expression.kind) {
    case 'literal':
      return { type: staticType(expression), constant: expression.value };
    case 'date':
    case 'timestamp':
      return { type: 'time', time: instant(literalBound(expression.start, expression.end)) };
    case 'property':
      return { type: expression.type, property: storedProperty(expression) };
    case 'op':
      return compileFunction(expression);
    default:
      throw unchecked(expression);
  }
}

/** CASEI, ACCENTI and arithmetic on a value only known per record (the checker folded the rest). */
function compileFunction(node: CheckedOperator): Scalar {
  if (operatorClass(node.op) === 'fold') {
    const [a] = operands(node, 1, compileScalar);
    const fold = node.op === 'casei' ? foldCase : stripAccents;
    const text = valueAs(a, 'string');
    return {
      type: 'string',
      value: (subject) => {
        const found = text(subject);
        return typeof found === 'string' ? fold(found) : null;
      },
    };
  }
  const [a, b] = operands(node, 2, compileScalar);
  const op = node.op as ArithmeticOp;
  const left = valueAs(a, 'number');
  const right = valueAs(b, 'number');
  return {
    type: 'number',
    value: (subject) => {
      const x = left(subject);
      const y = right(subject);
      if (typeof x !== 'number' || typeof y !== 'number') return null;
      return foldArithmetic(op, x, y) ?? null;
    },
  };
}

function valueAs(scalar: Scalar, type: 'string' | 'number' | 'boolean'): Getter {
  if (scalar.constant !== undefined) {
    const value = typeof scalar.constant === 'boolean' ? Number(scalar.constant) : scalar.constant;
    return always(value);
  }
  if (scalar.value) return scalar.value;
  if (scalar.property) return typedProperty(scalar.property, type);
  throw new Error(`Filter not checked: a ${scalar.type} used as a ${type}`);
}

/** The type values compared together are compared as (the checker made them agree). */
function comparedType(scalars: Scalar[]): StaticType {
  const known = scalars.filter((scalar) => scalar.type !== 'unknown');
  if (known.some((scalar) => scalar.type === 'time')) return 'time';
  return known[0]?.type ?? 'unknown';
}

// ---------------------------------------------------------------------------------------------
// Comparisons

const bounds =
  (op: ComparisonOp, x: Getter<string | null>, y: Getter<string | null>): RecordPredicate =>
  (subject) =>
    compareValues(op, x(subject), y(subject));

/** Time comparisons of spans: values of different granularity compare at the coarser one. */
const timeCompare: Record<
  'lt' | 'gt' | 'le' | 'ge' | 'eq' | 'ne',
  (x: TimeBound, y: TimeBound) => RecordPredicate
> = {
  lt: (x, y) => bounds('<', x.hi, y.lo),
  gt: (x, y) => bounds('>', x.lo, y.hi),
  le: (x, y) => bounds('<=', x.lo, y.hi),
  ge: (x, y) => bounds('>=', x.hi, y.lo),
  eq: (x, y) => {
    if (x.exact && y.exact) return bounds('=', x.lo, y.lo);
    const [a, b] = [bounds('<=', x.lo, y.hi), bounds('<=', y.lo, x.hi)];
    return (subject) => and3([a(subject), b(subject)]);
  },
  ne: (x, y) => {
    if (x.exact && y.exact) return bounds('<>', x.lo, y.lo);
    const [a, b] = [bounds('<', x.hi, y.lo), bounds('>', x.lo, y.hi)];
    return (subject) => or3([a(subject), b(subject)]);
  },
};

const TIME_COMPARISON: Readonly<Record<ComparisonOp, keyof typeof timeCompare>> = {
  '=': 'eq',
  '<>': 'ne',
  '<': 'lt',
  '<=': 'le',
  '>': 'gt',
  '>=': 'ge',
};

function compareUnknown(op: ComparisonOp, a: Scalar, b: Scalar): RecordPredicate {
  const kind = (scalar: Scalar): Getter<string | null> => {
    if (scalar.property) return propertyKind(scalar.property);
    return always(scalar.type === 'number' ? 'n' : scalar.type === 'boolean' ? 'b' : 's');
  };
  const value = (scalar: Scalar): Getter => {
    if (scalar.constant !== undefined) {
      return always(
        typeof scalar.constant === 'boolean' ? Number(scalar.constant) : scalar.constant,
      );
    }
    if (scalar.property) return rawProperty(scalar.property);
    return scalar.value ?? always(null);
  };
  const [kindA, kindB, valueA, valueB] = [kind(a), kind(b), value(a), value(b)];
  return (subject) => {
    const [x, y] = [kindA(subject), kindB(subject)];
    if (x === null || y === null || x !== y) return null;
    return compareValues(op, valueA(subject), valueB(subject));
  };
}

function compareScalars(op: ComparisonOp, a: Scalar, b: Scalar): RecordPredicate {
  const type = comparedType([a, b]);
  switch (type) {
    case 'time':
      return timeCompare[TIME_COMPARISON[op]](timeOf(a).start, timeOf(b).start);
    case 'unknown':
      return compareUnknown(op, a, b);
    default: {
      const [x, y] = [
        valueAs(a, type as 'string' | 'number' | 'boolean'),
        valueAs(b, type as 'string' | 'number' | 'boolean'),
      ];
      return (subject) => compareValues(op, x(subject), y(subject));
    }
  }
}

function compileLike(node: CheckedOperator): RecordPredicate {
  const [text, pattern] = operands(node, 2, (argument) =>
    valueAs(compileScalar(argument), 'string'),
  );
  return (subject) => {
    const [x, p] = [text(subject), pattern(subject)];
    return typeof x === 'string' && typeof p === 'string' ? matchesLike(x, p) : null;
  };
}

function compileBetween(node: CheckedOperator): RecordPredicate {
  const [value, low, high] = operands(node, 3, compileScalar);
  const type = comparedType([value, low, high]);
  if (type === 'string' || type === 'number') {
    const [x, lo, hi] = [valueAs(value, type), valueAs(low, type), valueAs(high, type)];
    return (subject) => {
      const found = x(subject);
      return and3([
        compareValues('>=', found, lo(subject)),
        compareValues('<=', found, hi(subject)),
      ]);
    };
  }
  const above = compareScalars('>=', value, low);
  const below = compareScalars('<=', value, high);
  return (subject) => and3([above(subject), below(subject)]);
}

function compileIn(node: CheckedOperator): RecordPredicate {
  const [argument, list] = operands(node, 2, itself);
  if (list.kind !== 'array') throw unchecked(node);
  const value = compileScalar(argument);
  const items = list.items.map(compileScalar);
  if (items.length === 0) return always(false);
  const equals = items.map((item) => compareScalars('=', value, item));
  return (subject) => or3(equals.map((equal) => equal(subject)));
}

function compileIsNull(node: CheckedOperator): RecordPredicate {
  const [argument] = operands(node, 1, itself);
  if (argument.kind === 'property') {
    if (argument.type === 'geometry') {
      return (subject) => subject.document.geometry === null && subject.bbox === null;
    }
    const raw = rawProperty(storedProperty(argument));
    return (subject) => raw(subject) === null;
  }
  if (['interval', 'geometry', 'bbox', 'array'].includes(argument.kind)) return always(false);
  const scalar = compileScalar(argument);
  if (scalar.constant !== undefined || scalar.time) return always(false);
  const computed = scalar.value ?? always(null);
  return (subject) => computed(subject) === null;
}

// ---------------------------------------------------------------------------------------------
// Temporal operators

/** The record's time interval; open ends compare below ('') and above ('~') every instant. */
function recordIntervalBound(side: 'start' | 'end'): TimeBound {
  const value: Getter<string | null> = (subject) => {
    const { timeStart, timeEnd } = subject.document;
    if (timeStart === null && timeEnd === null) return null;
    return side === 'start' ? (timeStart ?? '') : (timeEnd ?? '~');
  };
  return { lo: value, hi: value, exact: true };
}

const RECORD_INTERVAL: TimeValue = {
  start: recordIntervalBound('start'),
  end: recordIntervalBound('end'),
  interval: true,
};

function intervalEnd(expression: CheckedExpression, side: 'start' | 'end'): TimeBound {
  if (expression.kind === 'literal' && expression.value === '..') {
    return side === 'start' ? literalBound('', '') : literalBound('~', '~');
  }
  return timeOf(compileScalar(expression)).start;
}

function compileTimeOperand(expression: CheckedExpression): TimeValue {
  if (expression.kind === 'interval') {
    const start = intervalEnd(expression.start, 'start');
    const end = intervalEnd(expression.end, 'end');
    return { start, end, interval: true };
  }
  if (expression.kind === 'property' && expression.recordInterval) return RECORD_INTERVAL;
  return timeOf(compileScalar(expression));
}

function compileTemporal(node: CheckedOperator): RecordPredicate {
  const [a, b] = operands(node, 2, compileTimeOperand);
  const { terms, any } = temporalTerms(node.op, a, b, (comparison, x, y) =>
    timeCompare[comparison](x, y),
  );
  const [only] = terms;
  if (terms.length === 1 && only !== undefined) return only;
  const combine = any ? or3 : and3;
  return (subject) => combine(terms.map((term) => term(subject)));
}

// ---------------------------------------------------------------------------------------------
// Spatial operators

type SpatialOperand = { kind: 'record' } | { kind: 'literal'; geometry: Geometry };

function spatialOperand(expression: CheckedExpression): SpatialOperand {
  switch (expression.kind) {
    case 'bbox':
    case 'geometry':
      return { kind: 'literal', geometry: expression.geometry };
    case 'property':
      return { kind: 'record' };
    default:
      throw unchecked(expression);
  }
}

/** The record's footprint: its geometry, else the geometry of its bbox; null without either. */
function footprintOf(subject: FilterSubject): Geometry | null {
  if (subject.document.geometry) return subject.document.geometry;
  return subject.bbox ? bboxToGeometry(subject.bbox) : null;
}

const footprints = new WeakMap<FilterSubject, JtsGeometry | null>();

/** The footprint read by jsts once per subject; null when absent or unreadable. */
function jtsFootprint(subject: FilterSubject): JtsGeometry | null {
  const cached = footprints.get(subject);
  if (cached !== undefined) return cached;
  const geometry = footprintOf(subject);
  let read: JtsGeometry | null = null;
  try {
    read = geometry ? readGeometry(geometry) : null;
  } catch {
    read = null;
  }
  footprints.set(subject, read);
  return read;
}

const hasFootprint = (subject: FilterSubject): boolean =>
  subject.document.geometry !== null || subject.bbox !== null;

function compileSpatial(node: CheckedOperator): RecordPredicate {
  const [a, b] = operands(node, 2, spatialOperand);
  const relation = spatialRelation(node.op);
  if (a.kind === 'literal' && b.kind === 'literal') {
    return always(relateGeometries(relation, readGeometry(a.geometry), readGeometry(b.geometry)));
  }
  if (a.kind === 'record' && b.kind === 'record') {
    // The footprint against itself: it intersects, equals, is within and contains itself.
    const holds = ['intersects', 'equals', 'within', 'contains'].includes(relation);
    return (subject) => (hasFootprint(subject) ? holds : null);
  }
  const literal = (a.kind === 'literal' ? a : b) as Extract<SpatialOperand, { kind: 'literal' }>;
  const recordRelation = a.kind === 'record' ? relation : SPATIAL_CONVERSE[relation];
  const query = readGeometry(literal.geometry);
  return (subject) => {
    const footprint = jtsFootprint(subject);
    if (!footprint) return null;
    try {
      return relateGeometries(recordRelation, footprint, query);
    } catch {
      // A topology failure on an invalid stored geometry is unknown, as on SQLite.
      return null;
    }
  };
}

function compileDistance(node: CheckedOperator): RecordPredicate {
  const [first, second, distanceArgument] = operands(node, 3, itself);
  const distance = (distanceArgument as CheckedLiteral).value as number;
  const within = node.op === 's_dwithin';
  const a = spatialOperand(first);
  const b = spatialOperand(second);
  if (a.kind === 'literal' && b.kind === 'literal') {
    const target = readDistanceTarget(JSON.stringify(b.geometry));
    return always(target ? distanceToTarget(a.geometry, target) <= distance === within : null);
  }
  if (a.kind === 'record' && b.kind === 'record') {
    return (subject) => (hasFootprint(subject) ? within : null);
  }
  const literal = (a.kind === 'literal' ? a : b) as Extract<SpatialOperand, { kind: 'literal' }>;
  const target = readDistanceTarget(JSON.stringify(literal.geometry));
  return (subject) => {
    const footprint = footprintOf(subject);
    if (!footprint || !target) return null;
    let metres: number;
    try {
      metres = distanceToTarget(footprint, target);
    } catch {
      return null;
    }
    return within ? metres <= distance : metres > distance;
  };
}

// ---------------------------------------------------------------------------------------------
// Array operators

type ArrayOperand =
  { kind: 'literal'; items: unknown[] } | { kind: 'stored'; items: Getter<unknown[] | null> };

function arrayOperand(expression: CheckedExpression): ArrayOperand {
  if (expression.kind === 'array') return { kind: 'literal', items: arrayValues(expression) };
  if (expression.kind !== 'property') throw unchecked(expression);
  const property = storedProperty(expression);
  // A stored value that is not an array is a one-element array; a missing one is NULL.
  return {
    kind: 'stored',
    items: (subject) => {
      const value = stored(subject, property);
      if (value === undefined) return null;
      return Array.isArray(value) ? (value as unknown[]) : [value];
    },
  };
}

function compileArrayRelation(node: CheckedOperator): RecordPredicate {
  const [a, b] = operands(node, 2, arrayOperand);
  const relation = arrayRelation(node.op);
  if (a.kind === 'literal' && b.kind === 'literal') {
    return always(relateArrays(relation, a.items, b.items));
  }
  const [left, right, leftRelation] =
    a.kind === 'stored' ? [a, b, relation] : [b, a, ARRAY_CONVERSE[relation]];
  const storedItems = (left as Extract<ArrayOperand, { kind: 'stored' }>).items;
  const other: Getter<unknown[] | null> =
    right.kind === 'literal' ? always(right.items) : right.items;
  return (subject) => {
    const [x, y] = [storedItems(subject), other(subject)];
    return x === null || y === null ? null : relateArrays(leftRelation, x, y);
  };
}

// ---------------------------------------------------------------------------------------------
// Predicates

function compilePredicate(expression: CheckedExpression): RecordPredicate {
  switch (expression.kind) {
    case 'literal':
      return always(expression.value as boolean);
    case 'property': {
      const value = valueAs(compileScalar(expression), 'boolean');
      return (subject) => compareValues('=', value(subject), 1);
    }
    case 'op':
      return compileOperator(expression);
    default:
      throw unchecked(expression);
  }
}

function compileOperator(node: CheckedOperator): RecordPredicate {
  switch (operatorClass(node.op)) {
    case 'logical': {
      if (node.op === 'not') {
        const [inner] = operands(node, 1, compilePredicate);
        return (subject) => not3(inner(subject));
      }
      const parts = node.args.map(compilePredicate);
      const combine = node.op === 'and' ? and3 : or3;
      return (subject) => combine(parts.map((part) => part(subject)));
    }
    case 'comparison': {
      const [a, b] = operands(node, 2, compileScalar);
      return compareScalars(node.op as ComparisonOp, a, b);
    }
    case 'like':
      return compileLike(node);
    case 'between':
      return compileBetween(node);
    case 'in':
      return compileIn(node);
    case 'isNull':
      return compileIsNull(node);
    case 'spatial':
      return compileSpatial(node);
    case 'distance':
      return compileDistance(node);
    case 'temporal':
      return compileTemporal(node);
    case 'array':
      return compileArrayRelation(node);
    default:
      throw unchecked(node);
  }
}

/**
 * Compiles a checked filter (check-filter.ts) into a predicate over records that is TRUE exactly
 * where the SQLite backend selects the record. The checker has refused every invalid filter, so
 * this only evaluates.
 */
export function compileRecordPredicate(filter: CheckedFilter): RecordPredicate {
  return compilePredicate(filter);
}

/**
 * An exact in-memory evaluator of a CQL2 filter tree (filter-ast.ts) over one record, with the
 * semantics of the embedded SQLite backend (shared/search/sqlite/compile-filter.ts), written
 * for backends that narrow a search on their own index and decide the last step in Node (the
 * engines: shared/search/engine/refine-search.ts). The filter is compiled once into a closure,
 * with the same static checks (unknown functions, mistyped operands and invalid literals are
 * FilterErrors), and the closure is applied to each candidate.
 *
 * Three-valued logic as in SQL: a missing property, a value of another type and any operation
 * on NULL give NULL (null here), which AND / OR / NOT propagate; only TRUE selects a record.
 * Values are read from the index document every backend indexes (records/index-document.ts):
 * registered queryables by their canonical name, other names from the record's own
 * properties. Strings compare by code point (SQLite's BINARY collation on UTF-8), times as the
 * span they cover, geometries with the shared DE-9IM evaluators (jsts).
 */
import type { Geometry, Position } from 'geojson';
import { FilterError } from '../errors/index.js';
import type { Bbox, CoreRecord } from '../records/core-record.js';
import { buildIndexDocument, type IndexDocument } from '../records/index-document.js';
import { parseTimestamp, parseTimeValue } from '../records/time.js';
import { bboxToGeometry } from './bbox-geometry.js';
import {
  distanceToTarget,
  matchesLike,
  readDistanceTarget,
  readGeometry,
  relateArrays,
  relateGeometries,
  timeSpanEnd,
  timeSpanStart,
  type ArrayRelationName,
  type JtsGeometry,
  type SpatialRelationName,
} from './cql2-functions.js';
import type { CheckedExpression } from './checked-filter.js';
import type { BboxLiteral, Expression, GeometryLiteral, OperatorNode } from './filter-ast.js';
import { findQueryable, type Queryable } from './queryables.js';
import { foldCase, stripAccents } from './text-folding.js';

/** TRUE, FALSE or NULL (unknown). */
export type Truth = boolean | null;

/** What a filter reads of one record: its index document and its bbox as written. */
export interface FilterSubject {
  document: IndexDocument;
  bbox: Bbox | null;
}

/** The filter as a function of a record: TRUE selects it, FALSE and NULL do not. */
export type RecordPredicate = (subject: FilterSubject) => Truth;

/** The subject a filter is evaluated on, for a record. */
export function buildFilterSubject(record: CoreRecord): FilterSubject {
  return { document: buildIndexDocument(record), bbox: record.bbox ?? null };
}

// ---------------------------------------------------------------------------------------------
// Three-valued logic and SQL values

/** A value as SQL holds it: text, a number (booleans are 1 and 0) or NULL. */
type SqlValue = string | number | null;
type Getter<T = SqlValue> = (subject: FilterSubject) => T;

const not3 = (a: Truth): Truth => (a === null ? null : !a);

function and3(parts: Truth[]): Truth {
  let unknown = false;
  for (const part of parts) {
    if (part === false) return false;
    if (part === null) unknown = true;
  }
  return unknown ? null : true;
}

function or3(parts: Truth[]): Truth {
  let unknown = false;
  for (const part of parts) {
    if (part === true) return true;
    if (part === null) unknown = true;
  }
  return unknown ? null : false;
}

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

type ComparisonOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

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
// Messages

const INFIX_OPS = new Set(['=', '<>', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'div', '^']);

function render(expression: Expression): string {
  switch (expression.kind) {
    case 'property':
      return /^[A-Za-z_][A-Za-z0-9_.:]*$/.test(expression.name)
        ? expression.name
        : `"${expression.name}"`;
    case 'literal':
      return typeof expression.value === 'string'
        ? `'${expression.value.replace(/'/g, "''")}'`
        : String(expression.value);
    case 'date':
      return `DATE('${expression.value}')`;
    case 'timestamp':
      return `TIMESTAMP('${expression.value}')`;
    case 'interval':
      return `INTERVAL(${render(expression.start)}, ${render(expression.end)})`;
    case 'geometry':
      return `${expression.geometry.type.toUpperCase()}(…)`;
    case 'bbox':
      return `BBOX(${expression.bbox.join(',')})`;
    case 'array':
      return `(${expression.items.map(render).join(', ')})`;
    case 'op': {
      const op = expression.op.toLowerCase();
      const args = expression.args.map(render);
      if (INFIX_OPS.has(op) && args.length === 2) return `${args[0]} ${op} ${args[1]}`;
      if ((op === 'and' || op === 'or') && args.length > 0) {
        return args.map((arg) => `(${arg})`).join(` ${op.toUpperCase()} `);
      }
      if (op === 'not' && args.length === 1) return `NOT (${args[0]})`;
      if (op === 'like' && args.length === 2) return `${args[0]} LIKE ${args[1]}`;
      if (op === 'in' && args.length === 2) return `${args[0]} IN ${args[1]}`;
      if (op === 'between' && args.length === 3) {
        return `${args[0]} BETWEEN ${args[1]} AND ${args[2]}`;
      }
      if (op === 'isnull' && args.length === 1) return `${args[0]} IS NULL`;
      return `${opName(expression.op)}(${args.join(', ')})`;
    }
  }
}

function describe(expression: Expression): string {
  const text = render(expression);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

function opName(op: string): string {
  const lower = op.toLowerCase();
  if (lower === 'isnull') return 'IS NULL';
  const known = PREDICATE_OPS.has(lower) || ['casei', 'accenti', 'div'].includes(lower);
  return known && /^[a-z_]+$/.test(lower) ? lower.toUpperCase() : op;
}

// ---------------------------------------------------------------------------------------------
// Operators

const COMPARISON_OPS = new Set(['=', '<>', '<', '<=', '>', '>=']);
const ARITHMETIC_OPS = new Set(['+', '-', '*', '/', '%', 'div', '^']);

const SPATIAL_OPS: Readonly<Record<string, SpatialRelationName>> = {
  s_intersects: 'intersects',
  s_disjoint: 'disjoint',
  s_equals: 'equals',
  s_touches: 'touches',
  s_crosses: 'crosses',
  s_overlaps: 'overlaps',
  s_within: 'within',
  s_contains: 'contains',
};

const CONVERSE: Readonly<Record<SpatialRelationName, SpatialRelationName>> = {
  intersects: 'intersects',
  disjoint: 'disjoint',
  equals: 'equals',
  touches: 'touches',
  crosses: 'crosses',
  overlaps: 'overlaps',
  within: 'contains',
  contains: 'within',
};

const DISTANCE_OPS = new Set(['s_dwithin', 's_beyond']);

const ARRAY_OPS: Readonly<Record<string, ArrayRelationName>> = {
  a_equals: 'equals',
  a_contains: 'contains',
  a_containedby: 'containedBy',
  a_overlaps: 'overlaps',
};

const ARRAY_CONVERSE: Readonly<Record<ArrayRelationName, ArrayRelationName>> = {
  equals: 'equals',
  overlaps: 'overlaps',
  contains: 'containedBy',
  containedBy: 'contains',
};

const TEMPORAL_OPS: Readonly<Record<string, { intervalsOnly: boolean }>> = {
  t_after: { intervalsOnly: false },
  t_before: { intervalsOnly: false },
  t_disjoint: { intervalsOnly: false },
  t_equals: { intervalsOnly: false },
  t_intersects: { intervalsOnly: false },
  t_contains: { intervalsOnly: true },
  t_during: { intervalsOnly: true },
  t_finishedby: { intervalsOnly: true },
  t_finishes: { intervalsOnly: true },
  t_meets: { intervalsOnly: true },
  t_metby: { intervalsOnly: true },
  t_overlappedby: { intervalsOnly: true },
  t_overlaps: { intervalsOnly: true },
  t_startedby: { intervalsOnly: true },
  t_starts: { intervalsOnly: true },
};

const PREDICATE_OPS = new Set([
  'and',
  'or',
  'not',
  'like',
  'between',
  'in',
  'isnull',
  ...COMPARISON_OPS,
  ...Object.keys(SPATIAL_OPS),
  ...DISTANCE_OPS,
  ...Object.keys(ARRAY_OPS),
  ...Object.keys(TEMPORAL_OPS),
]);

function unknownFunction(node: OperatorNode): FilterError {
  return new FilterError(
    `Unknown function "${node.op}" in ${describe(node)}; this catalogue offers no custom functions`,
  );
}

function expectArity(node: OperatorNode, count: number): void {
  if (node.args.length !== count) {
    throw new FilterError(
      `${opName(node.op)} takes ${count} argument${count === 1 ? '' : 's'}, got ${node.args.length} in ${describe(node)}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Properties

/**
 * The queryables SQLite keeps in their own column (shared/search/sqlite/schema.ts, SORT_COLUMNS):
 * their value is used as written (a time is its own single instant), never through JSON.
 */
const COLUMN_QUERYABLES = new Set([
  'id',
  'type',
  'title',
  'parentId',
  'created',
  'updated',
  'start_datetime',
  'end_datetime',
]);

const RECORD_INTERVAL_NAMES = new Set(['datetime', 'time']);

interface ResolvedProperty {
  name: string;
  queryable?: Queryable;
  column: boolean;
  /** The key in the index document's properties. */
  key: string;
}

function resolveProperty(name: string): ResolvedProperty {
  if (name.length === 0 || name.length > 256 || /["\\\p{Cc}]/u.test(name)) {
    throw new FilterError(`Invalid property name ${JSON.stringify(name.slice(0, 64))}`);
  }
  const candidate = findQueryable(name);
  const queryable =
    candidate && (candidate.name === name || candidate.aliases.includes(name))
      ? candidate
      : undefined;
  const key = queryable?.name ?? name;
  return { name, queryable, column: queryable !== undefined && COLUMN_QUERYABLES.has(key), key };
}

/** The stored value of a property: undefined when the record lacks it. */
function stored(subject: FilterSubject, property: ResolvedProperty): unknown {
  const value = subject.document.properties[property.key];
  return value === null ? undefined : value;
}

type ScalarType = 'string' | 'number' | 'boolean' | 'time' | 'unknown';
type StaticType = ScalarType | 'geometry' | 'array';
type Constant = string | number | boolean;

function queryableType(queryable: Queryable): StaticType {
  switch (queryable.type) {
    case 'integer':
    case 'number':
      return 'number';
    case 'datetime':
      return 'time';
    default:
      return queryable.type;
  }
}

/** A property read as one type; NULL when the stored value has another. */
function typedProperty(property: ResolvedProperty, type: 'string' | 'number' | 'boolean'): Getter {
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
function rawProperty(property: ResolvedProperty): Getter {
  return (subject) => {
    const value = stored(subject, property);
    if (value === undefined) return null;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (typeof value === 'string' || typeof value === 'number') return value;
    return JSON.stringify(value);
  };
}

/** The kind of a property's value ('s', 'n' or 'b'), so that only values of one kind compare. */
function propertyKind(property: ResolvedProperty): Getter<string | null> {
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
  type: ScalarType;
  expression: Expression;
  constant?: Constant;
  property?: ResolvedProperty;
  value?: Getter;
  time?: TimeValue;
}

const always =
  <T>(value: T): Getter<T> =>
  () =>
    value;

function literalBound(start: string, end: string): TimeBound {
  return { lo: always(start), hi: always(end), exact: start === end };
}

function instant(bound: TimeBound): TimeValue {
  return { start: bound, end: bound, interval: false };
}

function propertyBound(property: ResolvedProperty): TimeBound {
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
  if (typeof scalar.constant === 'string') {
    const span = parseTimeValue(scalar.constant);
    if (span) return instant(literalBound(span.start, span.end));
  }
  throw new FilterError(`${describe(scalar.expression)} is not a date or timestamp`);
}

function typeName(type: StaticType): string {
  return type === 'time' ? 'date/timestamp' : type;
}

function constantScalar(expression: Expression, value: Constant): Scalar {
  const type =
    typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'boolean';
  return { type, expression, constant: value };
}

function compileScalar(expression: Expression): Scalar {
  switch (expression.kind) {
    case 'literal':
      return constantScalar(expression, expression.value);
    case 'date': {
      const span = /^\d{4}-\d{2}-\d{2}$/.test(expression.value)
        ? parseTimeValue(expression.value)
        : undefined;
      if (!span) throw new FilterError(`DATE('${expression.value}') is not a calendar date`);
      return { type: 'time', expression, time: instant(literalBound(span.start, span.end)) };
    }
    case 'timestamp': {
      const timestamp = parseTimestamp(expression.value);
      if (!timestamp) {
        throw new FilterError(`TIMESTAMP('${expression.value}') is not an RFC 3339 UTC timestamp`);
      }
      return { type: 'time', expression, time: instant(literalBound(timestamp, timestamp)) };
    }
    case 'property': {
      const property = resolveProperty(expression.name);
      const type = property.queryable ? queryableType(property.queryable) : 'unknown';
      if (type === 'geometry') {
        throw new FilterError(
          `"${expression.name}" is a geometry; compare it with a spatial operator such as S_EQUALS`,
        );
      }
      if (type === 'array') {
        throw new FilterError(
          `"${expression.name}" is an array; use an array operator such as A_CONTAINS or A_OVERLAPS`,
        );
      }
      return { type, expression, property };
    }
    case 'interval':
      throw new FilterError(
        `${describe(expression)} is an interval; intervals are only operands of temporal operators (T_*)`,
      );
    case 'geometry':
    case 'bbox':
      throw new FilterError(
        `${describe(expression)} is a geometry; geometries are only operands of spatial operators (S_*)`,
      );
    case 'array':
      throw new FilterError(
        `${describe(expression)} is an array; arrays are only operands of IN and array operators (A_*)`,
      );
    case 'op':
      return compileFunction(expression);
  }
}

function compileFunction(node: OperatorNode): Scalar {
  const op = node.op.toLowerCase();
  if (op === 'casei' || op === 'accenti') {
    expectArity(node, 1);
    const argument = compileScalar(node.args[0]);
    if (argument.type !== 'string' && argument.type !== 'unknown') {
      throw new FilterError(
        `${opName(op)} needs a string, but ${describe(node.args[0])} is a ${typeName(argument.type)}`,
      );
    }
    const fold = op === 'casei' ? foldCase : stripAccents;
    if (typeof argument.constant === 'string') {
      return constantScalar(node, fold(argument.constant));
    }
    const text = valueAs(argument, 'string');
    return {
      type: 'string',
      expression: node,
      value: (subject) => {
        const found = text(subject);
        return typeof found === 'string' ? fold(found) : null;
      },
    };
  }
  if (ARITHMETIC_OPS.has(op)) return compileArithmetic(node, op);
  if (PREDICATE_OPS.has(op)) {
    throw new FilterError(`${describe(node)} is a predicate and cannot be used as a value`);
  }
  throw unknownFunction(node);
}

/** Arithmetic on two numbers as SQLite computes it; undefined where SQLite gives NULL. */
export function computeArithmetic(op: string, a: number, b: number): number | undefined {
  let result: number;
  switch (op) {
    case '+':
      result = a + b;
      break;
    case '-':
      result = a - b;
      break;
    case '*':
      result = a * b;
      break;
    case '/':
      if (b === 0) return undefined;
      result = a / b;
      break;
    case '%':
      if (b === 0) return undefined;
      result = a % b;
      break;
    case 'div':
      if (b === 0) return undefined;
      result = Math.trunc(a / b);
      break;
    default:
      result = a ** b;
  }
  return Number.isFinite(result) ? result : undefined;
}

function compileArithmetic(node: OperatorNode, op: string): Scalar {
  expectArity(node, 2);
  const [a, b] = node.args.map((argument) => {
    const scalar = compileScalar(argument);
    if (scalar.type !== 'number' && scalar.type !== 'unknown') {
      throw new FilterError(
        `"${op}" needs numbers, but ${describe(argument)} is a ${typeName(scalar.type)}`,
      );
    }
    return scalar;
  });
  if (typeof a.constant === 'number' && typeof b.constant === 'number') {
    const folded = computeArithmetic(op, a.constant, b.constant);
    if (folded !== undefined) return constantScalar(node, folded);
  }
  const left = valueAs(a, 'number');
  const right = valueAs(b, 'number');
  return {
    type: 'number',
    expression: node,
    value: (subject) => {
      const x = left(subject);
      const y = right(subject);
      if (typeof x !== 'number' || typeof y !== 'number') return null;
      return computeArithmetic(op, x, y) ?? null;
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
  throw new FilterError(`${describe(scalar.expression)} is not a ${type}`);
}

function isTimeText(scalar: Scalar): boolean {
  return typeof scalar.constant === 'string' && parseTimeValue(scalar.constant) !== undefined;
}

function unifyTypes(context: Expression, scalars: Scalar[]): ScalarType {
  const known = scalars.filter((scalar) => scalar.type !== 'unknown');
  if (known.length === 0) return 'unknown';
  const timed = known.find((scalar) => scalar.type === 'time');
  const target = timed ? 'time' : known[0].type;
  for (const scalar of known) {
    if (scalar.type === target) continue;
    if (target === 'time' && isTimeText(scalar)) continue;
    const reference = timed ?? known[0];
    throw new FilterError(
      `Cannot compare ${describe(scalar.expression)} (${typeName(scalar.type)}) with ${describe(reference.expression)} (${typeName(reference.type)}) in ${describe(context)}`,
    );
  }
  return target;
}

// ---------------------------------------------------------------------------------------------
// Comparisons

type BoundCompare = (x: TimeBound, y: TimeBound) => RecordPredicate;

const bounds =
  (op: ComparisonOp, x: Getter<string | null>, y: Getter<string | null>): RecordPredicate =>
  (subject) =>
    compareValues(op, x(subject), y(subject));

/** Time comparisons of spans: values of different granularity compare at the coarser one. */
const timeCompare: Record<'lt' | 'gt' | 'le' | 'ge' | 'eq' | 'ne', BoundCompare> = {
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

function compareScalars(
  context: Expression,
  op: ComparisonOp,
  a: Scalar,
  b: Scalar,
): RecordPredicate {
  const type = unifyTypes(context, [a, b]);
  switch (type) {
    case 'time':
      return timeCompare[TIME_COMPARISON[op]](timeOf(a).start, timeOf(b).start);
    case 'unknown':
      return compareUnknown(op, a, b);
    default: {
      const [x, y] = [valueAs(a, type), valueAs(b, type)];
      return (subject) => compareValues(op, x(subject), y(subject));
    }
  }
}

function compileComparison(node: OperatorNode, op: ComparisonOp): RecordPredicate {
  expectArity(node, 2);
  return compareScalars(node, op, compileScalar(node.args[0]), compileScalar(node.args[1]));
}

function compileLike(node: OperatorNode): RecordPredicate {
  expectArity(node, 2);
  const [value, pattern] = node.args.map((argument) => {
    const scalar = compileScalar(argument);
    if (scalar.type !== 'string' && scalar.type !== 'unknown') {
      throw new FilterError(
        `LIKE needs strings, but ${describe(argument)} is a ${typeName(scalar.type)}`,
      );
    }
    return scalar;
  });
  const text = valueAs(value, 'string');
  const patternText = valueAs(pattern, 'string');
  return (subject) => {
    const [x, p] = [text(subject), patternText(subject)];
    return typeof x === 'string' && typeof p === 'string' ? matchesLike(x, p) : null;
  };
}

function compileBetween(node: OperatorNode): RecordPredicate {
  expectArity(node, 3);
  const [value, low, high] = node.args.map(compileScalar);
  const type = unifyTypes(node, [value, low, high]);
  if (type === 'boolean') {
    throw new FilterError(`BETWEEN needs numbers, strings or times in ${describe(node)}`);
  }
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
  const above = compareScalars(node, '>=', value, low);
  const below = compareScalars(node, '<=', value, high);
  return (subject) => and3([above(subject), below(subject)]);
}

function compileIn(node: OperatorNode): RecordPredicate {
  expectArity(node, 2);
  const list = node.args[1];
  if (list.kind !== 'array') {
    throw new FilterError(`IN needs a list of values in parentheses in ${describe(node)}`);
  }
  const value = compileScalar(node.args[0]);
  const items = list.items.map(compileScalar);
  if (items.length === 0) return always(false);
  unifyTypes(node, [value, ...items]);
  const equals = items.map((item) => compareScalars(node, '=', value, item));
  return (subject) => or3(equals.map((equal) => equal(subject)));
}

function compileIsNull(node: OperatorNode): RecordPredicate {
  expectArity(node, 1);
  const argument = node.args[0];
  if (argument.kind === 'property') {
    const property = resolveProperty(argument.name);
    if (property.queryable?.type === 'geometry') {
      return (subject) => subject.document.geometry === null && subject.bbox === null;
    }
    const raw = rawProperty(property);
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

function intervalEnd(expression: Expression, side: 'start' | 'end'): TimeBound {
  if (expression.kind === 'literal' && expression.value === '..') {
    return side === 'start' ? literalBound('', '') : literalBound('~', '~');
  }
  const scalar = compileScalar(expression);
  if (scalar.type === 'time' || scalar.type === 'unknown' || isTimeText(scalar)) {
    return timeOf(scalar).start;
  }
  throw new FilterError(
    `An interval end must be a date, a timestamp, '..' or a property; ${describe(expression)} is a ${typeName(scalar.type)}`,
  );
}

/** The fixed text of a bound that does not depend on the record, if it is one. */
function fixedBound(bound: Getter<string | null>, expression: Expression): string | undefined {
  if (expression.kind === 'property' || expression.kind === 'op') return undefined;
  return bound({ document: {} as IndexDocument, bbox: null }) ?? undefined;
}

function compileTimeOperand(expression: Expression): TimeValue {
  if (expression.kind === 'interval') {
    const start = intervalEnd(expression.start, 'start');
    const end = intervalEnd(expression.end, 'end');
    const from = fixedBound(start.lo, expression.start);
    const to = fixedBound(end.hi, expression.end);
    if (from && to && from > to) {
      throw new FilterError(`${describe(expression)} starts after it ends`);
    }
    return { start, end, interval: true };
  }
  if (expression.kind === 'property' && RECORD_INTERVAL_NAMES.has(expression.name)) {
    const property = resolveProperty(expression.name);
    if (property.queryable?.name === 'start_datetime') return RECORD_INTERVAL;
  }
  const scalar = compileScalar(expression);
  if (scalar.type === 'time' || scalar.type === 'unknown') return timeOf(scalar);
  throw new FilterError(
    `Temporal operators need dates, timestamps or intervals; ${describe(expression)} is a ${typeName(scalar.type)}`,
  );
}

function compileTemporal(node: OperatorNode, op: string): RecordPredicate {
  expectArity(node, 2);
  const [a, b] = node.args.map(compileTimeOperand);
  if (TEMPORAL_OPS[op].intervalsOnly) {
    node.args.forEach((argument, index) => {
      if (![a, b][index].interval) {
        throw new FilterError(
          `${opName(node.op)} compares intervals, but ${describe(argument)} is an instant; use INTERVAL(…) or T_AFTER, T_BEFORE, T_DISJOINT, T_EQUALS, T_INTERSECTS`,
        );
      }
    });
  }
  const { lt, gt, le, eq } = timeCompare;
  const all = (...parts: RecordPredicate[]): RecordPredicate => {
    return (subject) => and3(parts.map((part) => part(subject)));
  };
  switch (op) {
    case 't_before':
      return lt(a.end, b.start);
    case 't_after':
      return gt(a.start, b.end);
    case 't_meets':
      return eq(a.end, b.start);
    case 't_metby':
      return eq(a.start, b.end);
    case 't_overlaps':
      return all(lt(a.start, b.start), lt(b.start, a.end), lt(a.end, b.end));
    case 't_overlappedby':
      return all(lt(b.start, a.start), lt(a.start, b.end), lt(b.end, a.end));
    case 't_starts':
      return all(eq(a.start, b.start), lt(a.end, b.end));
    case 't_startedby':
      return all(eq(a.start, b.start), gt(a.end, b.end));
    case 't_during':
      return all(gt(a.start, b.start), lt(a.end, b.end));
    case 't_contains':
      return all(lt(a.start, b.start), gt(a.end, b.end));
    case 't_finishes':
      return all(gt(a.start, b.start), eq(a.end, b.end));
    case 't_finishedby':
      return all(lt(a.start, b.start), eq(a.end, b.end));
    case 't_equals':
      return all(eq(a.start, b.start), eq(a.end, b.end));
    case 't_disjoint': {
      const [before, after] = [lt(a.end, b.start), gt(a.start, b.end)];
      return (subject) => or3([before(subject), after(subject)]);
    }
    default:
      return all(le(a.start, b.end), le(b.start, a.end));
  }
}

// ---------------------------------------------------------------------------------------------
// Spatial operators

type SpatialOperand = { kind: 'record' } | { kind: 'literal'; geometry: Geometry };

function checkPosition(position: Position, where: Expression): void {
  const [x, y] = position;
  if (position.length < 2 || !position.every((n) => typeof n === 'number' && Number.isFinite(n))) {
    throw new FilterError(`${describe(where)} has a coordinate that is not a number pair`);
  }
  if (x < -180 || x > 180 || y < -90 || y > 90) {
    throw new FilterError(
      `${describe(where)} has the coordinate (${x} ${y}) outside CRS84 (longitude ±180, latitude ±90)`,
    );
  }
}

function positionsOf(geometry: Geometry): Position[] {
  switch (geometry.type) {
    case 'Point':
      return [geometry.coordinates];
    case 'MultiPoint':
    case 'LineString':
      return geometry.coordinates;
    case 'MultiLineString':
    case 'Polygon':
      return geometry.coordinates.flat();
    case 'MultiPolygon':
      return geometry.coordinates.flat(2);
    case 'GeometryCollection':
      return geometry.geometries.flatMap(positionsOf);
  }
}

function compileBbox(expression: BboxLiteral): SpatialOperand {
  const numbers = expression.bbox;
  if (numbers.length !== 4 && numbers.length !== 6) {
    throw new FilterError(`${describe(expression)} must have 4 or 6 numbers`);
  }
  const [west, south, east, north] =
    numbers.length === 4 ? numbers : [numbers[0], numbers[1], numbers[3], numbers[4]];
  checkPosition([west, south], expression);
  checkPosition([east, north], expression);
  if (south > north) {
    throw new FilterError(`${describe(expression)} has its south edge above its north edge`);
  }
  return { kind: 'literal', geometry: bboxToGeometry([west, south, east, north]) };
}

function compileGeometry(expression: GeometryLiteral): SpatialOperand {
  const positions = positionsOf(expression.geometry);
  if (positions.length === 0) throw new FilterError(`${describe(expression)} is empty`);
  for (const position of positions) checkPosition(position, expression);
  let valid: boolean;
  try {
    valid = readGeometry(expression.geometry).isValid();
  } catch {
    valid = false;
  }
  if (!valid) {
    throw new FilterError(
      `${describe(expression)} is not a valid geometry (for example a self-intersecting or unclosed ring)`,
    );
  }
  return { kind: 'literal', geometry: expression.geometry };
}

function compileSpatialOperand(expression: Expression, node: OperatorNode): SpatialOperand {
  switch (expression.kind) {
    case 'bbox':
      return compileBbox(expression);
    case 'geometry':
      return compileGeometry(expression);
    case 'property': {
      const property = resolveProperty(expression.name);
      if (property.queryable?.type === 'geometry') return { kind: 'record' };
      throw new FilterError(
        `${opName(node.op)} needs geometries, but "${expression.name}" is not a spatial property; the geometry queryable is "geometry" (alias "geom")`,
      );
    }
    default:
      compileScalar(expression);
      throw new FilterError(
        `${opName(node.op)} needs geometries, but ${describe(expression)} is not a geometry`,
      );
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

function compileSpatial(node: OperatorNode, op: string): RecordPredicate {
  expectArity(node, 2);
  const [a, b] = node.args.map((argument) => compileSpatialOperand(argument, node));
  const relation = SPATIAL_OPS[op];
  if (a.kind === 'literal' && b.kind === 'literal') {
    return always(relateGeometries(relation, readGeometry(a.geometry), readGeometry(b.geometry)));
  }
  if (a.kind === 'record' && b.kind === 'record') {
    // The footprint against itself: it intersects, equals, is within and contains itself.
    const holds = ['intersects', 'equals', 'within', 'contains'].includes(relation);
    return (subject) => (hasFootprint(subject) ? holds : null);
  }
  const literal = (a.kind === 'literal' ? a : b) as Extract<SpatialOperand, { kind: 'literal' }>;
  const recordRelation = a.kind === 'record' ? relation : CONVERSE[relation];
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

const METRE_UNITS = new Set(['m', 'metre', 'meter', 'metres', 'meters']);

function compileDistance(node: OperatorNode, op: string): RecordPredicate {
  if (node.args.length !== 3 && node.args.length !== 4) {
    throw new FilterError(
      `${opName(node.op)} takes two geometries, a distance and its units in ${describe(node)}`,
    );
  }
  const distance = compileScalar(node.args[2]).constant;
  if (typeof distance !== 'number' || distance < 0) {
    throw new FilterError(`The distance of ${describe(node)} must be a non-negative number`);
  }
  const units = node.args[3];
  if (units && !(units.kind === 'literal' && METRE_UNITS.has(String(units.value)))) {
    throw new FilterError(`The distance of ${describe(node)} must be in metres`);
  }
  const within = op === 's_dwithin';
  const [a, b] = node.args.slice(0, 2).map((argument) => compileSpatialOperand(argument, node));
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

function arrayItemValue(expression: Expression): unknown {
  if (expression.kind === 'array') return expression.items.map(arrayItemValue);
  if (expression.kind === 'date' || expression.kind === 'timestamp') return expression.value;
  const scalar = compileScalar(expression);
  if (scalar.constant === undefined) {
    throw new FilterError(`Array items must be literals; ${describe(expression)} is not`);
  }
  return scalar.constant;
}

type ArrayOperand =
  { kind: 'literal'; items: unknown[] } | { kind: 'stored'; items: Getter<unknown[] | null> };

function compileArrayOperand(expression: Expression, node: OperatorNode): ArrayOperand {
  if (expression.kind === 'array') {
    return { kind: 'literal', items: expression.items.map(arrayItemValue) };
  }
  if (expression.kind === 'property') {
    const property = resolveProperty(expression.name);
    const type = property.queryable ? queryableType(property.queryable) : 'unknown';
    if (type === 'geometry' || type === 'time') {
      throw new FilterError(
        `${opName(node.op)} needs arrays, but "${expression.name}" is a ${typeName(type)}`,
      );
    }
    // A stored value that is not an array is a one-element array; a missing one is NULL.
    return {
      kind: 'stored',
      items: (subject) => {
        const value = stored(subject, property);
        if (value === undefined) return null;
        return Array.isArray(value) ? value : [value];
      },
    };
  }
  throw new FilterError(
    `${opName(node.op)} needs arrays, but ${describe(expression)} is not an array or a property`,
  );
}

function compileArrayRelation(node: OperatorNode, op: string): RecordPredicate {
  expectArity(node, 2);
  const [a, b] = node.args.map((argument) => compileArrayOperand(argument, node));
  const relation = ARRAY_OPS[op];
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

function compilePredicate(expression: Expression): RecordPredicate {
  switch (expression.kind) {
    case 'literal':
      if (typeof expression.value === 'boolean') return always(expression.value);
      throw new FilterError(`${describe(expression)} is not a condition`);
    case 'property': {
      const scalar = compileScalar(expression);
      if (scalar.type === 'boolean' || scalar.type === 'unknown') {
        const value = valueAs(scalar, 'boolean');
        return (subject) => compareValues('=', value(subject), 1);
      }
      throw new FilterError(`"${expression.name}" is not a boolean property and not a condition`);
    }
    case 'op':
      return compileOperator(expression);
    default:
      throw new FilterError(`${describe(expression)} is not a condition`);
  }
}

function compileOperator(node: OperatorNode): RecordPredicate {
  const op = node.op.toLowerCase();
  switch (op) {
    case 'and':
    case 'or': {
      const parts = node.args.map(compilePredicate);
      const combine = op === 'and' ? and3 : or3;
      return (subject) => combine(parts.map((part) => part(subject)));
    }
    case 'not': {
      expectArity(node, 1);
      const inner = compilePredicate(node.args[0]);
      return (subject) => not3(inner(subject));
    }
    case 'like':
      return compileLike(node);
    case 'between':
      return compileBetween(node);
    case 'in':
      return compileIn(node);
    case 'isnull':
      return compileIsNull(node);
  }
  if (COMPARISON_OPS.has(op)) return compileComparison(node, op as ComparisonOp);
  if (op in SPATIAL_OPS) return compileSpatial(node, op);
  if (DISTANCE_OPS.has(op)) return compileDistance(node, op);
  if (op in TEMPORAL_OPS) return compileTemporal(node, op);
  if (op in ARRAY_OPS) return compileArrayRelation(node, op);
  if (op === 'casei' || op === 'accenti' || ARITHMETIC_OPS.has(op)) {
    throw new FilterError(`${describe(node)} is a value, not a condition`);
  }
  throw unknownFunction(node);
}

/**
 * Compiles a filter tree into a predicate over records that is TRUE exactly where the SQLite
 * backend selects the record. Throws FilterError (400) for unknown functions, wrong operand
 * types and invalid literals.
 */
export function compileRecordPredicate(filter: Expression | CheckedExpression): RecordPredicate {
  // A checked tree has the parsed tree's shape (checked-filter.ts); it is read as one.
  return compilePredicate(filter as Expression);
}

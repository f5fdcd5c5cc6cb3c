/**
 * Compiles the filter expression tree (the CQL2 JSON shaped AST of shared/query/filter-ast.ts)
 * into one SQLite condition for the embedded backend. Every value is a bound parameter and every
 * property name reaches SQL only as a bound JSON path or as a whitelisted column, so no user
 * text is ever SQL.
 *
 * Semantics (the decisions are listed in the README):
 * - Three-valued logic: a missing property, a value of the wrong type and any operation on NULL
 *   give SQL NULL, which AND/OR/NOT propagate as CQL2 requires; only TRUE selects a record.
 * - Properties: exact (case-sensitive) canonical names and aliases of the queryables registry
 *   use the indexed columns or their canonical `props` entry; the geometry queryable is the
 *   record's footprint (its geometry, else its bbox); `datetime`/`time` in temporal operators
 *   are the record's time interval. Every other name reads the record's own property of that
 *   name. Statically known types are checked: comparing a registered string with a number, or
 *   using a non-spatial property in a spatial operator, is a FilterError.
 * - Time: dates and timestamps compare as time. A value stands for the span it covers (a date
 *   is its whole UTC day), and values of different granularity compare at the coarser one:
 *   `updated = DATE('2022-04-16')` holds for every instant of that day.
 * - Spatial operators use the R*Tree to skip records whose box cannot satisfy them, then an
 *   exact DE-9IM predicate (jsts) in a registered SQL function. Geometry literals are planar in
 *   CRS84; only a BBOX whose west edge is east of its east edge crosses the antimeridian.
 * - FES DWithin / Beyond (`s_dwithin` / `s_beyond`, distance in metres) measure great-circle
 *   metres between the nearest points found in a local equirectangular projection.
 */
import type { Geometry, Position } from 'geojson';
import { FilterError } from '../../errors/index.js';
import type { Bbox } from '../../records/core-record.js';
import { splitAntimeridian } from '../../records/index-document.js';
import { parseTimestamp, parseTimeValue } from '../../records/time.js';
import type {
  BboxLiteral,
  Expression,
  GeometryLiteral,
  OperatorNode,
} from '../../query/filter-ast.js';
import { findQueryable, type Queryable } from '../../query/queryables.js';
import type { SqlFragment, SqlValue } from './compile-query.js';
import { SORT_COLUMNS } from './schema.js';
import {
  METRES_PER_DEGREE,
  SQL_FUNCTIONS,
  bboxToGeometry,
  foldCase,
  geodesicDistance,
  likeToGlob,
  readGeometry,
  relateArrays,
  relateGeometries,
  stripAccents,
  type ArrayRelationName,
  type SpatialRelationName,
} from './sql-functions.js';

// ---------------------------------------------------------------------------------------------
// SQL fragments

/** A fragment with bound parameters, in the order their `?` appear. */
type Fragment = SqlFragment;

/** One bound parameter. */
function param(value: SqlValue): Fragment {
  return { sql: '?', params: [value] };
}

/** Trusted SQL text (column names, keywords); never user text. */
function raw(text: string): Fragment {
  return { sql: text, params: [] };
}

/** Builds a fragment from a template whose interpolations are fragments, keeping param order. */
function sql(strings: TemplateStringsArray, ...parts: Fragment[]): Fragment {
  let text = strings[0];
  const params: SqlValue[] = [];
  parts.forEach((part, index) => {
    text += part.sql + strings[index + 1];
    params.push(...part.params);
  });
  return { sql: text, params };
}

/**
 * Joins fragments with an associative operator (AND, OR), in parentheses. Long lists are
 * grouped as a balanced tree: SQLite limits an expression tree's depth (1000), and `a OR b OR
 * c …` nests one level per operand, where balanced groups nest log2(n) levels.
 */
function joinFragments(parts: Fragment[], separator: string): Fragment {
  if (parts.length > JOIN_GROUP) {
    const groups: Fragment[] = [];
    for (let index = 0; index < parts.length; index += JOIN_GROUP) {
      groups.push(joinFragments(parts.slice(index, index + JOIN_GROUP), separator));
    }
    return joinFragments(groups, separator);
  }
  return {
    sql: `(${parts.map((part) => part.sql).join(separator)})`,
    params: parts.flatMap((part) => part.params),
  };
}

/** Operands per parenthesised group when joining long lists (see joinFragments). */
const JOIN_GROUP = 16;

const TRUE = raw('1');
const FALSE = raw('0');

// ---------------------------------------------------------------------------------------------
// Messages

const INFIX_OPS = new Set(['=', '<>', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'div', '^']);

/** A CQL2-text-like rendering of an expression, for error messages. */
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

/** A short rendering of a sub-expression, for error messages. */
function describe(expression: Expression): string {
  const text = render(expression);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/** The operator as users write it in CQL2 text; unknown functions keep their spelling. */
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

/** The relation that holds for (b, a) when `relation` holds for (a, b). */
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

/** FES DWithin / Beyond: args [geometry, geometry, distance in metres, 'm']. */
const DISTANCE_OPS = new Set(['s_dwithin', 's_beyond']);

const ARRAY_OPS: Readonly<Record<string, ArrayRelationName>> = {
  a_equals: 'equals',
  a_contains: 'contains',
  a_containedby: 'containedBy',
  a_overlaps: 'overlaps',
};

/** Temporal operators, by lower-cased name; `intervalsOnly` refuse instants (CQL2 Table 7). */
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

/** Names that mean the record's whole time interval in temporal operators. */
const RECORD_INTERVAL_NAMES = new Set(['datetime', 'time']);

interface ResolvedProperty {
  /** The name as written. */
  name: string;
  /** The registered queryable, when the name is its canonical name or one of its aliases. */
  queryable?: Queryable;
  /** The indexed column of a canonical queryable, if it has one. */
  column?: string;
  /** The JSON path of the value inside `props`. */
  path: string;
}

/** Resolves a property name: exact registry names and aliases first, then the record's own. */
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
  return { name, queryable, column: queryable ? SORT_COLUMNS[key] : undefined, path: `$."${key}"` };
}

/** The static value type of a registered queryable. */
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

// ---------------------------------------------------------------------------------------------
// Scalars

type ScalarType = 'string' | 'number' | 'boolean' | 'time' | 'unknown';
type StaticType = ScalarType | 'geometry' | 'array';
type Constant = string | number | boolean;

/** The time span a value stands for, as SQL for its first and last instant. */
interface TimeBound {
  lo: Fragment;
  hi: Fragment;
  /** True when lo and hi are the same instant (a timestamp), which allows simpler SQL. */
  exact: boolean;
}

/** An instant (start = end) or an interval, for temporal operators and time comparisons. */
interface TimeValue {
  start: TimeBound;
  end: TimeBound;
  interval: boolean;
}

/** A compiled scalar expression with what is statically known about it. */
interface Scalar {
  type: ScalarType;
  expression: Expression;
  /** The value of a literal (after folding CASEI, ACCENTI and arithmetic on literals). */
  constant?: Constant;
  /** A property whose type is decided by what it is compared with. */
  property?: ResolvedProperty;
  /** SQL for a computed string or number. */
  value?: Fragment;
  /** The span of a date or timestamp literal. */
  time?: TimeValue;
}

const NUMERIC_JSON = "IN ('integer', 'real')";

/** SQL reading a property as a value of one type; NULL when the stored value has another. */
function typedProperty(
  property: ResolvedProperty,
  type: 'string' | 'number' | 'boolean',
): Fragment {
  if (property.column) return raw(property.column);
  const path = param(property.path);
  switch (type) {
    case 'string':
      return sql`(CASE WHEN json_type(r.props, ${path}) = 'text' THEN json_extract(r.props, ${path}) END)`;
    case 'number':
      return sql`(CASE WHEN json_type(r.props, ${path}) ${raw(NUMERIC_JSON)} THEN json_extract(r.props, ${path}) END)`;
    case 'boolean':
      return sql`(CASE json_type(r.props, ${path}) WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`;
  }
}

/** The raw SQL value of a property (strings, numbers, booleans as 1/0). */
function rawProperty(property: ResolvedProperty): Fragment {
  return property.column
    ? raw(property.column)
    : sql`json_extract(r.props, ${param(property.path)})`;
}

/** The kind of a property's value ('s', 'n' or 'b'), to compare values of the same kind only. */
function propertyKind(property: ResolvedProperty): Fragment {
  if (property.column) return raw(`(CASE WHEN ${property.column} IS NOT NULL THEN 's' END)`);
  const path = param(property.path);
  return sql`(CASE json_type(r.props, ${path}) WHEN 'integer' THEN 'n' WHEN 'real' THEN 'n' WHEN 'text' THEN 's' WHEN 'true' THEN 'b' WHEN 'false' THEN 'b' END)`;
}

function constantParam(value: Constant): Fragment {
  return param(typeof value === 'boolean' ? (value ? 1 : 0) : value);
}

/** SQL for a scalar as a value of the given type (the scalar's type is compatible). */
function valueAs(scalar: Scalar, type: 'string' | 'number' | 'boolean'): Fragment {
  if (scalar.constant !== undefined) return constantParam(scalar.constant);
  if (scalar.value) return scalar.value;
  if (scalar.property) return typedProperty(scalar.property, type);
  throw new FilterError(`${describe(scalar.expression)} is not a ${type}`);
}

/** The time bound of a fixed instant or day. */
function literalBound(start: string, end: string): TimeBound {
  return { lo: param(start), hi: param(end), exact: start === end };
}

function instant(bound: TimeBound): TimeValue {
  return { start: bound, end: bound, interval: false };
}

/** The time span a property value stands for. */
function propertyBound(property: ResolvedProperty): TimeBound {
  if (property.column) return { lo: raw(property.column), hi: raw(property.column), exact: true };
  const path = param(property.path);
  return {
    lo: sql`${raw(SQL_FUNCTIONS.timeStart)}(json_extract(r.props, ${path}))`,
    hi: sql`${raw(SQL_FUNCTIONS.timeEnd)}(json_extract(r.props, ${path}))`,
    exact: false,
  };
}

/** The time value of a scalar compared as time. */
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

/** A literal operand, from the AST node of a literal or a folded expression. */
function constantScalar(expression: Expression, value: Constant): Scalar {
  const type =
    typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'boolean';
  return { type, expression, constant: value };
}

/** Compiles an expression used as a value (comparison operand, function argument). */
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

/** CASEI, ACCENTI and arithmetic as values; predicates and unknown functions are errors. */
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
    const name = raw(op === 'casei' ? SQL_FUNCTIONS.casei : SQL_FUNCTIONS.accenti);
    return {
      type: 'string',
      expression: node,
      value: sql`${name}(${valueAs(argument, 'string')})`,
    };
  }
  if (ARITHMETIC_OPS.has(op)) return compileArithmetic(node, op);
  if (PREDICATE_OPS.has(op)) {
    throw new FilterError(`${describe(node)} is a predicate and cannot be used as a value`);
  }
  throw unknownFunction(node);
}

/** Evaluates arithmetic on two numbers as SQLite would; undefined when the result is NULL. */
function foldArithmetic(op: string, a: number, b: number): number | undefined {
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
      result = a / b;
      break;
    case '%':
      result = a % b;
      break;
    case 'div':
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
    const folded = foldArithmetic(op, a.constant, b.constant);
    if (folded !== undefined) return constantScalar(node, folded);
  }
  const left = valueAs(a, 'number');
  const right = valueAs(b, 'number');
  let value: Fragment;
  switch (op) {
    case '/':
      value = sql`(CAST(${left} AS REAL) / ${right})`;
      break;
    case '%':
      value = sql`mod(${left}, ${right})`;
      break;
    case 'div':
      value = sql`CAST(CAST(${left} AS REAL) / ${right} AS INTEGER)`;
      break;
    case '^':
      value = sql`pow(${left}, ${right})`;
      break;
    default:
      value = sql`(${left} ${raw(op)} ${right})`;
  }
  return { type: 'number', expression: node, value };
}

/** Whether a string literal can stand for a time value (a cast the CQL2 spec permits). */
function isTimeText(scalar: Scalar): boolean {
  return typeof scalar.constant === 'string' && parseTimeValue(scalar.constant) !== undefined;
}

/** The type two (or more) scalars are compared as; a FilterError when they cannot be. */
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

/** Time comparisons of spans: values of different granularity compare at the coarser one. */
const timeCompare = {
  lt: (x: TimeBound, y: TimeBound): Fragment => sql`${x.hi} < ${y.lo}`,
  gt: (x: TimeBound, y: TimeBound): Fragment => sql`${x.lo} > ${y.hi}`,
  le: (x: TimeBound, y: TimeBound): Fragment => sql`${x.lo} <= ${y.hi}`,
  ge: (x: TimeBound, y: TimeBound): Fragment => sql`${x.hi} >= ${y.lo}`,
  eq: (x: TimeBound, y: TimeBound): Fragment =>
    x.exact && y.exact ? sql`${x.lo} = ${y.lo}` : sql`(${x.lo} <= ${y.hi} AND ${y.lo} <= ${x.hi})`,
  ne: (x: TimeBound, y: TimeBound): Fragment =>
    x.exact && y.exact ? sql`${x.lo} <> ${y.lo}` : sql`(${x.hi} < ${y.lo} OR ${x.lo} > ${y.hi})`,
};

const TIME_COMPARISON: Readonly<Record<string, keyof typeof timeCompare>> = {
  '=': 'eq',
  '<>': 'ne',
  '<': 'lt',
  '<=': 'le',
  '>': 'gt',
  '>=': 'ge',
};

/** Compares two scalars of unknown type: only values of the same kind compare, else NULL. */
function compareUnknown(op: string, a: Scalar, b: Scalar): Fragment {
  const kind = (scalar: Scalar): Fragment => {
    if (scalar.property) return propertyKind(scalar.property);
    return raw(`'${scalar.type === 'number' ? 'n' : scalar.type === 'boolean' ? 'b' : 's'}'`);
  };
  const value = (scalar: Scalar): Fragment => {
    if (scalar.constant !== undefined) return constantParam(scalar.constant);
    if (scalar.property) return rawProperty(scalar.property);
    return scalar.value ?? raw('NULL');
  };
  return sql`(CASE WHEN ${kind(a)} = ${kind(b)} THEN ${value(a)} ${raw(op)} ${value(b)} END)`;
}

/** `a op b` for two compiled scalars. */
function compareScalars(context: Expression, op: string, a: Scalar, b: Scalar): Fragment {
  const type = unifyTypes(context, [a, b]);
  switch (type) {
    case 'time': {
      const compare = timeCompare[TIME_COMPARISON[op]];
      return compare(timeOf(a).start, timeOf(b).start);
    }
    case 'unknown':
      return compareUnknown(op, a, b);
    default:
      return sql`(${valueAs(a, type)} ${raw(op)} ${valueAs(b, type)})`;
  }
}

function compileComparison(node: OperatorNode, op: string): Fragment {
  expectArity(node, 2);
  return compareScalars(node, op, compileScalar(node.args[0]), compileScalar(node.args[1]));
}

function compileLike(node: OperatorNode): Fragment {
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
  if (typeof pattern.constant === 'string') {
    return sql`(${text} GLOB ${param(likeToGlob(pattern.constant))})`;
  }
  return sql`${raw(SQL_FUNCTIONS.like)}(${text}, ${valueAs(pattern, 'string')})`;
}

function compileBetween(node: OperatorNode): Fragment {
  expectArity(node, 3);
  const [value, low, high] = node.args.map(compileScalar);
  const type = unifyTypes(node, [value, low, high]);
  if (type === 'boolean') {
    throw new FilterError(`BETWEEN needs numbers, strings or times in ${describe(node)}`);
  }
  if (type === 'string' || type === 'number') {
    return sql`(${valueAs(value, type)} BETWEEN ${valueAs(low, type)} AND ${valueAs(high, type)})`;
  }
  return sql`(${compareScalars(node, '>=', value, low)} AND ${compareScalars(node, '<=', value, high)})`;
}

function compileIn(node: OperatorNode): Fragment {
  expectArity(node, 2);
  const list = node.args[1];
  if (list.kind !== 'array') {
    throw new FilterError(`IN needs a list of values in parentheses in ${describe(node)}`);
  }
  const value = compileScalar(node.args[0]);
  const items = list.items.map(compileScalar);
  if (items.length === 0) return FALSE;
  const type = unifyTypes(node, [value, ...items]);
  if (
    (type === 'string' || type === 'number' || type === 'boolean') &&
    items.every((item) => item.constant !== undefined)
  ) {
    const constants = items.map((item) =>
      typeof item.constant === 'boolean' ? Number(item.constant) : item.constant,
    );
    return sql`(${valueAs(value, type)} IN (SELECT value FROM json_each(${param(JSON.stringify(constants))})))`;
  }
  return joinFragments(
    items.map((item) => compareScalars(node, '=', value, item)),
    ' OR ',
  );
}

function compileIsNull(node: OperatorNode): Fragment {
  expectArity(node, 1);
  const argument = node.args[0];
  if (argument.kind === 'property') {
    const property = resolveProperty(argument.name);
    if (property.queryable?.type === 'geometry') {
      return raw("(r.geometry IS NULL AND json_extract(r.record, '$.bbox') IS NULL)");
    }
    return sql`(${rawProperty(property)} IS NULL)`;
  }
  if (['interval', 'geometry', 'bbox', 'array'].includes(argument.kind)) return FALSE;
  const scalar = compileScalar(argument);
  if (scalar.constant !== undefined || scalar.time) return FALSE;
  return sql`(${scalar.value ?? raw('NULL')} IS NULL)`;
}

// ---------------------------------------------------------------------------------------------
// Temporal operators

/** The record's time interval; open ends compare below and above every instant. */
const RECORD_INTERVAL: TimeValue = {
  start: {
    lo: raw("(CASE WHEN r.has_time = 1 THEN coalesce(r.time_start, '') END)"),
    hi: raw("(CASE WHEN r.has_time = 1 THEN coalesce(r.time_start, '') END)"),
    exact: true,
  },
  end: {
    lo: raw("(CASE WHEN r.has_time = 1 THEN coalesce(r.time_end, '~') END)"),
    hi: raw("(CASE WHEN r.has_time = 1 THEN coalesce(r.time_end, '~') END)"),
    exact: true,
  },
  interval: true,
};

/** The bound for an open interval end ('..'): below or above every timestamp string. */
const OPEN_START: TimeBound = { lo: param(''), hi: param(''), exact: true };
const OPEN_END: TimeBound = { lo: param('~'), hi: param('~'), exact: true };

/** One end of an INTERVAL(): '..', a date/timestamp, a time string or a property. */
function intervalEnd(expression: Expression, side: 'start' | 'end'): TimeBound {
  if (expression.kind === 'literal' && expression.value === '..') {
    return side === 'start' ? OPEN_START : OPEN_END;
  }
  const scalar = compileScalar(expression);
  if (scalar.type === 'time' || scalar.type === 'unknown' || isTimeText(scalar)) {
    return timeOf(scalar).start;
  }
  throw new FilterError(
    `An interval end must be a date, a timestamp, '..' or a property; ${describe(expression)} is a ${typeName(scalar.type)}`,
  );
}

/** Compiles an operand of a temporal operator. */
function compileTimeOperand(expression: Expression): TimeValue {
  if (expression.kind === 'interval') {
    const start = intervalEnd(expression.start, 'start');
    const end = intervalEnd(expression.end, 'end');
    const literal = (bound: Fragment): string | undefined =>
      bound.sql === '?' && typeof bound.params[0] === 'string' ? bound.params[0] : undefined;
    const [from, to] = [literal(start.lo), literal(end.hi)];
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

function compileTemporal(node: OperatorNode, op: string): Fragment {
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
  const all = (...parts: Fragment[]): Fragment => joinFragments(parts, ' AND ');
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
    case 't_disjoint':
      return joinFragments([lt(a.end, b.start), gt(a.start, b.end)], ' OR ');
    default:
      // t_intersects: NOT disjoint.
      return all(le(a.start, b.end), le(b.start, a.end));
  }
}

// ---------------------------------------------------------------------------------------------
// Spatial operators

type SpatialOperand =
  { kind: 'record' } | { kind: 'literal'; geometry: Geometry; boxes: Bbox[]; rectangle: boolean };

/** The record's footprint: its geometry, else the polygon of its bbox. */
const FOOTPRINT = raw(
  `coalesce(r.geometry, ${SQL_FUNCTIONS.bboxGeometry}(json_extract(r.record, '$.bbox')))`,
);
const HAS_FOOTPRINT = raw(
  "(r.geometry IS NOT NULL OR json_extract(r.record, '$.bbox') IS NOT NULL)",
);

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

/** Every position of a geometry. */
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
  const bbox: Bbox = [west, south, east, north];
  return {
    kind: 'literal',
    geometry: bboxToGeometry(bbox),
    boxes: splitAntimeridian(bbox),
    rectangle: true,
  };
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
  const xs = positions.map((position) => position[0]);
  const ys = positions.map((position) => position[1]);
  const envelope: Bbox = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  return { kind: 'literal', geometry: expression.geometry, boxes: [envelope], rectangle: false };
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

/** Records with an R*Tree box meeting one of the query boxes. */
function boxPrefilter(boxes: Bbox[]): Fragment {
  const parts = boxes.map(
    ([west, south, east, north]) =>
      sql`(t.minx <= ${param(east)} AND t.maxx >= ${param(west)} AND t.miny <= ${param(north)} AND t.maxy >= ${param(south)})`,
  );
  return sql`r.rid IN (SELECT t.id >> 1 FROM records_rtree t WHERE ${joinFragments(parts, ' OR ')})`;
}

/** True when every R*Tree box of the record lies inside one of the query boxes. */
function boxesInside(boxes: Bbox[]): Fragment {
  const parts = boxes.map(
    ([west, south, east, north]) =>
      sql`(t.minx >= ${param(west)} AND t.maxx <= ${param(east)} AND t.miny >= ${param(south)} AND t.maxy <= ${param(north)})`,
  );
  return sql`NOT EXISTS (SELECT 1 FROM records_rtree t WHERE t.id IN (r.rid * 2, r.rid * 2 + 1) AND NOT ${joinFragments(parts, ' OR ')})`;
}

function compileSpatial(node: OperatorNode, op: string, negated: boolean): Fragment {
  expectArity(node, 2);
  const [a, b] = node.args.map((argument) => compileSpatialOperand(argument, node));
  const relation = SPATIAL_OPS[op];
  if (a.kind === 'literal' && b.kind === 'literal') {
    return relateGeometries(relation, readGeometry(a.geometry), readGeometry(b.geometry))
      ? TRUE
      : FALSE;
  }
  if (a.kind === 'record' && b.kind === 'record') {
    // The record's footprint against itself: it intersects, equals, is within and contains
    // itself, and does not touch, cross, overlap or lie apart from itself.
    const holds = ['intersects', 'equals', 'within', 'contains'].includes(relation);
    return sql`(CASE WHEN ${HAS_FOOTPRINT} THEN ${holds ? TRUE : FALSE} END)`;
  }
  // relation(record, query), turning relation(query, record) around.
  const query = (a.kind === 'literal' ? a : b) as Extract<SpatialOperand, { kind: 'literal' }>;
  const recordRelation = a.kind === 'record' ? relation : CONVERSE[relation];
  const geometry = param(JSON.stringify(query.geometry));
  const exact = (name: SpatialRelationName): Fragment =>
    sql`${raw(SQL_FUNCTIONS.spatial)}(${param(name)}, ${FOOTPRINT}, ${geometry})`;
  const prefilter = boxPrefilter(query.boxes);
  // A record whose box lies inside a query box intersects it without an exact test.
  const intersects = query.rectangle
    ? sql`(${boxesInside(query.boxes)} OR ${exact('intersects')})`
    : exact('intersects');
  if (recordRelation === 'disjoint') {
    return sql`(CASE WHEN ${prefilter} THEN NOT ${intersects} WHEN ${HAS_FOOTPRINT} THEN 1 END)`;
  }
  let check = recordRelation === 'intersects' ? intersects : exact(recordRelation);
  if (recordRelation === 'within') {
    // Within needs the record's box inside the query's envelope (a margin covers the R*Tree's
    // float32 rounding); a box strictly inside a query box proves it without an exact test.
    const envelope: Bbox = [
      Math.min(...query.boxes.map((box) => box[0])),
      Math.min(...query.boxes.map((box) => box[1])),
      Math.max(...query.boxes.map((box) => box[2])),
      Math.max(...query.boxes.map((box) => box[3])),
    ];
    const inside = boxesInside(padBoxes([envelope], RTREE_MARGIN));
    const strictly = padBoxes(query.boxes, -RTREE_MARGIN);
    check =
      query.rectangle && strictly.length > 0
        ? sql`(${inside} AND (${boxesInside(strictly)} OR ${check}))`
        : sql`(${inside} AND ${check})`;
  }
  // Outside NOT, FALSE and NULL both exclude a record, so the R*Tree can drive the query.
  if (!negated) return sql`(${prefilter} AND ${check})`;
  return sql`(CASE WHEN ${prefilter} THEN ${check} WHEN ${HAS_FOOTPRINT} THEN 0 END)`;
}

/** More than the rounding of R*Tree coordinates (32-bit floats, rounded outwards), in degrees. */
const RTREE_MARGIN = 1e-4;

/** Boxes grown (or, with a negative margin, shrunk) by degrees; boxes shrunk away are dropped. */
function padBoxes(boxes: Bbox[], margin: number): Bbox[] {
  return boxes
    .map(([west, south, east, north]): Bbox => [
      west - margin,
      south - margin,
      east + margin,
      north + margin,
    ])
    .filter(([west, south, east, north]) => west < east && south < north);
}

/** Query boxes grown by a distance, wrapped at the antimeridian and clamped at the poles. */
function growBoxes(boxes: Bbox[], metres: number): Bbox[] {
  const dLat = metres / METRES_PER_DEGREE;
  return boxes.flatMap(([west, south, east, north]): Bbox[] => {
    const s = Math.max(-90, south - dLat);
    const n = Math.min(90, north + dLat);
    const widest = Math.max(Math.abs(s), Math.abs(n));
    const dLon = widest >= 89.9 ? 360 : dLat / Math.cos((widest * Math.PI) / 180);
    const [w, e] = [west - dLon, east + dLon];
    if (e - w >= 360) return [[-180, s, 180, n]];
    if (w < -180) {
      return [
        [w + 360, s, 180, n],
        [-180, s, e, n],
      ];
    }
    if (e > 180) {
      return [
        [w, s, 180, n],
        [-180, s, e - 360, n],
      ];
    }
    return [[w, s, e, n]];
  });
}

const METRE_UNITS = new Set(['m', 'metre', 'meter', 'metres', 'meters']);

/** FES DWithin / Beyond: the footprint within / beyond a distance (metres) of a geometry. */
function compileDistance(node: OperatorNode, op: string, negated: boolean): Fragment {
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
    return geodesicDistance(a.geometry, b.geometry) <= distance === within ? TRUE : FALSE;
  }
  if (a.kind === 'record' && b.kind === 'record') {
    return sql`(CASE WHEN ${HAS_FOOTPRINT} THEN ${within ? TRUE : FALSE} END)`;
  }
  const query = (a.kind === 'literal' ? a : b) as Extract<SpatialOperand, { kind: 'literal' }>;
  const prefilter = boxPrefilter(growBoxes(query.boxes, distance));
  const metres = sql`${raw(SQL_FUNCTIONS.distance)}(${FOOTPRINT}, ${param(JSON.stringify(query.geometry))})`;
  if (!within) {
    return sql`(CASE WHEN ${prefilter} THEN ${metres} > ${param(distance)} WHEN ${HAS_FOOTPRINT} THEN 1 END)`;
  }
  const check = sql`${metres} <= ${param(distance)}`;
  if (!negated) return sql`(${prefilter} AND ${check})`;
  return sql`(CASE WHEN ${prefilter} THEN ${check} WHEN ${HAS_FOOTPRINT} THEN 0 END)`;
}

// ---------------------------------------------------------------------------------------------
// Array operators

/** The JSON value of a literal array item. */
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
  { kind: 'literal'; items: unknown[] } | { kind: 'sql'; json: Fragment; path?: string };

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
    if (property.column) return { kind: 'sql', json: raw(`json_quote(${property.column})`) };
    return { kind: 'sql', json: sql`(r.props -> ${param(property.path)})`, path: property.path };
  }
  throw new FilterError(
    `${opName(node.op)} needs arrays, but ${describe(expression)} is not an array or a property`,
  );
}

/** The relation that holds for (b, a) when an array relation holds for (a, b). */
const ARRAY_CONVERSE: Readonly<Record<ArrayRelationName, ArrayRelationName>> = {
  equals: 'equals',
  overlaps: 'overlaps',
  contains: 'containedBy',
  containedBy: 'contains',
};

/**
 * The key an array element is compared by, one SQL value: text is `s` + the text, a number is
 * itself (so 1 and 1.0 are one number, and never equal to text), true `T`, false `F`, null `N`,
 * and an array or object `j` + its JSON text. elementKey builds it for literal items;
 * ELEMENT_KEY in SQL for the elements of a stored array (`json_each … e`).
 */
function elementKey(item: unknown): string | number {
  if (typeof item === 'string') return `s${item}`;
  if (typeof item === 'number') return item;
  if (typeof item === 'boolean') return item ? 'T' : 'F';
  if (item === null) return 'N';
  return `j${JSON.stringify(item)}`;
}

const ELEMENT_KEY = raw(
  "(CASE e.type WHEN 'text' THEN 's' || e.value WHEN 'integer' THEN e.value WHEN 'real' THEN e.value WHEN 'true' THEN 'T' WHEN 'false' THEN 'F' WHEN 'null' THEN 'N' ELSE 'j' || e.value END)",
);

/**
 * relation(stored array, literal) in SQL: the literal's distinct keys become one set that SQLite
 * builds once per statement (an uncorrelated IN subquery), and each record's elements are
 * looked up in it, so a record costs its own length times log(literal) instead of a pass over
 * the whole literal. A stored value that is not an array is a one-element array; a missing or
 * JSON null value is NULL.
 */
function relateToLiteral(
  stored: Fragment,
  relation: ArrayRelationName,
  items: unknown[],
): Fragment {
  const keys = [...new Set(items.map(elementKey))];
  const set = sql`(SELECT value FROM json_each(${param(JSON.stringify(keys))}))`;
  const overlaps = sql`EXISTS (SELECT 1 FROM json_each(${stored}) e WHERE ${ELEMENT_KEY} IN ${set})`;
  const containedBy = sql`NOT EXISTS (SELECT 1 FROM json_each(${stored}) e WHERE ${ELEMENT_KEY} NOT IN ${set})`;
  const contains = sql`((SELECT count(DISTINCT ${ELEMENT_KEY}) FROM json_each(${stored}) e WHERE ${ELEMENT_KEY} IN ${set}) = ${param(keys.length)})`;
  const holds =
    relation === 'overlaps'
      ? overlaps
      : relation === 'containedBy'
        ? containedBy
        : relation === 'contains'
          ? contains
          : sql`(${containedBy} AND ${contains})`;
  return sql`(CASE WHEN ${stored} IS NULL OR json_type(${stored}) = 'null' THEN NULL ELSE ${holds} END)`;
}

function compileArrayRelation(node: OperatorNode, op: string): Fragment {
  expectArity(node, 2);
  const [a, b] = node.args.map((argument) => compileArrayOperand(argument, node));
  const relation = ARRAY_OPS[op];
  if (a.kind === 'literal' && b.kind === 'literal') {
    return relateArrays(relation, a.items, b.items) ? TRUE : FALSE;
  }
  if (a.kind === 'sql' && b.kind === 'literal') return relateToLiteral(a.json, relation, b.items);
  if (a.kind === 'literal' && b.kind === 'sql') {
    return relateToLiteral(b.json, ARRAY_CONVERSE[relation], a.items);
  }
  const json = (operand: ArrayOperand): Fragment =>
    operand.kind === 'sql' ? operand.json : param(JSON.stringify(operand.items));
  // Two stored arrays: compared in a registered function (each record against itself).
  return sql`${raw(SQL_FUNCTIONS.arrays)}(${param(relation)}, ${json(a)}, ${json(b)})`;
}

// ---------------------------------------------------------------------------------------------
// Predicates

/**
 * Compiles a boolean expression. `negated` is true under an odd number of NOTs, where NULL and
 * FALSE must stay apart; elsewhere both exclude a record, which allows index-driven forms.
 */
function compilePredicate(expression: Expression, negated: boolean): Fragment {
  switch (expression.kind) {
    case 'literal':
      if (typeof expression.value === 'boolean') return expression.value ? TRUE : FALSE;
      throw new FilterError(`${describe(expression)} is not a condition`);
    case 'property': {
      const scalar = compileScalar(expression);
      if (scalar.type === 'boolean' || scalar.type === 'unknown') {
        return sql`(${valueAs(scalar, 'boolean')} = 1)`;
      }
      throw new FilterError(`"${expression.name}" is not a boolean property and not a condition`);
    }
    case 'op':
      return compileOperator(expression, negated);
    default:
      throw new FilterError(`${describe(expression)} is not a condition`);
  }
}

function compileOperator(node: OperatorNode, negated: boolean): Fragment {
  const op = node.op.toLowerCase();
  switch (op) {
    case 'and':
    case 'or':
      if (node.args.length === 0) return op === 'and' ? TRUE : FALSE;
      return joinFragments(
        node.args.map((argument) => compilePredicate(argument, negated)),
        op === 'and' ? ' AND ' : ' OR ',
      );
    case 'not':
      expectArity(node, 1);
      return sql`(NOT ${compilePredicate(node.args[0], !negated)})`;
    case 'like':
      return compileLike(node);
    case 'between':
      return compileBetween(node);
    case 'in':
      return compileIn(node);
    case 'isnull':
      return compileIsNull(node);
  }
  if (COMPARISON_OPS.has(op)) return compileComparison(node, op);
  if (op in SPATIAL_OPS) return compileSpatial(node, op, negated);
  if (DISTANCE_OPS.has(op)) return compileDistance(node, op, negated);
  if (op in TEMPORAL_OPS) return compileTemporal(node, op);
  if (op in ARRAY_OPS) return compileArrayRelation(node, op);
  if (op === 'casei' || op === 'accenti' || ARITHMETIC_OPS.has(op)) {
    throw new FilterError(`${describe(node)} is a value, not a condition`);
  }
  throw unknownFunction(node);
}

/**
 * Compiles a filter expression tree into one SQLite condition over `records r` that is TRUE
 * exactly for the records the filter selects. Throws FilterError (400) for unknown functions,
 * wrong operand types and invalid literals.
 */
export function compileFilter(filter: Expression): SqlFragment {
  return compilePredicate(filter, false);
}

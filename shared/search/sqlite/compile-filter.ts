/**
 * Translates a checked filter tree (shared/query/checked-filter.ts, made once per request by
 * shared/query/check-filter.ts) into one SQLite condition for the embedded backend. The checker
 * has already refused unknown functions, wrong arities, operands of the wrong kind and invalid
 * literals; this module only translates. Every value is a bound parameter and every property
 * name reaches SQL only as a bound JSON path or as a whitelisted column, so no user text is
 * ever SQL.
 *
 * Semantics (see docs/decisions/cql2-filters-on-sqlite.md):
 * - Three-valued logic: a missing property, a value of the wrong type and any operation on NULL
 *   give SQL NULL, which AND/OR/NOT propagate as CQL2 requires; only TRUE selects a record.
 * - Properties: registered queryables use the indexed columns or their canonical `props`
 *   entry; the geometry queryable is the record's footprint (its geometry, else its bbox);
 *   `datetime`/`time` in temporal operators are the record's time interval. Every other name
 *   reads the record's own property of that name.
 * - Time: dates and timestamps compare as the spans they stand for (a date is its whole UTC
 *   day), and values of different granularity compare at the coarser one.
 * - Spatial operators use the R*Tree to skip records whose box cannot satisfy them, then an
 *   exact DE-9IM predicate (jsts) in a registered SQL function. Geometry literals are planar in
 *   CRS84; only a BBOX whose west edge is east of its east edge crosses the antimeridian.
 * - FES DWithin / Beyond (`s_dwithin` / `s_beyond`, distance in metres) measure great-circle
 *   metres between the nearest points found in a local equirectangular projection.
 */
import type { Geometry } from 'geojson';
import { FilterError } from '../../errors/index.js';
import type { Bbox } from '../../records/core-record.js';
import { splitAntimeridian } from '../../records/index-document.js';
import type {
  CheckedExpression,
  CheckedFilter,
  CheckedOperator,
  CheckedProperty,
} from '../../query/checked-filter.js';
import {
  arrayValues,
  describeFilter as describe,
  temporalTerms,
  timeText,
} from '../../query/check-filter.js';
import { operatorClass } from '../../query/cql2/cql2-operators.js';
import {
  ARRAY_CONVERSE,
  SPATIAL_CONVERSE,
  arrayRelation,
  spatialRelation,
} from '../../query/cql2-functions.js';
import type { FilterSql } from './compile-query.js';
import {
  FALSE,
  RTREE_MARGIN,
  TRUE,
  boxPrefilter,
  boxesInside,
  growBoxes,
  joinFragments,
  padBoxes,
  param,
  raw,
  sql,
  type Fragment,
} from './sql-fragment.js';
import { operandAt, operands } from '../operands.js';
import { SORT_COLUMNS } from './schema.js';
import {
  SQL_FUNCTIONS,
  footprintRectangle,
  geodesicDistance,
  likeToGlob,
  readGeometry,
  relateArrays,
  relateGeometries,
  type ArrayRelationName,
  type SpatialRelationName,
} from './sql-functions.js';

// ---------------------------------------------------------------------------------------------
// Properties

interface ResolvedProperty {
  /** The indexed column of a registered queryable, if it has one. */
  column?: string | undefined;
  /** The JSON path of the value inside `props`. */
  path: string;
}

/** Where a checked property's value is: its queryable's column or its `props` entry. */
function resolveProperty(property: CheckedProperty): ResolvedProperty {
  const key = property.queryable?.name ?? property.name;
  return { column: property.queryable ? SORT_COLUMNS[key] : undefined, path: `$."${key}"` };
}

// ---------------------------------------------------------------------------------------------
// Scalars

type ScalarType = 'string' | 'number' | 'boolean' | 'time' | 'unknown';
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
  expression: CheckedExpression;
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
  const span = timeText(scalar.constant);
  if (span) return instant(literalBound(span.start, span.end));
  throw new FilterError(`${describe(scalar.expression)} is not a date or timestamp`);
}

/** A literal operand. */
function constantScalar(expression: CheckedExpression, value: Constant): Scalar {
  const type =
    typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'boolean';
  return { type, expression, constant: value };
}

/** Translates an expression used as a value (comparison operand, function argument). */
function compileScalar(expression: CheckedExpression): Scalar {
  switch (expression.kind) {
    case 'literal':
      return constantScalar(expression, expression.value);
    case 'date':
    case 'timestamp':
      return {
        type: 'time',
        expression,
        time: instant(literalBound(expression.start, expression.end)),
      };
    case 'property':
      return {
        type: expression.type as ScalarType,
        expression,
        property: resolveProperty(expression),
      };
    case 'op':
      return compileFunction(expression);
    default:
      throw new FilterError(`${describe(expression)} is not a value`);
  }
}

/** CASEI, ACCENTI and arithmetic on values the checker could not fold. */
function compileFunction(node: CheckedOperator): Scalar {
  const { op } = node;
  if (op === 'casei' || op === 'accenti') {
    const argument = compileScalar(operandAt(node, 0));
    const name = raw(op === 'casei' ? SQL_FUNCTIONS.casei : SQL_FUNCTIONS.accenti);
    return {
      type: 'string',
      expression: node,
      value: sql`${name}(${valueAs(argument, 'string')})`,
    };
  }
  const [leftNode, rightNode] = operands(node);
  const left = valueAs(compileScalar(leftNode), 'number');
  const right = valueAs(compileScalar(rightNode), 'number');
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

/** The type scalars are compared as (the checker made sure they can be compared). */
function unifyTypes(scalars: Scalar[]): ScalarType {
  const known = scalars.filter((scalar) => scalar.type !== 'unknown');
  if (known.some((scalar) => scalar.type === 'time')) return 'time';
  return known[0]?.type ?? 'unknown';
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
function compareScalars(op: string, a: Scalar, b: Scalar): Fragment {
  const type = unifyTypes([a, b]);
  switch (type) {
    case 'time': {
      const comparison = TIME_COMPARISON[op];
      if (comparison === undefined) throw new Error(`${op} is not a time comparison`);
      return timeCompare[comparison](timeOf(a).start, timeOf(b).start);
    }
    case 'unknown':
      return compareUnknown(op, a, b);
    default:
      return sql`(${valueAs(a, type)} ${raw(op)} ${valueAs(b, type)})`;
  }
}

function compileComparison(node: CheckedOperator): Fragment {
  const [left, right] = operands(node);
  return compareScalars(node.op, compileScalar(left), compileScalar(right));
}

function compileLike(node: CheckedOperator): Fragment {
  const [valueNode, patternNode] = operands(node);
  const value = compileScalar(valueNode);
  const pattern = compileScalar(patternNode);
  const text = valueAs(value, 'string');
  if (typeof pattern.constant === 'string') {
    return sql`(${text} GLOB ${param(likeToGlob(pattern.constant))})`;
  }
  return sql`${raw(SQL_FUNCTIONS.like)}(${text}, ${valueAs(pattern, 'string')})`;
}

function compileBetween(node: CheckedOperator): Fragment {
  const [valueNode, lowNode] = operands(node);
  const value = compileScalar(valueNode);
  const low = compileScalar(lowNode);
  const high = compileScalar(operandAt(node, 2));
  const type = unifyTypes([value, low, high]);
  if (type === 'string' || type === 'number') {
    return sql`(${valueAs(value, type)} BETWEEN ${valueAs(low, type)} AND ${valueAs(high, type)})`;
  }
  return sql`(${compareScalars('>=', value, low)} AND ${compareScalars('<=', value, high)})`;
}

function compileIn(node: CheckedOperator): Fragment {
  const [valueNode, listNode] = operands(node);
  const list = listNode as Extract<CheckedExpression, { kind: 'array' }>;
  const value = compileScalar(valueNode);
  const items = list.items.map(compileScalar);
  if (items.length === 0) return FALSE;
  const type = unifyTypes([value, ...items]);
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
    items.map((item) => compareScalars('=', value, item)),
    ' OR ',
  );
}

function compileIsNull(node: CheckedOperator): Fragment {
  const argument = operandAt(node, 0);
  if (argument.kind === 'property') {
    if (argument.type === 'geometry') {
      return raw("(r.geometry IS NULL AND json_extract(r.record, '$.bbox') IS NULL)");
    }
    return sql`(${rawProperty(resolveProperty(argument))} IS NULL)`;
  }
  if (argument.kind !== 'op') return FALSE;
  return sql`(${compileScalar(argument).value ?? raw('NULL')} IS NULL)`;
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

/** One end of an INTERVAL(): '..', a date/timestamp or a property. */
function intervalEnd(expression: CheckedExpression, side: 'start' | 'end'): TimeBound {
  if (expression.kind === 'literal' && expression.value === '..') {
    return side === 'start' ? OPEN_START : OPEN_END;
  }
  return timeOf(compileScalar(expression)).start;
}

/** Translates an operand of a temporal operator. */
function compileTimeOperand(expression: CheckedExpression): TimeValue {
  if (expression.kind === 'interval') {
    const start = intervalEnd(expression.start, 'start');
    const end = intervalEnd(expression.end, 'end');
    return { start, end, interval: true };
  }
  if (expression.kind === 'property' && expression.recordInterval) return RECORD_INTERVAL;
  return timeOf(compileScalar(expression));
}

function compileTemporal(node: CheckedOperator): Fragment {
  const [left, right] = operands(node);
  const { terms, any } = temporalTerms(
    node.op,
    compileTimeOperand(left),
    compileTimeOperand(right),
    (comparison, x: TimeBound, y) => timeCompare[comparison](x, y),
  );
  const [only, ...others] = terms;
  if (only !== undefined && others.length === 0) return only;
  return joinFragments(terms, any ? ' OR ' : ' AND ');
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

function compileSpatialOperand(expression: CheckedExpression): SpatialOperand {
  switch (expression.kind) {
    case 'bbox':
      return {
        kind: 'literal',
        geometry: expression.geometry,
        boxes: splitAntimeridian(expression.box),
        rectangle: true,
      };
    case 'geometry':
      // A polygon that is exactly an axis-aligned rectangle (STAC `intersects` sent for a
      // map view) is that rectangle, as a BBOX literal is: compared on edges where the
      // footprint is a rectangle too, not through the exact test (200 ms a search over 20,290
      // candidates at 100,000 records, bench case stac-post-intersects).
      return {
        kind: 'literal',
        geometry: expression.geometry,
        boxes: [expression.envelope],
        rectangle: footprintRectangle(expression.geometry) !== undefined,
      };
    default:
      return { kind: 'record' };
  }
}

/**
 * Whether the record's footprint rectangle (box_*, set) meets one of the query rectangles:
 * closed rectangles meet when their edges overlap on both axes (what jsts answers too).
 */
function rectanglesMeet(boxes: Bbox[]): Fragment {
  const parts = boxes.map(
    ([west, south, east, north]) =>
      sql`(r.box_west <= ${param(east)} AND r.box_east >= ${param(west)} AND r.box_south <= ${param(north)} AND r.box_north >= ${param(south)})`,
  );
  return joinFragments(parts, ' OR ');
}

function compileSpatial(node: CheckedOperator, negated: boolean): Fragment {
  const [left, right] = operands(node);
  const a = compileSpatialOperand(left);
  const b = compileSpatialOperand(right);
  const relation = spatialRelation(node.op);
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
  const recordRelation = a.kind === 'record' ? relation : SPATIAL_CONVERSE[relation];
  const geometry = param(JSON.stringify(query.geometry));
  const exact = (name: SpatialRelationName): Fragment =>
    sql`${raw(SQL_FUNCTIONS.spatial)}(${param(name)}, ${FOOTPRINT}, ${geometry})`;
  const prefilter = boxPrefilter(query.boxes);
  // A record whose footprint is a rectangle (box_* set) meets a query rectangle when their
  // edges overlap; for the others, one whose box lies inside a query box intersects it without
  // an exact test.
  const intersects = query.rectangle
    ? sql`(CASE WHEN r.box_west IS NOT NULL THEN ${rectanglesMeet(query.boxes)} ELSE (${boxesInside(query.boxes)} OR ${exact('intersects')}) END)`
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

/** FES DWithin / Beyond: the footprint within / beyond a distance (metres) of a geometry. */
function compileDistance(node: CheckedOperator, negated: boolean): Fragment {
  const distance = compileScalar(operandAt(node, 2)).constant as number;
  const within = node.op === 's_dwithin';
  const [left, right] = operands(node);
  const a = compileSpatialOperand(left);
  const b = compileSpatialOperand(right);
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

type ArrayOperand =
  { kind: 'literal'; items: unknown[] } | { kind: 'sql'; json: Fragment; path?: string };

function compileArrayOperand(expression: CheckedExpression): ArrayOperand {
  if (expression.kind === 'array') {
    return { kind: 'literal', items: arrayValues(expression) };
  }
  const property = resolveProperty(expression as CheckedProperty);
  if (property.column) return { kind: 'sql', json: raw(`json_quote(${property.column})`) };
  return { kind: 'sql', json: sql`(r.props -> ${param(property.path)})`, path: property.path };
}

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

function compileArrayRelation(node: CheckedOperator): Fragment {
  const [left, right] = operands(node);
  const a = compileArrayOperand(left);
  const b = compileArrayOperand(right);
  const relation = arrayRelation(node.op);
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
 * Translates a boolean expression. `negated` is true under an odd number of NOTs, where NULL
 * and FALSE must stay apart; elsewhere both exclude a record, which allows index-driven forms.
 */
function compilePredicate(expression: CheckedExpression, negated: boolean): Fragment {
  switch (expression.kind) {
    case 'literal':
      return expression.value === true ? TRUE : FALSE;
    case 'property':
      return sql`(${valueAs(compileScalar(expression), 'boolean')} = 1)`;
    case 'op':
      return compileOperator(expression, negated);
    default:
      throw new FilterError(`${describe(expression)} is not a condition`);
  }
}

/**
 * The operands of AND or OR with the spatial and distance terms last (both are commutative,
 * also with NULLs): SQLite evaluates terms in order and stops at the first that decides, so
 * the cheap column comparisons spare records the exact geometry test and its wide row.
 */
function spatialLast(args: CheckedExpression[]): CheckedExpression[] {
  const costly = (argument: CheckedExpression): boolean =>
    argument.kind === 'op' && ['spatial', 'distance'].includes(operatorClass(argument.op));
  return [...args.filter((a) => !costly(a)), ...args.filter(costly)];
}

function compileOperator(node: CheckedOperator, negated: boolean): Fragment {
  switch (operatorClass(node.op)) {
    case 'logical':
      if (node.op === 'not') return sql`(NOT ${compilePredicate(operandAt(node, 0), !negated)})`;
      if (node.args.length === 0) return node.op === 'and' ? TRUE : FALSE;
      return joinFragments(
        spatialLast(node.args).map((argument) => compilePredicate(argument, negated)),
        node.op === 'and' ? ' AND ' : ' OR ',
      );
    case 'comparison':
      return compileComparison(node);
    case 'like':
      return compileLike(node);
    case 'between':
      return compileBetween(node);
    case 'in':
      return compileIn(node);
    case 'isNull':
      return compileIsNull(node);
    case 'spatial':
      return compileSpatial(node, negated);
    case 'distance':
      return compileDistance(node, negated);
    case 'temporal':
      return compileTemporal(node);
    case 'array':
      return compileArrayRelation(node);
    default:
      throw new FilterError(`${describe(node)} is a value, not a condition`);
  }
}

/**
 * Translates a checked filter into one SQLite condition over `records r` that is TRUE exactly
 * for the records the filter selects.
 */
export function compileFilter(filter: CheckedFilter): FilterSql {
  const condition = compilePredicate(filter, false);
  return drivesByBoxes(filter) ? { ...condition, drivenByBoxes: true } : condition;
}

/**
 * Whether the compiled condition is an AND (or one term) with a term that compileSpatial or
 * compileDistance turns into `(prefilter AND check)`: a record against a literal, not disjoint
 * nor beyond, outside any NOT or OR.
 */
function drivesByBoxes(node: CheckedExpression): boolean {
  if (node.kind !== 'op') return false;
  if (node.op === 'and') return node.args.some(drivesByBoxes);
  const kind = operatorClass(node.op);
  if (kind !== 'spatial' && kind !== 'distance') return false;
  const [left, right] = operands(node);
  const a = compileSpatialOperand(left);
  const b = compileSpatialOperand(right);
  if ((a.kind === 'literal') === (b.kind === 'literal')) return false;
  if (kind === 'distance') return node.op === 's_dwithin';
  const relation = spatialRelation(node.op);
  return (a.kind === 'record' ? relation : SPATIAL_CONVERSE[relation]) !== 'disjoint';
}

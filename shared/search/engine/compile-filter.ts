/**
 * Translates a checked filter tree (shared/query/checked-filter.ts, made once per request by
 * shared/query/check-filter.ts) into Elasticsearch / OpenSearch query DSL, with the semantics
 * of the SQLite translation (shared/search/sqlite/compile-filter.ts) wherever the engines can
 * express them without scripts. The checker has already refused unknown functions, wrong
 * arities, operands of the wrong kind and invalid literals; what remains here are the checks
 * only the index knows (the declared and live mapping of a property).
 *
 * Three-valued logic: every predicate compiles to a `test` and a `defined` clause; a record
 * satisfies it when both match, fails it when `defined` matches and `test` does not, and is
 * unknown otherwise. NOT swaps satisfied and failed, so NOT(x = 1) never selects a record
 * lacking x, exactly as SQL's NULL does in the SQLite backend.
 *
 * What the engines cannot do without scripts is refused with UnsupportedFilterError (400)
 * naming the backend and the operator: comparing two properties, arithmetic on properties,
 * LIKE with a computed pattern, distance operators and the spatial relations the engines lack.
 */
import { FilterError, UnsupportedFilterError } from '../../errors/index.js';
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
  timeText as timeSpanOf,
} from '../../query/check-filter.js';
import {
  operatorClass,
  operatorLabel as opName,
  type ComparisonOp,
} from '../../query/cql2/cql2-operators.js';
import {
  ARRAY_CONVERSE,
  SPATIAL_CONVERSE,
  arrayRelation,
  matchesLike,
  readGeometry,
  relateArrays,
  relateGeometries,
  spatialRelation,
  type SpatialRelationName,
} from '../../query/cql2-functions.js';
import type { Geometry } from 'geojson';
import type { Bbox } from '../../records/core-record.js';
import {
  compileExactSpatialRelation,
  hasFootprint,
  MAX_BAND_POINTS,
  type EngineSpatialRelation,
} from './compile-spatial.js';
import { MAX_BAND_VERTICES } from '../../query/geometry-band.js';
import { operandAt, operands } from '../operands.js';
import { allOf, anyOf, exists, matchAll, matchNone, not, term, terms, type Query } from './dsl.js';
import {
  resolveFilterProperty,
  TIME_RANGE_FIELD,
  type EngineField,
  type FieldKind,
  type FoldView,
  timeSpanPaths,
} from './engine-fields.js';
import type { SpatialMode } from './index-templates.js';
import { isBoxGeometry } from './engine-document.js';
import {
  FLIPPED,
  TYPE_NAMES,
  fieldKind,
  isStaticKind,
  queryableKind,
  compareConstants,
  compareSpans,
  engineValue,
  instant,
  likeToWildcard,
  onView,
  someValueOutside,
  spanClause,
  valueClause,
  type Constant,
  type Span,
} from './filter-clauses.js';

export { likeToWildcard };

/**
 * The field naming the properties a record has that their own field cannot show (an empty
 * array, a string beyond the keyword limit: engine-fields.ts, `presenceShowsOnField`).
 */
export const PRESENT_FIELD = 'has';

/** The records that have the property (its value may be an empty array): not NULL. */
function present(field: EngineField): Query {
  return anyOf([exists(field.path), term(PRESENT_FIELD, field.name)]);
}

/** What the compiler needs to know about the target index. */
export interface FilterContext {
  spatial: SpatialMode;
  /** The backend's name for messages: "Elasticsearch" or "OpenSearch". */
  engineName: string;
  /**
   * The mapped kind of a dynamic property field (`props.<name>`), or 'absent' when no record
   * has the property yet. Declared fields never reach this.
   */
  mappedKind(path: string): FieldKind | 'absent';
  /**
   * Collects, for each predicate the engine cannot answer exactly for every record, the
   * documents in doubt and the operator: the backend refuses the search when any document in
   * the query's scope is in doubt (query-compiler.ts). Absent: nothing is collected.
   */
  doubts?: { query: Query; operator: string }[];
}

// ---------------------------------------------------------------------------------------------
// Messages

function unsupported(context: FilterContext, what: string, where: CheckedExpression): FilterError {
  return new UnsupportedFilterError(
    context.engineName,
    what,
    `The ${context.engineName} backend does not support ${what} (in ${describe(where)}); it needs engine scripts, which this deployment does not use`,
  );
}

// ---------------------------------------------------------------------------------------------
// Predicates: a test and the condition under which it is defined (not NULL)

interface Predicate {
  test: Query;
  defined: Query;
}

const TRUE: Predicate = { test: matchAll(), defined: matchAll() };
const FALSE: Predicate = { test: matchNone(), defined: matchAll() };
const UNKNOWN: Predicate = { test: matchNone(), defined: matchNone() };

const constant = (value: boolean): Predicate => (value ? TRUE : FALSE);

/** The records where the predicate is TRUE (polarity true) or FALSE (polarity false). */
function select(predicate: Predicate, polarity: boolean): Query {
  return allOf([predicate.defined, polarity ? predicate.test : not(predicate.test)]);
}

// ---------------------------------------------------------------------------------------------
// Scalars

type Scalar =
  | { kind: 'constant'; value: Constant; expression: CheckedExpression }
  | { kind: 'time'; span: Span; expression: CheckedExpression }
  | {
      kind: 'field';
      field: EngineField;
      type: FieldKind | 'absent';
      view: FoldView;
      expression: CheckedExpression;
    };

/** The view reached by applying CASEI or ACCENTI to a view. */
function composeView(view: FoldView, op: 'casei' | 'accenti'): FoldView {
  if (view === 'cai') return 'cai';
  if (op === 'casei') return view === 'ai' ? 'cai' : 'ci';
  return view === 'ci' ? 'cai' : 'ai';
}

function compileScalar(expression: CheckedExpression, context: FilterContext): Scalar {
  switch (expression.kind) {
    case 'literal':
      return { kind: 'constant', value: expression.value, expression };
    case 'date':
    case 'timestamp':
      return { kind: 'time', span: { lo: expression.start, hi: expression.end }, expression };
    case 'property': {
      const field = resolveFilterProperty(expression.name);
      return {
        kind: 'field',
        field,
        type: fieldKind(field, context.mappedKind),
        view: 'raw',
        expression,
      };
    }
    case 'op':
      return compileFunction(expression, context);
    default:
      throw new FilterError(`${describe(expression)} is not a value`);
  }
}

/** CASEI and ACCENTI on a field (the checker folded them on literals); arithmetic is refused. */
function compileFunction(node: CheckedOperator, context: FilterContext): Scalar {
  const op = node.op;
  if (op !== 'casei' && op !== 'accenti') {
    throw unsupported(context, 'arithmetic on properties', node);
  }
  const operandNode = operandAt(node, 0);
  const argument = compileScalar(operandNode, context);
  if (argument.kind === 'field' && (argument.type === 'string' || !isStaticKind(argument.field))) {
    // The folded value is a string, whatever the field holds (as on SQLite).
    return {
      ...argument,
      type: argument.type === 'absent' ? 'absent' : 'string',
      view: composeView(argument.view, op),
      expression: node,
    };
  }
  const type =
    argument.kind === 'field'
      ? TYPE_NAMES[argument.type === 'absent' ? 'unknown' : argument.type]
      : 'value';
  throw new FilterError(`${opName(op)} needs a string, but ${describe(operandNode)} is a ${type}`);
}

// ---------------------------------------------------------------------------------------------
// Comparisons

/** The span a string stands for when it is a time (the cast CQL2 permits). */
function timeSpan(value: Constant): Span | undefined {
  const span = timeSpanOf(value);
  return span ? { lo: span.start, hi: span.end } : undefined;
}

function constantType(value: Constant): string {
  return typeof value;
}

/** The comparison `field op other` where other is a constant or a time literal. */
function compareField(
  node: CheckedExpression,
  op: ComparisonOp,
  field: Extract<Scalar, { kind: 'field' }>,
  other: Extract<Scalar, { kind: 'constant' } | { kind: 'time' }>,
): Predicate {
  if (field.type === 'absent') return UNKNOWN;
  const defined = exists(field.field.path);
  const mismatch = (otherType: string): Predicate => {
    if (!isStaticKind(field.field) && field.view === 'raw') return UNKNOWN;
    throw new FilterError(
      `Cannot compare ${describe(other.expression)} (${otherType}) with ${describe(field.expression)} (${TYPE_NAMES[field.type === 'absent' ? 'unknown' : field.type]}) in ${describe(node)}`,
    );
  };
  const span =
    other.kind === 'time' ? other.span : field.type === 'time' ? timeSpan(other.value) : undefined;
  if (field.type === 'time') {
    if (!span) return mismatch(other.kind === 'constant' ? constantType(other.value) : 'time');
    return { test: spanClause(field.field.path, op, span), defined };
  }
  if (span && other.kind === 'time') {
    // A time literal against a string property: the span each date-like value stands for
    // (engine-fields.ts, `timeSpanPaths`); a value that is not a time is NULL.
    if (field.type === 'number' || isStaticKind(field.field)) return mismatch('date/timestamp');
    if (field.view === 'raw') {
      const paths = timeSpanPaths(field.field);
      return { test: spanClause(paths, op, span), defined: exists(paths.lo) };
    }
    return { test: onView(field.field, field.view, (path) => spanClause(path, op, span)), defined };
  }
  const value = (other as Extract<Scalar, { kind: 'constant' }>).value;
  if (field.type === 'number' && typeof value !== 'number') return mismatch(constantType(value));
  if (field.type === 'string' && typeof value === 'number') return mismatch('number');
  const engine = engineValue(value);
  return {
    test: onView(field.field, field.view, (path) => valueClause(path, op, engine)),
    defined,
  };
}

function compileComparison(
  node: CheckedOperator,
  op: ComparisonOp,
  context: FilterContext,
): Predicate {
  const [left, right] = operands(node);
  const a = compileScalar(left, context);
  const b = compileScalar(right, context);
  if (a.kind === 'field' && b.kind === 'field') {
    throw unsupported(context, 'comparing two properties', node);
  }
  if (a.kind === 'field') return compareField(node, op, a, b as Exclude<Scalar, { kind: 'field' }>);
  if (b.kind === 'field') return compareField(node, FLIPPED[op], b, a);
  // Two literals.
  if (a.kind === 'time' || b.kind === 'time') {
    const spanOf = (scalar: Exclude<Scalar, { kind: 'field' }>): Span | undefined =>
      scalar.kind === 'time' ? scalar.span : timeSpan(scalar.value);
    return constant(compareSpans(op, spanOf(a) as Span, spanOf(b) as Span));
  }
  return constant(compareConstants(op, a.value, b.value));
}

// ---------------------------------------------------------------------------------------------
// LIKE, BETWEEN, IN, IS NULL

function compileLike(node: CheckedOperator, context: FilterContext): Predicate {
  const [valueNode, patternNode] = operands(node);
  const value = compileScalar(valueNode, context);
  const pattern = compileScalar(patternNode, context);
  for (const [argument, scalar] of [
    [valueNode, value],
    [patternNode, pattern],
  ] as const) {
    if (scalar.kind === 'field' && isStaticKind(scalar.field) && scalar.type !== 'string') {
      const type = TYPE_NAMES[scalar.type === 'absent' ? 'unknown' : scalar.type];
      throw new FilterError(`LIKE needs strings, but ${describe(argument)} is a ${type}`);
    }
  }
  if (pattern.kind !== 'constant') {
    if (value.kind === 'field') throw unsupported(context, 'LIKE with a computed pattern', node);
    throw unsupported(context, 'LIKE with a property as the pattern', node);
  }
  const wildcard = likeToWildcard(String(pattern.value));
  if (value.kind === 'constant')
    return constant(matchesLike(String(value.value), String(pattern.value)));
  if (value.kind !== 'field') throw new FilterError(`LIKE needs strings in ${describe(node)}`);
  if (value.type === 'absent' || value.type === 'number' || value.type === 'time') return UNKNOWN;
  return {
    test: onView(value.field, value.view, (path) => ({
      wildcard: { [path]: { value: wildcard } },
    })),
    defined: exists(value.field.path),
  };
}

function compileBetween(node: CheckedOperator, context: FilterContext): Predicate {
  const [value, low] = operands(node);
  const high = operandAt(node, 2);
  const lower = compileComparison({ kind: 'op', op: '>=', args: [value, low] }, '>=', context);
  const upper = compileComparison({ kind: 'op', op: '<=', args: [value, high] }, '<=', context);
  return { test: allOf([lower.test, upper.test]), defined: allOf([lower.defined, upper.defined]) };
}

function compileIn(node: CheckedOperator, context: FilterContext): Predicate {
  const [valueNode, listNode] = operands(node);
  const list = listNode as Extract<CheckedExpression, { kind: 'array' }>;
  if (list.items.length === 0) return FALSE;
  const value = compileScalar(valueNode, context);
  const items = list.items.map((item) => compileScalar(item, context));
  if (items.some((item) => item.kind === 'field')) {
    throw unsupported(context, 'IN lists with properties', node);
  }
  const parts = items.map((item) =>
    compileComparison({ kind: 'op', op: '=', args: [valueNode, item.expression] }, '=', context),
  );
  if (value.kind === 'field') {
    // Plain values of the field's kind become one terms clause.
    const simple = items.every(
      (item) =>
        item.kind === 'constant' &&
        (value.type === 'number'
          ? typeof item.value === 'number'
          : value.type === 'string' && typeof item.value !== 'number'),
    );
    if (simple) {
      const values = items.map((item) => engineValue((item as { value: Constant }).value));
      return {
        test: onView(value.field, value.view, (path) => terms(path, values)),
        defined: exists(value.field.path),
      };
    }
  }
  return {
    test: anyOf(parts.map((part) => part.test)),
    defined: anyOf(parts.map((part) => part.defined)),
  };
}

function compileIsNull(node: CheckedOperator, context: FilterContext): Predicate {
  const argument = operandAt(node, 0);
  if (argument.kind === 'property') {
    if (argument.type === 'geometry') {
      // The box fields are written in both modes, also where the engine dropped a geometry
      // it found malformed (shape mode): they tell whether the record has a footprint.
      return { test: not(hasFootprint('envelope')), defined: matchAll() };
    }
    return { test: not(present(resolveFilterProperty(argument.name))), defined: matchAll() };
  }
  if (argument.kind !== 'op') return FALSE;
  const scalar = compileScalar(argument, context);
  if (scalar.kind === 'field') {
    return { test: not(present(scalar.field)), defined: matchAll() };
  }
  return FALSE;
}

// ---------------------------------------------------------------------------------------------
// Temporal operators

/**
 * One end of a time value: a fixed span, or a field holding instants. A field end of the
 * record's own interval is open (±Infinity) when the record has a time but not that bound.
 */
type TimeEnd =
  | { kind: 'fixed'; span: Span }
  | {
      kind: 'field';
      path: string;
      open?: number;
      field?: EngineField;
      view: FoldView;
      /** The field holds instants (mapped as dates), not date-like strings. */
      time?: boolean;
    };

interface TimeOperand {
  start: TimeEnd;
  end: TimeEnd;
  interval: boolean;
}

const OPEN_START: TimeEnd = { kind: 'fixed', span: { lo: -Infinity, hi: -Infinity } };
const OPEN_END: TimeEnd = { kind: 'fixed', span: { lo: Infinity, hi: Infinity } };

function scalarTimeEnd(scalar: Scalar, expression: CheckedExpression): TimeEnd | 'absent' {
  if (scalar.kind === 'time') return { kind: 'fixed', span: scalar.span };
  if (scalar.kind === 'field') {
    if (scalar.type === 'absent') return 'absent';
    // A registered or declared property that is not a time is refused, as on SQLite.
    if (scalar.type === 'time' || !isStaticKind(scalar.field)) {
      if (scalar.type === 'number') return 'absent';
      return {
        kind: 'field',
        path: scalar.field.path,
        field: scalar.field,
        view: scalar.view,
        time: scalar.type === 'time',
      };
    }
  }
  throw new FilterError(
    `Temporal operators need dates, timestamps or intervals; ${describe(expression)} is not one`,
  );
}

function intervalEnd(
  expression: CheckedExpression,
  side: 'start' | 'end',
  context: FilterContext,
): TimeEnd | 'absent' {
  if (expression.kind === 'literal' && expression.value === '..') {
    return side === 'start' ? OPEN_START : OPEN_END;
  }
  return scalarTimeEnd(compileScalar(expression, context), expression);
}

function compileTimeOperand(
  expression: CheckedExpression,
  context: FilterContext,
): TimeOperand | 'absent' {
  if (expression.kind === 'interval') {
    const start = intervalEnd(expression.start, 'start', context);
    const end = intervalEnd(expression.end, 'end', context);
    if (start === 'absent' || end === 'absent') return 'absent';
    return { start, end, interval: true };
  }
  if (expression.kind === 'property' && expression.recordInterval) {
    return {
      start: { kind: 'field', path: 'time.start', open: -Infinity, view: 'raw' },
      end: { kind: 'field', path: 'time.end', open: Infinity, view: 'raw' },
      interval: true,
    };
  }
  const end = scalarTimeEnd(compileScalar(expression, context), expression);
  if (end === 'absent') return 'absent';
  return { start: end, end, interval: false };
}

type SpanOp = 'lt' | 'gt' | 'le' | 'eq';

const SPAN_OPS: Record<SpanOp, ComparisonOp> = { lt: '<', gt: '>', le: '<=', eq: '=' };

/** `x op y` on two time ends, at most one of which is a field. */
function compareEnds(
  op: SpanOp,
  x: TimeEnd,
  y: TimeEnd,
  node: CheckedExpression,
  context: FilterContext,
): Query {
  if (x.kind === 'fixed' && y.kind === 'fixed') {
    return compareSpans(SPAN_OPS[op], x.span, y.span) ? matchAll() : matchNone();
  }
  if (x.kind === 'field' && y.kind === 'field') {
    throw unsupported(context, 'temporal operators between two properties', node);
  }
  const [field, fixed, comparison] =
    x.kind === 'field'
      ? [x, (y as Extract<TimeEnd, { kind: 'fixed' }>).span, SPAN_OPS[op]]
      : [y as Extract<TimeEnd, { kind: 'field' }>, x.span, FLIPPED[SPAN_OPS[op]]];
  // Values of the field are instants; compare them with the fixed span's bounds. A fixed end
  // is either a finite span or open (±Infinity), which every instant compares with alike.
  // (The clause is only used where every end is defined, so "true for every value" is match_all.)
  const openTruth =
    field.open !== undefined && compareSpans(comparison, instant(field.open), fixed);
  const missingOpen = allOf([exists(TIME_RANGE_FIELD), not(exists(field.path))]);
  if (typeof fixed.lo !== 'string' || typeof fixed.hi !== 'string') {
    const valueTruth = compareSpans(comparison, instant(''), fixed);
    if (valueTruth) return field.open === undefined || openTruth ? matchAll() : exists(field.path);
    return openTruth ? missingOpen : matchNone();
  }
  const build = (path: string): Query => spanClause(path, comparison, fixed);
  const spans = spanPathsOf(field);
  const valued = spans
    ? spanClause(spans, comparison, fixed)
    : field.field
      ? onView(field.field, field.view, build)
      : build(field.path);
  return openTruth ? anyOf([valued, missingOpen]) : valued;
}

/**
 * The span fields of a time end read from a string property (raw view): its values are
 * compared by the spans they stand for, not as instants.
 */
function spanPathsOf(
  end: Extract<TimeEnd, { kind: 'field' }>,
): { lo: string; hi: string } | undefined {
  if (!end.field || end.view !== 'raw' || end.kind !== 'field' || end.time) return undefined;
  return timeSpanPaths(end.field);
}

function endDefined(end: TimeEnd): Query {
  if (end.kind === 'fixed') return matchAll();
  if (end.open !== undefined) return exists(TIME_RANGE_FIELD);
  const spans = spanPathsOf(end);
  if (spans) return exists(spans.lo);
  return exists(end.field?.path ?? end.path);
}

function compileTemporal(node: CheckedOperator, context: FilterContext): Predicate {
  const [left, right] = operands(node);
  const a = compileTimeOperand(left, context);
  const b = compileTimeOperand(right, context);
  if (a === 'absent' || b === 'absent') return UNKNOWN;
  const { terms, any } = temporalTerms(node.op, a, b, (comparison, x: TimeEnd, y) =>
    compareEnds(comparison, x, y, node, context),
  );
  const [only, ...others] = terms;
  const test = only !== undefined && others.length === 0 ? only : any ? anyOf(terms) : allOf(terms);
  const defined = allOf([a.start, a.end, b.start, b.end].map(endDefined));
  return { test, defined };
}

// ---------------------------------------------------------------------------------------------
// Spatial operators

/**
 * The relations each spatial mode evaluates: the engine's geo_shape relations in `shape` mode;
 * in `envelope` mode the same on bounding boxes; equality on the boxes in both (proven only
 * where footprint and operand are boxes: compile-spatial.ts).
 */
const ENGINE_RELATIONS: Record<SpatialMode, ReadonlySet<SpatialRelationName>> = {
  shape: new Set(['intersects', 'disjoint', 'within', 'contains', 'equals']),
  envelope: new Set(['intersects', 'disjoint', 'within', 'contains', 'equals']),
};

type SpatialOperand =
  { kind: 'record' } | { kind: 'literal'; geometry: Geometry; bbox: Bbox; isBox: boolean };

function compileSpatialOperand(expression: CheckedExpression): SpatialOperand {
  switch (expression.kind) {
    case 'bbox':
      return { kind: 'literal', geometry: expression.geometry, bbox: expression.box, isBox: true };
    case 'geometry':
      return {
        kind: 'literal',
        geometry: expression.geometry,
        bbox: expression.envelope,
        isBox: isBoxGeometry(expression.geometry),
      };
    default:
      return { kind: 'record' };
  }
}

function compileSpatial(node: CheckedOperator, context: FilterContext): Predicate {
  const [left, right] = operands(node);
  const a = compileSpatialOperand(left);
  const b = compileSpatialOperand(right);
  const relation = spatialRelation(node.op);
  if (a.kind === 'literal' && b.kind === 'literal') {
    return constant(relateGeometries(relation, readGeometry(a.geometry), readGeometry(b.geometry)));
  }
  if (a.kind === 'record' && b.kind === 'record') {
    throw unsupported(context, 'spatial relations between two record geometries', node);
  }
  const literal = (a.kind === 'literal' ? a : b) as Extract<SpatialOperand, { kind: 'literal' }>;
  const recordRelation = a.kind === 'record' ? relation : SPATIAL_CONVERSE[relation];
  const relations = ENGINE_RELATIONS[context.spatial];
  if (!relations.has(recordRelation)) {
    throw new UnsupportedFilterError(
      context.engineName,
      opName(node.op),
      `The ${context.engineName} backend does not support ${opName(node.op)} in spatial mode "${context.spatial}" (it offers ${[...relations].map((name) => `S_${name.toUpperCase()}`).join(', ')})`,
    );
  }
  const atom = compileExactSpatialRelation(
    context.spatial,
    recordRelation as EngineSpatialRelation,
    literal,
  );
  if (atom.unproven) {
    throw new UnsupportedFilterError(
      context.engineName,
      opName(node.op),
      `The ${context.engineName} backend cannot prove ${opName(node.op)} on its index near this geometry (more than ${MAX_BAND_VERTICES} vertices or ${MAX_BAND_POINTS} points, several points for S_WITHIN, or half the globe wide)`,
    );
  }
  if (atom.doubt) context.doubts?.push({ query: atom.doubt, operator: opName(node.op) });
  return { test: atom.test, defined: atom.defined };
}

// ---------------------------------------------------------------------------------------------
// Array operators

type ArrayOperand =
  | { kind: 'literal'; items: unknown[] }
  | { kind: 'field'; field: EngineField; type: FieldKind | 'absent' };

function compileArrayOperand(
  expression: CheckedExpression,
  node: CheckedOperator,
  context: FilterContext,
): ArrayOperand {
  if (expression.kind === 'array') {
    return { kind: 'literal', items: arrayValues(expression) };
  }
  const { name } = expression as CheckedProperty;
  const field = resolveFilterProperty(name);
  const registered = queryableKind(field);
  if (field.declared === 'time' && registered === undefined) {
    throw new FilterError(`${opName(node.op)} needs arrays, but "${name}" is a date/timestamp`);
  }
  const type = registered === 'array' ? 'string' : fieldKind(field, context.mappedKind);
  return { kind: 'field', field, type };
}

function compileArrayRelation(node: CheckedOperator, context: FilterContext): Predicate {
  const [left, right] = operands(node);
  const a = compileArrayOperand(left, node, context);
  const b = compileArrayOperand(right, node, context);
  const relation = arrayRelation(node.op);
  if (a.kind === 'literal' && b.kind === 'literal') {
    return constant(relateArrays(relation, a.items, b.items));
  }
  if (a.kind === 'field' && b.kind === 'field') {
    throw unsupported(context, 'array relations between two properties', node);
  }
  const [field, literal, fieldRelation] =
    a.kind === 'field'
      ? [a, b as Extract<ArrayOperand, { kind: 'literal' }>, relation]
      : [b as Extract<ArrayOperand, { kind: 'field' }>, a, ARRAY_CONVERSE[relation]];
  if (field.type === 'absent') return UNKNOWN;
  if (literal.items.some((item) => Array.isArray(item) || item === null)) {
    throw unsupported(context, 'nested arrays in array operators', node);
  }
  // Items that cannot be values of the field are never among its elements.
  const items = literal.items.map((item) => engineValue(item as Constant));
  const comparable = items.filter((item) =>
    field.type === 'number' ? typeof item === 'number' : typeof item === 'string',
  );
  const path = field.field.path;
  const defined = present(field.field);
  const contains = (): Query =>
    comparable.length < new Set(items).size
      ? matchNone()
      : allOf(comparable.map((item) => term(path, item)));
  const containedBy = (): Query => not(someValueOutside(path, comparable));
  switch (fieldRelation) {
    case 'overlaps':
      return { test: terms(path, comparable), defined };
    case 'contains':
      return { test: contains(), defined };
    case 'containedBy':
      return { test: containedBy(), defined };
    case 'equals':
      return { test: allOf([contains(), containedBy()]), defined };
  }
}

// ---------------------------------------------------------------------------------------------
// Boolean structure

function compileOperator(node: CheckedOperator, context: FilterContext): Predicate {
  switch (operatorClass(node.op)) {
    case 'comparison':
      return compileComparison(node, node.op as ComparisonOp, context);
    case 'like':
      return compileLike(node, context);
    case 'between':
      return compileBetween(node, context);
    case 'in':
      return compileIn(node, context);
    case 'isNull':
      return compileIsNull(node, context);
    case 'spatial':
      return compileSpatial(node, context);
    case 'temporal':
      return compileTemporal(node, context);
    case 'array':
      return compileArrayRelation(node, context);
    case 'distance':
      throw unsupported(context, 'distance operators (DWithin, Beyond)', node);
    default:
      throw new FilterError(`${describe(node)} is a value, not a condition`);
  }
}

/** The records where the expression is TRUE (polarity true) or FALSE (polarity false). */
function compileBoolean(
  expression: CheckedExpression,
  polarity: boolean,
  context: FilterContext,
): Query {
  switch (expression.kind) {
    case 'literal':
      return expression.value === polarity ? matchAll() : matchNone();
    case 'property': {
      const scalar = compileScalar(expression, context);
      if (scalar.kind !== 'field' || (isStaticKind(scalar.field) && scalar.type !== 'unknown')) {
        throw new FilterError(`"${expression.name}" is not a boolean property and not a condition`);
      }
      if (scalar.type === 'absent') return matchNone();
      return allOf([exists(scalar.field.path), term(scalar.field.path, String(polarity))]);
    }
    case 'op': {
      if (expression.op === 'and' || expression.op === 'or') {
        const parts = expression.args.map((argument) =>
          compileBoolean(argument, polarity, context),
        );
        // AND is TRUE when all are; FALSE when any is (OR the other way round).
        return (expression.op === 'and') === polarity ? allOf(parts) : anyOf(parts);
      }
      if (expression.op === 'not') {
        return compileBoolean(operandAt(expression, 0), !polarity, context);
      }
      return select(compileOperator(expression, context), polarity);
    }
    default:
      throw new FilterError(`${describe(expression)} is not a condition`);
  }
}

/**
 * Translates a checked filter into one DSL clause that matches exactly the records the filter
 * selects (where it is TRUE). Throws UnsupportedFilterError (400) for what the engines cannot
 * evaluate without scripts, and FilterError where the index mapping contradicts the filter.
 */
export function compileFilterDsl(filter: CheckedFilter, context: FilterContext): Query {
  return compileBoolean(filter, true, context);
}

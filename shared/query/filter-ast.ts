/**
 * The filter expression tree shared by every query language (CQL2 text and JSON, FES XML,
 * CSW CQL_TEXT, OpenSearch parameters). Its shape mirrors the CQL2 JSON encoding: leaves are
 * properties and typed literals; every operator or function is an `op` node with arguments.
 * Backends compile this tree once per operator; protocols only ever build it.
 */
import type { Geometry } from 'geojson';

/** A reference to a queryable, by its canonical or protocol-specific name. */
export interface PropertyRef {
  kind: 'property';
  name: string;
}

/** A scalar literal. Strings are compared as text unless wrapped in date/timestamp. */
export interface ScalarLiteral {
  kind: 'literal';
  value: string | number | boolean;
}

/** DATE('YYYY-MM-DD') */
export interface DateLiteral {
  kind: 'date';
  value: string;
}

/** TIMESTAMP('…Z') */
export interface TimestampLiteral {
  kind: 'timestamp';
  value: string;
}

/** INTERVAL(start, end); an end that is the string '..' is open. */
export interface IntervalLiteral {
  kind: 'interval';
  start: Expression;
  end: Expression;
}

/** A geometry literal (from WKT, GeoJSON or GML), in CRS84 longitude/latitude order. */
export interface GeometryLiteral {
  kind: 'geometry';
  geometry: Geometry;
}

/** BBOX(w, s, e, n) or its 6-number form; west > east crosses the antimeridian. */
export interface BboxLiteral {
  kind: 'bbox';
  bbox: number[];
}

/** An array literal, e.g. for IN lists or A_* operators. */
export interface ArrayLiteral {
  kind: 'array';
  items: Expression[];
}

/**
 * Logical, comparison, spatial, temporal and array operators, CASEI/ACCENTI, arithmetic
 * and any other function call. `op` is lower-case as in CQL2 JSON ('and', '=', 'like',
 * 's_intersects', 't_before', 'a_contains', 'casei', '+', …); an unknown function name is
 * kept so the backend can refuse it with a message that names it.
 * FES DWithin/Beyond use 's_dwithin'/'s_beyond' with args [property, geometry, distance, units].
 */
export interface OperatorNode {
  kind: 'op';
  op: string;
  args: Expression[];
}

export type Expression =
  | PropertyRef
  | ScalarLiteral
  | DateLiteral
  | TimestampLiteral
  | IntervalLiteral
  | GeometryLiteral
  | BboxLiteral
  | ArrayLiteral
  | OperatorNode;

/** Builds a property reference. */
export const propertyRef = (name: string): PropertyRef => ({ kind: 'property', name });

/** Builds a scalar literal. */
export const literal = (value: string | number | boolean): ScalarLiteral => ({
  kind: 'literal',
  value,
});

/** Builds an operator node. */
export const operator = (op: string, ...args: Expression[]): OperatorNode => ({
  kind: 'op',
  op,
  args,
});

/** Combines expressions with AND, dropping the wrapper when there is only one. */
export function andAll(expressions: Expression[]): Expression | undefined {
  if (expressions.length === 0) return undefined;
  if (expressions.length === 1) return expressions[0];
  return operator('and', ...expressions);
}

/** Combines expressions with OR, dropping the wrapper when there is only one. */
export function orAll(expressions: Expression[]): Expression | undefined {
  if (expressions.length === 0) return undefined;
  if (expressions.length === 1) return expressions[0];
  return operator('or', ...expressions);
}

/**
 * BETWEEN over typed bounds: kept as `between` when both bounds are numbers, otherwise (dates,
 * text) the range `subject >= lower AND subject <= upper`, which every backend compares.
 */
export function betweenOrRange(
  subject: Expression,
  lower: Expression,
  upper: Expression,
): OperatorNode {
  const numeric = (bound: Expression): boolean =>
    bound.kind === 'literal' && typeof bound.value === 'number';
  if (numeric(lower) && numeric(upper)) return operator('between', subject, lower, upper);
  return operator('and', operator('>=', subject, lower), operator('<=', subject, upper));
}

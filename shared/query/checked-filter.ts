/**
 * The checked filter tree: what shared/query/check-filter.ts makes of a parsed filter
 * (filter-ast.ts) and the only filter a SearchQuery carries to a backend. It has the parsed
 * tree's shape (so the CQL2 printers still write it), narrowed and enriched:
 * - operators are the closed union of cql2-operators.ts, in their canonical spelling, with the
 *   right number of arguments;
 * - properties are resolved against the queryables registry, with their static type;
 * - dates and timestamps carry the span of instants they stand for;
 * - BBOX and geometry literals are validated once and carry their geometry and envelope;
 * - arithmetic, CASEI and ACCENTI on literals are folded into literals.
 * Backends only translate it; one that cannot translate a node throws UnsupportedFilterError.
 */
import type { Geometry } from 'geojson';
import type { Bbox } from '../records/core-record.js';
import type { FilterOp } from './cql2/cql2-operators.js';
import type { Queryable } from './queryables.js';

/** What is known of a value before the query runs. */
export type StaticType =
  'string' | 'number' | 'boolean' | 'time' | 'geometry' | 'array' | 'unknown';

/** A property, resolved: a registered queryable (by exact name or alias) or the record's own. */
export interface CheckedProperty {
  kind: 'property';
  /** The name as written. */
  name: string;
  /** The registered queryable the name is the canonical name or an alias of. */
  queryable?: Queryable;
  /** The queryable's type ('unknown' for an unregistered property). */
  type: StaticType;
  /**
   * In a temporal operator, `datetime` or `time` naming the record's whole time interval
   * (start_datetime to end_datetime) rather than an instant.
   */
  recordInterval?: boolean;
}

/** A string, number or boolean literal (possibly folded from an expression on literals). */
export interface CheckedLiteral {
  kind: 'literal';
  value: string | number | boolean;
}

/** DATE(…) or TIMESTAMP(…): the first and last instant it covers (a date is its UTC day). */
export interface CheckedTime {
  kind: 'date' | 'timestamp';
  value: string;
  start: string;
  end: string;
}

/** INTERVAL(start, end); an end that is the literal '..' is open. */
export interface CheckedInterval {
  kind: 'interval';
  start: CheckedExpression;
  end: CheckedExpression;
}

/** A validated BBOX literal; `box` is its 2D form (west > east crosses the antimeridian). */
export interface CheckedBbox {
  kind: 'bbox';
  bbox: number[];
  box: Bbox;
  /** The geometry the box covers (two halves when it crosses the antimeridian). */
  geometry: Geometry;
  envelope: Bbox;
}

/** A validated geometry literal in CRS84 with its envelope. */
export interface CheckedGeometry {
  kind: 'geometry';
  geometry: Geometry;
  envelope: Bbox;
}

/** A spatial literal. */
export type SpatialLiteral = CheckedBbox | CheckedGeometry;

export interface CheckedArray {
  kind: 'array';
  items: CheckedExpression[];
}

/** An operator from the closed table, with the arity it takes. */
export interface CheckedOperator {
  kind: 'op';
  op: FilterOp;
  args: CheckedExpression[];
}

export type CheckedExpression =
  | CheckedProperty
  | CheckedLiteral
  | CheckedTime
  | CheckedInterval
  | CheckedBbox
  | CheckedGeometry
  | CheckedArray
  | CheckedOperator;

/**
 * The brand of a whole checked filter. It is declared and never exported, so no object literal
 * can carry it: only check-filter.ts (checkFilter, andChecked) names a tree a CheckedFilter.
 */
declare const checkedFilterBrand: unique symbol;

/**
 * A checked filter: a boolean expression as checkFilter returns it, or a conjunction of such
 * filters made by andChecked. The brand exists only in the types; at run time it is the tree.
 */
export type CheckedFilter = CheckedExpression & { readonly [checkedFilterBrand]: true };

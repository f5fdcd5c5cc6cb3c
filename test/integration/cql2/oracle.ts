/**
 * Independent answers for the CQL2 integration tests: each case carries a plain JavaScript
 * predicate over the GeoJSON features, written with these helpers, and the test compares what
 * SQLite returns with the features that predicate selects. Nothing here uses the filter
 * compiler or its SQL functions: three-valued logic is spelled out, times are compared as
 * millisecond spans, and geometries are tested with jsts directly.
 *
 * Also: tiny builders for the CQL2 JSON of each case, written by hand next to the text.
 */
import type { Geometry } from 'geojson';
import GeoJSONReader from 'jsts/org/locationtech/jts/io/GeoJSONReader.js';
import GeometryFactory from 'jsts/org/locationtech/jts/geom/GeometryFactory.js';
import 'jsts/org/locationtech/jts/monkey.js';

/** TRUE, FALSE or NULL (unknown). */
export type Truth = boolean | null;

/** A property value, or null when the feature lacks it. */
export function value(properties: Record<string, unknown>, name: string): unknown {
  const found = properties[name];
  return found === undefined ? null : found;
}

/** Three-valued NOT. */
export const not3 = (a: Truth): Truth => (a === null ? null : !a);
/** Three-valued AND (FALSE wins over NULL). */
export const and3 = (...values: Truth[]): Truth =>
  values.includes(false) ? false : values.includes(null) ? null : true;
/** Three-valued OR (TRUE wins over NULL). */
export const or3 = (...values: Truth[]): Truth =>
  values.includes(true) ? true : values.includes(null) ? null : false;

/** Compares two scalars; NULL when either is null or their types differ. */
export function compare3(a: unknown, op: '=' | '<>' | '<' | '<=' | '>' | '>=', b: unknown): Truth {
  if (a === null || b === null || typeof a !== typeof b) return null;
  const x = a as string | number | boolean;
  const y = b as string | number | boolean;
  switch (op) {
    case '=':
      return x === y;
    case '<>':
      return x !== y;
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    case '>=':
      return x >= y;
  }
}

// ---------------------------------------------------------------------------------------------
// Time: a value is the span [first ms, last ms] it covers; a date covers its whole UTC day.

export type Span = [number, number];

/** The span of a date ('YYYY-MM-DD') or an RFC 3339 timestamp; null for anything else. */
export function span(text: unknown): Span | null {
  if (typeof text !== 'string') return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const start = Date.parse(`${text}T00:00:00Z`);
    return [start, start + 86_400_000 - 1];
  }
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : [ms, ms];
}

/** An interval from two spans (its start is the first one's start, its end the last's end). */
export function interval(start: Span | null | '..', end: Span | null | '..'): Span | null {
  if (start === null || end === null) return null;
  return [start === '..' ? -Infinity : start[0], end === '..' ? Infinity : end[1]];
}

/** OWL-Time relations between intervals (instants are intervals with start = end). */
export const owl = {
  before: (a: Span, b: Span) => a[1] < b[0],
  after: (a: Span, b: Span) => a[0] > b[1],
  meets: (a: Span, b: Span) => a[1] === b[0],
  metBy: (a: Span, b: Span) => a[0] === b[1],
  overlaps: (a: Span, b: Span) => a[0] < b[0] && b[0] < a[1] && a[1] < b[1],
  overlappedBy: (a: Span, b: Span) => b[0] < a[0] && a[0] < b[1] && b[1] < a[1],
  starts: (a: Span, b: Span) => a[0] === b[0] && a[1] < b[1],
  startedBy: (a: Span, b: Span) => a[0] === b[0] && a[1] > b[1],
  during: (a: Span, b: Span) => a[0] > b[0] && a[1] < b[1],
  contains: (a: Span, b: Span) => a[0] < b[0] && a[1] > b[1],
  finishes: (a: Span, b: Span) => a[0] > b[0] && a[1] === b[1],
  finishedBy: (a: Span, b: Span) => a[0] < b[0] && a[1] === b[1],
  equals: (a: Span, b: Span) => a[0] === b[0] && a[1] === b[1],
  disjoint: (a: Span, b: Span) => a[1] < b[0] || a[0] > b[1],
  intersects: (a: Span, b: Span) => !(a[1] < b[0] || a[0] > b[1]),
};

/** Applies a temporal relation with NULL for a missing operand. */
export function temporal3(relation: keyof typeof owl, a: Span | null, b: Span | null): Truth {
  return a === null || b === null ? null : owl[relation](a, b);
}

// ---------------------------------------------------------------------------------------------
// Geometry, with jsts directly

interface Jts {
  intersects(other: Jts): boolean;
  disjoint(other: Jts): boolean;
  equalsTopo(other: Jts): boolean;
  touches(other: Jts): boolean;
  crosses(other: Jts): boolean;
  overlaps(other: Jts): boolean;
  within(other: Jts): boolean;
  contains(other: Jts): boolean;
}

const reader = new GeoJSONReader(new GeometryFactory());

/** Reads a GeoJSON geometry with jsts. */
export function jts(geometry: Geometry): Jts {
  return reader.read(geometry);
}

/** The polygon of a box that does not cross the antimeridian. */
export function boxPolygon(west: number, south: number, east: number, north: number): Geometry {
  return {
    type: 'Polygon',
    coordinates: [
      [
        [west, south],
        [east, south],
        [east, north],
        [west, north],
        [west, south],
      ],
    ],
  };
}

export type SpatialName = keyof Jts;

/** A spatial relation between a feature geometry and a query geometry, NULL without geometry. */
export function spatial3(relation: SpatialName, geometry: Geometry | null, query: Geometry): Truth {
  return geometry === null ? null : jts(geometry)[relation](jts(query));
}

// ---------------------------------------------------------------------------------------------
// CQL2 JSON builders

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** `{property}` */
export const prop = (name: string): Json => ({ property: name });
/** `{op, args}` */
export const op = (name: string, ...args: Json[]): Json => ({ op: name, args });
/** `{date}` */
export const date = (text: string): Json => ({ date: text });
/** `{timestamp}` */
export const timestamp = (text: string): Json => ({ timestamp: text });
/** `{bbox}` */
export const bbox = (...numbers: number[]): Json => ({ bbox: numbers });
/** A GeoJSON Point. */
export const point = (x: number, y: number): Json => ({ type: 'Point', coordinates: [x, y] });
/** A GeoJSON LineString. */
export const line = (...coordinates: [number, number][]): Json => ({
  type: 'LineString',
  coordinates,
});
/** A GeoJSON Polygon with one ring. */
export const polygon = (...ring: [number, number][]): Json => ({
  type: 'Polygon',
  coordinates: [ring],
});
/** `{interval: [start, end]}` */
export const intervalJson = (start: Json, end: Json): Json => ({ interval: [start, end] });

/**
 * The exact CQL2 evaluators every backend shares: case-sensitive LIKE, time-value spans, set
 * relations between arrays (A_*), exact DE-9IM spatial predicates with jsts (S_*) and geodesic
 * distances. SQLite registers them as SQL functions (shared/search/sqlite/sql-functions.ts); the
 * engine compiler folds literal arguments and checks what it can prove with the same code. All
 * return undefined (NULL) for an unusable argument, so three-valued logic carries CQL2's NULLs.
 */
import type { Geometry, Position } from 'geojson';
import GeoJSONReader from 'jsts/org/locationtech/jts/io/GeoJSONReader.js';
import GeometryFactory from 'jsts/org/locationtech/jts/geom/GeometryFactory.js';
import DistanceOp from 'jsts/org/locationtech/jts/operation/distance/DistanceOp.js';
import 'jsts/org/locationtech/jts/monkey.js';
import { parseTimeValue } from '../records/time.js';

/** The spatial relations of CQL2 (S_* without the prefix), named as in Simple Features. */
export type SpatialRelationName =
  'intersects' | 'disjoint' | 'equals' | 'touches' | 'crosses' | 'overlaps' | 'within' | 'contains';

/** The array relations of CQL2 (A_* without the prefix). */
export type ArrayRelationName = 'equals' | 'contains' | 'containedBy' | 'overlaps';

/** The relation that holds for (b, a) when a spatial relation holds for (a, b). */
export const SPATIAL_CONVERSE: Readonly<Record<SpatialRelationName, SpatialRelationName>> = {
  intersects: 'intersects',
  disjoint: 'disjoint',
  equals: 'equals',
  touches: 'touches',
  crosses: 'crosses',
  overlaps: 'overlaps',
  within: 'contains',
  contains: 'within',
};

/** The relation that holds for (b, a) when an array relation holds for (a, b). */
export const ARRAY_CONVERSE: Readonly<Record<ArrayRelationName, ArrayRelationName>> = {
  equals: 'equals',
  overlaps: 'overlaps',
  contains: 'containedBy',
  containedBy: 'contains',
};

/** The relation an S_* operator tests (its canonical name without the prefix). */
export const spatialRelation = (op: string): SpatialRelationName =>
  op.slice(2) as SpatialRelationName;

/** The relation an A_* operator tests (its canonical name without the prefix). */
export const arrayRelation = (op: string): ArrayRelationName => op.slice(2) as ArrayRelationName;

/** The part of a jsts geometry this module uses (jsts ships no usable typings). */
export interface JtsGeometry {
  intersects(other: JtsGeometry): boolean;
  disjoint(other: JtsGeometry): boolean;
  equalsTopo(other: JtsGeometry): boolean;
  touches(other: JtsGeometry): boolean;
  crosses(other: JtsGeometry): boolean;
  overlaps(other: JtsGeometry): boolean;
  within(other: JtsGeometry): boolean;
  contains(other: JtsGeometry): boolean;
  isEmpty(): boolean;
  isValid(): boolean;
  getNumGeometries(): number;
  getGeometryN(index: number): JtsGeometry;
}

export type SqlScalar = string | number | bigint | Buffer | null;

/** How many parsed query geometries and LIKE patterns are kept for reuse. */
export const CACHE_SIZE = 64;

/** A small least-recently-used cache. */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly size: number) {}

  get(key: string, build: (key: string) => V): V {
    const cached = this.entries.get(key);
    if (cached !== undefined || this.entries.has(key)) {
      this.entries.delete(key);
      this.entries.set(key, cached as V);
      return cached as V;
    }
    const value = build(key);
    if (this.entries.size >= this.size) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(key, value);
    return value;
  }
}

// ---------------------------------------------------------------------------------------------
// Text

/** One token of a CQL2 LIKE pattern. */
type LikeToken = { kind: 'any' } | { kind: 'one' } | { kind: 'text'; text: string };

/** Splits a CQL2 LIKE pattern: `%` any run, `_` one character, `\` escapes the next one. */
function tokenizeLike(pattern: string): LikeToken[] {
  const tokens: LikeToken[] = [];
  const characters = Array.from(pattern).values();
  for (const character of characters) {
    // A backslash takes the next character literally; a trailing one is itself.
    const escaped = character === '\\' ? characters.next() : undefined;
    if (escaped !== undefined && escaped.done !== true) {
      tokens.push({ kind: 'text', text: escaped.value });
    } else if (character === '%') tokens.push({ kind: 'any' });
    else if (character === '_') tokens.push({ kind: 'one' });
    else tokens.push({ kind: 'text', text: character });
  }
  return tokens;
}

/**
 * Translates a CQL2 LIKE pattern into an equivalent SQLite GLOB pattern (GLOB is case-sensitive
 * and matches `?` against one character, as CQL2 LIKE requires).
 */
export function likeToGlob(pattern: string): string {
  return tokenizeLike(pattern)
    .map((token) => {
      if (token.kind === 'any') return '*';
      if (token.kind === 'one') return '?';
      return /[*?[]/.test(token.text) ? `[${token.text}]` : token.text;
    })
    .join('');
}

/** Translates a CQL2 LIKE pattern into an anchored regular expression. */
export function likeToRegExp(pattern: string): RegExp {
  const source = tokenizeLike(pattern)
    .map((token) => {
      if (token.kind === 'any') return '.*';
      if (token.kind === 'one') return '.';
      return token.text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`, 'su');
}

const likeCache = new LruCache<RegExp>(CACHE_SIZE);

/** Whether a string matches a CQL2 LIKE pattern (case-sensitive). */
export function matchesLike(value: string, pattern: string): boolean {
  return likeCache.get(pattern, likeToRegExp).test(value);
}

// ---------------------------------------------------------------------------------------------
// Time

/**
 * The earliest instant a time value stands for, as a UTC timestamp with milliseconds: the
 * instant itself, or the first millisecond of a date. Undefined for anything else.
 */
export function timeSpanStart(value: unknown): string | undefined {
  return typeof value === 'string' ? parseTimeValue(value)?.start : undefined;
}

/** The latest instant a time value stands for (the last millisecond of a date). */
export function timeSpanEnd(value: unknown): string | undefined {
  return typeof value === 'string' ? parseTimeValue(value)?.end : undefined;
}

// ---------------------------------------------------------------------------------------------
// Arrays

/**
 * The elements of an array given as JSON text; any other JSON value stands for a one-element
 * array. Undefined for SQL NULL, JSON null or text that is not JSON.
 */
export function parseArray(value: SqlScalar): unknown[] | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed === null) return undefined;
    return Array.isArray(parsed) ? (parsed as unknown[]) : [parsed];
  } catch {
    return undefined;
  }
}

/** A key under which equal array elements collide: the type and the JSON spelling. */
function elementKey(element: unknown): string {
  const type = typeof element === 'bigint' ? 'number' : typeof element;
  return `${type}:${JSON.stringify(typeof element === 'bigint' ? Number(element) : element)}`;
}

/** Evaluates an A_* relation between two arrays taken as sets. */
export function relateArrays(
  relation: ArrayRelationName,
  left: unknown[],
  right: unknown[],
): boolean {
  const a = new Set(left.map(elementKey));
  const b = new Set(right.map(elementKey));
  const subset = (x: Set<string>, y: Set<string>): boolean => [...x].every((key) => y.has(key));
  switch (relation) {
    case 'equals':
      return subset(a, b) && subset(b, a);
    case 'contains':
      return subset(b, a);
    case 'containedBy':
      return subset(a, b);
    case 'overlaps':
      return [...a].some((key) => b.has(key));
  }
}

// ---------------------------------------------------------------------------------------------
// Geometry

const reader = new GeoJSONReader(new GeometryFactory());

/** Reads a GeoJSON geometry into jsts; throws on anything jsts cannot read. */
export function readGeometry(geometry: Geometry): JtsGeometry {
  // jsts's declarations leave read()'s result unresolved; the cast names what it returns.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  return reader.read(geometry) as unknown as JtsGeometry;
}

/** Reads a GeoJSON geometry from its JSON text, or undefined when it cannot be read. */
export function readGeometryText(text: string): JtsGeometry | undefined {
  try {
    return readGeometry(JSON.parse(text) as Geometry);
  } catch {
    return undefined;
  }
}

/**
 * Whether `a` intersects `b`, part by part of `b`: a box crossing the antimeridian is two
 * rectangles, and a rectangle against anything has a fast exact test in jsts.
 */
function intersectsAnyPart(a: JtsGeometry, b: JtsGeometry): boolean {
  const parts = b.getNumGeometries();
  if (parts <= 1) return a.intersects(b);
  for (let index = 0; index < parts; index += 1) {
    if (a.intersects(b.getGeometryN(index))) return true;
  }
  return false;
}

/** Evaluates a spatial relation `relation(a, b)` with Simple Features (DE-9IM) semantics. */
export function relateGeometries(
  relation: SpatialRelationName,
  a: JtsGeometry,
  b: JtsGeometry,
): boolean {
  switch (relation) {
    case 'intersects':
      return intersectsAnyPart(a, b);
    case 'disjoint':
      return !intersectsAnyPart(a, b);
    case 'equals':
      return a.equalsTopo(b);
    case 'touches':
      return a.touches(b);
    case 'crosses':
      return a.crosses(b);
    case 'overlaps':
      return a.overlaps(b);
    case 'within':
      return a.within(b);
    case 'contains':
      return a.contains(b);
  }
}

// ---------------------------------------------------------------------------------------------
// Distances (FES DWithin / Beyond)

/** The mean Earth radius (IUGG), in metres. */
const EARTH_RADIUS = 6_371_008.8;

/** Metres per degree of latitude on the mean sphere. */
export const METRES_PER_DEGREE = (Math.PI * EARTH_RADIUS) / 180;

/** The great-circle distance in metres between two longitude/latitude positions. */
export function haversineMetres(from: number[], to: number[]): number {
  // A missing ordinate is NaN, as arithmetic on it always gave.
  const [x1 = NaN, y1 = NaN] = from;
  const [x2 = NaN, y2 = NaN] = to;
  const radians = Math.PI / 180;
  const dLat = (y2 - y1) * radians;
  const dLon = (x2 - x1) * radians;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(y1 * radians) * Math.cos(y2 * radians) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS * Math.asin(Math.min(1, Math.sqrt(h)));
}

function mapPositions(geometry: Geometry, map: (position: Position) => Position): Geometry {
  switch (geometry.type) {
    case 'Point':
      return { type: 'Point', coordinates: map(geometry.coordinates) };
    case 'MultiPoint':
      return { type: 'MultiPoint', coordinates: geometry.coordinates.map(map) };
    case 'LineString':
      return { type: 'LineString', coordinates: geometry.coordinates.map(map) };
    case 'MultiLineString':
      return { type: 'MultiLineString', coordinates: geometry.coordinates.map((l) => l.map(map)) };
    case 'Polygon':
      return { type: 'Polygon', coordinates: geometry.coordinates.map((r) => r.map(map)) };
    case 'MultiPolygon':
      return {
        type: 'MultiPolygon',
        coordinates: geometry.coordinates.map((p) => p.map((r) => r.map(map))),
      };
    case 'GeometryCollection':
      return {
        type: 'GeometryCollection',
        geometries: geometry.geometries.map((g) => mapPositions(g, map)),
      };
  }
}

/** A position with its longitude multiplied by `scale` (a missing one is NaN, as before). */
function scaled([x = NaN, y = NaN]: Position, scale: number): Position {
  return [x * scale, y];
}

/** A query geometry prepared for distances: longitudes shrunk by the cosine of its latitude. */
export interface DistanceTarget {
  scaled: JtsGeometry;
  scale: number;
}

function prepareDistanceTarget(geometry: Geometry): DistanceTarget {
  const latitudes: number[] = [];
  mapPositions(geometry, (position) => {
    latitudes.push(position[1] ?? NaN);
    return position;
  });
  const middle = (Math.min(...latitudes) + Math.max(...latitudes)) / 2;
  const scale = Math.max(0.01, Math.cos((middle * Math.PI) / 180));
  return {
    scaled: readGeometry(mapPositions(geometry, (position) => scaled(position, scale))),
    scale,
  };
}

/**
 * The distance in metres between a geometry and a distance target: the nearest points are found
 * in a local equirectangular projection (good for distances up to a few hundred kilometres),
 * and their great-circle distance is returned. Zero when the geometries meet.
 */
export function distanceToTarget(geometry: Geometry, target: DistanceTarget): number {
  const near = readGeometry(mapPositions(geometry, (position) => scaled(position, target.scale)));
  // jsts gives the nearest point of each geometry: always two.
  const [a, b] = DistanceOp.nearestPoints(near, target.scaled) as [
    { x: number; y: number },
    { x: number; y: number },
  ];
  return haversineMetres([a.x / target.scale, a.y], [b.x / target.scale, b.y]);
}

/** The approximate distance in metres between two longitude/latitude geometries. */
export function geodesicDistance(a: Geometry, b: Geometry): number {
  return distanceToTarget(a, prepareDistanceTarget(b));
}

export function readDistanceTarget(text: string): DistanceTarget | undefined {
  try {
    return prepareDistanceTarget(JSON.parse(text) as Geometry);
  } catch {
    return undefined;
  }
}

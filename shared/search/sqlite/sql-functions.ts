/**
 * The SQL functions the CQL2 filter compiler relies on, registered on every SQLite connection
 * of the embedded backend: Unicode case and accent folding (CASEI, ACCENTI), case-sensitive
 * LIKE with a computed pattern, time-value spans, set relations between arrays (A_*) and exact
 * DE-9IM spatial predicates with jsts (S_*). All are deterministic and return NULL for a NULL
 * (or unusable) argument, so that SQL's three-valued logic carries CQL2's NULL semantics.
 *
 * The pure helpers are exported too: the compiler folds literal arguments with the same code
 * the SQL functions run on stored values.
 */
import type Database from 'better-sqlite3';
import type { Geometry, Position } from 'geojson';
import GeoJSONReader from 'jsts/org/locationtech/jts/io/GeoJSONReader.js';
import GeometryFactory from 'jsts/org/locationtech/jts/geom/GeometryFactory.js';
import DistanceOp from 'jsts/org/locationtech/jts/operation/distance/DistanceOp.js';
import 'jsts/org/locationtech/jts/monkey.js';
import { QueryTimeoutError } from '../../errors/index.js';
import { bboxToGeometry } from '../../query/bbox-geometry.js';
import type { Bbox } from '../../records/core-record.js';
import { foldCase, stripAccents, textSortKey } from '../../query/text-folding.js';
import { parseTimeValue } from '../../records/time.js';

// The text folds and the bbox geometry are shared with the engine backend: they live in
// shared/query, and are re-exported here for the compiler and its tests.
export { bboxToGeometry, foldCase, stripAccents, textSortKey };

/** The spatial relations of CQL2 (S_* without the prefix), named as in Simple Features. */
export type SpatialRelationName =
  'intersects' | 'disjoint' | 'equals' | 'touches' | 'crosses' | 'overlaps' | 'within' | 'contains';

/** The array relations of CQL2 (A_* without the prefix). */
export type ArrayRelationName = 'equals' | 'contains' | 'containedBy' | 'overlaps';

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

type SqlScalar = string | number | bigint | Buffer | null;

/** How many parsed query geometries and LIKE patterns are kept for reuse. */
const CACHE_SIZE = 64;

/** A small least-recently-used cache. */
class LruCache<V> {
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
  const characters = Array.from(pattern);
  for (let i = 0; i < characters.length; i += 1) {
    const character = characters[i];
    if (character === '\\' && i + 1 < characters.length) {
      i += 1;
      tokens.push({ kind: 'text', text: characters[i] });
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
function parseArray(value: SqlScalar): unknown[] | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed === null) return undefined;
    return Array.isArray(parsed) ? parsed : [parsed];
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
  return reader.read(geometry) as unknown as JtsGeometry;
}

/** Reads a GeoJSON geometry from its JSON text, or undefined when it cannot be read. */
function readGeometryText(text: string): JtsGeometry | undefined {
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
export function haversineMetres([x1, y1]: number[], [x2, y2]: number[]): number {
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

/** A query geometry prepared for distances: longitudes shrunk by the cosine of its latitude. */
interface DistanceTarget {
  scaled: JtsGeometry;
  scale: number;
}

function prepareDistanceTarget(geometry: Geometry): DistanceTarget {
  const latitudes: number[] = [];
  mapPositions(geometry, (position) => {
    latitudes.push(position[1]);
    return position;
  });
  const middle = (Math.min(...latitudes) + Math.max(...latitudes)) / 2;
  const scale = Math.max(0.01, Math.cos((middle * Math.PI) / 180));
  return { scaled: readGeometry(mapPositions(geometry, ([x, y]) => [x * scale, y])), scale };
}

/**
 * The distance in metres between a geometry and a distance target: the nearest points are found
 * in a local equirectangular projection (good for distances up to a few hundred kilometres),
 * and their great-circle distance is returned. Zero when the geometries meet.
 */
function distanceToTarget(geometry: Geometry, target: DistanceTarget): number {
  const scaled = readGeometry(mapPositions(geometry, ([x, y]) => [x * target.scale, y]));
  const [a, b] = DistanceOp.nearestPoints(scaled, target.scaled) as { x: number; y: number }[];
  return haversineMetres([a.x / target.scale, a.y], [b.x / target.scale, b.y]);
}

/** The approximate distance in metres between two longitude/latitude geometries. */
export function geodesicDistance(a: Geometry, b: Geometry): number {
  return distanceToTarget(a, prepareDistanceTarget(b));
}

const distanceTargetCache = new LruCache<DistanceTarget | undefined>(CACHE_SIZE);

function readDistanceTarget(text: string): DistanceTarget | undefined {
  try {
    return prepareDistanceTarget(JSON.parse(text) as Geometry);
  } catch {
    return undefined;
  }
}

const SPATIAL_RELATIONS = new Set<string>([
  'intersects',
  'disjoint',
  'equals',
  'touches',
  'crosses',
  'overlaps',
  'within',
  'contains',
]);
const ARRAY_RELATIONS = new Set<string>(['equals', 'contains', 'containedBy', 'overlaps']);

const queryGeometryCache = new LruCache<JtsGeometry | undefined>(CACHE_SIZE);

function toFlag(value: boolean | undefined): number | null {
  return value === undefined ? null : value ? 1 : 0;
}

/** Evaluates a relation on two geometry texts; undefined when either cannot be used. */
function relateTexts(
  relation: SqlScalar,
  a: JtsGeometry | undefined,
  b: JtsGeometry | undefined,
): boolean | undefined {
  if (typeof relation !== 'string' || !SPATIAL_RELATIONS.has(relation)) return undefined;
  if (!a || !b) return undefined;
  try {
    return relateGeometries(relation as SpatialRelationName, a, b);
  } catch {
    // A topology failure on an invalid stored geometry is "unknown", not a failed request.
    return undefined;
  }
}

/**
 * The time budget of the statements a connection is running. better-sqlite3 runs a statement
 * synchronously and offers no interrupt, so the budget is enforced from inside: every registered
 * function, and `cairn_deadline()` which the backend puts in front of each WHERE clause, checks
 * the clock and throws QueryTimeoutError once the budget is spent, which aborts the statement.
 */
export class StatementDeadline {
  private at = Number.POSITIVE_INFINITY;
  private budgetMs = 0;
  private calls = 0;

  /** Runs synchronous work under a budget (none when `budgetMs` is undefined). */
  run<T>(budgetMs: number | undefined, work: () => T): T {
    if (budgetMs === undefined) return work();
    this.at = Date.now() + budgetMs;
    this.budgetMs = budgetMs;
    try {
      return work();
    } finally {
      this.at = Number.POSITIVE_INFINITY;
    }
  }

  /** Throws QueryTimeoutError when the running work is past its budget. */
  check(): void {
    if (this.at !== Number.POSITIVE_INFINITY && Date.now() > this.at) {
      throw new QueryTimeoutError(this.budgetMs);
    }
  }

  /** The same check on every 64th call only, for the per-row `cairn_deadline()`. */
  checkSometimes(): number {
    this.calls = (this.calls + 1) & 63;
    if (this.calls === 0) this.check();
    return 1;
  }
}

/** Names of the registered SQL functions, for the compiler. */
export const SQL_FUNCTIONS = {
  sortKey: 'cairn_sort_key',
  casei: 'cairn_casei',
  accenti: 'cairn_accenti',
  like: 'cairn_like',
  timeStart: 'cairn_time_start',
  timeEnd: 'cairn_time_end',
  arrays: 'cairn_arrays',
  spatial: 'cairn_spatial',
  bboxGeometry: 'cairn_bbox_geometry',
  distance: 'cairn_distance',
  deadline: 'cairn_deadline',
} as const;

/**
 * Registers the filter functions on a connection (call once per connection). With a deadline,
 * every function checks it first (see StatementDeadline).
 */
export function registerSqlFunctions(
  db: Database.Database,
  deadline = new StatementDeadline(),
): void {
  const options = { deterministic: true };
  db.function(SQL_FUNCTIONS.deadline, { deterministic: false }, () => deadline.checkSometimes());
  db.function(SQL_FUNCTIONS.sortKey, options, (value: SqlScalar) => {
    deadline.check();
    return typeof value === 'string' ? textSortKey(value) : value;
  });
  db.function(SQL_FUNCTIONS.casei, options, (value: SqlScalar) => {
    deadline.check();
    return typeof value === 'string' ? foldCase(value) : null;
  });
  db.function(SQL_FUNCTIONS.accenti, options, (value: SqlScalar) => {
    deadline.check();
    return typeof value === 'string' ? stripAccents(value) : null;
  });
  db.function(SQL_FUNCTIONS.like, options, (value: SqlScalar, pattern: SqlScalar) => {
    deadline.check();
    return typeof value === 'string' && typeof pattern === 'string'
      ? toFlag(matchesLike(value, pattern))
      : null;
  });
  db.function(SQL_FUNCTIONS.timeStart, options, (value: SqlScalar) => {
    deadline.check();
    return timeSpanStart(value) ?? null;
  });
  db.function(SQL_FUNCTIONS.timeEnd, options, (value: SqlScalar) => {
    deadline.check();
    return timeSpanEnd(value) ?? null;
  });
  db.function(SQL_FUNCTIONS.arrays, options, (relation: SqlScalar, a: SqlScalar, b: SqlScalar) => {
    deadline.check();
    if (typeof relation !== 'string' || !ARRAY_RELATIONS.has(relation)) return null;
    const left = parseArray(a);
    const right = parseArray(b);
    if (!left || !right) return null;
    return toFlag(relateArrays(relation as ArrayRelationName, left, right));
  });
  // relation(stored geometry, query geometry): the query side is parsed once and reused.
  db.function(
    SQL_FUNCTIONS.spatial,
    options,
    (relation: SqlScalar, stored: SqlScalar, query: SqlScalar) => {
      deadline.check();
      if (typeof stored !== 'string' || typeof query !== 'string') return null;
      const queryGeometry = queryGeometryCache.get(query, readGeometryText);
      return toFlag(relateTexts(relation, readGeometryText(stored), queryGeometry));
    },
  );
  // Metres between a stored geometry and a query geometry (parsed once and reused).
  db.function(SQL_FUNCTIONS.distance, options, (stored: SqlScalar, query: SqlScalar) => {
    deadline.check();
    if (typeof stored !== 'string' || typeof query !== 'string') return null;
    const target = distanceTargetCache.get(query, readDistanceTarget);
    if (!target) return null;
    try {
      return distanceToTarget(JSON.parse(stored) as Geometry, target);
    } catch {
      return null;
    }
  });
  db.function(SQL_FUNCTIONS.bboxGeometry, options, (bbox: SqlScalar) => {
    deadline.check();
    const box = typeof bbox === 'string' ? parseArray(bbox) : undefined;
    if (!box || box.length !== 4 || !box.every((n) => typeof n === 'number')) return null;
    return JSON.stringify(bboxToGeometry(box as Bbox));
  });
}

/**
 * The SQL functions the CQL2 filter compiler relies on, registered on every SQLite connection
 * of the embedded backend: Unicode case and accent folding (CASEI, ACCENTI), case-sensitive
 * LIKE with a computed pattern, time-value spans, set relations between arrays (A_*) and exact
 * DE-9IM spatial predicates with jsts (S_*). All are deterministic and return NULL for a NULL
 * (or unusable) argument, so that SQL's three-valued logic carries CQL2's NULL semantics.
 *
 * The evaluators themselves live in shared/query (cql2-functions, text-folding, bbox-geometry),
 * shared with the engine backend; they are re-exported here for the SQLite compiler and tests.
 */
import type Database from 'better-sqlite3';
import type { Geometry } from 'geojson';
import { QueryTimeoutError } from '../../errors/index.js';
import { bboxToGeometry } from '../../query/bbox-geometry.js';
import {
  distanceToTarget,
  LruCache,
  CACHE_SIZE,
  matchesLike,
  parseArray,
  readDistanceTarget,
  readGeometryText,
  relateArrays,
  relateGeometries,
  timeSpanEnd,
  timeSpanStart,
  type ArrayRelationName,
  type DistanceTarget,
  type JtsGeometry,
  type SpatialRelationName,
  type SqlScalar,
} from '../../query/cql2-functions.js';
import { foldCase, stripAccents, textSortKey } from '../../query/text-folding.js';
import type { Bbox } from '../../records/core-record.js';

export {
  geodesicDistance,
  haversineMetres,
  likeToGlob,
  likeToRegExp,
  matchesLike,
  METRES_PER_DEGREE,
  readGeometry,
  relateArrays,
  relateGeometries,
  timeSpanEnd,
  timeSpanStart,
  type ArrayRelationName,
  type JtsGeometry,
  type SpatialRelationName,
} from '../../query/cql2-functions.js';
export { bboxToGeometry, foldCase, stripAccents, textSortKey };

const distanceTargetCache = new LruCache<DistanceTarget | undefined>(CACHE_SIZE);

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
const queryRectanglesCache = new LruCache<Bbox[] | undefined>(CACHE_SIZE);

/** The rectangle [minx, miny, maxx, maxy] a polygon is, or undefined when it is not one. */
function polygonRectangle(rings: unknown): Bbox | undefined {
  if (!Array.isArray(rings) || rings.length !== 1) return undefined;
  const ring = rings[0] as unknown;
  if (!Array.isArray(ring) || ring.length !== 5) return undefined;
  if (!ring.every((p) => Array.isArray(p) && p.length === 2 && p.every(Number.isFinite))) {
    return undefined;
  }
  type Corner = [number, number];
  const points = ring as [Corner, Corner, Corner, Corner, Corner];
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const box: Bbox = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  if (box[0] === box[2] || box[1] === box[3]) return undefined;
  // Closed, and every corner on the box's corners: axis-aligned.
  const corner = ([x, y]: [number, number]): boolean =>
    (x === box[0] || x === box[2]) && (y === box[1] || y === box[3]);
  const closed = points[0][0] === points[4][0] && points[0][1] === points[4][1];
  const corners = new Set(points.slice(0, 4).map(([x, y]) => `${x},${y}`));
  return closed && corners.size === 4 && points.every(corner) ? box : undefined;
}

/**
 * The rectangle a footprint geometry (GeoJSON) is exactly, [west, south, east, north]: a Polygon
 * of one axis-aligned rectangular ring of 2-D positions; undefined for anything else.
 */
export function footprintRectangle(geometry: unknown): Bbox | undefined {
  if (typeof geometry !== 'object' || geometry === null) return undefined;
  const { type, coordinates } = geometry as { type?: unknown; coordinates?: unknown };
  return type === 'Polygon' ? polygonRectangle(coordinates) : undefined;
}

/**
 * The rectangles a query geometry's text is (a BBOX literal: one polygon, or two across the
 * antimeridian), or undefined when it is anything else.
 */
function readRectangles(text: string): Bbox[] | undefined {
  try {
    const geometry = JSON.parse(text) as { type?: unknown; coordinates?: unknown };
    if (geometry.type === 'Polygon') {
      const box = polygonRectangle(geometry.coordinates);
      return box && [box];
    }
    if (geometry.type === 'MultiPolygon' && Array.isArray(geometry.coordinates)) {
      const boxes = geometry.coordinates.map(polygonRectangle);
      return boxes.length > 0 && boxes.every((box) => box !== undefined) ? boxes : undefined;
    }
  } catch {
    // Not JSON: the exact path answers.
  }
  return undefined;
}

/** Whether a position lies in one of the closed rectangles. */
function positionInside(position: unknown, rectangles: Bbox[]): boolean {
  if (!Array.isArray(position) || position.length < 2) return false;
  const [x, y] = position as unknown[];
  if (typeof x !== 'number' || typeof y !== 'number') return false;
  return rectangles.some(([w, s, e, n]) => x >= w && x <= e && y >= s && y <= n);
}

/** A position jsts reads: at least two finite numbers. */
function isPosition(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length >= 2 &&
    value.every((n) => typeof n === 'number' && Number.isFinite(n))
  );
}

/** Whether `value` is a non-empty list of positions at least `min` long. */
function isPositionList(value: unknown, min: number): value is unknown[] {
  return Array.isArray(value) && value.length >= Math.max(min, 1) && value.every(isPosition);
}

/** Whether every element of `value` is a list of positions at least `min` long. */
function positionLists(value: unknown, min: number): value is unknown[][] {
  return (
    Array.isArray(value) && value.length > 0 && value.every((list) => isPositionList(list, min))
  );
}

/**
 * A fast exact answer for "the stored geometry intersects the query rectangles": true when a
 * vertex of a well-formed Point, LineString or Polygon (or Multi-) lies in a rectangle, since
 * that vertex is a point of both. False means "not shown": the jsts predicate then decides,
 * so a geometry jsts cannot read still gives NULL.
 */
function hasVertexInside(text: string, rectangles: Bbox[]): boolean {
  let geometry: { type?: unknown; coordinates?: unknown };
  try {
    geometry = JSON.parse(text) as typeof geometry;
  } catch {
    return false;
  }
  const c = geometry.coordinates;
  const anyInside = (positions: unknown[]): boolean =>
    positions.some((p) => positionInside(p, rectangles));
  // A polygon's rings, the outer one first (positionLists makes sure there is one).
  type Rings = [unknown[], ...unknown[][]];
  const ringsOk = (rings: unknown): rings is Rings =>
    positionLists(rings, 4) &&
    rings.every((ring) => {
      const first = ring[0] as unknown[];
      const last = ring[ring.length - 1] as unknown[];
      return (
        Array.isArray(first) && Array.isArray(last) && first[0] === last[0] && first[1] === last[1]
      );
    });
  switch (geometry.type) {
    case 'Point':
      return isPosition(c) && positionInside(c, rectangles);
    case 'MultiPoint':
      return isPositionList(c, 1) && anyInside(c);
    case 'LineString':
      return isPositionList(c, 2) && anyInside(c);
    case 'MultiLineString':
      return positionLists(c, 2) && c.some(anyInside);
    case 'Polygon':
      return ringsOk(c) && anyInside(c[0]);
    case 'MultiPolygon':
      return (
        Array.isArray(c) &&
        c.length > 0 &&
        c.every(ringsOk) &&
        c.some((rings) => anyInside(rings[0]))
      );
    default:
      return false;
  }
}

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

  /** The same check on every 64th call only, for `cairn_deadline()` in a scan (see deadlineGuard). */
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
 * The per-row deadline check put in front of a search's WHERE clause, given the SQL of the row's
 * record rowid: `cairn_deadline()` on the rows whose rowid is a multiple of 64 only. A call into
 * JavaScript costs about as much as SQLite reading an index entry, so calling it on every row
 * doubled a plain count; any scan of many rows still meets a multiple of 64 every few dozen rows,
 * and every registered function checks the clock itself.
 */
export type DeadlineGuard = (rowid: string) => string;

export const deadlineGuard: DeadlineGuard = (rowid) =>
  `(((${rowid}) & 63) <> 0 OR ${SQL_FUNCTIONS.deadline}()) AND `;

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
      if (relation === 'intersects') {
        const rectangles = queryRectanglesCache.get(query, readRectangles);
        if (rectangles && hasVertexInside(stored, rectangles)) return 1;
      }
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

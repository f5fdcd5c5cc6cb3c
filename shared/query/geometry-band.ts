/**
 * The band around a polygon's boundary: the polygon grown by a margin (outer) and shrunk by it
 * (inner), for the engines' exact spatial filters (compile-spatial.ts). A footprint the engine
 * may relate wrongly to the polygon, because it rounds coordinates, passes within the rounding
 * of the boundary: it meets the outer polygon and misses the inner one.
 *
 * jsts buffers with mitred corners (bevelled at twice the margin): the grown polygon holds
 * every point within the margin of the original, the shrunk one only points at least that far
 * inside, and both keep about the original's vertex count. Each result is checked (the grown
 * one contains the original, the original contains the shrunk one); a buffer that fails the
 * check gives no band, and the caller decides such filters another way.
 */
import type { Geometry, MultiPolygon, Polygon } from 'geojson';
import BufferOp from 'jsts/org/locationtech/jts/operation/buffer/BufferOp.js';
import BufferParameters from 'jsts/org/locationtech/jts/operation/buffer/BufferParameters.js';
import GeoJSONWriter from 'jsts/org/locationtech/jts/io/GeoJSONWriter.js';
import { LruCache, readGeometry, type JtsGeometry } from './cql2-functions.js';
import { positionsOf } from './bbox-geometry.js';
import { measureGeometry } from './query-limits.js';

/**
 * Largest polygon (vertices) a band is built for: jsts's buffer grows faster than linearly, and
 * it runs on the event loop. Both sides, checked, on the test machine (warm, median of 15 star
 * polygons): 0.5 ms at 4 vertices, 2.7 ms at 100, 4.7 ms at 200, 8.3 ms at 300, 19 ms at 500.
 */
export const MAX_BAND_VERTICES = 200;

export interface PolygonBand {
  outer: Geometry;
  /** Undefined when the polygon is too thin to shrink by the margin. */
  inner?: Geometry;
}

interface Buffered extends JtsGeometry {
  copy(): Buffered;
  normalize(): void;
  reverse(): Buffered;
  intersection(other: Buffered): Buffered;
  getEnvelopeInternal(): {
    getMinX(): number;
    getMaxX(): number;
    getMinY(): number;
    getMaxY(): number;
  };
}

const parameters = new BufferParameters();
parameters.setQuadrantSegments(1);
parameters.setJoinStyle(BufferParameters.JOIN_MITRE);
parameters.setMitreLimit(2);

const writer = new GeoJSONWriter();
const bands = new LruCache<PolygonBand | undefined>(64);

const GLOBE = readGeometry({
  type: 'Polygon',
  coordinates: [
    [
      [-180, -90],
      [180, -90],
      [180, 90],
      [-180, 90],
      [-180, -90],
    ],
  ],
}) as Buffered;

function buffer(geometry: Buffered, distance: number): Buffered {
  return BufferOp.bufferOp(geometry, distance, parameters) as Buffered;
}

/** A grown polygon kept on the globe (past a pole or ±180 nothing lies, and engines refuse it). */
function onGlobe(geometry: Buffered): Buffered {
  const envelope = geometry.getEnvelopeInternal();
  const inside =
    envelope.getMinX() >= -180 &&
    envelope.getMaxX() <= 180 &&
    envelope.getMinY() >= -90 &&
    envelope.getMaxY() <= 90;
  return inside ? geometry : geometry.intersection(GLOBE);
}

/** As GeoJSON with its rings in right-hand order (shells counter-clockwise), as RFC 7946 asks. */
function toGeoJson(geometry: Buffered): Geometry {
  const normal = geometry.copy();
  normal.normalize(); // jsts: shells clockwise, holes counter-clockwise
  return writer.write(normal.reverse()) as Geometry;
}

function build(geometry: Polygon | MultiPolygon, margin: number): PolygonBand | undefined {
  try {
    const original = readGeometry(geometry) as Buffered;
    const outer = onGlobe(buffer(original, margin));
    const inner = buffer(original, -margin);
    if (outer.isEmpty() || !outer.contains(original)) return undefined;
    if (!inner.isEmpty() && !original.contains(inner)) return undefined;
    return { outer: toGeoJson(outer), ...(inner.isEmpty() ? {} : { inner: toGeoJson(inner) }) };
  } catch {
    // jsts could not buffer it robustly: no band.
    return undefined;
  }
}

/**
 * The band of a polygon literal within `margin` degrees of its boundary; undefined when it has
 * more than MAX_BAND_VERTICES vertices, spans half the globe or more in longitude (an engine
 * may then read its edges as crossing the antimeridian), or jsts cannot build it reliably.
 * Recent bands are kept (a client paging through one search sends the same polygon each time).
 */
export function polygonBand(
  geometry: Polygon | MultiPolygon,
  margin: number,
): PolygonBand | undefined {
  if (measureGeometry(geometry).vertices > MAX_BAND_VERTICES) return undefined;
  // A missing longitude is NaN, as Math.max/min always took it.
  const longitudes = positionsOf(geometry).map(([x = NaN]) => x);
  if (Math.max(...longitudes) - Math.min(...longitudes) >= 180) return undefined;
  return bands.get(JSON.stringify([margin, geometry.coordinates]), () => build(geometry, margin));
}

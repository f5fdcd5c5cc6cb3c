/**
 * The search area of OpenSearch `geo:lat` / `geo:lon` / `geo:radius`: a circle on the sphere,
 * given to backends as an ordinary geometry so that every relation (intersects, contains,
 * disjoint, within) and every backend (SQLite envelopes, Elasticsearch / OpenSearch shapes)
 * works without a distance operator.
 *
 * - Normally a 64-sided polygon whose vertices lie on the circle (spherical Earth, mean radius
 *   6 371 008.8 m; the polygon is inscribed, so it misses at most ~0.12 % of the radius).
 * - When the circle crosses the antimeridian, its bounding box (west > east); when it contains a
 *   pole, the latitude band from its edge to that pole. Both contain the circle, so they can
 *   only over-match for `intersects` (and under-match for `disjoint`).
 */
import type { Polygon } from 'geojson';
import type { Bbox } from '../../records/core-record.js';

/** Mean Earth radius (IUGG R1), in metres. */
export const EARTH_RADIUS_METRES = 6_371_008.8;

/** Half the mean circumference: the largest radius that is still a circle. */
export const MAX_CIRCLE_RADIUS_METRES = Math.PI * EARTH_RADIUS_METRES;

const SIDES = 64;
const toRadians = (degrees: number): number => (degrees * Math.PI) / 180;
const toDegrees = (radians: number): number => (radians * 180) / Math.PI;

/** A circle's search area: a polygon, or a box when a polygon cannot represent it. */
export type CircleArea = { geometry: Polygon } | { bbox: Bbox };

/**
 * The search area for a circle of `radius` metres around (`lat`, `lon`) in degrees. The radius
 * must be positive and at most MAX_CIRCLE_RADIUS_METRES (callers check).
 */
export function buildCircleArea(lat: number, lon: number, radius: number): CircleArea {
  const angle = radius / EARTH_RADIUS_METRES;
  const angleDegrees = toDegrees(angle);
  const north = lat + angleDegrees;
  const south = lat - angleDegrees;
  if (north >= 90 || south <= -90) {
    return { bbox: [-180, Math.max(-90, south), 180, Math.min(90, north)] };
  }
  const phi = toRadians(lat);
  const lambda = toRadians(lon);
  const ring: [number, number][] = [];
  let crosses = false;
  for (let i = 0; i < SIDES; i += 1) {
    const bearing = (2 * Math.PI * i) / SIDES;
    const phi2 = Math.asin(
      Math.sin(phi) * Math.cos(angle) + Math.cos(phi) * Math.sin(angle) * Math.cos(bearing),
    );
    const lambda2 =
      lambda +
      Math.atan2(
        Math.sin(bearing) * Math.sin(angle) * Math.cos(phi),
        Math.cos(angle) - Math.sin(phi) * Math.sin(phi2),
      );
    const vertexLon = toDegrees(lambda2);
    if (vertexLon > 180 || vertexLon < -180) crosses = true;
    ring.push([vertexLon, toDegrees(phi2)]);
  }
  // The widest longitude extent of a small circle that contains no pole.
  const halfWidth = toDegrees(Math.asin(Math.min(1, Math.sin(angle) / Math.cos(phi))));
  if (crosses || lon - halfWidth < -180 || lon + halfWidth > 180) {
    const wrap = (value: number): number =>
      value > 180 ? value - 360 : value < -180 ? value + 360 : value;
    return { bbox: [wrap(lon - halfWidth), south, wrap(lon + halfWidth), north] };
  }
  // Counter-clockwise (GeoJSON right-hand rule): go round with decreasing bearing.
  const [start, ...others] = ring;
  if (start === undefined) throw new Error('A circle polygon needs vertices');
  const coordinates = [start, ...others.reverse(), start];
  return { geometry: { type: 'Polygon', coordinates: [coordinates] } };
}

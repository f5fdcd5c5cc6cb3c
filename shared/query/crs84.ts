/**
 * CRS84 coordinates as every protocol takes them: longitude then latitude, in degrees, within
 * ±180 and ±90. The one check of a position, shared by record ingest (GeoJSON geometries and
 * bounding boxes, GML footprints, XML bounding boxes), the filter checker (geometry and BBOX
 * literals), STAC `intersects`, the `bbox` parameter and the FES GML and OpenSearch WKT
 * geometry parsers; each caller says what is wrong in its own words. Also the one test of a
 * closed linear ring those geometry parsers share.
 *
 * A coordinate past a bound by no more than CRS84_TOLERANCE is the bound written with a
 * floating-point error (Natural Earth's Russia reaches longitude 180.00000000000006), which
 * GDAL, PostGIS and the search engines all accept: it is read as the bound itself (snapped), so
 * that every backend stores and compares the same number. Only values further out are refused.
 */
import type { Geometry } from 'geojson';

/**
 * How far past ±180 or ±90 (in degrees) a coordinate may lie and still be read as the bound:
 * about 0.1 mm on the ground, ten million times the rounding error of a double near 180, and far
 * below any real position's precision.
 */
export const CRS84_TOLERANCE = 1e-9;

/**
 * The value, or the bound it lies within CRS84_TOLERANCE beyond; undefined when further out or
 * not a finite number.
 */
function snapToBound(value: number, bound: number): number | undefined {
  if (!Number.isFinite(value)) return undefined;
  if (value > bound) return value - bound <= CRS84_TOLERANCE ? bound : undefined;
  if (value < -bound) return -bound - value <= CRS84_TOLERANCE ? -bound : undefined;
  return value;
}

/** A longitude in −180..180, the bound for one within the tolerance past it, else undefined. */
export function snapLongitude(longitude: number): number | undefined {
  return snapToBound(longitude, 180);
}

/** A latitude in −90..90, the bound for one within the tolerance past it, else undefined. */
export function snapLatitude(latitude: number): number | undefined {
  return snapToBound(latitude, 90);
}

/**
 * A longitude and a latitude as CRS84 takes them (snapped to a bound within the tolerance), or
 * undefined when either lies outside CRS84 (or is not a number).
 */
export function snapCrs84(longitude: number, latitude: number): [number, number] | undefined {
  const x = snapLongitude(longitude);
  const y = snapLatitude(latitude);
  return x === undefined || y === undefined ? undefined : [x, y];
}

/** Whether a longitude and a latitude lie within CRS84 (longitude ±180, latitude ±90). */
export function isCrs84Coordinate(longitude: number, latitude: number): boolean {
  return snapCrs84(longitude, latitude) !== undefined;
}

/**
 * What is wrong with a value given as a CRS84 position: `shape` when it is not an array of
 * `fewest` to `most` finite numbers, `range` when its longitude or latitude lies outside
 * CRS84; undefined when it is a position.
 */
export function findPositionFault(
  value: unknown,
  fewest = 2,
  most = Infinity,
): 'shape' | 'range' | undefined {
  if (
    !Array.isArray(value) ||
    value.length < fewest ||
    value.length > most ||
    !value.every((n) => typeof n === 'number' && Number.isFinite(n))
  ) {
    return 'shape';
  }
  // At least `fewest` (2 or more) finite numbers, checked above.
  const [longitude, latitude] = value as [number, number, ...number[]];
  return isCrs84Coordinate(longitude, latitude) ? undefined : 'range';
}

/**
 * A position with its longitude and latitude snapped to the bounds they lie within the
 * tolerance of (other ordinates kept); the same array when nothing moves. Positions outside
 * CRS84 come back unchanged: callers check them first.
 */
export function snapPosition<P extends readonly number[]>(position: P): P {
  const [longitude, latitude] = position;
  if (longitude === undefined || latitude === undefined) return position;
  const snapped = snapCrs84(longitude, latitude);
  if (snapped === undefined || (snapped[0] === longitude && snapped[1] === latitude)) {
    return position;
  }
  const copy = [...position];
  copy[0] = snapped[0];
  copy[1] = snapped[1];
  return copy as unknown as P;
}

/** Every position of a coordinate tree snapped (see snapPosition); untouched branches kept. */
function snapCoordinates(node: unknown): unknown {
  if (!Array.isArray(node)) return node;
  if (typeof node[0] === 'number') return snapPosition(node as number[]);
  let changed = false;
  const mapped = node.map((child: unknown) => {
    const next = snapCoordinates(child);
    if (next !== child) changed = true;
    return next;
  });
  return changed ? mapped : node;
}

/**
 * A geometry whose positions within the tolerance beyond a CRS84 bound are moved onto it; the
 * same object when none is. Its positions must have been checked (see findGeometryFault).
 */
export function snapGeometry<G extends Geometry>(geometry: G): G {
  if (geometry.type === 'GeometryCollection') {
    const members = geometry.geometries.map((member) => snapGeometry(member));
    return members.every((member, i) => member === geometry.geometries[i])
      ? geometry
      : { ...geometry, geometries: members };
  }
  const coordinates = snapCoordinates(geometry.coordinates);
  return coordinates === geometry.coordinates ? geometry : { ...geometry, coordinates };
}

/** How deeply each geometry type nests its positions (a position is depth 1). */
const COORDINATE_DEPTH: Readonly<Record<string, number>> = {
  Point: 1,
  MultiPoint: 2,
  LineString: 2,
  MultiLineString: 3,
  Polygon: 3,
  MultiPolygon: 4,
};

/**
 * What is wrong with a value given as a GeoJSON geometry, in words that name the place (a path
 * such as `coordinates[0][3][12]`) and the value: a missing or unknown type, coordinates that do
 * not nest as the type requires, a position that is not numbers, or a longitude or latitude
 * outside CRS84 (beyond the tolerance). Undefined when it is a geometry.
 */
export function findGeometryFault(value: unknown, path = ''): string | undefined {
  const at = (member: string): string => (path === '' ? member : `${path}.${member}`);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return `${path === '' ? 'the geometry' : path} is not a GeoJSON geometry object`;
  }
  const object = value as Record<string, unknown>;
  if (object.type === 'GeometryCollection') {
    const members = object.geometries;
    if (!Array.isArray(members)) return `${at('geometries')} is not an array`;
    for (const [index, member] of members.entries()) {
      const fault = findGeometryFault(member, at(`geometries[${index}]`));
      if (fault !== undefined) return fault;
    }
    return undefined;
  }
  const depth = typeof object.type === 'string' ? COORDINATE_DEPTH[object.type] : undefined;
  if (depth === undefined) {
    return `${at('type')} ${JSON.stringify(object.type ?? null)} is not a GeoJSON geometry type`;
  }
  return findCoordinateFault(object.coordinates, depth, at('coordinates'));
}

function findCoordinateFault(value: unknown, depth: number, path: string): string | undefined {
  if (depth === 1) {
    const fault = findPositionFault(value);
    if (fault === 'shape') return `${path} is not a position of at least two numbers`;
    if (fault === 'range') {
      const [longitude, latitude] = value as [number, number];
      return snapLongitude(longitude) === undefined
        ? `${path} has longitude ${longitude}, outside −180..180`
        : `${path} has latitude ${latitude}, outside −90..90`;
    }
    return undefined;
  }
  if (!Array.isArray(value) || value.length === 0) {
    return `${path} is not a non-empty array (positions nest ${depth - 1} level(s) deeper here)`;
  }
  for (const [index, item] of value.entries()) {
    const fault = findCoordinateFault(item, depth - 1, `${path}[${index}]`);
    if (fault !== undefined) return fault;
  }
  return undefined;
}

/**
 * Whether positions form a closed linear ring: at least 4 positions, the last equal to the
 * first in longitude and latitude.
 */
export function isClosedRing(positions: readonly (readonly number[])[]): boolean {
  const first = positions[0];
  const last = positions[positions.length - 1];
  return (
    positions.length >= 4 &&
    first !== undefined &&
    last !== undefined &&
    first[0] === last[0] &&
    first[1] === last[1]
  );
}

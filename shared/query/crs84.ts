/**
 * CRS84 coordinates as every protocol takes them: longitude then latitude, in degrees, within
 * ±180 and ±90. The one check of a position, shared by the filter checker (geometry and BBOX
 * literals), STAC `intersects`, the `bbox` parameter and the FES GML and OpenSearch WKT
 * geometry parsers; each caller says what is wrong in its own words. Also the one test of a
 * closed linear ring those geometry parsers share.
 */

/** Whether a longitude and a latitude lie within CRS84 (longitude ±180, latitude ±90). */
export function isCrs84Coordinate(longitude: number, latitude: number): boolean {
  return !(longitude < -180 || longitude > 180 || latitude < -90 || latitude > 90);
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

/**
 * The geometry a bounding box covers, shared by the backends (SQLite's spatial functions and the
 * engines' spatial compiler) so that both read a box, and a box crossing the antimeridian, alike;
 * and the positions of a geometry (the filter checker and the CQL2 printer).
 */
import type { Geometry, Position } from 'geojson';
import type { Bbox } from '../records/core-record.js';

/**
 * The geometry covering a bbox; a box whose west edge is east of its east edge crosses the
 * antimeridian and becomes the union of its two halves. Degenerate boxes become a point or a
 * line, which is what they cover.
 */
export function bboxToGeometry([west, south, east, north]: Bbox): Geometry {
  const box = (w: number, e: number): Geometry => {
    if (w === e && south === north) return { type: 'Point', coordinates: [w, south] };
    if (w === e || south === north) {
      return {
        type: 'LineString',
        coordinates: [
          [w, south],
          [e, north],
        ],
      };
    }
    return {
      type: 'Polygon',
      coordinates: [
        [
          [w, south],
          [e, south],
          [e, north],
          [w, north],
          [w, south],
        ],
      ],
    };
  };
  if (west <= east) return box(west, east);
  const halves = [box(west, 180), box(-180, east)];
  if (halves.every((half) => half.type === 'Polygon')) {
    return {
      type: 'MultiPolygon',
      coordinates: halves.map((half) => (half.type === 'Polygon' ? half.coordinates : [])),
    };
  }
  return { type: 'GeometryCollection', geometries: halves };
}

/** Every position of a geometry. */
export function positionsOf(geometry: Geometry): Position[] {
  switch (geometry.type) {
    case 'Point':
      return [geometry.coordinates];
    case 'MultiPoint':
    case 'LineString':
      return geometry.coordinates;
    case 'MultiLineString':
    case 'Polygon':
      return geometry.coordinates.flat();
    case 'MultiPolygon':
      return geometry.coordinates.flat(2);
    case 'GeometryCollection':
      return geometry.geometries.flatMap(positionsOf);
  }
}

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

/**
 * Whether a geometry is an axis-aligned rectangle of non-zero area: a polygon of one closed
 * ring of four corners whose sides run alternately along a parallel and a meridian. Such a ring
 * is simple and closed, so it is valid without a topology check (what clients most often send
 * as an `intersects` or CQL2 literal is exactly this).
 */
export function isRectangle(geometry: Geometry): boolean {
  if (geometry.type !== 'Polygon') return false;
  const [ring, ...holes] = geometry.coordinates;
  if (ring === undefined || holes.length > 0 || ring.length !== 5) return false;
  // Five positions, checked just above.
  const [[x0, y0], [x1, y1], [x2, y2], [x3, y3], [x4, y4]] = ring as [
    Position,
    Position,
    Position,
    Position,
    Position,
  ];
  if (x4 !== x0 || y4 !== y0) return false;
  // Either the first side runs along a parallel (y fixed) or along a meridian (x fixed).
  const alongParallelFirst = y1 === y0 && x2 === x1 && y3 === y2 && x3 === x0;
  const alongMeridianFirst = x1 === x0 && y2 === y1 && x3 === x2 && y3 === y0;
  if (!alongParallelFirst && !alongMeridianFirst) return false;
  return x0 !== x2 && y0 !== y2;
}

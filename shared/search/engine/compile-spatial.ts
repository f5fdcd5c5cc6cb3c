/**
 * Spatial predicates in the query DSL, in the two spatial modes:
 *
 * - `shape`: the footprint is a `geo_shape`; intersects, within, contains and disjoint are the
 *   engine's exact relations.
 * - `envelope`: only the record's bounding box is indexed (as its antimeridian halves
 *   `box0`/`box1`, four doubles each, plus the box as written in `bbox`); every relation is
 *   evaluated on the two envelopes, with boxes that cross the antimeridian split in two.
 */
import type { Geometry } from 'geojson';
import type { Bbox } from '../../records/core-record.js';
import { splitAntimeridian } from '../../records/index-document.js';
import { bboxToGeometry } from '../../query/bbox-geometry.js';
import { allOf, anyOf, exists, not, range, term, type Query } from './dsl.js';
import { envelopeShape } from './engine-document.js';
import type { SpatialMode } from './index-templates.js';

/** The relations the DSL can evaluate; `equals` compares envelopes in both modes. */
export type EngineSpatialRelation = 'intersects' | 'within' | 'contains' | 'disjoint' | 'equals';

/** What a spatial predicate compares the record footprint with. */
export type SpatialOperand = { bbox: Bbox } | { geometry: Geometry; bbox: Bbox };

export const GEOMETRY_FIELD = 'geometry';
const PARTS = [0, 1] as const;

/** Documents that have a footprint at all. */
export function hasFootprint(mode: SpatialMode): Query {
  return mode === 'shape' ? exists(GEOMETRY_FIELD) : exists('box0.minx');
}

function partIntersects(part: number, [west, south, east, north]: Bbox): Query {
  return allOf([
    range(`box${part}.minx`, { lte: east }),
    range(`box${part}.maxx`, { gte: west }),
    range(`box${part}.miny`, { lte: north }),
    range(`box${part}.maxy`, { gte: south }),
  ]);
}

function partWithin(part: number, [west, south, east, north]: Bbox): Query {
  return allOf([
    range(`box${part}.minx`, { gte: west }),
    range(`box${part}.maxx`, { lte: east }),
    range(`box${part}.miny`, { gte: south }),
    range(`box${part}.maxy`, { lte: north }),
  ]);
}

function partContains(part: number, [west, south, east, north]: Bbox): Query {
  return allOf([
    range(`box${part}.minx`, { lte: west }),
    range(`box${part}.maxx`, { gte: east }),
    range(`box${part}.miny`, { lte: south }),
    range(`box${part}.maxy`, { gte: north }),
  ]);
}

/** Some half of the record's box intersects some half of the given box. */
function envelopeIntersects(bbox: Bbox): Query {
  const boxes = splitAntimeridian(bbox);
  return anyOf(PARTS.flatMap((part) => boxes.map((box) => partIntersects(part, box))));
}

/** Every half of the record's box lies inside some half of the given box. */
function envelopeWithin(bbox: Bbox): Query {
  const boxes = splitAntimeridian(bbox);
  return allOf([
    anyOf(boxes.map((box) => partWithin(0, box))),
    anyOf([not(exists('box1.minx')), ...boxes.map((box) => partWithin(1, box))]),
  ]);
}

/** Every half of the given box lies inside some half of the record's box. */
function envelopeContains(bbox: Bbox): Query {
  const boxes = splitAntimeridian(bbox);
  return allOf(boxes.map((box) => anyOf(PARTS.map((part) => partContains(part, box)))));
}

/** The record's box, as written, equals the given box. */
function envelopeEquals([west, south, east, north]: Bbox): Query {
  return allOf([
    term('bbox.west', west),
    term('bbox.south', south),
    term('bbox.east', east),
    term('bbox.north', north),
  ]);
}

/** The query shape of a box: an envelope, or the point or line a degenerate box covers. */
function boxShape(bbox: Bbox): Geometry | Record<string, unknown> {
  const [west, south, east, north] = bbox;
  return west === east || south === north ? bboxToGeometry(bbox) : envelopeShape(bbox);
}

function geoShape(operand: SpatialOperand, relation: string): Query {
  const shape = 'geometry' in operand ? operand.geometry : boxShape(operand.bbox);
  return { geo_shape: { [GEOMETRY_FIELD]: { shape, relation } } };
}

/**
 * The documents whose footprint is in `relation` with the operand. Records without a
 * footprint never match (a relation with nothing is unknown, not false).
 */
export function compileSpatialRelation(
  mode: SpatialMode,
  relation: EngineSpatialRelation,
  operand: SpatialOperand,
): Query {
  if (relation === 'equals') return allOf([exists('bbox.west'), envelopeEquals(operand.bbox)]);
  if (mode === 'shape') {
    return allOf([hasFootprint(mode), geoShape(operand, relation)]);
  }
  switch (relation) {
    case 'intersects':
      return envelopeIntersects(operand.bbox);
    case 'disjoint':
      return allOf([hasFootprint(mode), not(envelopeIntersects(operand.bbox))]);
    case 'within':
      return allOf([hasFootprint(mode), envelopeWithin(operand.bbox)]);
    case 'contains':
      return allOf([hasFootprint(mode), envelopeContains(operand.bbox)]);
  }
}

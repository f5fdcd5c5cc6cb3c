/**
 * Spatial predicates in the query DSL, in the two spatial modes:
 *
 * - `shape`: the footprint is a `geo_shape`; intersects, within, contains and disjoint are the
 *   engine's exact relations.
 * - `envelope`: only the record's bounding box is indexed (as its antimeridian halves
 *   `box0`/`box1`, four doubles each, plus the box as written in `bbox`); every relation is
 *   evaluated on the two envelopes, with boxes that cross the antimeridian split in two.
 */
import type { Geometry, Position } from 'geojson';
import type { Bbox } from '../../records/core-record.js';
import { splitAntimeridian } from '../../records/index-document.js';
import { bboxToGeometry } from '../../query/bbox-geometry.js';
import { polygonBand } from '../../query/geometry-band.js';
import {
  allOf,
  anyOf,
  exists,
  matchNone,
  not,
  range,
  term,
  type Query,
  type RangeBounds,
} from './dsl.js';
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

/** One part's box, bounded side by side (minx, maxx, miny, maxy). */
function partBounded(
  part: number,
  minx: RangeBounds,
  maxx: RangeBounds,
  miny: RangeBounds,
  maxy: RangeBounds,
): Query {
  return allOf([
    range(`box${part}.minx`, minx),
    range(`box${part}.maxx`, maxx),
    range(`box${part}.miny`, miny),
    range(`box${part}.maxy`, maxy),
  ]);
}

function partIntersects(part: number, [west, south, east, north]: Bbox): Query {
  return partBounded(part, { lte: east }, { gte: west }, { lte: north }, { gte: south });
}

function partWithin(part: number, [west, south, east, north]: Bbox): Query {
  return partBounded(part, { gte: west }, { lte: east }, { gte: south }, { lte: north });
}

function partContains(part: number, [west, south, east, north]: Bbox): Query {
  return partBounded(part, { lte: west }, { gte: east }, { lte: south }, { gte: north });
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

/** The query on the footprint for a relation with a shape (GeoJSON, or an engine envelope). */
function geoShapeOf(shape: Geometry | Record<string, unknown>, relation: string): Query {
  return { geo_shape: { [GEOMETRY_FIELD]: { shape, relation } } };
}

function geoShape(operand: SpatialOperand, relation: string): Query {
  return geoShapeOf('geometry' in operand ? operand.geometry : boxShape(operand.bbox), relation);
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
    // Footprints the engine dropped as malformed (a polygon of one repeated point, say) have
    // no shape to relate: they are related on their envelopes, as SQLite and envelope mode
    // relate every footprint for a box.
    return anyOf([
      allOf([hasFootprint(mode), geoShape(operand, relation)]),
      allOf([DROPPED_SHAPE, envelopeRelation(relation, operand.bbox)]),
    ]);
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

// ---------------------------------------------------------------------------------------------
// Exact answers for CQL2 filters: where the engine's answer is proven, and where it is not

/**
 * Set (true) on documents whose footprint is exactly their bounding box: no geometry (the box
 * is the footprint), a point, or an axis-aligned rectangle (engine-document.ts).
 */
export const BOX_FOOTPRINT_FIELD = 'boxFootprint';

/** Documents whose geometry the engine dropped as malformed (`ignore_malformed`, shape mode). */
const DROPPED_SHAPE: Query = term('_ignored', GEOMETRY_FIELD);

/**
 * Half the width of the band around a box's edges within which the engine's quantised
 * geo_shape relations are not trusted (Lucene encodes coordinates to about 1e-7 degrees).
 */
const EDGE_BAND = 1e-6;

/** One spatial predicate: its test, where it is defined, and where its answer is unproven. */
export interface SpatialAtom {
  test: Query;
  defined: Query;
  /** Documents for which the test may be wrong: the search is refused if any is in scope. */
  doubt?: Query;
  /** The engine cannot prove this relation at all here: the filter is decided in Node. */
  unproven?: boolean;
}

/** A literal operand with its box, and whether the literal is that box (or a point). */
export interface SpatialLiteral {
  geometry: Geometry;
  bbox: Bbox;
  isBox: boolean;
}

/** The envelope evaluation of a relation (records without a footprint excluded). */
function envelopeRelation(relation: EngineSpatialRelation, bbox: Bbox): Query {
  switch (relation) {
    case 'equals':
      return allOf([exists('bbox.west'), envelopeEquals(bbox)]);
    case 'intersects':
      return envelopeIntersects(bbox);
    case 'disjoint':
      return allOf([hasFootprint('envelope'), not(envelopeIntersects(bbox))]);
    case 'within':
      return allOf([hasFootprint('envelope'), envelopeWithin(bbox)]);
    case 'contains':
      return allOf([hasFootprint('envelope'), envelopeContains(bbox)]);
  }
}

/** Some half of the record's box has an edge on an edge line of the given box. */
function touchesEdges(bbox: Bbox): Query {
  const boxes = splitAntimeridian(bbox);
  return anyOf(
    PARTS.flatMap((part) =>
      boxes.flatMap(([west, south, east, north]) => [
        term(`box${part}.minx`, west),
        term(`box${part}.maxx`, east),
        term(`box${part}.miny`, south),
        term(`box${part}.maxy`, north),
      ]),
    ),
  );
}

/**
 * The documents for which the envelope evaluation of the relation is the exact answer: those
 * the envelopes already rule out, and those whose footprint and the literal are both boxes (for
 * within, any footprint inside a box not touching its edges).
 */
function envelopeCertain(relation: EngineSpatialRelation, literal: SpatialLiteral): Query {
  const { bbox } = literal;
  const candidate =
    relation === 'within'
      ? envelopeWithin(bbox)
      : relation === 'contains'
        ? envelopeContains(bbox)
        : relation === 'equals'
          ? envelopeEquals(bbox)
          : envelopeIntersects(bbox);
  // A footprint lies inside its box, so a box that is not within the operand's does not rule
  // within out when the operand is not one box (a polygon, or a box across the antimeridian,
  // which a footprint written from -180 to 180 may lie in).
  const ruledOut =
    relation === 'within' && (!literal.isBox || bbox[0] > bbox[2]) ? matchNone() : not(candidate);
  if (!literal.isBox) return ruledOut;
  const boxFootprint = term(BOX_FOOTPRINT_FIELD, true);
  switch (relation) {
    case 'intersects':
    case 'disjoint':
      // A footprint inside the box intersects it whatever its shape.
      return anyOf([ruledOut, boxFootprint, envelopeWithin(bbox)]);
    case 'within':
      // Inside the box and off its edges: within (a footprint on the boundary is not).
      return anyOf([ruledOut, allOf([candidate, not(touchesEdges(bbox))])]);
    case 'equals':
      return anyOf([not(candidate), boxFootprint]);
    case 'contains':
      // A box footprint around the box operand, not sharing an edge line with it, contains it.
      return anyOf([ruledOut, allOf([boxFootprint, candidate, not(touchesEdges(bbox))])]);
  }
}

/** The box grown (positive margin) or shrunk (negative) by a margin on every side. */
function grown([west, south, east, north]: Bbox, margin: number): Bbox | undefined {
  const result: Bbox = [west - margin, south - margin, east + margin, north + margin];
  return result[0] > result[2] && west <= east
    ? undefined
    : result[1] > result[3]
      ? undefined
      : result;
}

/** A box kept on the globe: no footprint reaches past a pole or ±180, and geo_shape refuses it. */
function onGlobe([west, south, east, north]: Bbox): Bbox {
  const longitude = (x: number) => Math.min(180, Math.max(-180, x));
  const latitude = (y: number) => Math.min(90, Math.max(-90, y));
  return [longitude(west), latitude(south), longitude(east), latitude(north)];
}

/**
 * The halves of a box either side of the antimeridian, each grown (or shrunk) by a margin:
 * shrunk halves too thin to keep are left out. A box across the antimeridian thus gets a band
 * along ±180 too, which only adds footprints to those in doubt.
 */
function bandHalves(bbox: Bbox, margin: number): Bbox[] {
  return splitAntimeridian(bbox).flatMap((half) => {
    const box = grown(half, margin);
    return box ? [onGlobe(box)] : [];
  });
}

/** The footprints in `relation` with some (`anyOf`) or every (`allOf`) one of the boxes. */
function geoShapeBoxes(boxes: Bbox[], relation: string, combine: typeof anyOf): Query {
  return combine(boxes.map((box) => geoShape({ bbox: box }, relation)));
}

/**
 * Shape mode, box literal: the footprints (box footprints too for intersects and disjoint,
 * where geo_shape relates them) whose relation with the box may be decided within the band
 * around its edges, where the engine's
 * quantised coordinates may decide it wrongly. The band is EDGE_BAND wide, ten times the
 * rounding, so the engine's own answer for the grown box (outer) and the shrunk one (inner) is
 * right for every footprint that matters here:
 *
 * - intersects, disjoint: a footprint the engine may get wrong passes within the rounding of the
 *   box's boundary without entering it far: it meets the outer box and misses the inner one.
 *   (Their bounding boxes do not tell: a slanting edge that passes a corner by 1e-8° has a
 *   bounding box reaching deep inside: test/integration/engine-precision.test.ts.)
 * - contains: a footprint the engine may get wrong covers the inner box and not the outer one;
 *   a box too thin to shrink puts every footprint that meets it but does not cover the outer
 *   box in doubt.
 * - within: a footprint lies inside a box exactly when its bounding box does, so bounding boxes
 *   decide the band: inside the outer box and not inside the inner one.
 */
function edgeDoubt(relation: EngineSpatialRelation, bbox: Bbox): Query | undefined {
  const outer = bandHalves(bbox, EDGE_BAND);
  const inner = bandHalves(bbox, -EDGE_BAND);
  switch (relation) {
    case 'intersects':
    case 'disjoint':
      return allOf([
        geoShapeBoxes(outer, 'intersects', anyOf),
        not(geoShapeBoxes(inner, 'intersects', anyOf)),
      ]);
    case 'within': {
      const outerBox = grown(bbox, EDGE_BAND);
      const innerBox = grown(bbox, -EDGE_BAND);
      if (!outerBox) return undefined;
      return allOf([
        envelopeWithin(outerBox),
        ...(innerBox ? [not(envelopeWithin(innerBox))] : []),
      ]);
    }
    case 'contains':
      return allOf([
        inner.length === splitAntimeridian(bbox).length
          ? geoShapeBoxes(inner, 'contains', allOf)
          : geoShapeBoxes(outer, 'intersects', anyOf),
        not(geoShapeBoxes(outer, 'contains', allOf)),
      ]);
    case 'equals':
      return undefined;
  }
}

/** Most points of a MultiPoint literal a band is built for (two clauses each). */
export const MAX_BAND_POINTS = 64;

/** What literalDoubt answers when the engine cannot prove the relation near that literal. */
const UNPROVEN = 'unproven';

/**
 * Shape mode, point literals: the footprints whose boundary may pass within the rounding of a
 * point: they meet the small square around it without covering it. (Within: a footprint inside
 * the squares is a point or a tiny shape there.)
 */
function pointsDoubt(relation: EngineSpatialRelation, points: Position[]): Query {
  const squares = points.map(([x, y]) => {
    if (x === undefined || y === undefined) throw new Error('A point has two coordinates');
    return onGlobe([x - EDGE_BAND, y - EDGE_BAND, x + EDGE_BAND, y + EDGE_BAND]);
  });
  if (relation === 'within') return anyOf(squares.map((box) => geoShape({ bbox: box }, 'within')));
  return anyOf(
    squares.map((box) =>
      allOf([geoShape({ bbox: box }, 'intersects'), not(geoShape({ bbox: box }, 'contains'))]),
    ),
  );
}

/** The band in doubt around a polygon literal, from its grown and shrunk polygons. */
function polygonDoubt(
  relation: EngineSpatialRelation,
  { outer, inner }: { outer: Geometry; inner?: Geometry },
): Query | undefined {
  switch (relation) {
    case 'intersects':
    case 'disjoint':
      return allOf([
        geoShapeOf(outer, 'intersects'),
        ...(inner ? [not(geoShapeOf(inner, 'intersects'))] : []),
      ]);
    case 'within':
      return allOf([
        geoShapeOf(outer, 'within'),
        ...(inner ? [not(geoShapeOf(inner, 'within'))] : []),
      ]);
    case 'contains':
      return allOf([
        inner ? geoShapeOf(inner, 'contains') : geoShapeOf(outer, 'intersects'),
        not(geoShapeOf(outer, 'contains')),
      ]);
    case 'equals':
      return undefined;
  }
}

/**
 * Shape mode, a literal that is not a box: the footprints (box footprints included) whose
 * relation with it may be decided within the band around its boundary, as edgeDoubt does for
 * a box, with the polygon grown and shrunk by jsts (shared/query/geometry-band.ts); UNPROVEN
 * when no band can be built (too many vertices: the filter is then decided in Node); undefined
 * for lines and collections, which geo_shape decides at its own precision (docs/decisions/exact-cql2-on-the-engines.md).
 */
function literalDoubt(
  relation: EngineSpatialRelation,
  geometry: Geometry,
): Query | typeof UNPROVEN | undefined {
  switch (geometry.type) {
    case 'Point':
      return pointsDoubt(relation, [geometry.coordinates]);
    case 'MultiPoint':
      // (Within several points: a footprint near two of them lies in no one square.)
      return geometry.coordinates.length > MAX_BAND_POINTS || relation === 'within'
        ? UNPROVEN
        : pointsDoubt(relation, geometry.coordinates);
    case 'Polygon':
    case 'MultiPolygon': {
      const band = polygonBand(geometry, EDGE_BAND);
      return band ? polygonDoubt(relation, band) : UNPROVEN;
    }
    default:
      return undefined;
  }
}

/**
 * A CQL2 spatial predicate between the record's footprint and a literal, with the documents
 * for which the engine cannot prove its answer:
 *
 * - envelope mode: the envelope answer is exact where the envelopes rule the relation out, or
 *   where footprint and literal are both boxes; every other candidate is in doubt;
 * - shape mode: geo_shape, except for footprints the engine dropped as malformed, evaluated on
 *   their envelopes as in envelope mode, and, for a box literal other than intersects or
 *   disjoint, box footprints (points, rectangles), evaluated exactly on their envelopes;
 *   footprints decided within the quantisation band around the literal's boundary (a box, a
 *   point, a polygon) are in doubt.
 */
export function compileExactSpatialRelation(
  mode: SpatialMode,
  relation: EngineSpatialRelation,
  literal: SpatialLiteral,
): SpatialAtom {
  const envelope = envelopeRelation(relation, literal.bbox);
  const envelopeDoubt = allOf([hasFootprint('envelope'), not(envelopeCertain(relation, literal))]);
  if (mode === 'envelope' || relation === 'equals') {
    // No geo_shape relation is equality: equal boxes, proven where both are boxes.
    return { test: envelope, defined: hasFootprint('envelope'), doubt: envelopeDoubt };
  }
  const boxFootprint = term(BOX_FOOTPRINT_FIELD, true);
  const [west, south, east, north] = literal.bbox;
  const solidBox = literal.isBox && west !== east && south !== north;
  const intersecting = relation === 'intersects' || relation === 'disjoint';
  // Intersects or disjoint with a box: geo_shape relates box footprints too (one clause the
  // engine answers as fast as a plain bbox search, where evaluating them on their envelopes
  // took it twice as long on a six-segment index), and the few near the box's edges are in the
  // band in doubt with the other footprints. Elsewhere a box literal has box footprints
  // evaluated exactly on their envelopes.
  const boxesByShape = solidBox && intersecting;
  const onEnvelope = anyOf([
    DROPPED_SHAPE,
    ...(literal.isBox && !boxesByShape ? [boxFootprint] : []),
  ]);
  const operand = literal.isBox ? { bbox: literal.bbox } : literal;
  // Where the envelope answer is certain for every box footprint (intersects and disjoint with
  // a box), the box footprints are never in doubt on their envelopes: leaving them out of this
  // branch lets the engine start from the few dropped geometries instead of every box footprint.
  const boxesCertain = literal.isBox && intersecting;
  const doubts: Query[] = [allOf([boxesCertain ? DROPPED_SHAPE : onEnvelope, envelopeDoubt])];
  if (solidBox) {
    const edges = edgeDoubt(relation, literal.bbox);
    if (edges) {
      doubts.push(
        allOf([hasFootprint('shape'), ...(boxesByShape ? [] : [not(boxFootprint)]), edges]),
      );
    }
  } else if (literal.isBox && west === east && south === north) {
    const near = pointsDoubt(relation, [[west, south]]);
    doubts.push(allOf([hasFootprint('shape'), not(boxFootprint), near]));
  } else if (!literal.isBox) {
    // Box footprints are related with geo_shape here, so they may be in doubt too.
    const near = literalDoubt(relation, literal.geometry);
    if (near === UNPROVEN) return { test: matchNone(), defined: matchNone(), unproven: true };
    if (near) doubts.push(allOf([hasFootprint('shape'), near]));
  }
  return {
    test: anyOf([
      allOf([not(onEnvelope), hasFootprint(mode), geoShape(operand, relation)]),
      allOf([onEnvelope, envelope]),
    ]),
    defined: anyOf([hasFootprint('shape'), allOf([DROPPED_SHAPE, hasFootprint('envelope')])]),
    doubt: anyOf(doubts),
  };
}

/**
 * The doubt query of an exact spatial filter with a box operand (compile-spatial.ts), for
 * intersects and disjoint: its first branch starts from the few dropped geometries, and a box
 * footprint (related with geo_shape) is in doubt exactly when it lies in the band around the
 * box's edges, where the engine's rounding may decide it wrongly. The claim is about
 * sets: this test evaluates the query on 20,000 generated records (a small evaluator of the DSL
 * clauses the compiler writes), with coordinates placed on, just inside and just outside the
 * operand's edges.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { Bbox } from '../../../shared/records/core-record.js';
import {
  compileExactSpatialRelation,
  type EngineSpatialRelation,
} from '../../../shared/search/engine/compile-spatial.js';
import type { Query } from '../../../shared/search/engine/dsl.js';
import { defined } from '../../support/defined.js';

type Document = Record<string, number | string | boolean>;

/**
 * Evaluates the bool / range / term / exists / match_* / geo_shape (envelopes) clauses the
 * spatial compiler writes.
 */
function matches(query: Query, document: Document): boolean {
  const [kind, body] = Object.entries(query)[0] as [string, Record<string, unknown>];
  switch (kind) {
    case 'match_all':
      return true;
    case 'match_none':
      return false;
    case 'exists':
      return document[body.field as string] !== undefined;
    case 'term': {
      const [field, value] = defined(Object.entries(body)[0], 'a term');
      return document[field] === value;
    }
    case 'range': {
      const [field, bounds] = Object.entries(body)[0] as [string, Record<string, number>];
      const value = document[field];
      if (typeof value !== 'number') return false;
      return (
        (bounds.gte === undefined || value >= bounds.gte) &&
        (bounds.gt === undefined || value > bounds.gt) &&
        (bounds.lte === undefined || value <= bounds.lte) &&
        (bounds.lt === undefined || value < bounds.lt)
      );
    }
    case 'bool': {
      const all = [...((body.filter as Query[]) ?? []), ...((body.must as Query[]) ?? [])];
      const some = (body.should as Query[]) ?? [];
      const none = (body.must_not as Query[]) ?? [];
      return (
        all.every((clause) => matches(clause, document)) &&
        (some.length === 0 || some.some((clause) => matches(clause, document))) &&
        !none.some((clause) => matches(clause, document))
      );
    }
    case 'geo_shape': {
      // The engine without its rounding: the footprint is taken to be its box halves (what
      // the generated records hold), which is exact for box footprints.
      const { shape, relation } = defined(
        (body as Record<string, { shape: unknown; relation: string }>).geometry,
        'a geo_shape on geometry',
      );
      const { type, coordinates } = shape as {
        type: string;
        coordinates: [[number, number], [number, number]];
      };
      if (type !== 'envelope') throw new Error(`the evaluator does not know geo_shape ${type}`);
      const [[west, north], [east, south]] = coordinates;
      if (document._ignored === 'geometry') return false;
      const halves = [0, 1].flatMap((part) => {
        const side = (name: string) => document[`box${part}.${name}`] as number | undefined;
        const minx = side('minx');
        return minx === undefined
          ? []
          : [{ minx, maxx: side('maxx')!, miny: side('miny')!, maxy: side('maxy')! }];
      });
      const meets = (h: (typeof halves)[number]) =>
        h.minx <= east && h.maxx >= west && h.miny <= north && h.maxy >= south;
      switch (relation) {
        case 'intersects':
          return halves.some(meets);
        case 'contains':
          return halves.some(
            (h) => h.minx <= west && h.maxx >= east && h.miny <= south && h.maxy >= north,
          );
        case 'within':
          return (
            halves.length > 0 &&
            halves.every(
              (h) => h.minx >= west && h.maxx <= east && h.miny >= south && h.maxy <= north,
            )
          );
        default:
          throw new Error(`the evaluator does not know geo_shape ${relation}`);
      }
    }
    default:
      throw new Error(`the evaluator does not know ${kind}`);
  }
}

const BAND = 1e-6;
const RELATIONS: EngineSpatialRelation[] = ['intersects', 'disjoint', 'within', 'contains'];
const RUNS = 20_000;

/** A box operand that does not cross the antimeridian, from very thin to wide. */
const operand = fc
  .record({
    west: fc.double({ min: -179, max: 170, noNaN: true }),
    south: fc.double({ min: -89, max: 80, noNaN: true }),
    width: fc.oneof(
      fc.constant(BAND),
      fc.double({ min: 0, max: 1e-5, noNaN: true }),
      fc.double({ min: 0, max: 9, noNaN: true }),
    ),
    height: fc.oneof(
      fc.constant(BAND),
      fc.double({ min: 0, max: 1e-5, noNaN: true }),
      fc.double({ min: 0, max: 9, noNaN: true }),
    ),
  })
  .map(({ west, south, width, height }): Bbox => [west, south, west + width, south + height]);

/** A coordinate near one of two edge values (within a few bands), or anywhere near them. */
const near = (a: number, b: number): fc.Arbitrary<number> =>
  fc.oneof(
    fc
      .tuple(fc.constantFrom(a, b), fc.integer({ min: -30, max: 30 }))
      .map(([value, steps]) => value + (steps * BAND) / 10),
    fc
      .integer({ min: 0, max: 1_000_000 })
      .map((step) => Math.min(a, b) - 5 + ((Math.abs(b - a) + 10) * step) / 1_000_000),
  );

/** A record with one or two box halves placed around the operand's edges. */
function recordAround([west, south, east, north]: Bbox): fc.Arbitrary<Document> {
  const half = fc
    .tuple(near(west, east), near(west, east), near(south, north), near(south, north))
    .map(([x1, x2, y1, y2]) => ({
      minx: Math.min(x1, x2),
      maxx: Math.max(x1, x2),
      miny: Math.min(y1, y2),
      maxy: Math.max(y1, y2),
    }));
  return fc
    .record({
      first: half,
      second: fc.option(half, { nil: undefined }),
      box: fc.boolean(),
      dropped: fc.boolean(),
    })
    .map(({ first, second, box, dropped }) => {
      const document: Document = { geometry: 'present' };
      for (const [part, value] of [first, second].entries()) {
        if (!value) continue;
        for (const [side, coordinate] of Object.entries(value)) {
          document[`box${part}.${side}`] = coordinate;
        }
      }
      if (box) document.boxFootprint = true;
      if (dropped) document._ignored = 'geometry';
      return document;
    });
}

const cases = operand.chain((bbox) =>
  fc.tuple(fc.constant(bbox), recordAround(bbox), fc.constantFrom(...RELATIONS)),
);

describe('spatial doubt queries (compile-spatial.ts)', () => {
  it('intersects and disjoint with a box: a box footprint is in doubt exactly when it meets the grown box and misses the shrunk one; a dropped geometry across an edge is', () => {
    let inDoubt = 0;
    let boxesInDoubt = 0;
    fc.assert(
      fc.property(cases, ([bbox, document, relation]) => {
        if (relation !== 'intersects' && relation !== 'disjoint') return true;
        const { doubt } = compileExactSpatialRelation('shape', relation, {
          geometry: { type: 'Polygon', coordinates: [] },
          bbox,
          isBox: true,
        });
        const found = matches(doubt!, document);
        if (found) inDoubt += 1;
        if (document.boxFootprint !== true || document._ignored === 'geometry') return true;
        // The band by plain arithmetic on the record's halves (the operand does not cross the
        // antimeridian here; a shrunk box that vanishes meets nothing).
        const [west, south, east, north] = bbox;
        type Box = [number, number, number, number];
        const meets = ([w, s, e, n]: Box) =>
          [0, 1].some((part) => {
            const side = (name: string) => document[`box${part}.${name}`] as number | undefined;
            const minx = side('minx');
            return (
              minx !== undefined &&
              minx <= e &&
              side('maxx')! >= w &&
              side('miny')! <= n &&
              side('maxy')! >= s
            );
          });
        const outer: Box = [west - BAND, south - BAND, east + BAND, north + BAND];
        const inner: Box = [west + BAND, south + BAND, east - BAND, north - BAND];
        const innerExists = inner[0] <= inner[2] && inner[1] <= inner[3];
        const expected =
          west !== east &&
          south !== north &&
          meets(
            outer.map((value, i) =>
              Math.max(i % 2 ? -90 : -180, Math.min(i % 2 ? 90 : 180, value)),
            ) as Box,
          ) &&
          !(innerExists && meets(inner));
        if (found) boxesInDoubt += 1;
        return found === expected;
      }),
      { numRuns: RUNS },
    );
    expect(boxesInDoubt).to.be.greaterThan(RUNS / 200);
    expect(inDoubt).to.be.greaterThan(RUNS / 50);
    const { doubt } = compileExactSpatialRelation('shape', 'intersects', {
      geometry: { type: 'Polygon', coordinates: [] },
      bbox: [0, 0, 10, 10],
      isBox: true,
    });
    // The dropped geometries lead the branch: a required clause the engine can start from.
    const [first] = (doubt as { bool: { should: { bool: { filter: Query[] } }[] } }).bool.should;
    expect(first?.bool.filter).to.deep.include({ term: { _ignored: 'geometry' } });
    const across = { 'box0.minx': 9, 'box0.maxx': 11, 'box0.miny': 1, 'box0.maxy': 2 };
    expect(matches(doubt!, { ...across, _ignored: 'geometry' })).to.equal(true);
    expect(matches(doubt!, { ...across, _ignored: 'geometry', boxFootprint: true })).to.equal(
      false,
    );
    expect(matches(doubt!, { ...across, geometry: 'present' })).to.equal(false);
  });
});

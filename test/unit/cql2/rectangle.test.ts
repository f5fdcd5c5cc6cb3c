/**
 * The filter checker accepts an axis-aligned rectangle without asking jsts whether it is valid
 * (bbox-geometry.ts `isRectangle`), and the engine compiler treats such a footprint or literal
 * as its box. Both rest on one claim: every ring `isRectangle` accepts is a valid polygon whose
 * area is exactly its bounding box. jsts, which the team did not write, is the judge: on
 * generated rings of five positions taken from a few coordinates (so that shared corners,
 * repeated points, bowties and degenerate rings are common), whatever `isRectangle` accepts,
 * jsts finds valid and equal to its envelope.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { Polygon, Position } from 'geojson';
import { isRectangle } from '../../../shared/query/bbox-geometry.js';
import { readGeometry } from '../../../shared/query/cql2-functions.js';
import { checkFilter } from '../../../shared/query/check-filter.js';
import { parseCql2Json } from '../../../shared/query/cql2/parse-cql2-json.js';
import { isBoxGeometry } from '../../../shared/search/engine/engine-document.js';
import { defined } from '../../support/defined.js';

const polygon = (ring: Position[]): Polygon => ({ type: 'Polygon', coordinates: [ring] });

/** What jsts says: valid, and covering exactly its envelope (area equal to the box's). */
function jstsRectangle(geometry: Polygon): boolean {
  const read = readGeometry(geometry) as unknown as {
    isValid(): boolean;
    getArea(): number;
    getEnvelope(): { getArea(): number };
  };
  return read.isValid() && read.getArea() > 0 && read.getArea() === read.getEnvelope().getArea();
}

describe('axis-aligned rectangles (isRectangle)', () => {
  const [west, south, east, north] = [-10, 40, 20, 60];

  it('accepts a box ring from any corner, in either direction', () => {
    const corners: Position[] = [
      [west, south],
      [east, south],
      [east, north],
      [west, north],
    ];
    for (let start = 0; start < 4; start += 1) {
      for (const direction of [1, 3]) {
        const ring = [0, 1, 2, 3, 4].map((step) =>
          defined(corners[(start + direction * step) % 4], 'a corner'),
        );
        expect(isRectangle(polygon(ring)), JSON.stringify(ring)).to.equal(true);
        expect(jstsRectangle(polygon(ring))).to.equal(true);
      }
    }
  });

  it('refuses a bowtie through the four corners, an open ring, a hole and a flat ring', () => {
    const bowtie = polygon([
      [west, south],
      [east, north],
      [east, south],
      [west, north],
      [west, south],
    ]);
    expect(isRectangle(bowtie)).to.equal(false);
    expect(isBoxGeometry(bowtie)).to.equal(false);
    expect(
      isRectangle(
        polygon([
          [west, south],
          [east, south],
          [east, north],
          [west, north],
          [west, south + 1],
        ]),
      ),
    ).to.equal(false);
    const box = polygon([
      [west, south],
      [east, south],
      [east, north],
      [west, north],
      [west, south],
    ]);
    expect(
      isRectangle({ ...box, coordinates: [...box.coordinates, ...box.coordinates.slice(0, 1)] }),
    ).to.equal(false);
    expect(
      isRectangle(
        polygon([
          [west, south],
          [east, south],
          [east, south],
          [west, south],
          [west, south],
        ]),
      ),
    ).to.equal(false);
  });

  it('everything it accepts, jsts finds a valid polygon covering exactly its box', () => {
    const coordinate = fc.constantFrom(-10, 0, 20);
    const position = fc.tuple(coordinate, coordinate).map(([x, y]) => [x, y] as Position);
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(position, { minLength: 4, maxLength: 4 }), (positions) => {
        const ring = [...positions, ...positions.slice(0, 1)];
        if (!isRectangle(polygon(ring))) return;
        accepted += 1;
        expect(jstsRectangle(polygon(ring)), JSON.stringify(ring)).to.equal(true);
      }),
      { numRuns: 5000 },
    );
    // The property must have been exercised, not passed vacuously.
    expect(accepted).to.be.greaterThan(20);
  });

  it('the filter checker still refuses an invalid polygon (jsts decides what is not a box)', () => {
    const filter = (ring: Position[]) =>
      parseCql2Json({ op: 's_intersects', args: [{ property: 'geometry' }, polygon(ring)] });
    expect(() =>
      checkFilter(
        filter([
          [west, south],
          [east, north],
          [east, south],
          [west, north],
          [west, south],
        ]),
      ),
    ).to.throw(/not a valid geometry/);
    expect(() =>
      checkFilter(
        filter([
          [west, south],
          [east, south],
          [east, north],
          [west, north],
          [west, south],
        ]),
      ),
    ).not.to.throw();
  });
});

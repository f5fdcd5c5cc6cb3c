/**
 * The band around a polygon literal (shared/query/geometry-band.ts), judged by jsts's own
 * distance operation: every vertex of the grown polygon lies at least the margin away from the
 * original (outside it), every vertex of the shrunk one at least the margin inside; rings come
 * in right-hand order; polygons with too many vertices or spanning half the globe get no band.
 */
import { expect } from 'chai';
import type { Polygon, Position } from 'geojson';
import { readGeometry } from '../../../shared/query/cql2-functions.js';
import { MAX_BAND_VERTICES, polygonBand } from '../../../shared/query/geometry-band.js';
import { defined } from '../../support/defined.js';

const MARGIN = 1e-6;

interface Measured {
  distance(other: unknown): number;
  contains(other: unknown): boolean;
  getBoundary(): unknown;
}

const read = (geometry: unknown) => readGeometry(geometry as Polygon) as unknown as Measured;

/** Twice the signed area of a ring: positive when counter-clockwise. */
function signedArea(ring: Position[]): number {
  let sum = 0;
  for (const [i, [x1, y1]] of ring.entries()) {
    const next = ring[i + 1];
    if (next === undefined) break;
    const [x2, y2] = next;
    sum += defined(x1, 'x') * defined(y2, 'y') - defined(x2, 'x') * defined(y1, 'y');
  }
  return sum;
}

const star = (n: number): Polygon => {
  const ring = Array.from({ length: n }, (_, i) => {
    const angle = (2 * Math.PI * i) / n;
    const radius = i % 2 ? 10 : 6;
    return [20 + radius * Math.cos(angle), 45 + radius * Math.sin(angle)];
  });
  return { type: 'Polygon', coordinates: [[...ring, ...ring.slice(0, 1)]] };
};

describe('the band around a polygon literal (polygonBand)', () => {
  for (const [name, polygon] of [
    [
      'a triangle',
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [10, 0],
            [0, 10],
            [0, 0],
          ],
        ],
      },
    ],
    ['a 40-point star (sharp and reflex corners)', star(40)],
    [
      'a square touching the pole and the antimeridian',
      {
        type: 'Polygon',
        coordinates: [
          [
            [170, 80],
            [180, 80],
            [180, 90],
            [170, 90],
            [170, 80],
          ],
        ],
      },
    ],
  ] as [string, Polygon][]) {
    it(`${name}: grown by the margin, shrunk by it, right-hand rings`, () => {
      const band = polygonBand(polygon, MARGIN);
      expect(band).to.not.equal(undefined);
      const original = read(polygon);
      const boundary = original.getBoundary();
      const outer = band!.outer as Polygon;
      expect(read(outer).contains(original)).to.equal(true);
      for (const [x = Number.NaN, y = Number.NaN] of outer.coordinates.flat()) {
        const point = read({ type: 'Point', coordinates: [x, y] });
        const onGlobeEdge = Math.abs(x) === 180 || Math.abs(y) === 90;
        if (!onGlobeEdge) expect(point.distance(boundary)).to.be.at.least(MARGIN * 0.999);
        expect(x).to.be.within(-180, 180);
        expect(y).to.be.within(-90, 90);
      }
      expect(signedArea(defined(outer.coordinates[0], 'the outer ring'))).to.be.greaterThan(0);
      const inner = band!.inner as Polygon;
      expect(original.contains(read(inner))).to.equal(true);
      for (const [x, y] of inner.coordinates.flat()) {
        const point = read({ type: 'Point', coordinates: [x, y] });
        expect(point.distance(boundary)).to.be.at.least(MARGIN * 0.999);
      }
      expect(signedArea(defined(inner.coordinates[0], 'the inner ring'))).to.be.greaterThan(0);
    });
  }

  it('a polygon thinner than twice the margin has an outer band and no inner one', () => {
    const sliver: Polygon = {
      type: 'Polygon',
      coordinates: [
        [
          [0, 0],
          [10, 0],
          [10, 1e-6],
          [0, 0],
        ],
      ],
    };
    const band = polygonBand(sliver, MARGIN);
    expect(band?.outer.type).to.equal('Polygon');
    expect(band?.inner).to.equal(undefined);
  });

  it(`gives no band past ${MAX_BAND_VERTICES} vertices or across half the globe`, () => {
    expect(polygonBand(star(MAX_BAND_VERTICES), MARGIN)).to.equal(undefined);
    expect(polygonBand(star(MAX_BAND_VERTICES - 2), MARGIN)).to.not.equal(undefined);
    const wide: Polygon = {
      type: 'Polygon',
      coordinates: [
        [
          [-100, 0],
          [90, 0],
          [0, 10],
          [-100, 0],
        ],
      ],
    };
    expect(polygonBand(wide, MARGIN)).to.equal(undefined);
  });
});

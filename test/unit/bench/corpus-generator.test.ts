import { expect } from 'chai';
import { generateRecord } from '../../../scripts/corpus/generator.js';
import { defined } from '../../support/defined.js';

/** Every polygon ring of a GeoJSON Polygon or MultiPolygon. */
function rings(geometry: { type: string; coordinates: unknown }): number[][][] {
  if (geometry.type === 'Polygon') return geometry.coordinates as number[][][];
  return (geometry.coordinates as number[][][][]).flat();
}

function width(ring: number[][]): number {
  const longitudes = ring.map(([longitude]) => defined(longitude, 'a longitude'));
  return Math.max(...longitudes) - Math.min(...longitudes);
}

describe('corpus generator footprints', () => {
  it('writes a box that begins on the antimeridian once rounded as not crossing it', () => {
    // Record 12,481 of seed 42 drew a box from 179.99999… east across the antimeridian: rounded,
    // [180, s, -174.434, n], whose eastern half had no width (SFEOS's geo_shape refused it).
    const record = generateRecord(12_481, 42) as unknown as {
      bbox: number[];
      geometry: { type: string; coordinates: unknown };
    };
    expect(record.bbox).to.deep.equal([-180, -19.7398, -174.434, -16.0394]);
    expect(record.geometry.type).to.equal('Polygon');
  });

  it('gives every polygon of the first 15,000 records of seed 42 a width', () => {
    for (let index = 0; index < 15_000; index += 1) {
      const geometry = (
        generateRecord(index, 42) as unknown as {
          geometry?: { type: string; coordinates: unknown } | null;
        }
      ).geometry;
      if (!geometry) continue;
      for (const ring of rings(geometry))
        expect(width(ring), `record ${index}`).to.be.greaterThan(0);
    }
  });
});

/**
 * The pure pieces behind Records items for GDAL/QGIS and pygeoapi clients: the footprint of a
 * record with only a bbox, the EPSG:4326 axis swap of every geometry type, and the parsing of
 * `crs`, `bbox-crs`, `properties`, `skipGeometry` and `lang`.
 */
import { expect } from 'chai';
import type { Geometry } from 'geojson';
import { CairnError } from '../../shared/errors/index.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import type { CoreRecord } from '../../shared/records/core-record.js';
import {
  EPSG_4326_URI,
  CRS84_URI,
  parseItemsPresentation,
  parseItemsQuery,
} from '../../services/api/protocols/records/parse.js';
import {
  presentRecord,
  recordFootprint,
  swapGeometryAxes,
} from '../../services/api/protocols/records/present.js';
import { defined } from '../support/defined.js';

const LIMITS = { defaultLimit: 10, maxLimit: 100 };

function record(feature: Record<string, unknown>): CoreRecord {
  const parsed = parseDocuments(
    JSON.stringify({
      type: 'Feature',
      links: [],
      properties: { title: 'T', type: 'dataset' },
      ...feature,
    }),
  );
  expect(parsed.failures).to.deep.equal([]);
  return defined(parsed.records[0], 'the record');
}

function errorOf(action: () => unknown): CairnError {
  try {
    action();
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('Records presentation for GDAL/QGIS and pygeoapi clients', () => {
  describe('recordFootprint', () => {
    it('is the geometry when there is one, else the bbox polygon, else null', () => {
      const point: Geometry = { type: 'Point', coordinates: [1, 2] };
      expect(recordFootprint(record({ id: 'a', geometry: point }))).to.deep.equal(point);
      expect(
        recordFootprint(record({ id: 'b', geometry: null, bbox: [0, 1, 2, 3] })),
      ).to.deep.equal({
        type: 'Polygon',
        coordinates: [
          [
            [0, 1],
            [2, 1],
            [2, 3],
            [0, 3],
            [0, 1],
          ],
        ],
      });
      expect(recordFootprint(record({ id: 'c', geometry: null }))).to.equal(null);
    });

    it('splits a box across the antimeridian into two polygons', () => {
      const footprint = recordFootprint(
        record({ id: 'd', geometry: null, bbox: [170, 0, -170, 5] }),
      );
      expect(footprint?.type).to.equal('MultiPolygon');
      const halves = (footprint as { coordinates: number[][][][] }).coordinates;
      expect(halves.map((polygon) => [polygon[0]?.[0]?.[0], polygon[0]?.[1]?.[0]])).to.deep.equal([
        [170, 180],
        [-180, -170],
      ]);
    });
  });

  describe('swapGeometryAxes', () => {
    it('swaps the first two ordinates of every position, keeping heights', () => {
      expect(swapGeometryAxes({ type: 'Point', coordinates: [1, 2, 3] })).to.deep.equal({
        type: 'Point',
        coordinates: [2, 1, 3],
      });
      expect(
        swapGeometryAxes({
          type: 'GeometryCollection',
          geometries: [
            {
              type: 'LineString',
              coordinates: [
                [1, 2],
                [3, 4],
              ],
            },
            { type: 'MultiPoint', coordinates: [[5, 6]] },
          ],
        }),
      ).to.deep.equal({
        type: 'GeometryCollection',
        geometries: [
          {
            type: 'LineString',
            coordinates: [
              [2, 1],
              [4, 3],
            ],
          },
          { type: 'MultiPoint', coordinates: [[6, 5]] },
        ],
      });
    });

    it('writes a record latitude first, bbox included, and leaves the stored record alone', () => {
      const boxed = record({ id: 'e', geometry: null, bbox: [10, 40, 20, 50] });
      const feature = presentRecord(boxed, 'http://x', { axisOrder: 'lat-lon' });
      expect(feature.bbox).to.deep.equal([40, 10, 50, 20]);
      expect((feature.geometry as { coordinates: number[][][] }).coordinates[0]?.[1]).to.deep.equal(
        [40, 20],
      );
      expect(boxed.bbox).to.deep.equal([10, 40, 20, 50]);
    });

    it('keeps only the listed properties and drops the geometry on request', () => {
      const feature = presentRecord(
        record({ id: 'f', geometry: null, bbox: [0, 0, 1, 1] }),
        'http://x',
        {
          properties: ['title', 'nosuch'],
          skipGeometry: true,
        },
      );
      expect(feature.properties).to.deep.equal({ title: 'T' });
      expect(feature.geometry).to.equal(null);
    });

    it('gives a record whose source has no title the empty title the standard requires', () => {
      const untitled = record({ id: 'g', geometry: null, properties: { type: 'dataset' } });
      expect(untitled.title).to.equal(undefined);
      expect(presentRecord(untitled, 'http://x').properties).to.include({ title: '' });
    });
  });

  describe('parseItemsPresentation and bbox-crs', () => {
    it('reads crs: CRS84 by default, EPSG:4326 URI and URN latitude first', () => {
      expect(parseItemsPresentation({})).to.deep.include({ axisOrder: 'lon-lat', crs: CRS84_URI });
      for (const crs of [EPSG_4326_URI, 'urn:ogc:def:crs:EPSG::4326']) {
        expect(parseItemsPresentation({ crs })).to.deep.include({
          axisOrder: 'lat-lon',
          crs: EPSG_4326_URI,
        });
      }
      expect(parseItemsPresentation({ crs: '[OGC:CRS84]' }).axisOrder).to.equal('lon-lat');
      expect(errorOf(() => parseItemsPresentation({ crs: 'EPSG:3857' })).message).to.match(
        /crs "EPSG:3857" is not supported/,
      );
    });

    it('reads a bbox in EPSG:4326 latitude first, 4 or 6 numbers, across the antimeridian', () => {
      const spatial = (bbox: string) =>
        parseItemsQuery({ bbox, 'bbox-crs': EPSG_4326_URI }, LIMITS).spatial;
      expect(spatial('40,10,50,20')).to.deep.equal({
        bbox: [10, 40, 20, 50],
        relation: 'intersects',
      });
      expect(spatial('40,10,0,50,20,100')?.bbox).to.deep.equal([10, 40, 20, 50]);
      expect(spatial('-5,170,5,-170')?.bbox).to.deep.equal([170, -5, -170, 5]);
      // Out of range once read in the right order: latitude 100 is refused.
      expect(errorOf(() => spatial('100,10,0,20')).code).to.equal('INVALID_PARAMETER');
    });

    it('checks properties, skipGeometry and lang', () => {
      expect(parseItemsPresentation({ properties: 'title, type' }).properties).to.deep.equal([
        'title',
        'type',
      ]);
      expect(parseItemsPresentation({ skipGeometry: 'true' }).skipGeometry).to.equal(true);
      // Exactly true or false, as the OpenAPI document's boolean (the searches skip the validator).
      expect(errorOf(() => parseItemsPresentation({ skipGeometry: 'TRUE' })).code).to.equal(
        'INVALID_PARAMETER',
      );
      expect(errorOf(() => parseItemsPresentation({ properties: 'a b' })).code).to.equal(
        'INVALID_PARAMETER',
      );
      expect(errorOf(() => parseItemsPresentation({ skipGeometry: '1' })).code).to.equal(
        'INVALID_PARAMETER',
      );
      expect(parseItemsPresentation({ lang: 'fr-CA' }).skipGeometry).to.equal(false);
      expect(errorOf(() => parseItemsPresentation({ lang: 'fr_CA!' })).code).to.equal(
        'INVALID_PARAMETER',
      );
    });
  });
});

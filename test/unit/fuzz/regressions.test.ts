/**
 * Minimised inputs the unit fuzz suites found, kept as ordinary tests: each once crashed a
 * parser or a writer, and must now be read (or refused) with a typed outcome.
 */
import { expect } from 'chai';
import { parseDocuments } from '../../../shared/records/formats/index.js';

describe('unit fuzz regressions', () => {
  it('a GeoJSON geometry whose coordinates nest at the wrong depth for its type is refused as invalid (it was accepted and crashed the ISO 19139 writer)', () => {
    for (const geometry of [
      { type: 'Polygon', coordinates: [1, 2, 3] },
      {
        type: 'MultiPolygon',
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 0],
          ],
        ],
      },
      { type: 'Point', coordinates: [[1, 2]] },
      { type: 'LineString', coordinates: [1, 2] },
    ]) {
      const feature = {
        type: 'Feature',
        id: 'wrong-depth',
        conformsTo: ['http://www.opengis.net/spec/ogcapi-records-1/1.0/req/record-core'],
        time: null,
        geometry,
        bbox: [169.7, -47.2, 177.4, -45.2],
        properties: { type: 'dataset', title: 'Wrong depth' },
        links: [],
      };
      const parsed = parseDocuments(JSON.stringify(feature));
      expect(parsed.records, geometry.type).to.deep.equal([]);
      expect(parsed.failures[0]?.reason, geometry.type).to.match(/invalid GeoJSON geometry/);
    }
  });
});

import { expect } from 'chai';
import type { Polygon, Position } from 'geojson';
import { InvalidParameterError } from '../../../shared/errors/index.js';
import type { Expression } from '../../../shared/query/filter-ast.js';
import { checkFilter } from '../../../shared/query/check-filter.js';
import {
  buildCircleArea,
  EARTH_RADIUS_METRES,
  OPENSEARCH_PARAMETERS,
  parseOpenSearchParameters,
} from '../../../shared/query/opensearch/index.js';
import { defined } from '../../support/defined.js';

const prop = (name: string): Expression => ({ kind: 'property', name });
const lit = (value: string | number): Expression => ({ kind: 'literal', value });
const op = (name: string, ...args: Expression[]): Expression => ({ kind: 'op', op: name, args });

function expectInvalid(params: Record<string, string>, locator: string, fragment = ''): void {
  try {
    parseOpenSearchParameters(params);
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidParameterError);
    expect((error as InvalidParameterError).locator).to.equal(locator);
    expect((error as Error).message).to.contain(fragment);
    return;
  }
  expect.fail(`expected an InvalidParameterError for ${locator}`);
}

/** Great-circle distance in metres (haversine). */
function distance(
  [lon1 = Number.NaN, lat1 = Number.NaN]: Position,
  [lon2 = Number.NaN, lat2 = Number.NaN]: Position,
): number {
  const rad = Math.PI / 180;
  const a =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * EARTH_RADIUS_METRES * Math.asin(Math.sqrt(a));
}

describe('parseOpenSearchParameters', () => {
  it('returns nothing for no (or only empty / unknown) parameters', () => {
    expect(parseOpenSearchParameters({})).to.deep.equal({});
    expect(
      parseOpenSearchParameters({
        searchTerms: '',
        'geo:box': ' ',
        'time:start': '',
        'eo:cloudCover': '',
        count: '10',
        startIndex: '3',
        'geo:name': 'Paris',
      }),
    ).to.deep.equal({});
  });

  it('lists the parameters it understands', () => {
    expect(OPENSEARCH_PARAMETERS).to.include.members([
      'searchTerms',
      'geo:box',
      'geo:geometry',
      'geo:uid',
      'geo:lat',
      'geo:lon',
      'geo:radius',
      'geo:relation',
      'time:start',
      'time:end',
      'time:relation',
      'eo:cloudCover',
      'eo:snowCover',
      'eo:orbitNumber',
      'eo:instrument',
      'eo:platform',
      'eo:orbitDirection',
      'eo:processingLevel',
      'eo:productType',
      'eo:sensorType',
      'eo:spectralRange',
    ]);
  });

  describe('searchTerms', () => {
    it('→ free-text terms (comma alternatives of ANDed words)', () => {
      expect(parseOpenSearchParameters({ searchTerms: 'sea ice' })).to.deep.equal({
        text: [['sea', 'ice']],
      });
      expect(parseOpenSearchParameters({ searchTerms: 'Fuscé Land, titles' })).to.deep.equal({
        text: [['Fuscé', 'Land'], ['titles']],
      });
      expect(parseOpenSearchParameters({ searchTerms: ' , ' })).to.deep.equal({});
    });
  });

  describe('geo:box', () => {
    it('→ a CRS84 bbox with the default relation intersects', () => {
      expect(parseOpenSearchParameters({ 'geo:box': '-6.17,44.79,17.92,68.41' })).to.deep.equal({
        spatial: { bbox: [-6.17, 44.79, 17.92, 68.41], relation: 'intersects' },
      });
    });

    it('keeps west > east as an antimeridian-crossing box', () => {
      expect(parseOpenSearchParameters({ 'geo:box': '170,-20,-170,-10' })).to.deep.equal({
        spatial: { bbox: [170, -20, -170, -10], relation: 'intersects' },
      });
    });

    it('refuses wrong counts, projected numbers (CITE invalidBoundingBoxCoords) and south > north', () => {
      expectInvalid({ 'geo:box': '1,2,3' }, 'geo:box', '4 or 6');
      expectInvalid({ 'geo:box': '500000,4000000,600000,4100000' }, 'geo:box', 'range');
      expectInvalid({ 'geo:box': '0,10,5,5' }, 'geo:box', 'south');
      expectInvalid({ 'geo:box': 'a,b,c,d' }, 'geo:box', 'numbers');
    });
  });

  describe('geo:geometry', () => {
    it('→ a GeoJSON geometry', () => {
      expect(
        parseOpenSearchParameters({ 'geo:geometry': 'POLYGON((0 0,10 0,10 10,0 10,0 0))' }),
      ).to.deep.equal({
        spatial: {
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [0, 0],
                [10, 0],
                [10, 10],
                [0, 10],
                [0, 0],
              ],
            ],
          },
          relation: 'intersects',
        },
      });
    });

    it('refuses bad WKT and applies the vertex limit', () => {
      expectInvalid({ 'geo:geometry': 'POLYGON((0 0,1 1))' }, 'geo:geometry');
      expect(() =>
        parseOpenSearchParameters(
          { 'geo:geometry': 'LINESTRING(0 0,1 1,2 2)' },
          { maxVertices: 2 },
        ),
      ).to.throw(InvalidParameterError, 'more than 2');
    });
  });

  describe('geo:relation', () => {
    for (const relation of ['intersects', 'contains', 'disjoint', 'within', 'equals'] as const) {
      it(`${relation}`, () => {
        expect(
          parseOpenSearchParameters({ 'geo:box': '0,0,1,1', 'geo:relation': relation }),
        ).to.deep.equal({ spatial: { bbox: [0, 0, 1, 1], relation } });
      });
    }

    it('is case-insensitive, and refuses unknown relations even without a geometry', () => {
      expect(
        parseOpenSearchParameters({ 'geo:box': '0,0,1,1', 'geo:relation': 'Contains' }).spatial
          ?.relation,
      ).to.equal('contains');
      expectInvalid({ 'geo:relation': 'overlaps' }, 'geo:relation', 'overlaps');
    });
  });

  describe('geo:lat / geo:lon / geo:radius', () => {
    it('lat/lon alone → a point', () => {
      expect(parseOpenSearchParameters({ 'geo:lat': '52.1', 'geo:lon': '4.3' })).to.deep.equal({
        spatial: { geometry: { type: 'Point', coordinates: [4.3, 52.1] }, relation: 'intersects' },
      });
    });

    it('with a radius → a closed counter-clockwise 64-gon whose vertices lie on the circle', () => {
      const result = parseOpenSearchParameters({
        'geo:lat': '52.1',
        'geo:lon': '4.3',
        'geo:radius': '25000',
        'geo:relation': 'within',
      });
      expect(result.spatial?.relation).to.equal('within');
      const polygon = result.spatial?.geometry as Polygon;
      expect(polygon.type).to.equal('Polygon');
      const ring = defined(polygon.coordinates[0], 'the ring');
      expect(ring).to.have.length(65);
      expect(ring[0]).to.deep.equal(ring[64]);
      for (const vertex of ring) expect(distance([4.3, 52.1], vertex)).to.be.closeTo(25000, 0.01);
      // Shoelace: positive area = counter-clockwise.
      let area = 0;
      for (const [i, [x1 = Number.NaN, y1 = Number.NaN]] of ring.entries()) {
        const next = ring[i + 1];
        if (next === undefined) break;
        const [x2 = Number.NaN, y2 = Number.NaN] = next;
        area += x1 * y2 - x2 * y1;
      }
      expect(area).to.be.greaterThan(0);
    });

    it('a circle across the antimeridian → its bounding box, west > east', () => {
      const result = parseOpenSearchParameters({
        'geo:lat': '0',
        'geo:lon': '179.9',
        'geo:radius': '50000',
      });
      const bbox = result.spatial?.bbox as [number, number, number, number];
      expect(bbox[0]).to.be.greaterThan(bbox[2]);
      expect(bbox[0]).to.be.closeTo(179.9 - 0.4497, 0.001);
      expect(bbox[2]).to.be.closeTo(179.9 + 0.4497 - 360, 0.001);
      expect(bbox[1]).to.be.closeTo(-0.4497, 0.001);
      expect(bbox[3]).to.be.closeTo(0.4497, 0.001);
    });

    it('a circle around a pole → the latitude band up to the pole', () => {
      expect(buildCircleArea(89.9, 0, 50_000)).to.deep.equal({
        bbox: [-180, 89.9 - (50_000 / EARTH_RADIUS_METRES) * (180 / Math.PI), 180, 90],
      });
      expect(buildCircleArea(-89.9, 10, 50_000)).to.deep.equal({
        bbox: [-180, -90, 180, -89.9 + (50_000 / EARTH_RADIUS_METRES) * (180 / Math.PI)],
      });
    });

    it('a zero radius is the point itself', () => {
      expect(
        parseOpenSearchParameters({ 'geo:lat': '1', 'geo:lon': '2', 'geo:radius': '0' }).spatial,
      ).to.deep.equal({ geometry: { type: 'Point', coordinates: [2, 1] }, relation: 'intersects' });
    });

    it('refuses incomplete or out-of-range circles', () => {
      expectInvalid({ 'geo:lat': '1' }, 'geo:lon', 'together');
      expectInvalid({ 'geo:lon': '1' }, 'geo:lat', 'together');
      expectInvalid({ 'geo:radius': '100' }, 'geo:radius', 'geo:lat');
      expectInvalid({ 'geo:lat': '91', 'geo:lon': '0' }, 'geo:lat', 'outside');
      expectInvalid({ 'geo:lat': '0', 'geo:lon': '-180.5' }, 'geo:lon', 'outside');
      expectInvalid({ 'geo:lat': 'north', 'geo:lon': '0' }, 'geo:lat', 'not a decimal');
      expectInvalid(
        { 'geo:lat': '0', 'geo:lon': '0', 'geo:radius': '-5' },
        'geo:radius',
        'outside',
      );
      expectInvalid(
        { 'geo:lat': '0', 'geo:lon': '0', 'geo:radius': '1e9' },
        'geo:radius',
        'outside',
      );
      expect(() =>
        parseOpenSearchParameters(
          { 'geo:lat': '0', 'geo:lon': '0', 'geo:radius': '2000' },
          { maxRadiusMetres: 1000 },
        ),
      ).to.throw(InvalidParameterError, 'geo:radius');
    });

    it('refuses two spatial constraints at once', () => {
      expectInvalid(
        { 'geo:box': '0,0,1,1', 'geo:geometry': 'POINT(1 1)' },
        'geo:geometry',
        'only one',
      );
      expectInvalid(
        { 'geo:box': '0,0,1,1', 'geo:lat': '1', 'geo:lon': '1' },
        'geo:lat',
        'only one',
      );
    });
  });

  describe('geo:uid', () => {
    it('→ ids (comma-separated)', () => {
      expect(parseOpenSearchParameters({ 'geo:uid': 'urn:uuid:19887a8a' })).to.deep.equal({
        ids: ['urn:uuid:19887a8a'],
      });
      expect(parseOpenSearchParameters({ 'geo:uid': 'a, b,c' })).to.deep.equal({
        ids: ['a', 'b', 'c'],
      });
    });

    it('refuses an empty list and too many ids', () => {
      expectInvalid({ 'geo:uid': ' , ' }, 'geo:uid', 'no identifier');
      expect(() =>
        parseOpenSearchParameters({ 'geo:uid': 'a,b,c' }, { maxListValues: 2 }),
      ).to.throw(InvalidParameterError, 'more than 2');
    });
  });

  describe('time:start / time:end / time:relation', () => {
    it('RFC 3339 date-times, normalised to UTC, relation intersects by default', () => {
      expect(
        parseOpenSearchParameters({
          'time:start': '2006-03-26T00:00:00+02:00',
          'time:end': '2006-03-26T12:00:00Z',
        }),
      ).to.deep.equal({
        temporal: {
          start: '2006-03-25T22:00:00.000Z',
          end: '2006-03-26T12:00:00.000Z',
          relation: 'intersects',
        },
      });
    });

    it('dates: a start date is the start of its day, an end date the end of it', () => {
      expect(
        parseOpenSearchParameters({ 'time:start': '2006-03-26', 'time:end': '2006-03-26' }),
      ).to.deep.equal({
        temporal: {
          start: '2006-03-26T00:00:00.000Z',
          end: '2006-03-26T23:59:59.999Z',
          relation: 'intersects',
        },
      });
    });

    it('either end may be open', () => {
      expect(parseOpenSearchParameters({ 'time:start': '2006-01-01' }).temporal).to.deep.equal({
        start: '2006-01-01T00:00:00.000Z',
        end: null,
        relation: 'intersects',
      });
      expect(parseOpenSearchParameters({ 'time:end': '2006-01-01' }).temporal).to.deep.equal({
        start: null,
        end: '2006-01-01T23:59:59.999Z',
        relation: 'intersects',
      });
    });

    for (const relation of ['intersects', 'during', 'disjoint', 'equals'] as const) {
      it(`time:relation=${relation}`, () => {
        expect(
          parseOpenSearchParameters({ 'time:start': '2006-01-01', 'time:relation': relation })
            .temporal?.relation,
        ).to.equal(relation);
      });
    }

    it('refuses bad times, intervals, reversed ranges and unknown relations', () => {
      expectInvalid({ 'time:start': 'yesterday' }, 'time:start', 'RFC 3339');
      expectInvalid({ 'time:end': '2006-02-30' }, 'time:end');
      expectInvalid({ 'time:start': '2006-01-01T00:00:00' }, 'time:start', 'RFC 3339');
      expectInvalid({ 'time:start': '2006-01-01/2007-01-01' }, 'time:start', 'not an interval');
      expectInvalid(
        { 'time:start': '2007-01-01', 'time:end': '2006-01-01' },
        'time:start',
        'is after',
      );
      expectInvalid({ 'time:relation': 'contains' }, 'time:relation', 'contains');
    });
  });

  describe('EO parameters', () => {
    it('each becomes a filter on its canonical name; several are ANDed', () => {
      expect(parseOpenSearchParameters({ 'eo:cloudCover': ']20' })).to.deep.equal({
        filter: checkFilter(op('>', prop('cloudCover'), lit(20))),
      });
      expect(
        parseOpenSearchParameters({
          'eo:orbitDirection': 'DESCENDING',
          'eo:cloudCover': '[0,20[',
          'eo:snowCover': '5]',
          'eo:orbitNumber': '{10,11}',
          'eo:instrument': 'MSI',
          'eo:platform': 'SPOT*',
          'eo:processingLevel': 'L1C',
          'eo:productType': 'S2MSI1C',
          'eo:sensorType': 'OPTICAL',
          'eo:spectralRange': 'INFRARED',
        }),
      ).to.deep.equal({
        filter: checkFilter(
          op(
            'and',
            op('and', op('>=', prop('cloudCover'), lit(0)), op('<', prop('cloudCover'), lit(20))),
            op('<=', prop('snowCover'), lit(5)),
            op('in', prop('orbitNumber'), { kind: 'array', items: [lit(10), lit(11)] }),
            op('like', prop('platform'), lit('SPOT%')),
            op('=', prop('instrument'), lit('MSI')),
            op('=', prop('sensorType'), lit('OPTICAL')),
            op('=', prop('orbitDirection'), lit('DESCENDING')),
            op('=', prop('processingLevel'), lit('L1C')),
            op('=', prop('productType'), lit('S2MSI1C')),
            op('=', prop('spectralRange'), lit('INFRARED')),
          ),
        ),
      });
    });

    it('refuses invalid EO values naming the parameter', () => {
      expectInvalid({ 'eo:cloudCover': '[20,10]' }, 'eo:cloudCover', 'above');
      expectInvalid({ 'eo:orbitNumber': 'x' }, 'eo:orbitNumber', 'not a number');
    });
  });

  it('combines every part (a CEOS-style request)', () => {
    expect(
      parseOpenSearchParameters({
        searchTerms: 'sentinel',
        'geo:box': '-10,35,30,60',
        'geo:relation': 'intersects',
        'time:start': '2021-06-01T00:00:00Z',
        'time:end': '2021-06-30T23:59:59Z',
        'time:relation': 'during',
        'geo:uid': 'S2A_1',
        'eo:cloudCover': '[0,10]',
      }),
    ).to.deep.equal({
      text: [['sentinel']],
      spatial: { bbox: [-10, 35, 30, 60], relation: 'intersects' },
      temporal: {
        start: '2021-06-01T00:00:00.000Z',
        end: '2021-06-30T23:59:59.000Z',
        relation: 'during',
      },
      ids: ['S2A_1'],
      filter: checkFilter(op('between', prop('cloudCover'), lit(0), lit(10))),
    });
  });
});

import { expect } from 'chai';
import { InvalidParameterError } from '../../../shared/errors/index.js';
import { parseWkt } from '../../../shared/query/opensearch/index.js';

function expectInvalid(text: string, fragment: string): void {
  try {
    parseWkt(text);
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidParameterError);
    expect((error as InvalidParameterError).locator).to.equal('geo:geometry');
    expect((error as Error).message).to.contain(fragment);
    return;
  }
  expect.fail(`expected "${text}" to be refused`);
}

describe('parseWkt (geo:geometry)', () => {
  it('POINT', () => {
    expect(parseWkt('POINT(4.35 52.01)')).to.deep.equal({
      type: 'Point',
      coordinates: [4.35, 52.01],
    });
    expect(parseWkt('  point ( -1.5e1  +2 ) ')).to.deep.equal({
      type: 'Point',
      coordinates: [-15, 2],
    });
  });

  it('LINESTRING', () => {
    expect(parseWkt('LINESTRING (30 10, 10 30, 40 40)')).to.deep.equal({
      type: 'LineString',
      coordinates: [
        [30, 10],
        [10, 30],
        [40, 40],
      ],
    });
  });

  it('POLYGON with a hole', () => {
    expect(
      parseWkt('POLYGON ((35 10, 45 45, 15 40, 10 20, 35 10),(20 30, 35 35, 30 20, 20 30))'),
    ).to.deep.equal({
      type: 'Polygon',
      coordinates: [
        [
          [35, 10],
          [45, 45],
          [15, 40],
          [10, 20],
          [35, 10],
        ],
        [
          [20, 30],
          [35, 35],
          [30, 20],
          [20, 30],
        ],
      ],
    });
  });

  it('MULTIPOINT in both spellings', () => {
    const expected = {
      type: 'MultiPoint',
      coordinates: [
        [10, 40],
        [40, 30],
      ],
    };
    expect(parseWkt('MULTIPOINT ((10 40), (40 30))')).to.deep.equal(expected);
    expect(parseWkt('MULTIPOINT (10 40, 40 30)')).to.deep.equal(expected);
  });

  it('MULTILINESTRING', () => {
    expect(parseWkt('MULTILINESTRING ((10 10, 20 20), (40 40, 30 30))')).to.deep.equal({
      type: 'MultiLineString',
      coordinates: [
        [
          [10, 10],
          [20, 20],
        ],
        [
          [40, 40],
          [30, 30],
        ],
      ],
    });
  });

  it('MULTIPOLYGON', () => {
    expect(
      parseWkt('MULTIPOLYGON (((30 20, 45 40, 10 40, 30 20)), ((15 5, 40 10, 10 20, 5 10, 15 5)))'),
    ).to.deep.equal({
      type: 'MultiPolygon',
      coordinates: [
        [
          [
            [30, 20],
            [45, 40],
            [10, 40],
            [30, 20],
          ],
        ],
        [
          [
            [15, 5],
            [40, 10],
            [10, 20],
            [5, 10],
            [15, 5],
          ],
        ],
      ],
    });
  });

  it('GEOMETRYCOLLECTION', () => {
    expect(parseWkt('GEOMETRYCOLLECTION (POINT (40 10), LINESTRING (10 10, 20 20))')).to.deep.equal(
      {
        type: 'GeometryCollection',
        geometries: [
          { type: 'Point', coordinates: [40, 10] },
          {
            type: 'LineString',
            coordinates: [
              [10, 10],
              [20, 20],
            ],
          },
        ],
      },
    );
  });

  it('drops Z, M and ZM ordinates; accepts SRID=4326', () => {
    const point = { type: 'Point', coordinates: [1, 2] };
    expect(parseWkt('POINT Z (1 2 3)')).to.deep.equal(point);
    expect(parseWkt('POINT M (1 2 3)')).to.deep.equal(point);
    expect(parseWkt('POINT ZM (1 2 3 4)')).to.deep.equal(point);
    expect(parseWkt('POINT (1 2 3)')).to.deep.equal(point);
    expect(parseWkt('SRID=4326;POINT(1 2)')).to.deep.equal(point);
  });

  it('refuses malformed, empty, out-of-range and unsupported geometries', () => {
    expectInvalid('', 'empty');
    expectInvalid('POINT', 'expected "("');
    expectInvalid('POINT()', 'needs 2 numbers, found 0');
    expectInvalid('POINT(1)', 'needs 2 numbers, found 1');
    expectInvalid('POINT(1 2 3 4)', 'needs 2 numbers, found 4');
    expectInvalid('POINT Z (1 2)', 'needs 3 numbers');
    expectInvalid('POINT(1 2', 'expected ")"');
    expectInvalid('POINT(1 2))', 'after the geometry');
    expectInvalid('POINT EMPTY', 'EMPTY');
    expectInvalid('POINT(181 0)', 'outside the EPSG:4326 range');
    expectInvalid('POINT(0 -91)', 'outside the EPSG:4326 range');
    expectInvalid('LINESTRING(1 2)', 'at least two positions');
    expectInvalid('POLYGON((0 0, 1 0, 1 1, 0 1))', 'must be closed');
    expectInvalid('POLYGON((0 0, 1 1, 0 0))', 'at least 4');
    expectInvalid('CIRCLE(1 2, 3)', 'unsupported geometry type "CIRCLE"');
    expectInvalid('POINT(1;2)', 'unexpected character ";"');
    expectInvalid('POINT(1 2) POINT(3 4)', 'after the geometry');
    expectInvalid('SRID=3857;POINT(1 2)', 'SRID=4326');
    expectInvalid('POINT(1e999 2)', 'finite');
    expectInvalid('42', 'expected a geometry type');
    expectInvalid('POINT FOO (1 2)', 'unexpected "FOO"');
  });

  it('enforces the vertex and nesting limits', () => {
    expect(() =>
      parseWkt('LINESTRING(0 0, 1 1, 2 2)', 'g', { maxVertices: 2, maxDepth: 2 }),
    ).to.throw(InvalidParameterError, 'more than 2 positions');
    expect(() =>
      parseWkt('GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(POINT(1 2))))', 'g', {
        maxVertices: 10,
        maxDepth: 2,
      }),
    ).to.throw(InvalidParameterError, 'nested deeper than 2');
  });
});

/**
 * CSW CQL_TEXT: every operator, the trees it gives (the same as CQL2 and FES give for the same
 * constraint), and the errors.
 */
import { expect } from 'chai';
import { FilterError } from '../../../shared/errors/index.js';
import type { Expression } from '../../../shared/query/filter-ast.js';
import { parseCqlText } from '../../../shared/query/cql-text/index.js';
import { parseCql2Text } from '../../../shared/query/cql2/index.js';
import { parseFesFilter } from '../../../shared/query/fes/index.js';

const prop = (name: string): Expression => ({ kind: 'property', name });
const lit = (value: string | number | boolean): Expression => ({ kind: 'literal', value });
const op = (name: string, ...args: Expression[]): Expression => ({ kind: 'op', op: name, args });

/** The FilterError message parsing `text` fails with. */
function errorOf(text: string): string {
  try {
    parseCqlText(text);
  } catch (error) {
    expect(error).to.be.instanceOf(FilterError);
    return (error as FilterError).message;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
}

/** A FES 1.1 filter around the given predicate. */
const fes = (predicate: string): string =>
  `<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="http://www.opengis.net/gml">${predicate}</ogc:Filter>`;

describe('parseCqlText', function () {
  describe('comparison operators', function () {
    it('reads = <> != < > <= >= with strings, numbers and booleans', function () {
      const cases: [string, string][] = [
        ['=', '='],
        ['<>', '<>'],
        ['!=', '<>'],
        ['<', '<'],
        ['>', '>'],
        ['<=', '<='],
        ['>=', '>='],
      ];
      for (const [written, name] of cases) {
        expect(parseCqlText(`dc:title ${written} 'it''s'`)).to.deep.equal(
          op(name, prop('dc:title'), lit("it's")),
        );
      }
      expect(parseCqlText('eo:cloudCover<=10.5')).to.deep.equal(
        op('<=', prop('eo:cloudCover'), lit(10.5)),
      );
      expect(parseCqlText('5 < x AND flag = true')).to.deep.equal(
        op('and', op('<', lit(5), prop('x')), op('=', prop('flag'), lit(true))),
      );
    });

    it('types quoted literals after registered queryables, as FES does', function () {
      expect(parseCqlText("apiso:Modified >= '2020-01-02T03:04:05.000Z'")).to.deep.equal(
        op('>=', prop('apiso:Modified'), { kind: 'timestamp', value: '2020-01-02T03:04:05Z' }),
      );
      expect(parseCqlText('apiso:Modified > 2020-01-02')).to.deep.equal(
        op('>', prop('apiso:Modified'), { kind: 'date', value: '2020-01-02' }),
      );
      expect(parseCqlText("dc:title = '2020-01-02'")).to.deep.equal(
        op('=', prop('dc:title'), lit('2020-01-02')),
      );
    });

    it('gives the tree the FES parser gives', function () {
      expect(parseCqlText("dc:title = 'x'")).to.deep.equal(
        parseFesFilter(
          fes(
            '<ogc:PropertyIsEqualTo><ogc:PropertyName>dc:title</ogc:PropertyName><ogc:Literal>x</ogc:Literal></ogc:PropertyIsEqualTo>',
          ),
        ),
      );
      expect(parseCqlText("apiso:Modified > '2020-01-02'")).to.deep.equal(
        parseFesFilter(
          fes(
            '<ogc:PropertyIsGreaterThan><ogc:PropertyName>apiso:Modified</ogc:PropertyName><ogc:Literal>2020-01-02</ogc:Literal></ogc:PropertyIsGreaterThan>',
          ),
        ),
      );
    });
  });

  describe('LIKE, BETWEEN, IN and IS NULL', function () {
    it('reads LIKE, NOT LIKE and ILIKE', function () {
      expect(parseCqlText("dc:title LIKE '%water_'")).to.deep.equal(
        op('like', prop('dc:title'), lit('%water_')),
      );
      expect(parseCqlText("dc:title NOT LIKE 'a%'")).to.deep.equal(
        op('not', op('like', prop('dc:title'), lit('a%'))),
      );
      expect(parseCqlText("dc:title ILIKE 'A%'")).to.deep.equal(
        op('like', op('casei', prop('dc:title')), op('casei', lit('A%'))),
      );
    });

    it('reads numeric BETWEEN as BETWEEN and other ranges as >= AND <=', function () {
      expect(parseCqlText('x BETWEEN 1 AND 2.5')).to.deep.equal(
        op('between', prop('x'), lit(1), lit(2.5)),
      );
      expect(parseCqlText("apiso:Modified NOT BETWEEN '2020-01-01' AND 2021-01-01")).to.deep.equal(
        op(
          'not',
          op(
            'and',
            op('>=', prop('apiso:Modified'), { kind: 'date', value: '2020-01-01' }),
            op('<=', prop('apiso:Modified'), { kind: 'date', value: '2021-01-01' }),
          ),
        ),
      );
    });

    it('reads IN, NOT IN, IS NULL and IS NOT NULL', function () {
      expect(parseCqlText("dc:type IN ('dataset', 'series')")).to.deep.equal(
        op('in', prop('dc:type'), { kind: 'array', items: [lit('dataset'), lit('series')] }),
      );
      expect(parseCqlText('x NOT IN (1)')).to.deep.equal(
        op('not', op('in', prop('x'), { kind: 'array', items: [lit(1)] })),
      );
      expect(parseCqlText('x IS NULL OR y IS NOT NULL')).to.deep.equal(
        op('or', op('isNull', prop('x')), op('not', op('isNull', prop('y')))),
      );
    });
  });

  describe('logical operators', function () {
    it('binds NOT over AND over OR, with parentheses', function () {
      expect(parseCqlText('a = 1 OR NOT b = 2 AND (c = 3 OR d = 4)')).to.deep.equal(
        op(
          'or',
          op('=', prop('a'), lit(1)),
          op(
            'and',
            op('not', op('=', prop('b'), lit(2))),
            op('or', op('=', prop('c'), lit(3)), op('=', prop('d'), lit(4))),
          ),
        ),
      );
    });

    it('reads INCLUDE and EXCLUDE', function () {
      expect(parseCqlText('INCLUDE')).to.deep.equal(lit(true));
      expect(parseCqlText('exclude OR x = 1')).to.deep.equal(
        op('or', lit(false), op('=', prop('x'), lit(1))),
      );
    });

    it('gives the same tree as CQL2 where the languages agree', function () {
      const text = "NOT (a = 1 OR b <> 'x') AND c IS NULL AND d LIKE 'y%'";
      expect(parseCqlText(text)).to.deep.equal(parseCql2Text(text));
    });
  });

  describe('spatial operators', function () {
    it('reads the eight relations with WKT on either side', function () {
      const names = [
        'INTERSECTS',
        'WITHIN',
        'CONTAINS',
        'DISJOINT',
        'EQUALS',
        'TOUCHES',
        'CROSSES',
        'OVERLAPS',
      ];
      for (const name of names) {
        expect(parseCqlText(`${name}(ows:BoundingBox, POINT(1 2))`)).to.deep.equal(
          op(`s_${name.toLowerCase()}`, prop('ows:BoundingBox'), {
            kind: 'geometry',
            geometry: { type: 'Point', coordinates: [1, 2] },
          }),
        );
      }
      expect(parseCqlText('within(POLYGON((0 0, 1 0, 1 1, 0 0)), geom)')).to.deep.equal(
        parseCql2Text('S_WITHIN(POLYGON((0 0, 1 0, 1 1, 0 0)), geom)'),
      );
    });

    it('reads every WKT type, both MULTIPOINT spellings and Z', function () {
      expect(parseCqlText('INTERSECTS(g, MULTIPOINT(1 2, 3 4))')).to.deep.equal(
        parseCqlText('INTERSECTS(g, MULTIPOINT((1 2), (3 4)))'),
      );
      const wkt = [
        'LINESTRING(0 0, 1 1)',
        'POLYGON Z((0 0 1, 1 0 1, 1 1 1, 0 0 1))',
        'MULTILINESTRING((0 0, 1 1), (2 2, 3 3))',
        'MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)))',
        'GEOMETRYCOLLECTION(POINT(1 2), LINESTRING(0 0, 1 1))',
      ];
      for (const geometry of wkt) {
        expect(parseCqlText(`CROSSES(g, ${geometry})`)).to.deep.equal(
          parseCql2Text(`S_CROSSES(g, ${geometry})`),
        );
      }
    });

    it('reads BBOX with and without a CRS, in the CRS axis order', function () {
      const expected = op('s_intersects', prop('ows:BoundingBox'), {
        kind: 'bbox',
        bbox: [-10, 40, 10, 50],
      });
      expect(parseCqlText('BBOX(ows:BoundingBox, -10, 40, 10, 50)')).to.deep.equal(expected);
      expect(parseCqlText("BBOX(ows:BoundingBox, -10, 40, 10, 50, 'EPSG:4326')")).to.deep.equal(
        expected,
      );
      expect(parseCqlText('BBOX(ows:BoundingBox, -10, 40, 10, 50, CRS:84)')).to.deep.equal(
        expected,
      );
      expect(
        parseCqlText("BBOX(ows:BoundingBox, 40, -10, 50, 10, 'urn:ogc:def:crs:EPSG::4326')"),
      ).to.deep.equal(expected);
      expect(errorOf("BBOX(g, 1, 2, 3, 4, 'EPSG:3857')")).to.equal(
        'Invalid CQL text at line 1, column 21: Unsupported CRS "EPSG:3857": filters must use WGS 84 (EPSG:4326 or CRS84) coordinates',
      );
    });

    it('reads DWITHIN and BEYOND with the distance in metres', function () {
      const point: Expression = {
        kind: 'geometry',
        geometry: { type: 'Point', coordinates: [1, 2] },
      };
      expect(parseCqlText('DWITHIN(geom, POINT(1 2), 10, kilometers)')).to.deep.equal(
        op('s_dwithin', prop('geom'), point, lit(10_000), lit('m')),
      );
      expect(parseCqlText("BEYOND(geom, POINT(1 2), 2, 'nautical miles')")).to.deep.equal(
        op('s_beyond', prop('geom'), point, lit(3704), lit('m')),
      );
      expect(parseCqlText('DWITHIN(geom, POINT(1 2), 1, statute miles)')).to.deep.equal(
        op('s_dwithin', prop('geom'), point, lit(1609.344), lit('m')),
      );
      expect(parseCqlText('dwithin(geom, POINT(1 2), 100, feet)')).to.deep.equal(
        op('s_dwithin', prop('geom'), point, lit(30.48), lit('m')),
      );
      expect(errorOf('DWITHIN(geom, POINT(1 2), 10, parsecs)')).to.match(
        /^Invalid CQL text at line 1, column 31: Unsupported distance unit "parsecs"/,
      );
    });

    it('gives the tree the FES parser gives for DWithin', function () {
      expect(parseCqlText('DWITHIN(ows:BoundingBox, POINT(1 2), 5, meters)')).to.deep.equal(
        parseFesFilter(
          fes(
            '<ogc:DWithin><ogc:PropertyName>ows:BoundingBox</ogc:PropertyName><gml:Point><gml:coordinates>1,2</gml:coordinates></gml:Point><ogc:Distance units="m">5</ogc:Distance></ogc:DWithin>',
          ),
        ),
      );
    });
  });

  describe('temporal operators', function () {
    const modified = prop('apiso:Modified');
    const date = (value: string): Expression => ({ kind: 'date', value });
    const timestamp = (value: string): Expression => ({ kind: 'timestamp', value });
    const interval = (start: Expression, end: Expression): Expression => ({
      kind: 'interval',
      start,
      end,
    });

    it('reads BEFORE and AFTER with instants and periods, bare or quoted', function () {
      expect(parseCqlText('apiso:Modified BEFORE 2020-01-01')).to.deep.equal(
        op('t_before', modified, date('2020-01-01')),
      );
      expect(parseCqlText("apiso:Modified AFTER '2020-01-01T12:00:00+02:00'")).to.deep.equal(
        op('t_after', modified, timestamp('2020-01-01T10:00:00Z')),
      );
      expect(parseCqlText('apiso:Modified AFTER 2020-01-01/2020-06-30')).to.deep.equal(
        op('t_after', modified, interval(date('2020-01-01'), date('2020-06-30'))),
      );
    });

    it('reads DURING, BEFORE OR DURING and DURING OR AFTER with periods', function () {
      const period = interval(timestamp('2020-01-01T00:00:00Z'), timestamp('2020-12-31T23:59:59Z'));
      expect(
        parseCqlText('apiso:Modified DURING 2020-01-01T00:00:00Z/2020-12-31T23:59:59Z'),
      ).to.deep.equal(op('t_during', modified, period));
      expect(
        parseCqlText("apiso:Modified before or during '2020-01-01T00:00:00Z/2020-12-31T23:59:59Z'"),
      ).to.deep.equal(op('or', op('t_before', modified, period), op('t_during', modified, period)));
      expect(
        parseCqlText('apiso:Modified DURING OR AFTER 2020-01-01T00:00:00Z/2020-12-31T23:59:59Z'),
      ).to.deep.equal(op('or', op('t_during', modified, period), op('t_after', modified, period)));
    });

    it('reads periods with durations, clamping to the end of a month', function () {
      expect(parseCqlText('apiso:Modified DURING 2020-01-31T00:00:00Z/P1M')).to.deep.equal(
        op(
          't_during',
          modified,
          interval(timestamp('2020-01-31T00:00:00Z'), timestamp('2020-02-29T00:00:00Z')),
        ),
      );
      expect(parseCqlText('apiso:Modified DURING PT36H/2020-03-01T12:00:00Z')).to.deep.equal(
        op(
          't_during',
          modified,
          interval(timestamp('2020-02-29T00:00:00Z'), timestamp('2020-03-01T12:00:00Z')),
        ),
      );
      expect(parseCqlText('apiso:Modified DURING 2020-01-01/P1Y2W')).to.deep.equal(
        op(
          't_during',
          modified,
          interval(timestamp('2020-01-01T00:00:00Z'), timestamp('2021-01-15T00:00:00Z')),
        ),
      );
    });

    it('reads periods in the first centuries, year 0 a leap year (not 1900)', function () {
      expect(parseCqlText('apiso:Modified DURING 0000-01-31T00:00:00Z/P1M')).to.deep.equal(
        op(
          't_during',
          modified,
          interval(timestamp('0000-01-31T00:00:00Z'), timestamp('0000-02-29T00:00:00Z')),
        ),
      );
      expect(parseCqlText('apiso:Modified DURING P1D/0050-03-01T00:00:00Z')).to.deep.equal(
        op(
          't_during',
          modified,
          interval(timestamp('0050-02-28T00:00:00Z'), timestamp('0050-03-01T00:00:00Z')),
        ),
      );
    });

    it('gives the tree the FES parser gives for During', function () {
      expect(
        parseCqlText('apiso:Modified DURING 2020-01-01T00:00:00Z/2020-12-31T00:00:00Z'),
      ).to.deep.equal(
        parseFesFilter(
          `<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2"><fes:During><fes:ValueReference>apiso:Modified</fes:ValueReference><gml:TimePeriod gml:id="p"><gml:beginPosition>2020-01-01T00:00:00Z</gml:beginPosition><gml:endPosition>2020-12-31T00:00:00Z</gml:endPosition></gml:TimePeriod></fes:During></fes:Filter>`,
        ),
      );
    });

    it('refuses impossible instants, reversed periods, bad durations and DURING an instant', function () {
      expect(errorOf('apiso:Modified BEFORE 2021-02-29')).to.equal(
        'Invalid CQL text at line 1, column 23: "2021-02-29" is not a valid date or date-time',
      );
      expect(errorOf('apiso:Modified DURING 2021-01-01/2020-01-01')).to.match(
        /column 23: the period 2021-01-01\/2020-01-01 ends before it starts/,
      );
      expect(errorOf('apiso:Modified DURING 2020-01-01/P')).to.match(
        /"P" is not an ISO 8601 duration/,
      );
      expect(errorOf('apiso:Modified DURING 2020-01-01')).to.match(
        /^Invalid CQL text at line 1, column 23: expected "OR" or period, found "2020"$/,
      );
    });
  });

  describe('names and errors', function () {
    it('reads XPath-like names and double-quoted names, keywords only quoted', function () {
      expect(parseCqlText("/csw:Record/dc:title = 'x'")).to.deep.equal(
        op('=', prop('/csw:Record/dc:title'), lit('x')),
      );
      expect(parseCqlText('"within" = 1 AND "a ""b""" = 2')).to.deep.equal(
        op('and', op('=', prop('within'), lit(1)), op('=', prop('a "b"'), lit(2))),
      );
      expect(errorOf('within = 1')).to.equal(
        'Invalid CQL text at line 1, column 8: expected "(", found "="',
      );
    });

    it('names the position, what was expected and what was found', function () {
      expect(errorOf("dc:title = 'x")).to.equal(
        'Invalid CQL text at line 1, column 12: the character string is not closed',
      );
      expect(errorOf('dc:title LIKE 5')).to.equal(
        'Invalid CQL text at line 1, column 15: expected character string, found "5"',
      );
      expect(errorOf('a = 1 AND')).to.match(/^Invalid CQL text at line 1, column 10: expected /);
      expect(errorOf("eo:cloudCover < 'ten'")).to.equal(
        "Invalid CQL text: 'ten' is not a number, but eo:cloudCover is numeric",
      );
    });
  });
});

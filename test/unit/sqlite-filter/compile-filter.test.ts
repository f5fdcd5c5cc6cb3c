import { expect } from 'chai';
import { FilterError } from '../../../shared/errors/index.js';
import {
  literal,
  operator,
  propertyRef,
  type Expression,
} from '../../../shared/query/filter-ast.js';
import { compileFilter as translate } from '../../../shared/search/sqlite/compile-filter.js';
import { checkFilter } from '../../../shared/query/check-filter.js';

/** The checker, then the SQLite translation, as a search runs them. */
const compileFilter = (filter: Expression) => translate(checkFilter(filter));

const date = (value: string): Expression => ({ kind: 'date', value });
const timestamp = (value: string): Expression => ({ kind: 'timestamp', value });
const interval = (start: Expression, end: Expression): Expression => ({
  kind: 'interval',
  start,
  end,
});
const bbox = (...numbers: number[]): Expression => ({ kind: 'bbox', bbox: numbers });
const point = (x: number, y: number): Expression => ({
  kind: 'geometry',
  geometry: { type: 'Point', coordinates: [x, y] },
});
const list = (...items: Expression[]): Expression => ({ kind: 'array', items });
const p = propertyRef;
const l = literal;
const op = operator;

function expectFilterError(filter: Expression, message: RegExp): void {
  let caught: unknown;
  try {
    compileFilter(filter);
  } catch (error) {
    caught = error;
  }
  expect(caught).to.be.instanceOf(FilterError);
  expect((caught as FilterError).status).to.equal(400);
  expect((caught as FilterError).code).to.equal('INVALID_FILTER');
  expect((caught as FilterError).message).to.match(message);
}

describe('SQLite filter compiler', () => {
  describe('binding', () => {
    it('never puts literal values or property names into the SQL text', () => {
      const hostile = "x'); DROP TABLE records; --";
      const compiled = compileFilter(
        op(
          'and',
          op('=', p(hostile), l(hostile)),
          op('like', p('name'), l(`${hostile}%`)),
          op('in', p('name'), list(l(hostile), l('b'))),
          op('a_contains', p(hostile), list(l(hostile))),
        ),
      );
      expect(compiled.sql).to.not.include('DROP');
      expect(compiled.sql).to.not.include(hostile);
      expect(compiled.params).to.include(hostile);
      expect(compiled.params).to.include(`$."${hostile}"`);
      expect(compiled.sql.split('?').length - 1).to.equal(compiled.params.length);
    });

    it('refuses property names that cannot be a JSON path key', () => {
      expectFilterError(op('=', p('a"b'), l(1)), /Invalid property name/);
      expectFilterError(op('=', p('a\\b'), l(1)), /Invalid property name/);
      expectFilterError(op('=', p(''), l(1)), /Invalid property name/);
      expectFilterError(op('=', p('a\u0000'), l(1)), /Invalid property name/);
    });
  });

  describe('properties', () => {
    it('uses the indexed columns for canonical queryables and their exact aliases', () => {
      expect(compileFilter(op('=', p('dc:title'), l('x'))).sql).to.equal('(r.title = ?)');
      expect(compileFilter(op('=', p('identifier'), l('x'))).sql).to.equal('(r.id = ?)');
      expect(compileFilter(op('=', p('collection'), l('x'))).sql).to.equal('(r.parent_id = ?)');
      expect(
        compileFilter(op('>', p('modified'), timestamp('2020-01-01T00:00:00Z'))),
      ).to.deep.equal({ sql: 'r.updated > ?', params: ['2020-01-01T00:00:00.000Z'] });
    });

    it("reads other names from the record's own properties, case-sensitively", () => {
      const compiled = compileFilter(op('=', p('TITLE'), l('x')));
      expect(compiled.sql).to.include('json_type(r.props, ?)');
      expect(compiled.params).to.deep.equal(['$."TITLE"', '$."TITLE"', 'x']);
    });

    it('reads registered queryables that have no column from their canonical props entry', () => {
      const compiled = compileFilter(op('<', p('eo:cloud_cover'), l(10)));
      expect(compiled.params).to.deep.equal(['$."cloudCover"', '$."cloudCover"', 10]);
    });

    it('treats datetime as the start instant in comparisons and the record interval in T_*', () => {
      expect(
        compileFilter(op('>=', p('datetime'), timestamp('2020-01-01T00:00:00Z'))).sql,
      ).to.equal('r.time_start >= ?');
      const temporal = compileFilter(op('t_intersects', p('datetime'), date('2020-01-01')));
      expect(temporal.sql).to.include('r.has_time = 1');
      expect(temporal.sql).to.include('r.time_end');
    });
  });

  describe('literals and folding', () => {
    it('compiles bare booleans', () => {
      expect(compileFilter(l(true))).to.deep.equal({ sql: '1', params: [] });
      expect(compileFilter(op('not', l(false))).sql).to.equal('(NOT 0)');
    });

    it('folds CASEI, ACCENTI and arithmetic on literals', () => {
      const compiled = compileFilter(
        op(
          'and',
          op('=', op('casei', p('name')), op('casei', l('STRASSE'))),
          op('=', op('accenti', p('name')), op('accenti', l('Kø'))),
          op('=', p('n'), op('+', l(1), op('*', l(2), op('^', l(3), l(2))))),
        ),
      );
      expect(compiled.params).to.include('strasse');
      expect(compiled.params).to.include('Ko');
      expect(compiled.params).to.include(19);
      expect(compiled.sql).to.include('cairn_casei(');
      expect(compiled.sql).to.include('cairn_accenti(');
    });

    it('keeps division by zero for SQL, where it is NULL', () => {
      const compiled = compileFilter(op('=', op('/', l(1), l(0)), l(1)));
      expect(compiled.sql).to.include('CAST(? AS REAL) / ?');
    });

    it('compares a date with a timestamp over the whole day', () => {
      expect(compileFilter(op('=', p('updated'), date('2022-04-16')))).to.deep.equal({
        sql: '(r.updated <= ? AND ? <= r.updated)',
        params: ['2022-04-16T23:59:59.999Z', '2022-04-16T00:00:00.000Z'],
      });
      expect(compileFilter(op('<', p('updated'), date('2022-04-16'))).params).to.deep.equal([
        '2022-04-16T00:00:00.000Z',
      ]);
      expect(compileFilter(op('<=', p('updated'), date('2022-04-16'))).params).to.deep.equal([
        '2022-04-16T23:59:59.999Z',
      ]);
    });

    it('casts a time-like string compared with a registered time queryable', () => {
      expect(compileFilter(op('>', p('created'), l('2020-01-01T00:00:00Z')))).to.deep.equal({
        sql: 'r.created > ?',
        params: ['2020-01-01T00:00:00.000Z'],
      });
    });
  });

  describe('operators', () => {
    it('compiles LIKE with a literal pattern to a case-sensitive GLOB', () => {
      expect(compileFilter(op('like', p('title'), l('B_r\\%%')))).to.deep.equal({
        sql: '(r.title GLOB ?)',
        params: ['B?r%*'],
      });
    });

    it('compiles LIKE with a computed pattern to the LIKE function', () => {
      expect(compileFilter(op('like', p('title'), p('pattern'))).sql).to.match(
        /^cairn_like\(r\.title, /,
      );
    });

    it('compiles IN over literals to one JSON parameter, over times to equalities', () => {
      expect(compileFilter(op('in', p('title'), list(l('a'), l('b'))))).to.deep.equal({
        sql: '(r.title IN (SELECT value FROM json_each(?)))',
        params: ['["a","b"]'],
      });
      expect(
        compileFilter(op('in', p('updated'), list(date('2020-01-01'), date('2021-01-01')))).sql,
      ).to.include(' OR ');
      expect(compileFilter(op('in', p('title'), list())).sql).to.equal('0');
    });

    it('compiles BETWEEN on numbers to SQL BETWEEN', () => {
      expect(compileFilter(op('between', p('cloudCover'), l(1), l(2))).sql).to.include(
        'BETWEEN ? AND ?',
      );
    });

    it('compiles IS NULL on the footprint, columns and props', () => {
      expect(compileFilter(op('isNull', p('geom'))).sql).to.include('r.geometry IS NULL');
      expect(compileFilter(op('isNull', p('title'))).sql).to.equal('(r.title IS NULL)');
      expect(compileFilter(op('isNull', p('x'))).sql).to.equal(
        '(json_extract(r.props, ?) IS NULL)',
      );
    });

    it('drives spatial predicates from the R*Tree outside NOT and keeps NULL under NOT', () => {
      const plain = compileFilter(op('s_intersects', p('geometry'), bbox(0, 0, 10, 10)));
      expect(plain.sql).to.match(/^\(r\.rid IN \(SELECT t\.id >> 1 FROM records_rtree t WHERE/);
      expect(plain.sql).to.include('cairn_spatial(');
      const negated = compileFilter(op('not', op('s_intersects', p('geom'), bbox(0, 0, 10, 10))));
      expect(negated.sql).to.match(/^\(NOT \(CASE WHEN r\.rid IN/);
      expect(negated.sql).to.include('THEN 0 END');
      const twice = compileFilter(op('not', op('not', op('s_within', p('geom'), point(1, 1)))));
      expect(twice.sql).to.match(/^\(NOT \(NOT \(r\.rid IN/);
    });

    it('turns a literal-first spatial predicate around', () => {
      const compiled = compileFilter(op('s_contains', bbox(0, 0, 10, 10), p('geom')));
      expect(compiled.params).to.include('within');
      expect(compiled.params).to.not.include('contains');
    });

    it('compares a rectangle polygon on edges as a BBOX, and any other polygon exactly', () => {
      const polygon = (...ring: number[][]): Expression => ({
        kind: 'geometry',
        geometry: { type: 'Polygon', coordinates: [ring] },
      });
      const rectangle = compileFilter(
        op('s_intersects', p('geom'), polygon([0, 0], [10, 0], [10, 10], [0, 10], [0, 0])),
      );
      const box = compileFilter(op('s_intersects', p('geom'), bbox(0, 0, 10, 10)));
      expect(rectangle.sql).to.include('CASE WHEN r.box_west IS NOT NULL');
      expect(rectangle.sql).to.equal(box.sql);
      const triangle = compileFilter(
        op('s_intersects', p('geom'), polygon([0, 0], [10, 0], [10, 10], [0, 0])),
      );
      expect(triangle.sql).to.not.include('r.box_west');
      expect(triangle.sql).to.include('cairn_spatial(');
    });

    it('splits an antimeridian BBOX into two R*Tree boxes', () => {
      const compiled = compileFilter(op('s_intersects', p('geom'), bbox(170, -10, -170, 10)));
      expect(compiled.params.slice(0, 8)).to.deep.equal([180, 170, 10, -10, -170, -180, 10, -10]);
    });

    it('compiles FES distance operators with an R*Tree box grown by the distance', () => {
      const within = compileFilter(op('s_dwithin', p('geom'), point(0, 0), l(111_195), l('m')));
      expect(within.sql).to.include('cairn_distance(');
      expect(within.params.slice(0, 4).map((n) => Math.round(Number(n)))).to.deep.equal([
        1, -1, 1, -1,
      ]);
      const beyond = compileFilter(op('s_beyond', p('geom'), point(179.5, 0), l(111_195), l('m')));
      expect(beyond.sql).to.match(/^\(CASE WHEN r\.rid IN/);
      expect(beyond.params.slice(0, 8).map((n) => Math.round(Number(n) * 10) / 10)).to.deep.equal([
        180, 178.5, 1, -1, -179.5, -180, 1, -1,
      ]);
      expectFilterError(op('s_dwithin', p('geom'), point(0, 0), l(-1), l('m')), /non-negative/);
      expectFilterError(op('s_dwithin', p('geom'), point(0, 0), l(1), l('ft')), /in metres/);
    });

    it('evaluates spatial and array predicates between literals at compile time', () => {
      expect(compileFilter(op('s_intersects', point(1, 1), bbox(0, 0, 2, 2))).sql).to.equal('1');
      expect(compileFilter(op('s_disjoint', point(1, 1), bbox(0, 0, 2, 2))).sql).to.equal('0');
      expect(compileFilter(op('a_contains', list(l('a'), l('b')), list(l('a')))).sql).to.equal('1');
    });
  });

  describe('errors', () => {
    it('names unknown functions, wherever they are', () => {
      expectFilterError(
        op('=', op('Foo', p('x')), l(1)),
        /Unknown function "Foo" in Foo\(x\); this catalogue offers no custom functions/,
      );
      expectFilterError(op('Bar', p('x')), /Unknown function "Bar"/);
      expectFilterError(
        op('s_intersects', p('geom'), op('Buffer', p('geom'), l(10))),
        /Unknown function "Buffer"/,
      );
    });

    it('refuses comparisons across registered types', () => {
      expectFilterError(
        op('=', p('title'), l(5)),
        /Cannot compare 5 \(number\) with title \(string\)/,
      );
      expectFilterError(op('>', p('cloudCover'), l('x')), /Cannot compare/);
      expectFilterError(
        op('=', p('updated'), l('soon')),
        /Cannot compare 'soon' \(string\) with updated/,
      );
      expectFilterError(op('=', l(true), l('true')), /Cannot compare/);
      expectFilterError(
        op('=', p('keywords'), l('x')),
        /"keywords" is an array; use an array operator/,
      );
      expectFilterError(op('=', p('geom'), l('x')), /"geom" is a geometry/);
      expectFilterError(op('=', p('x'), bbox(0, 0, 1, 1)), /is a geometry/);
      expectFilterError(op('=', p('x'), interval(date('2020-01-01'), l('..'))), /is an interval/);
      expectFilterError(op('=', p('x'), list(l(1))), /is an array/);
      expectFilterError(op('between', p('x'), l(true), l(false)), /BETWEEN needs numbers/);
      expectFilterError(op('in', p('x'), l(1)), /IN needs a list/);
    });

    it('refuses operands of the wrong kind for spatial, temporal and array operators', () => {
      expectFilterError(
        op('s_within', p('title'), bbox(0, 0, 1, 1)),
        /S_WITHIN needs geometries, but "title"/,
      );
      expectFilterError(
        op('s_within', l('x'), bbox(0, 0, 1, 1)),
        /S_WITHIN needs geometries, but 'x' is not a geometry/,
      );
      expectFilterError(
        op('t_after', p('title'), date('2020-01-01')),
        /Temporal operators need dates/,
      );
      expectFilterError(op('t_after', p('x'), l('2020-01-01')), /Temporal operators need dates/);
      expectFilterError(
        op('t_during', p('x'), interval(l('..'), date('2020-01-01'))),
        /T_DURING compares intervals, but x is an instant/,
      );
      expectFilterError(
        op('t_metBy', interval(l('..'), date('2020-01-01')), timestamp('2020-01-01T00:00:00Z')),
        /T_METBY compares intervals/,
      );
      expectFilterError(
        op('a_contains', p('geometry'), list(l('a'))),
        /A_CONTAINS needs arrays, but "geometry" is a geometry/,
      );
      expectFilterError(op('a_contains', l('a'), list(l('a'))), /A_CONTAINS needs arrays/);
      expectFilterError(op('a_contains', p('x'), list(p('y'))), /Array items must be literals/);
    });

    it('refuses values used as conditions and conditions used as values', () => {
      expectFilterError(l('x'), /is not a condition/);
      expectFilterError(op('casei', l('x')), /is a value, not a condition/);
      expectFilterError(op('+', l(1), l(2)), /is a value, not a condition/);
      expectFilterError(
        op('=', op('=', p('x'), l(1)), l(true)),
        /is a predicate and cannot be used as a value/,
      );
      expectFilterError(p('title'), /not a boolean property/);
    });

    it('refuses invalid literals', () => {
      expectFilterError(op('s_intersects', p('geom'), point(90, 180)), /\(90 180\) outside CRS84/);
      expectFilterError(op('s_intersects', p('geom'), point(-181, 0)), /outside CRS84/);
      expectFilterError(
        op('s_intersects', p('geom'), bbox(0, 10, 1, 5)),
        /south edge above its north edge/,
      );
      expectFilterError(op('s_intersects', p('geom'), bbox(0, 1, 2)), /must have 4 or 6 numbers/);
      expectFilterError(
        op('s_intersects', p('geom'), {
          kind: 'geometry',
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [0, 0],
                [10, 10],
                [10, 0],
                [0, 10],
                [0, 0],
              ],
            ],
          },
        }),
        /not a valid geometry/,
      );
      expectFilterError(op('=', p('x'), date('2021-02-30')), /is not a calendar date/);
      expectFilterError(
        op('=', p('x'), timestamp('2021-02-03')),
        /is not an RFC 3339 UTC timestamp/,
      );
      expectFilterError(
        op('t_intersects', p('x'), interval(date('2021-02-03'), date('2021-02-01'))),
        /starts after it ends/,
      );
      expectFilterError(op('not', l(true), l(false)), /NOT takes 1 argument, got 2/);
    });
  });
});

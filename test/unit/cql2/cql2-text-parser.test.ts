/**
 * The CQL2 text parser: each construct of the grammar, the trees it gives, and the error
 * messages (position, what was expected, what was found) for what it refuses.
 */
import { expect } from 'chai';
import { FilterError } from '../../../shared/errors/index.js';
import type { Expression } from '../../../shared/query/filter-ast.js';
import { parseCql2Text } from '../../../shared/query/cql2/index.js';

const prop = (name: string): Expression => ({ kind: 'property', name });
const lit = (value: string | number | boolean): Expression => ({ kind: 'literal', value });
const op = (name: string, ...args: Expression[]): Expression => ({ kind: 'op', op: name, args });
const arr = (...items: Expression[]): Expression => ({ kind: 'array', items });

/** The FilterError message parsing `text` fails with. */
function errorOf(text: string): string {
  try {
    parseCql2Text(text);
  } catch (error) {
    expect(error).to.be.instanceOf(FilterError);
    return (error as FilterError).message;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
}

describe('parseCql2Text', function () {
  describe('logical operators', function () {
    it('binds AND tighter than OR and keeps n-ary chains flat', function () {
      expect(parseCql2Text('a = 1 OR b = 2 AND c = 3 AND d = 4')).to.deep.equal(
        op(
          'or',
          op('=', prop('a'), lit(1)),
          op(
            'and',
            op('=', prop('b'), lit(2)),
            op('=', prop('c'), lit(3)),
            op('=', prop('d'), lit(4)),
          ),
        ),
      );
    });

    it('keeps parenthesised groups as nested nodes', function () {
      expect(parseCql2Text('(a = 1 OR b = 2) OR c = 3')).to.deep.equal(
        op(
          'or',
          op('or', op('=', prop('a'), lit(1)), op('=', prop('b'), lit(2))),
          op('=', prop('c'), lit(3)),
        ),
      );
    });

    it('applies NOT to one primary', function () {
      expect(parseCql2Text('NOT a = 1 AND b = 2')).to.deep.equal(
        op('and', op('not', op('=', prop('a'), lit(1))), op('=', prop('b'), lit(2))),
      );
      expect(parseCql2Text('NOT (NOT TRUE)')).to.deep.equal(op('not', op('not', lit(true))));
    });

    it('accepts a bare boolean literal or function as a filter', function () {
      expect(parseCql2Text('true')).to.deep.equal(lit(true));
      expect(parseCql2Text('isOpen(x)')).to.deep.equal(op('isOpen', prop('x')));
    });

    it('reads keywords in any case and any whitespace between tokens', function () {
      expect(parseCql2Text('\t a=1\u3000and\nB<>2 ')).to.deep.equal(
        op('and', op('=', prop('a'), lit(1)), op('<>', prop('B'), lit(2))),
      );
    });
  });

  describe('comparison predicates', function () {
    it('reads all six comparison operators', function () {
      for (const symbol of ['=', '<>', '<', '>', '<=', '>=']) {
        expect(parseCql2Text(`a ${symbol} 'x'`)).to.deep.equal(op(symbol, prop('a'), lit('x')));
      }
    });

    it('reads LIKE and NOT LIKE (kept as not(like))', function () {
      expect(parseCql2Text("name NOT LIKE 'foo%'")).to.deep.equal(
        op('not', op('like', prop('name'), lit('foo%'))),
      );
      expect(parseCql2Text("CASEI(name) LIKE CASEI(ACCENTI('F_o%'))")).to.deep.equal(
        op('like', op('casei', prop('name')), op('casei', op('accenti', lit('F_o%')))),
      );
    });

    it('reads BETWEEN with arithmetic bounds and NOT BETWEEN', function () {
      expect(parseCql2Text('x NOT BETWEEN a - 1 AND 2 AND y = 1')).to.deep.equal(
        op(
          'and',
          op('not', op('between', prop('x'), op('-', prop('a'), lit(1)), lit(2))),
          op('=', prop('y'), lit(1)),
        ),
      );
    });

    it('reads IN and NOT IN lists as array literals', function () {
      expect(parseCql2Text("x IN ('a', 1, TRUE, DATE('2020-01-01'))")).to.deep.equal(
        op(
          'in',
          prop('x'),
          arr(lit('a'), lit(1), lit(true), { kind: 'date', value: '2020-01-01' }),
        ),
      );
      expect(parseCql2Text('x NOT IN (1)')).to.deep.equal(
        op('not', op('in', prop('x'), arr(lit(1)))),
      );
    });

    it('reads IS NULL and IS NOT NULL, including a parenthesised boolean operand', function () {
      expect(parseCql2Text('x IS NULL')).to.deep.equal(op('isNull', prop('x')));
      expect(parseCql2Text('x IS NOT NULL')).to.deep.equal(op('not', op('isNull', prop('x'))));
      expect(parseCql2Text('(a = 1) IS NULL')).to.deep.equal(
        op('isNull', op('=', prop('a'), lit(1))),
      );
      expect(parseCql2Text('S_INTERSECTS(g, h) IS NULL')).to.deep.equal(
        op('isNull', op('s_intersects', prop('g'), prop('h'))),
      );
    });
  });

  describe('literals and names', function () {
    it('reads numbers as numbers', function () {
      expect(parseCql2Text('x IN (1, -2.5, .5, 3., 1e3, 1.5E-2, +7)')).to.deep.equal(
        op(
          'in',
          prop('x'),
          arr(lit(1), lit(-2.5), lit(0.5), lit(3), lit(1000), lit(0.015), lit(7)),
        ),
      );
    });

    it('reads character literals with their escapes', function () {
      expect(
        parseCql2Text("x = 'it''s \\'q\\' \\\\ \\a\\b\\t\\n\\v\\f\\r 100\\% Ω 😀'"),
      ).to.deep.equal(op('=', prop('x'), lit("it's 'q' \\ \u0007\b\t\n\v\f\r 100\\% Ω 😀")));
    });

    it('reads identifiers with colons, dots and Unicode, and double-quoted keywords', function () {
      expect(parseCql2Text('eo:cloud_cover < properties.ü2 AND "date" = "id"')).to.deep.equal(
        op(
          'and',
          op('<', prop('eo:cloud_cover'), prop('properties.ü2')),
          op('=', prop('date'), prop('id')),
        ),
      );
    });

    it('keeps function names as written and standard operators in their JSON spelling', function () {
      expect(parseCql2Text("Buffer(g, 10, 'm') = x AND t_finishedby(a, b)")).to.deep.equal(
        op(
          'and',
          op('=', op('Buffer', prop('g'), lit(10), lit('m')), prop('x')),
          op('t_finishedBy', prop('a'), prop('b')),
        ),
      );
    });
  });

  describe('arithmetic', function () {
    it('follows ^ over * / % div over + -, left to right', function () {
      expect(parseCql2Text('x = 1 + 2 * 3 ^ 4 - 6 div 2 % 5')).to.deep.equal(
        op(
          '=',
          prop('x'),
          op(
            '-',
            op('+', lit(1), op('*', lit(2), op('^', lit(3), lit(4)))),
            op('%', op('div', lit(6), lit(2)), lit(5)),
          ),
        ),
      );
    });

    it('negates numbers and multiplies properties and functions by -1', function () {
      expect(parseCql2Text('x = - 2 - -y * -f()')).to.deep.equal(
        op(
          '=',
          prop('x'),
          op('-', lit(-2), op('*', op('*', lit(-1), prop('y')), op('*', lit(-1), op('f')))),
        ),
      );
    });

    it('reads a subtraction written without spaces', function () {
      expect(parseCql2Text('balance-150.0 > 0')).to.deep.equal(
        op('>', op('-', prop('balance'), lit(150)), lit(0)),
      );
    });
  });

  describe('spatial, temporal and array predicates', function () {
    it('converts WKT (with Z and multi-geometries) to GeoJSON', function () {
      expect(
        parseCql2Text(
          'S_WITHIN(g, MULTIPOLYGON Z (((0 0 1, 1 0 1, 1 1 1, 0 0 1)), ((5 5 2, 6 5 2, 6 6 2, 5 5 2))))',
        ),
      ).to.deep.equal(
        op('s_within', prop('g'), {
          kind: 'geometry',
          geometry: {
            type: 'MultiPolygon',
            coordinates: [
              [
                [
                  [0, 0, 1],
                  [1, 0, 1],
                  [1, 1, 1],
                  [0, 0, 1],
                ],
              ],
              [
                [
                  [5, 5, 2],
                  [6, 5, 2],
                  [6, 6, 2],
                  [5, 5, 2],
                ],
              ],
            ],
          },
        }),
      );
      expect(
        parseCql2Text('s_touches(GEOMETRYCOLLECTION(POINT(1 2), MULTIPOINT((3 4))), g)'),
      ).to.deep.equal(
        op(
          's_touches',
          {
            kind: 'geometry',
            geometry: {
              type: 'GeometryCollection',
              geometries: [
                { type: 'Point', coordinates: [1, 2] },
                { type: 'MultiPoint', coordinates: [[3, 4]] },
              ],
            },
          },
          prop('g'),
        ),
      );
    });

    it('reads BBOX with 4 or 6 numbers, west > east allowed', function () {
      expect(parseCql2Text('S_INTERSECTS(g, BBOX(160, -10, -170, 10))')).to.deep.equal(
        op('s_intersects', prop('g'), { kind: 'bbox', bbox: [160, -10, -170, 10] }),
      );
      expect(parseCql2Text('S_INTERSECTS(g, BBOX(0, 1, 2, 3, 4, 5))')).to.deep.equal(
        op('s_intersects', prop('g'), { kind: 'bbox', bbox: [0, 1, 2, 3, 4, 5] }),
      );
    });

    it('reads DATE, TIMESTAMP and INTERVAL with open ends, normalising timestamps', function () {
      expect(
        parseCql2Text(
          "T_INTERSECTS(INTERVAL('..', '2020-02-29t10:00:00.500z'), TIMESTAMP('2000-01-01T00:00:00.000Z'))",
        ),
      ).to.deep.equal(
        op(
          't_intersects',
          {
            kind: 'interval',
            start: lit('..'),
            end: { kind: 'timestamp', value: '2020-02-29T10:00:00.5Z' },
          },
          { kind: 'timestamp', value: '2000-01-01T00:00:00Z' },
        ),
      );
    });

    it('reads array literals, nested and empty', function () {
      expect(parseCql2Text("A_OVERLAPS(tags, ('a', (1, 2), (), x = 1))")).to.deep.equal(
        op(
          'a_overlaps',
          prop('tags'),
          arr(lit('a'), arr(lit(1), lit(2)), arr(), op('=', prop('x'), lit(1))),
        ),
      );
    });
  });

  describe('errors', function () {
    it('names the position, what was expected and what was found', function () {
      expect(errorOf('floors > 5 AND')).to.equal(
        'Invalid CQL2 text at line 1, column 15: expected "NOT", "CASEI", "ACCENTI", character literal, "DATE", "TIMESTAMP", "TRUE", "FALSE", "(", "-", number, property name, "INTERVAL", spatial literal, spatial function, temporal function or array function, found end of input',
      );
      expect(errorOf('name LIKE Smith')).to.equal(
        'Invalid CQL2 text at line 1, column 11: expected "CASEI", "ACCENTI" or character literal, found "Smith"',
      );
      expect(errorOf('a = 1 AND\n  b >< 2')).to.match(
        /^Invalid CQL2 text at line 2, column 6: expected .*, found "<"$/,
      );
      expect(errorOf('x = 1 x')).to.match(
        /at line 1, column 7: expected .*"AND", "OR" or end of input, found "x"$/,
      );
    });

    it('hints at double quotes when a keyword is used as a property', function () {
      expect(errorOf('date > 5')).to.equal(
        'Invalid CQL2 text at line 1, column 6: expected "(", found ">" (date is a reserved word; write "date" in double quotes for a property of that name)',
      );
    });

    it('refuses dates and times that are not on the calendar or the clock', function () {
      expect(errorOf("d = DATE('2020-13-01')")).to.equal(
        'Invalid CQL2 text at line 1, column 11: "2020-13-01" has no month 13',
      );
      expect(errorOf("d = DATE('2019-02-29')")).to.match(/column 11: "2019-02-29" has no day 29/);
      expect(errorOf("d = TIMESTAMP('2020-01-01T12:60:00Z')")).to.match(/has no minute 60/);
      expect(errorOf("d = TIMESTAMP('2020-01-01T12:00:00')")).to.match(
        /column 35: expected "\." or "Z", found "'"/,
      );
      expect(errorOf("d = TIMESTAMP('2020-01-01T12:00:00+01:00')")).to.match(
        /column 35: expected "\." or "Z", found "\+"/,
      );
      expect(errorOf("d = DATE('2020-1-1')")).to.match(/column 17: expected digit, found "-"/);
    });

    it('refuses malformed literals with a specific reason', function () {
      expect(errorOf("x = 'open")).to.equal(
        'Invalid CQL2 text at line 1, column 5: the character literal is not closed',
      );
      expect(errorOf("x = 'a\u0001'")).to.match(/the character U\+0001 is not allowed/);
      expect(errorOf('"my prop" = 1')).to.match(/"my prop" is not a property name/);
      expect(errorOf('x = 1e400')).to.match(/column 5: the number 1e400 is out of range/);
      expect(errorOf('S_INTERSECTS(g, BBOX(1, 2, 3, 4, 5))')).to.match(/a BBOX has 4 or 6 numbers/);
      expect(errorOf('S_INTERSECTS(g, POLYGON(EMPTY))')).to.match(
        /EMPTY geometries are not supported/,
      );
      expect(errorOf('S_INTERSECTS(g, GEOMETRYCOLLECTION(POINT(1 2)))')).to.match(/at least two/);
      expect(errorOf('S_INTERSECTS(g, POLYGON((0 0, 1 1, 0 0)))')).to.match(/found "\)"/);
    });

    it('refuses a bare property, a number or an empty filter', function () {
      expect(errorOf('x')).to.match(/column 2: expected .*comparison operator.*found end of input/);
      expect(errorOf('5')).to.match(/^Invalid CQL2 text at line 1, column 2/);
      expect(errorOf('')).to.match(
        /^Invalid CQL2 text at line 1, column 1: expected "NOT", .*, found end of input$/,
      );
    });

    it('turns deep nesting into a FilterError', function () {
      expect(errorOf(`${'('.repeat(20000)}a = 1${')'.repeat(20000)}`)).to.equal(
        'Invalid CQL2 text: the expression is nested too deeply',
      );
    });
  });
});

describe('parseCql2Text on pathological nesting', function () {
  this.timeout(20_000);

  // Without memoisation these take exponential time; a generous bound still catches that.
  const cases: [string, string][] = [
    ['parentheses', `${'('.repeat(300)}a = 1${')'.repeat(300)}`],
    ['IS NULL of parentheses', `${'('.repeat(60)}a = 1${') IS NULL'.repeat(60)}`],
    ['function calls', `x = ${'f('.repeat(60)}a = 1${')'.repeat(60)}`],
    ['arrays', `A_EQUALS(x, ${'('.repeat(60)}1${')'.repeat(60)})`],
    ['NOT and parentheses', `${'NOT ('.repeat(100)}a = 1${')'.repeat(100)}`],
    ['arithmetic', `x = ${'(1 + '.repeat(200)}1${')'.repeat(200)}`],
    ['CASEI', `${'CASEI('.repeat(100)}a${')'.repeat(100)} LIKE 'x'`],
  ];
  for (const [name, text] of cases) {
    it(`parses deeply nested ${name} quickly`, function () {
      const started = performance.now();
      parseCql2Text(text);
      expect(performance.now() - started).to.be.below(5_000);
    });
  }
});

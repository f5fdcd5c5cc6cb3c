/**
 * The CQL2 JSON parser: schema validation first (with readable messages), then the checks the
 * schema cannot make, then the same tree as the text parser.
 */
import { expect } from 'chai';
import { FilterError } from '../../../shared/errors/index.js';
import { parseCql2Json, parseCql2Text } from '../../../shared/query/cql2/index.js';

/** The FilterError message parsing `input` fails with. */
function errorOf(input: unknown): string {
  try {
    parseCql2Json(input);
  } catch (error) {
    expect(error).to.be.instanceOf(FilterError);
    return (error as FilterError).message;
  }
  throw new Error(`expected ${JSON.stringify(input)} to fail`);
}

const prop = (property: string): unknown => ({ property });

describe('parseCql2Json', function () {
  it('gives the same tree as the text parser', function () {
    const pairs: [string, unknown][] = [
      [
        "NOT (a = 1 OR CASEI(b) LIKE CASEI('x%')) AND c IS NOT NULL",
        {
          op: 'and',
          args: [
            {
              op: 'not',
              args: [
                {
                  op: 'or',
                  args: [
                    { op: '=', args: [prop('a'), 1] },
                    {
                      op: 'like',
                      args: [
                        { op: 'casei', args: [prop('b')] },
                        { op: 'casei', args: ['x%'] },
                      ],
                    },
                  ],
                },
              ],
            },
            { op: 'not', args: [{ op: 'isNull', args: [prop('c')] }] },
          ],
        },
      ],
      [
        "T_METBY(INTERVAL(s, '..'), INTERVAL('2020-01-01', '2021-01-01T00:00:00.10Z'))",
        {
          op: 't_metBy',
          args: [
            { interval: [prop('s'), '..'] },
            { interval: ['2020-01-01', '2021-01-01T00:00:00.10Z'] },
          ],
        },
      ],
      [
        "S_INTERSECTS(g, POINT Z (1 2 3)) AND x IN ('a') AND f()",
        {
          op: 'and',
          args: [
            {
              op: 's_intersects',
              args: [prop('g'), { type: 'Point', coordinates: [1, 2, 3] }],
            },
            { op: 'in', args: [prop('x'), ['a']] },
            { op: 'f', args: [] },
          ],
        },
      ],
    ];
    for (const [text, json] of pairs) {
      expect(parseCql2Json(json), text).to.deep.equal(parseCql2Text(text));
    }
  });

  it('reads JSON text as well as parsed values', function () {
    expect(parseCql2Json('{"op": "=", "args": [{"property": "a"}, 1]}')).to.deep.equal(
      parseCql2Text('a = 1'),
    );
    expect(errorOf('{"op": ')).to.match(/^Invalid CQL2 JSON: .*JSON/);
  });

  it('accepts a bare boolean and refuses other bare values', function () {
    expect(parseCql2Json(true)).to.deep.equal({ kind: 'literal', value: true });
    expect(errorOf(5)).to.equal('Invalid CQL2 JSON at /: must be object; must be boolean');
    expect(errorOf(null)).to.equal('Invalid CQL2 JSON at /: must be object; must be boolean');
    expect(errorOf(undefined)).to.match(/^Invalid CQL2 JSON at \/: /);
  });

  describe('schema errors', function () {
    it('names the deepest location that went wrong and why', function () {
      expect(errorOf({ op: '=', args: [prop('a')] })).to.equal(
        'Invalid CQL2 JSON at /args: must NOT have fewer than 2 items',
      );
      expect(errorOf({ op: '=', args: [prop('a'), { date: '2020-1-1' }] })).to.equal(
        'Invalid CQL2 JSON at /args/1/date: must match pattern "^\\d{4}-\\d{2}-\\d{2}$"',
      );
      expect(
        errorOf({
          op: 'and',
          args: [true, { op: 's_within', args: [prop('g'), { type: 'Point', coordinates: [1] }] }],
        }),
      ).to.equal(
        'Invalid CQL2 JSON at /args/1/args/1/coordinates: must NOT have fewer than 2 items',
      );
      expect(errorOf({ op: 'like', args: [prop('a'), 5] })).to.equal(
        'Invalid CQL2 JSON at /args/1: must be object; must be string',
      );
      expect(errorOf({ op: 'foo' })).to.equal(
        "Invalid CQL2 JSON at /: must have required property 'args'; must be boolean",
      );
      expect(errorOf({ op: 'between', args: [prop('a'), 1, Infinity] })).to.match(
        /^Invalid CQL2 JSON at \/args\/2: /,
      );
      expect(
        errorOf({ op: 's_intersects', args: [prop('g'), { bbox: [1, 2, 3, 4, 5] }] }),
      ).to.match(/^Invalid CQL2 JSON at \/args\/1\/bbox: /);
    });

    it('says when a standard operator is used where it cannot be', function () {
      expect(errorOf({ op: 'casei', args: [prop('a')] })).to.equal(
        'Invalid CQL2 JSON at /: the operator "casei" cannot be used at this position',
      );
    });
  });

  describe('checks beyond the schema', function () {
    it('refuses impossible dates and times', function () {
      expect(errorOf({ op: 't_after', args: [prop('d'), { date: '2021-02-29' }] })).to.equal(
        'Invalid CQL2 JSON at /args/1/date: "2021-02-29" has no day 29 in that month',
      );
      expect(
        errorOf({ op: 't_after', args: [prop('d'), { interval: ['..', '2020-01-01T24:00:00Z'] }] }),
      ).to.equal('Invalid CQL2 JSON at /args/1/interval/1: "2020-01-01T24:00:00Z" has no hour 24');
    });

    it('suggests the spelling of a misspelt standard operator', function () {
      expect(errorOf({ op: 't_finishedby', args: [prop('a'), prop('b')] })).to.equal(
        'Invalid CQL2 JSON at /op: unknown operator "t_finishedby"; did you mean "t_finishedBy"?',
      );
      expect(errorOf({ op: 'S_INTERSECTS', args: [prop('a'), prop('b')] })).to.match(
        /did you mean "s_intersects"\?$/,
      );
    });

    it('refuses names CQL2 text cannot write', function () {
      expect(errorOf({ op: '=', args: [prop('a b'), 1] })).to.equal(
        'Invalid CQL2 JSON at /args/0/property: "a b" is not a valid property name',
      );
      expect(errorOf({ op: 'my func', args: [] })).to.equal(
        'Invalid CQL2 JSON at /op: "my func" is not a valid function name',
      );
      expect(errorOf({ op: 'Point', args: [] })).to.match(/"Point" is not a valid function name/);
      expect(errorOf({ op: '=', args: [prop('a'), 'x\u0000'] })).to.equal(
        'Invalid CQL2 JSON at /args/1: the string holds a character CQL2 text cannot encode',
      );
    });

    it('refuses what CQL2 text cannot write: empty lists, 4D positions, ambiguous objects', function () {
      expect(errorOf({ op: 'in', args: [prop('a'), []] })).to.equal(
        'Invalid CQL2 JSON at /args/1: an IN list needs at least one value',
      );
      expect(
        errorOf({
          op: 's_within',
          args: [prop('g'), { type: 'Point', coordinates: [1, 2, 3, 4] }],
        }),
      ).to.equal('Invalid CQL2 JSON at /args/1/coordinates: a position has 2 or 3 coordinates');
      expect(
        errorOf({ op: 's_within', args: [prop('g'), { type: 'MultiPoint', coordinates: [] }] }),
      ).to.equal('Invalid CQL2 JSON at /args/1/coordinates: must NOT be empty');
      expect(
        errorOf({ op: 'like', args: [{ property: 'a', op: 'casei', args: [] }, 'x'] }),
      ).to.equal('Invalid CQL2 JSON at /args/0: ambiguous object with members op and property');
    });

    it('drops foreign members of a geometry (the schema refuses a GeoJSON bbox member)', function () {
      expect(
        parseCql2Json({
          op: 's_within',
          args: [prop('g'), { type: 'Point', coordinates: [1, 2], id: 7 }],
        }),
      ).to.deep.equal(parseCql2Text('S_WITHIN(g, POINT(1 2))'));
      const withBbox = { type: 'Point', coordinates: [1, 2], bbox: [1, 2, 1, 2] };
      expect(errorOf({ op: 's_within', args: [prop('g'), withBbox] })).to.match(/at \/args\/1: /);
    });

    it('turns deep nesting into a FilterError', function () {
      let deep: unknown = true;
      for (let i = 0; i < 20000; i += 1) deep = { op: 'not', args: [deep] };
      expect(errorOf(deep)).to.equal('Invalid CQL2 JSON: the expression is nested too deeply');
    });
  });
});

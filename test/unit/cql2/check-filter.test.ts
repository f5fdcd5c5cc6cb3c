/**
 * The filter checker (shared/query/check-filter.ts): every refusal it makes, with its message,
 * and the shape of the checked tree the backends translate.
 */
import { expect } from 'chai';
import { FilterError } from '../../../shared/errors/index.js';
import { checkFilter, TEMPORAL_RELATIONS } from '../../../shared/query/check-filter.js';
import {
  OPERATORS,
  canonicalOperator,
  STANDARD_OPS,
  TEMPORAL_OPS,
} from '../../../shared/query/cql2/cql2-operators.js';
import { parseCql2Text } from '../../../shared/query/cql2/index.js';
import {
  literal,
  operator,
  propertyRef,
  type Expression,
} from '../../../shared/query/filter-ast.js';

const check = (text: string) => checkFilter(parseCql2Text(text));

function refuses(filter: string | Expression, message: RegExp): void {
  const tree = typeof filter === 'string' ? parseCql2Text(filter) : filter;
  expect(() => checkFilter(tree)).to.throw(FilterError, message);
}

describe('checkFilter', () => {
  describe('refuses', () => {
    it('unknown functions, naming them', () => {
      refuses('myFunction(title) = 1', /Unknown function "myFunction".*no custom functions/);
      refuses(operator('frobnicate', propertyRef('title')), /Unknown function "frobnicate"/);
    });

    it('wrong numbers of arguments', () => {
      refuses(operator('=', propertyRef('title')), /= takes 2 arguments, got 1/);
      refuses(operator('not'), /NOT takes 1 argument, got 0/);
      refuses(operator('between', propertyRef('cloudCover'), literal(1)), /BETWEEN takes 3/);
      refuses(
        operator('s_dwithin', propertyRef('geometry')),
        /S_DWITHIN takes two geometries, a distance and its units/,
      );
    });

    it('values where a condition belongs, and conditions where a value belongs', () => {
      refuses(literal('x'), /'x' is not a condition/);
      refuses(propertyRef('title'), /"title" is not a boolean property and not a condition/);
      refuses(operator('+', literal(1), literal(2)), /is a value, not a condition/);
      refuses(
        operator('=', operator('=', propertyRef('a'), literal(1)), literal(true)),
        /is a predicate and cannot be used as a value/,
      );
    });

    it('operands of the wrong static type', () => {
      refuses("cloudCover LIKE '1%'", /LIKE needs strings, but cloudCover is a number/);
      refuses("CASEI(cloudCover) = 'a'", /CASEI needs a string, but cloudCover is a number/);
      refuses('title + 1 = 2', /"\+" needs numbers, but title is a string/);
      refuses("geometry = 'x'", /"geometry" is a geometry; compare it with a spatial operator/);
      refuses(
        'S_INTERSECTS(title, POINT(1 2))',
        /S_INTERSECTS needs geometries, but "title" is not a spatial property/,
      );
      refuses(
        operator('s_intersects', literal(1), {
          kind: 'geometry',
          geometry: { type: 'Point', coordinates: [1, 2] },
        }),
        /S_INTERSECTS needs geometries, but 1 is not a geometry/,
      );
      refuses(
        "A_CONTAINS(updated, ('a'))",
        /A_CONTAINS needs arrays, but "updated" is a date\/timestamp/,
      );
      refuses(
        operator('a_contains', literal('a'), { kind: 'array', items: [literal('a')] }),
        /needs arrays, but 'a' is not an array or a property/,
      );
      refuses(
        "T_BEFORE(cloudCover, DATE('2020-01-01'))",
        /Temporal operators need dates, timestamps or intervals; cloudCover is a number/,
      );
      refuses(
        "T_DURING(updated, INTERVAL('2020-01-01', '2021-01-01'))",
        /T_DURING compares intervals, but updated is an instant/,
      );
      refuses(
        operator(
          't_intersects',
          { kind: 'interval', start: literal(1), end: literal('..') },
          propertyRef('updated'),
        ),
        /An interval end must be a date, a timestamp, '..' or a property; 1 is a number/,
      );
    });

    it('values compared together that have different static types', () => {
      refuses(
        "cloudCover = 'x'",
        /Cannot compare 'x' \(string\) with cloudCover \(number\) in cloudCover = 'x'/,
      );
      refuses(
        "updated < 'soon'",
        /Cannot compare 'soon' \(string\) with updated \(date\/timestamp\)/,
      );
      refuses("title IN ('a', 2)", /Cannot compare 2 \(number\) with title \(string\)/);
      refuses(
        operator('between', propertyRef('mine'), literal(false), literal(true)),
        /BETWEEN needs numbers, strings or times/,
      );
      // A time compares with the text of a time; an unregistered property with anything.
      expect(() => check("updated < '2020-01-01'")).not.to.throw();
      expect(() => check("mine = 1 AND mine = 'x'")).not.to.throw();
    });

    it('invalid literals, once for every backend', () => {
      refuses(
        operator('=', propertyRef('updated'), { kind: 'date', value: '2020-02-30' }),
        /is not a calendar date/,
      );
      refuses(
        operator('=', propertyRef('updated'), { kind: 'timestamp', value: 'yesterday' }),
        /is not an RFC 3339 UTC timestamp/,
      );
      refuses('S_INTERSECTS(geometry, BBOX(0, 10, 1, 5))', /south edge above its north edge/);
      refuses('S_INTERSECTS(geometry, POINT(200 0))', /outside CRS84/);
      refuses(
        'S_INTERSECTS(geometry, POLYGON((0 0, 1 1, 1 0, 0 1, 0 0)))',
        /is not a valid geometry/,
      );
      refuses(
        "T_INTERSECTS(updated, INTERVAL('2021-01-01', '2020-01-01'))",
        /starts after it ends/,
      );
      refuses(operator('=', propertyRef('a"b'), literal(1)), /Invalid property name/);
      refuses(operator('in', propertyRef('title'), literal('x')), /IN needs a list of values/);
      refuses(
        operator(
          's_dwithin',
          propertyRef('geometry'),
          { kind: 'geometry', geometry: { type: 'Point', coordinates: [1, 2] } },
          literal(-1),
          literal('m'),
        ),
        /must be a non-negative number/,
      );
      refuses(
        operator(
          's_beyond',
          propertyRef('geometry'),
          { kind: 'geometry', geometry: { type: 'Point', coordinates: [1, 2] } },
          literal(5),
          literal('ft'),
        ),
        /must be in metres/,
      );
      refuses('A_CONTAINS(keywords, (title))', /Array items must be literals; title is not/);
    });
  });

  describe('returns the checked tree', () => {
    it('with canonical operators from the one table', () => {
      const tree = checkFilter(
        operator(
          'T_FINISHEDBY',
          { kind: 'interval', start: literal('..'), end: literal('..') },
          {
            kind: 'interval',
            start: { kind: 'date', value: '2020-01-01' },
            end: literal('..'),
          },
        ),
      );
      expect(tree).to.include({ kind: 'op', op: 't_finishedBy' });
      expect(canonicalOperator('ISNULL')).to.equal('isNull');
      expect(canonicalOperator('myFunction')).to.equal(undefined);
      // The CQL2 names are the table's, less the FES-only distance operators.
      expect([...STANDARD_OPS].sort()).to.deep.equal(
        Object.keys(OPERATORS)
          .filter((op) => op !== 's_dwithin' && op !== 's_beyond')
          .sort(),
      );
      expect(Object.keys(TEMPORAL_RELATIONS).sort()).to.deep.equal([...TEMPORAL_OPS].sort());
    });

    it('with properties resolved to their queryable and static type', () => {
      const tree = check("eo:cloud_cover < 10 AND title = 'x' AND mine = 1");
      const [cloud, title, mine] = (tree as { args: { args: unknown[] }[] }).args.map(
        (comparison) => comparison.args[0],
      );
      expect(cloud).to.deep.include({ kind: 'property', name: 'eo:cloud_cover', type: 'number' });
      expect((cloud as { queryable: { name: string } }).queryable.name).to.equal('cloudCover');
      expect(title).to.deep.include({ type: 'string' });
      expect(mine).to.deep.equal({ kind: 'property', name: 'mine', type: 'unknown' });
      const temporal = check("T_INTERSECTS(datetime, INTERVAL('2020-01-01', '..'))");
      expect((temporal as { args: unknown[] }).args[0]).to.deep.include({
        name: 'datetime',
        recordInterval: true,
      });
    });

    it('with dates and timestamps as spans, and interval ends as times', () => {
      const tree = check(
        "updated = DATE('2022-04-16') OR T_BEFORE(updated, INTERVAL('2020-01-01T10:00:00Z', '..'))",
      );
      const [equal, before] = (tree as { args: { args: unknown[] }[] }).args;
      expect(equal?.args[1]).to.deep.equal({
        kind: 'date',
        value: '2022-04-16',
        start: '2022-04-16T00:00:00.000Z',
        end: '2022-04-16T23:59:59.999Z',
      });
      expect((before?.args[1] as { start: unknown }).start).to.deep.include({
        kind: 'timestamp',
        start: '2020-01-01T10:00:00.000Z',
      });
    });

    it('with boxes and geometries validated and normalised', () => {
      const tree = check('S_INTERSECTS(geometry, BBOX(170, -10, 0, -160, 10, 0))');
      expect((tree as { args: unknown[] }).args[1]).to.deep.include({
        kind: 'bbox',
        box: [170, -10, -160, 10],
        envelope: [170, -10, -160, 10],
      });
      const polygon = check('S_WITHIN(geometry, POLYGON((0 0, 4 0, 0 3, 0 0)))');
      expect((polygon as { args: unknown[] }).args[1]).to.deep.include({
        kind: 'geometry',
        envelope: [0, 0, 4, 3],
      });
    });

    it('with arithmetic, CASEI and ACCENTI on literals folded', () => {
      expect(check('cloudCover < 2 * 3 + 4')).to.deep.include({
        args: [
          {
            kind: 'property',
            name: 'cloudCover',
            type: 'number',
            queryable: (check('cloudCover < 1') as { args: { queryable: unknown }[] }).args[0]
              ?.queryable,
          },
          { kind: 'literal', value: 10 },
        ],
      });
      expect((check("title = CASEI('ÄbC')") as { args: unknown[] }).args[1]).to.deep.equal({
        kind: 'literal',
        value: 'äbc',
      });
      expect((check("title = ACCENTI('Äb')") as { args: unknown[] }).args[1]).to.deep.equal({
        kind: 'literal',
        value: 'Ab',
      });
      // Division by zero is NULL, not a number: left for the backend (SQL NULL).
      expect((check('cloudCover = 1 / 0') as { args: { kind: string }[] }).args[1]?.kind).to.equal(
        'op',
      );
    });

    it('that the CQL2 printer still writes', () => {
      const tree = check(
        "T_INTERSECTS(updated, INTERVAL('2020-01-01', '..')) AND cloudCover < 1 + 2",
      );
      expect(() => JSON.stringify(tree)).not.to.throw();
    });
  });
});

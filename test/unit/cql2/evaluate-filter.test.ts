import { expect } from 'chai';
import { FilterError } from '../../../shared/errors/index.js';
import { checkFilter, foldArithmetic } from '../../../shared/query/check-filter.js';
import { parseCql2Text } from '../../../shared/query/cql2/index.js';
import {
  buildFilterSubject,
  compareText,
  compileRecordPredicate,
  type Truth,
} from '../../../shared/query/evaluate-filter.js';
import { buildEmptyRecord, type CoreRecord } from '../../../shared/records/core-record.js';

function recordWith(changes: Partial<CoreRecord>): CoreRecord {
  return {
    ...buildEmptyRecord('r1', {
      format: 'geojson',
      mediaType: 'application/geo+json',
      content: '',
    }),
    ...changes,
  };
}

const TRIANGLE = {
  type: 'Polygon' as const,
  coordinates: [
    [
      [0, 0],
      [1, 0],
      [0, 1],
      [0, 0],
    ],
  ],
};

const PLACE = recordWith({
  title: 'København',
  updated: '2022-04-16T10:13:19.000Z',
  extra: { pop_min: 1000, pop_max: 2000, name: 'København', code: '1000', day: '2022-04-16' },
  geometry: TRIANGLE,
  bbox: [0, 0, 1, 1],
  time: { start: '2020-01-01T00:00:00.000Z', end: null },
});

const evaluate = (text: string, record: CoreRecord = PLACE): Truth =>
  compileRecordPredicate(checkFilter(parseCql2Text(text)))(buildFilterSubject(record));

describe('compileRecordPredicate: a CQL2 filter decided in Node, as SQLite decides it', () => {
  it('uses three-valued logic: a missing property is NULL, which only NOT NULL keeps NULL', () => {
    expect(evaluate('missing = 1')).to.equal(null);
    expect(evaluate('NOT (missing = 1)')).to.equal(null);
    expect(evaluate('missing = 1 OR pop_min = 1000')).to.equal(true);
    expect(evaluate('missing = 1 OR pop_min = 1')).to.equal(null);
    expect(evaluate('missing = 1 AND pop_min = 1')).to.equal(false);
    expect(evaluate('missing IS NULL')).to.equal(true);
    expect(evaluate('NOT (pop_min IS NULL)')).to.equal(true);
  });

  it('compares two properties of the same kind only (text with text, numbers with numbers)', () => {
    expect(evaluate('pop_min < pop_max')).to.equal(true);
    expect(evaluate('pop_min >= pop_max')).to.equal(false);
    expect(evaluate('name = title')).to.equal(true);
    // '1000' (text) and 1000 (a number) are not comparable: NULL, not FALSE.
    expect(evaluate('code = pop_min')).to.equal(null);
    expect(evaluate('pop_min BETWEEN 0 AND pop_max')).to.equal(true);
  });

  it('computes arithmetic as SQLite: division by zero is NULL, div truncates', () => {
    expect(evaluate('pop_max / 0 = 1')).to.equal(null);
    expect(evaluate('pop_max - pop_min = 1000')).to.equal(true);
    expect(evaluate('pop_max div 3 = 666')).to.equal(true);
    expect(evaluate('pop_max % 3 = 2')).to.equal(true);
    expect(foldArithmetic('/', 7, 2)).to.equal(3.5);
    expect(foldArithmetic('div', -7, 2)).to.equal(-3);
    expect(foldArithmetic('%', 1, 0)).to.equal(undefined);
    expect(foldArithmetic('^', -8, 0.5)).to.equal(undefined);
  });

  it('compares times as the spans they cover, at the coarser granularity', () => {
    expect(evaluate("day = TIMESTAMP('2022-04-16T23:00:00Z')")).to.equal(true);
    expect(evaluate("day < TIMESTAMP('2022-04-16T23:00:00Z')")).to.equal(false);
    expect(evaluate("updated = DATE('2022-04-16')")).to.equal(true);
    expect(evaluate("T_INTERSECTS(datetime, INTERVAL('2021-01-01', '..'))")).to.equal(true);
    expect(evaluate("T_BEFORE(datetime, DATE('2030-01-01'))")).to.equal(false);
    expect(evaluate("T_AFTER(datetime, DATE('2019-01-01'))")).to.equal(true);
  });

  it('folds case and accents with the shared folds', () => {
    expect(evaluate("CASEI(name) = CASEI('KØBENHAVN')")).to.equal(true);
    expect(evaluate("ACCENTI(name) = ACCENTI('Kobenhavn')")).to.equal(true);
    expect(evaluate("name LIKE 'K_benhavn'")).to.equal(true);
    expect(evaluate("name LIKE 'k%'")).to.equal(false);
  });

  it('relates the footprint exactly (jsts), the bbox standing for a missing geometry', () => {
    expect(evaluate('S_TOUCHES(geometry, BBOX(1, 0, 2, 1))')).to.equal(true);
    expect(evaluate('S_INTERSECTS(geometry, POINT(0.9 0.9))')).to.equal(false);
    expect(evaluate('S_OVERLAPS(geometry, BBOX(0.5, 0, 2, 1))')).to.equal(true);
    expect(evaluate('S_INTERSECTS(geometry, geometry)')).to.equal(true);
    const boxOnly = recordWith({ bbox: [0, 0, 1, 1] });
    expect(evaluate('S_INTERSECTS(geometry, POINT(0.9 0.9))', boxOnly)).to.equal(true);
    const nowhere = recordWith({});
    expect(evaluate('S_INTERSECTS(geometry, POINT(0.9 0.9))', nowhere)).to.equal(null);
    expect(evaluate('NOT S_DISJOINT(geometry, POINT(0.9 0.9))', nowhere)).to.equal(null);
  });

  it('measures DWithin and Beyond in great-circle metres', () => {
    const filter = compileRecordPredicate(
      checkFilter({
        kind: 'op',
        op: 's_dwithin',
        args: [
          { kind: 'property', name: 'geometry' },
          { kind: 'geometry', geometry: { type: 'Point', coordinates: [0, 2] } },
          { kind: 'literal', value: 150_000 },
          { kind: 'literal', value: 'm' },
        ],
      }),
    );
    // The triangle's nearest point (0 1) is about 111 km from (0 2).
    expect(filter(buildFilterSubject(PLACE))).to.equal(true);
  });

  it('relates arrays as sets, a scalar standing for a one-element array', () => {
    const tagged = recordWith({ extra: { tags: ['a', 'b'], one: 'a' } });
    expect(evaluate("A_CONTAINS(tags, ('a'))", tagged)).to.equal(true);
    expect(evaluate('A_OVERLAPS(tags, one)', tagged)).to.equal(true);
    expect(evaluate("A_EQUALS(missing, ('a'))", tagged)).to.equal(null);
  });

  it('takes only checked filters: the FilterErrors SQLite throws come from checkFilter', () => {
    for (const [text, pattern] of [
      ['nosuch(pop_min) = 1', /Unknown function "nosuch"/],
      ['title = 3', /Cannot compare/],
      ['CASEI(updated) = 1', /CASEI needs a string/],
      ['S_TOUCHES(title, BBOX(0, 0, 1, 1))', /not a spatial property/],
      ["T_DURING(datetime, DATE('2020-01-01'))", /compares intervals/],
    ] as const) {
      expect(() => compileRecordPredicate(checkFilter(parseCql2Text(text))), text).to.throw(
        FilterError,
        pattern,
      );
    }
  });
});

describe('compareText: the order of SQLite BINARY (code points)', () => {
  it('orders a character beyond the BMP after every BMP character', () => {
    expect(compareText('\uffff', '\u{10000}')).to.be.lessThan(0);
    expect('\uffff' < '\u{10000}').to.equal(false); // UTF-16 order would differ
    expect(compareText('a', 'b')).to.be.lessThan(0);
    expect(compareText('ab', 'a')).to.be.greaterThan(0);
    expect(compareText('x', 'x')).to.equal(0);
  });
});

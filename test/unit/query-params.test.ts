import { expect } from 'chai';
import { InvalidParameterError } from '../../shared/errors/index.js';
import {
  parseBbox,
  parseDatetime,
  parseFreeText,
  parseLimit,
  parseList,
  parseOffset,
  parseSortby,
} from '../../shared/query/params.js';
import { findPositionFault, isCrs84Coordinate } from '../../shared/query/crs84.js';

function expectInvalid(fn: () => unknown, locator: string): void {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidParameterError);
    expect((error as InvalidParameterError).locator).to.equal(locator);
    expect((error as Error).message).to.contain(locator);
    return;
  }
  expect.fail('expected an InvalidParameterError');
}

describe('shared query parameters', () => {
  describe('parseBbox', () => {
    it('reads four numbers as west, south, east, north', () => {
      expect(parseBbox('-10.5,40,5,52.25')).to.deep.equal([-10.5, 40, 5, 52.25]);
    });
    it('drops the heights of a six-number box', () => {
      expect(parseBbox('1,2,-100,3,4,200')).to.deep.equal([1, 2, 3, 4]);
    });
    it('keeps west > east as an antimeridian-crossing box', () => {
      expect(parseBbox('170,-20,-170,-10')).to.deep.equal([170, -20, -170, -10]);
    });
    it('accepts degenerate boxes (points and lines)', () => {
      expect(parseBbox('10,20,10,20')).to.deep.equal([10, 20, 10, 20]);
    });
    it('refuses wrong counts, non-numbers, out-of-range values and south > north', () => {
      expectInvalid(() => parseBbox('1,2,3'), 'bbox');
      expectInvalid(() => parseBbox('a,b,c,d'), 'bbox');
      expectInvalid(() => parseBbox('[1,2,3,4]'), 'bbox');
      expectInvalid(() => parseBbox('0,0,200,10'), 'bbox');
      expectInvalid(() => parseBbox('0,50,10,40'), 'bbox');
    });
  });

  describe('parseDatetime', () => {
    it('reads an instant as a zero-length interval in UTC', () => {
      expect(parseDatetime('2020-01-02T03:04:05+02:00')).to.deep.equal({
        start: '2020-01-02T01:04:05.000Z',
        end: '2020-01-02T01:04:05.000Z',
      });
    });
    it('reads closed and half-open intervals', () => {
      expect(parseDatetime('2020-01-01T00:00:00Z/..')).to.deep.equal({
        start: '2020-01-01T00:00:00.000Z',
        end: null,
      });
      expect(parseDatetime('/2020-01-01T00:00:00Z')).to.deep.equal({
        start: null,
        end: '2020-01-01T00:00:00.000Z',
      });
    });
    it('reads a bare date as the whole day only when dates are allowed', () => {
      expect(parseDatetime('2021-03-04', { allowDates: true })).to.deep.equal({
        start: '2021-03-04T00:00:00.000Z',
        end: '2021-03-04T23:59:59.999Z',
      });
      expectInvalid(() => parseDatetime('2021-03-04'), 'datetime');
    });
    it('refuses impossible dates, reversed intervals, two open ends and missing zones', () => {
      expectInvalid(() => parseDatetime('2020-13-01', { allowDates: true }), 'datetime');
      expectInvalid(() => parseDatetime('2021-01-01/2020-01-01', { allowDates: true }), 'datetime');
      expectInvalid(() => parseDatetime('../..'), 'datetime');
      expectInvalid(() => parseDatetime('/'), 'datetime');
      expectInvalid(() => parseDatetime('2020-01-01T00:00:00'), 'datetime');
      expectInvalid(() => parseDatetime('2020-02-30T00:00:00Z'), 'datetime');
    });
  });

  describe('parseLimit and parseOffset', () => {
    it('defaults, and clamps large limits instead of refusing them', () => {
      expect(parseLimit(undefined, 10, 100)).to.equal(10);
      expect(parseLimit('5', 10, 100)).to.equal(5);
      expect(parseLimit('100000', 10, 100)).to.equal(100);
    });
    it('refuses non-integers, zero and negative values', () => {
      expectInvalid(() => parseLimit('abc', 10, 100), 'limit');
      expectInvalid(() => parseLimit('0', 10, 100), 'limit');
      expectInvalid(() => parseLimit('-3', 10, 100), 'limit');
      expectInvalid(() => parseOffset('-1', 'startindex'), 'startindex');
      expectInvalid(() => parseOffset('1.5'), 'offset');
      expect(parseOffset('25')).to.equal(25);
    });
  });

  describe('parseSortby', () => {
    it('maps names and aliases to canonical sortable fields with directions', () => {
      expect(parseSortby('-updated,+title,dc:type')).to.deep.equal([
        { field: 'updated', direction: 'desc' },
        { field: 'title', direction: 'asc' },
        { field: 'type', direction: 'asc' },
      ]);
    });
    it('refuses unknown and non-sortable fields', () => {
      expectInvalid(() => parseSortby('nosuchfield'), 'sortby');
      expectInvalid(() => parseSortby('description'), 'sortby');
    });
    it('accepts a sortable learned property by its exact name; a core name keeps its meaning', () => {
      const sortable = new Set(['pop_est', 'NAME']);
      expect(parseSortby('-pop_est,NAME,title', 'sortby', sortable)).to.deep.equal([
        { field: 'pop_est', direction: 'desc' },
        { field: 'NAME', direction: 'asc' },
        { field: 'title', direction: 'asc' },
      ]);
      // Learned names are exact; a core name that is not sortable stays refused.
      expectInvalid(() => parseSortby('POP_EST', 'sortby', sortable), 'sortby');
      expectInvalid(() => parseSortby('description', 'sortby', new Set(['description'])), 'sortby');
    });
  });

  describe('parseFreeText', () => {
    it('splits terms on commas and words on whitespace', () => {
      expect(parseFreeText('ocean,climate \t change, ,desalination')).to.deep.equal([
        ['ocean'],
        ['climate', 'change'],
        ['desalination'],
      ]);
      expect(parseFreeText(' , ')).to.equal(undefined);
    });
  });

  describe('parseList', () => {
    it('splits on every comma, trims each item and drops the empty ones', () => {
      expect(parseList(' a, b ,,c ,\t, ')).to.deep.equal(['a', 'b', 'c']);
      expect(parseList('x')).to.deep.equal(['x']);
      expect(parseList('')).to.deep.equal([]);
      expect(parseList(' , ,')).to.deep.equal([]);
    });
    it('keeps inner spaces and knows no escaping', () => {
      expect(parseList('a b, "c,d", e\\,f')).to.deep.equal(['a b', '"c', 'd"', 'e\\', 'f']);
    });
  });

  describe('CRS84 positions', () => {
    it('are longitude ±180 and latitude ±90, edges included', () => {
      expect(isCrs84Coordinate(180, -90)).to.equal(true);
      expect(isCrs84Coordinate(-180, 90)).to.equal(true);
      expect(isCrs84Coordinate(180.5, 0)).to.equal(false);
      expect(isCrs84Coordinate(0, -90.5)).to.equal(false);
      expect(isCrs84Coordinate(90, 180)).to.equal(false);
    });
    it('name what is wrong with a position: its shape first, then its range', () => {
      expect(findPositionFault([1, 2])).to.equal(undefined);
      expect(findPositionFault([1, 2, 3, 4])).to.equal(undefined);
      expect(findPositionFault([1, 2, 3, 4], 2, 3)).to.equal('shape');
      expect(findPositionFault([1])).to.equal('shape');
      expect(findPositionFault([1, Number.NaN])).to.equal('shape');
      expect(findPositionFault([1, '2'])).to.equal('shape');
      expect(findPositionFault('1 2')).to.equal('shape');
      expect(findPositionFault([200, Number.POSITIVE_INFINITY])).to.equal('shape');
      expect(findPositionFault([200, 0])).to.equal('range');
      expect(findPositionFault([0, 91, 5], 2, 3)).to.equal('range');
    });
  });
});

import { expect } from 'chai';
import {
  bboxToGeometry,
  foldCase,
  geodesicDistance,
  haversineMetres,
  likeToGlob,
  likeToRegExp,
  matchesLike,
  readGeometry,
  relateArrays,
  relateGeometries,
  stripAccents,
  timeSpanEnd,
  timeSpanStart,
} from '../../../shared/search/sqlite/sql-functions.js';

describe('SQLite filter functions (pure helpers)', () => {
  describe('foldCase (CASEI)', () => {
    it('folds case with full Unicode case folding', () => {
      expect(foldCase('Straße')).to.equal(foldCase('STRASSE'));
      expect(foldCase('KØBENHAVN')).to.equal(foldCase('københavn'));
      expect(foldCase('ΟΔΟΣ')).to.equal(foldCase('οδοσ'));
      expect(foldCase('Οδος')).to.equal(foldCase('ΟΔΟΣ'));
      expect(foldCase('ſ')).to.equal(foldCase('S'));
    });

    it('normalises compatibility forms first and keeps accents', () => {
      expect(foldCase('ﬁle')).to.equal(foldCase('FILE'));
      expect(foldCase('Cafe\u0301')).to.equal(foldCase('CAFÉ'));
      expect(foldCase('café')).to.not.equal(foldCase('cafe'));
    });
  });

  describe('stripAccents (ACCENTI)', () => {
    it('removes combining marks after decomposition and keeps case', () => {
      expect(stripAccents('débárquér')).to.equal('debarquer');
      expect(stripAccents('Ça')).to.equal('Ca');
      expect(stripAccents('Cafe\u0301')).to.equal('Cafe');
      expect(stripAccents('papá')).to.equal('papa');
    });

    it('maps letters whose stroke does not decompose', () => {
      expect(stripAccents('København')).to.equal('Kobenhavn');
      expect(stripAccents('Łódź')).to.equal('Lodz');
      expect(stripAccents('Đakovo')).to.equal('Dakovo');
    });

    it('leaves letters that are not accented alone', () => {
      expect(stripAccents('Æble ß')).to.equal('Æble ß');
      expect(stripAccents('Αθήνα')).to.equal('Αθηνα');
    });
  });

  describe('LIKE patterns', () => {
    it('translate to GLOB with escapes and GLOB metacharacters quoted', () => {
      expect(likeToGlob('B_r%')).to.equal('B?r*');
      expect(likeToGlob('100\\%')).to.equal('100%');
      expect(likeToGlob('a\\_b')).to.equal('a_b');
      expect(likeToGlob('a\\\\b')).to.equal('a\\b');
      expect(likeToGlob('[x]*?')).to.equal('[[]x][*][?]');
      expect(likeToGlob('trailing\\')).to.equal('trailing\\');
    });

    it('match case-sensitively, one character (code point) per `_`', () => {
      expect(matchesLike('Berlin', 'B_r%')).to.equal(true);
      expect(matchesLike('berlin', 'B_r%')).to.equal(false);
      expect(matchesLike('København', 'K_benhavn')).to.equal(true);
      expect(matchesLike('a😀b', 'a_b')).to.equal(true);
      expect(matchesLike('line\nbreak', 'line%')).to.equal(true);
      expect(matchesLike('50%', '50\\%')).to.equal(true);
      expect(matchesLike('500', '50\\%')).to.equal(false);
      expect(matchesLike('a.b', 'a_b')).to.equal(true);
      expect(matchesLike('a(b', 'a(%')).to.equal(true);
      expect(likeToRegExp('x+y').test('x+y')).to.equal(true);
    });
  });

  describe('time spans', () => {
    it('give a timestamp as itself and a date as its whole UTC day', () => {
      expect(timeSpanStart('2022-04-16T10:13:19Z')).to.equal('2022-04-16T10:13:19.000Z');
      expect(timeSpanEnd('2022-04-16T12:13:19+02:00')).to.equal('2022-04-16T10:13:19.000Z');
      expect(timeSpanStart('2022-04-16')).to.equal('2022-04-16T00:00:00.000Z');
      expect(timeSpanEnd('2022-04-16')).to.equal('2022-04-16T23:59:59.999Z');
    });

    it('give nothing for values that are not times', () => {
      expect(timeSpanStart('Berlin')).to.equal(undefined);
      expect(timeSpanStart(20220416)).to.equal(undefined);
      expect(timeSpanEnd(null)).to.equal(undefined);
      expect(timeSpanEnd('2022-02-30')).to.equal(undefined);
    });
  });

  describe('distances (FES DWithin / Beyond)', () => {
    it('measures great-circle metres between positions', () => {
      expect(haversineMetres([0, 0], [0, 1])).to.be.closeTo(111_195, 1);
      expect(haversineMetres([179.5, 0], [-179.5, 0])).to.be.closeTo(111_195, 1);
      expect(haversineMetres([10, 60], [10, 60])).to.equal(0);
    });

    it('measures between geometries through their nearest points, zero when they meet', () => {
      const square = bboxToGeometry([0, 0, 1, 1]);
      expect(geodesicDistance({ type: 'Point', coordinates: [0.5, 0.5] }, square)).to.equal(0);
      expect(geodesicDistance({ type: 'Point', coordinates: [0.5, 2] }, square)).to.be.closeTo(
        111_195,
        50,
      );
      const north = geodesicDistance(
        { type: 'Point', coordinates: [10, 61] },
        bboxToGeometry([0, 59, 20, 60]),
      );
      expect(north).to.be.closeTo(111_195, 200);
    });
  });

  describe('relateArrays (A_*)', () => {
    it('compares arrays as sets of typed values', () => {
      expect(relateArrays('equals', ['a', 'b', 'a'], ['b', 'a'])).to.equal(true);
      expect(relateArrays('contains', ['a', 'b', 'c'], ['c', 'a'])).to.equal(true);
      expect(relateArrays('contains', ['a'], ['a', 'b'])).to.equal(false);
      expect(relateArrays('containedBy', ['a'], ['a', 'b'])).to.equal(true);
      expect(relateArrays('containedBy', [], ['a'])).to.equal(true);
      expect(relateArrays('overlaps', ['a', 'x'], ['x'])).to.equal(true);
      expect(relateArrays('overlaps', [], [])).to.equal(false);
      expect(relateArrays('equals', [1], ['1'])).to.equal(false);
      expect(relateArrays('equals', [true], [1])).to.equal(false);
      expect(relateArrays('equals', [[1, 2]], [[1, 2]])).to.equal(true);
    });
  });

  describe('geometries', () => {
    it('turn boxes into polygons, antimeridian boxes into two, degenerate ones into points or lines', () => {
      expect(bboxToGeometry([0, 0, 1, 1]).type).to.equal('Polygon');
      expect(bboxToGeometry([170, -10, -170, 10])).to.deep.equal({
        type: 'MultiPolygon',
        coordinates: [
          [
            [
              [170, -10],
              [180, -10],
              [180, 10],
              [170, 10],
              [170, -10],
            ],
          ],
          [
            [
              [-180, -10],
              [-170, -10],
              [-170, 10],
              [-180, 10],
              [-180, -10],
            ],
          ],
        ],
      });
      expect(bboxToGeometry([5, 5, 5, 5])).to.deep.equal({ type: 'Point', coordinates: [5, 5] });
      expect(bboxToGeometry([5, 0, 5, 10]).type).to.equal('LineString');
    });

    it('relate with Simple Features semantics', () => {
      const square = readGeometry(bboxToGeometry([0, 0, 10, 10]));
      const inner = readGeometry({ type: 'Point', coordinates: [5, 5] });
      const corner = readGeometry({ type: 'Point', coordinates: [10, 10] });
      const across = readGeometry({
        type: 'LineString',
        coordinates: [
          [-5, 5],
          [15, 5],
        ],
      });
      const half = readGeometry(bboxToGeometry([5, 0, 15, 10]));
      expect(relateGeometries('contains', square, inner)).to.equal(true);
      expect(relateGeometries('within', inner, square)).to.equal(true);
      expect(relateGeometries('touches', corner, square)).to.equal(true);
      expect(relateGeometries('within', corner, square)).to.equal(false);
      expect(relateGeometries('crosses', across, square)).to.equal(true);
      expect(relateGeometries('overlaps', half, square)).to.equal(true);
      expect(
        relateGeometries('equals', square, readGeometry(bboxToGeometry([0, 0, 10, 10]))),
      ).to.equal(true);
      const antimeridian = readGeometry(bboxToGeometry([170, -10, -170, 10]));
      const fiji = readGeometry({ type: 'Point', coordinates: [178, -5] });
      expect(relateGeometries('intersects', fiji, antimeridian)).to.equal(true);
      expect(relateGeometries('disjoint', inner, antimeridian)).to.equal(true);
      expect(relateGeometries('within', fiji, antimeridian)).to.equal(true);
    });
  });
});

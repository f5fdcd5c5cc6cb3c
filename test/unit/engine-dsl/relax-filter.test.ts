import { expect } from 'chai';
import { FilterError } from '../../../shared/errors/index.js';
import { checkFilter } from '../../../shared/query/check-filter.js';
import { parseCql2Text } from '../../../shared/query/cql2/index.js';
import { literal, operator, propertyRef } from '../../../shared/query/filter-ast.js';
import {
  compileFilterDsl,
  type FilterContext,
} from '../../../shared/search/engine/compile-filter.js';
import { compileSpatialRelation } from '../../../shared/search/engine/compile-spatial.js';
import { anyOf } from '../../../shared/search/engine/dsl.js';
import { growBox, relaxFilter } from '../../../shared/search/engine/relax-filter.js';
import type { FieldKind } from '../../../shared/search/engine/engine-fields.js';
import type { SpatialMode } from '../../../shared/search/engine/index-templates.js';
import { defined } from '../../support/defined.js';

const MAPPED: Record<string, FieldKind> = {
  'props.score': 'number',
  'props.rank': 'number',
};

function context(spatial: SpatialMode = 'envelope'): FilterContext {
  return { spatial, engineName: 'OpenSearch', mappedKind: (path) => MAPPED[path] ?? 'absent' };
}

const relax = (text: string, spatial: SpatialMode = 'envelope') =>
  relaxFilter(checkFilter(parseCql2Text(text)), context(spatial));
const exact = (text: string, spatial: SpatialMode = 'envelope') =>
  compileFilterDsl(checkFilter(parseCql2Text(text)), context(spatial));
const MATCH_ALL = { match_all: {} };

describe('relaxFilter: a superset engine query for what the engine cannot decide alone', () => {
  it('is the exact query when the engine decides the whole filter', () => {
    expect(relax('score > 5 AND NOT (rank = 2)')).to.deep.equal({
      query: exact('score > 5 AND NOT (rank = 2)'),
      operators: [],
    });
  });

  it('drops a refused predicate under AND and keeps what the engine decides', () => {
    expect(relax('score > 5 AND score < rank')).to.deep.equal({
      query: exact('score > 5'),
      operators: ['comparing two properties'],
    });
    expect(relax('score > 5 AND score * 2 > rank').query).to.deep.equal(exact('score > 5'));
  });

  it('widens a refused predicate under OR to everything', () => {
    expect(relax('score > 5 OR score < rank').query).to.deep.equal(MATCH_ALL);
  });

  it('is polarity-aware under NOT: NOT (p OR refused) needs p FALSE, NOT (p AND refused) does not', () => {
    // NOT (p OR q) is TRUE only where p is FALSE (and q is FALSE, unknown to the engine).
    expect(relax('NOT (score > 5 OR score < rank)').query).to.deep.equal(exact('NOT (score > 5)'));
    // NOT (p AND q) is TRUE wherever q is FALSE, whatever p: no narrowing is sound.
    expect(relax('NOT (score > 5 AND score < rank)').query).to.deep.equal(MATCH_ALL);
    // Double negation: back to the positive polarity.
    expect(relax('NOT (NOT (score > 5 AND score < rank))').query).to.deep.equal(exact('score > 5'));
  });

  it('keeps three-valued logic: the predicate under NOT is selected where it is FALSE, not NULL', () => {
    // FALSE needs the property: a record without `score` is never a candidate of NOT (score > 5).
    const query = JSON.stringify(relax('NOT (score > 5) AND score < rank').query);
    expect(query).to.include('"exists":{"field":"props.score"}');
  });

  it('narrows a spatial relation that implies intersection to the boxes meeting the operand', () => {
    for (const spatial of ['shape', 'envelope'] as const) {
      const relaxed = relax('S_TOUCHES(geometry, BBOX(0, 0, 1, 1))', spatial);
      expect(relaxed.operators).to.deep.equal(['S_TOUCHES']);
      expect(relaxed.query).to.deep.equal(
        compileSpatialRelation('envelope', 'intersects', {
          bbox: [-1e-9, -1e-9, 1 + 1e-9, 1 + 1e-9],
        }),
      );
      // Its negation may hold anywhere (a footprint far away does not touch).
      expect(relax('NOT S_TOUCHES(geometry, BBOX(0, 0, 1, 1))', spatial).query).to.deep.equal(
        MATCH_ALL,
      );
    }
  });

  it('narrows DWithin to the boxes meeting the operand grown by the distance, and Beyond to nothing', () => {
    const distance = (name: string) =>
      checkFilter(
        operator(
          name,
          propertyRef('geometry'),
          { kind: 'geometry', geometry: { type: 'Point', coordinates: [10, 50] } },
          literal(100_000),
          literal('m'),
        ),
      );
    const within = relaxFilter(distance('s_dwithin'), context());
    expect(within.operators).to.deep.equal(['distance operators (DWithin, Beyond)']);
    const [box] = defined(growBox([10, 50, 10, 50], 100_000), 'a grown box');
    const [west, south, east, north] = defined(box, 'the grown box');
    expect(within.query).to.deep.equal(
      compileSpatialRelation('envelope', 'intersects', {
        bbox: [west - 1e-9, south - 1e-9, east + 1e-9, north + 1e-9],
      }),
    );
    expect(relaxFilter(distance('s_beyond'), context()).query).to.deep.equal(MATCH_ALL);
    expect(
      relaxFilter(checkFilter(operator('not', distance('s_dwithin'))), context()).query,
    ).to.deep.equal(MATCH_ALL);
  });

  it('adds the documents in doubt to an unproven spatial relation', () => {
    // Shape mode: footprints within the engine's precision of the box edges are in doubt.
    const filter = checkFilter(parseCql2Text('S_INTERSECTS(geometry, BBOX(0, 0, 10, 10))'));
    const doubts: NonNullable<FilterContext['doubts']> = [];
    const proven = compileFilterDsl(filter, { ...context('shape'), doubts });
    expect(doubts).to.have.length(1);
    const relaxed = relaxFilter(filter, context('shape'));
    expect(relaxed.operators).to.deep.equal(['S_INTERSECTS']);
    expect(relaxed.query).to.deep.equal(anyOf([proven, defined(doubts[0], 'the doubt').query]));
    expect(relaxed.query).to.not.deep.equal(proven);
  });

  it('throws the FilterErrors of a filter that is invalid on every backend', () => {
    expect(() => relax('nosuchfunction(score) AND score < rank')).to.throw(
      FilterError,
      /Unknown function/,
    );
  });
});

describe('growBox: the boxes within a distance of a box', () => {
  it('grows by at least the distance in degrees, wider in longitude away from the equator', () => {
    const [box] = defined(growBox([10, 50, 10, 50], 111_195), 'a grown box');
    const [west, south, east, north] = defined(box, 'the grown box');
    expect(north - 50).to.be.greaterThan(1);
    expect(50 - south).to.be.greaterThan(1);
    expect(east - 10).to.be.greaterThan(1 / Math.cos((51 * Math.PI) / 180));
    expect(10 - west).to.equal(east - 10);
  });

  it('wraps at the antimeridian and gives up near the poles or for huge distances', () => {
    const [box] = defined(growBox([179.5, 0, 179.5, 0], 111_195), 'a grown box');
    const [west, , east] = defined(box, 'the grown box');
    expect(west).to.be.lessThan(179.5);
    expect(east).to.be.lessThan(-178);
    expect(growBox([0, 88.5, 1, 88.5], 200_000)).to.equal(undefined);
    expect(growBox([0, 0, 1, 1], 5_000_000)).to.equal(undefined);
  });
});

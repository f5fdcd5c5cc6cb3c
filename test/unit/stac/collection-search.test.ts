import { expect } from 'chai';
import { CairnError } from '../../../shared/errors/index.js';
import {
  boxesIntersect,
  collectionExtentMatches,
  withChildrenExtent,
} from '../../../services/api/protocols/stac/collection-extents.js';
import {
  isCollectionSearch,
  parseCollectionsQuery,
} from '../../../services/api/protocols/stac/parse.js';
import { applyFields } from '../../../services/api/protocols/stac/present.js';

const LIMITS = { defaultLimit: 10, maxLimit: 100 };

function collection(bbox: number[][], interval: (string | null)[][]): Record<string, unknown> {
  return {
    type: 'Collection',
    id: 'c',
    description: 'd',
    license: 'CC0-1.0',
    extent: { spatial: { bbox }, temporal: { interval } },
    links: [],
    keywords: ['k'],
  };
}

describe('STAC API Collection Search', () => {
  describe('parsing', () => {
    it('reads bbox, datetime, q, filter, sortby and fields, as the item search does', () => {
      const search = parseCollectionsQuery(
        {
          bbox: '170,-10,-170,10',
          datetime: '2020-01-01T00:00:00Z/..',
          q: 'sea ice,glacier',
          filter: "title LIKE 'A%'",
          sortby: '-title',
          fields: 'title,-links',
        },
        LIMITS,
      );
      expect(search.bbox).to.deep.equal([170, -10, -170, 10]);
      expect(search.datetime).to.deep.equal({ start: '2020-01-01T00:00:00.000Z', end: null });
      expect(search.text).to.deep.equal([['sea', 'ice'], ['glacier']]);
      expect(search.filter).to.include({ kind: 'op', op: 'like' });
      expect(search.sort).to.deep.equal([{ field: 'title', direction: 'desc' }]);
      expect(search.fields).to.include({ base: 'default' });
      expect(search.fields?.include).to.deep.equal(['title']);
      expect(search.fields?.exclude).to.deep.equal(['links']);
      expect(isCollectionSearch(search)).to.equal(true);
      expect(isCollectionSearch(parseCollectionsQuery({ sortby: 'id' }, LIMITS))).to.equal(false);
    });

    it('refuses bad values naming the parameter', () => {
      for (const [name, value] of [
        ['bbox', '1,2,3'],
        ['datetime', '2020-13-01T00:00:00Z'],
        ['filter', 'title =='],
        ['filter-lang', 'cql3'],
        ['sortby', 'unknown-property'],
        ['q', ['a', 'b']],
      ] as const) {
        expect(() => parseCollectionsQuery({ [name]: value }, LIMITS), name)
          .to.throw(CairnError)
          .with.property('message')
          .that.contains(name);
      }
    });

    it('keeps a valid collection by default under fields, and everything minus excludes', () => {
      const document = collection([[0, 0, 1, 1]], [[null, null]]);
      const { fields } = parseCollectionsQuery({ fields: 'keywords' }, LIMITS);
      expect(Object.keys(applyFields(document, fields!)).sort()).to.deep.equal(
        ['description', 'extent', 'id', 'keywords', 'license', 'links', 'type'].sort(),
      );
      const excluded = parseCollectionsQuery({ fields: '-extent' }, LIMITS).fields!;
      expect(applyFields(document, excluded)).to.not.have.property('extent');
      expect(applyFields(document, excluded)).to.have.property('keywords');
    });
  });

  describe('extents', () => {
    it('serves the items’ extent where the collection has items, else its own', () => {
      const own = collection([[0, 0, 10, 10]], [['2000-01-01T00:00:00Z', null]]);
      expect(withChildrenExtent(own, undefined)).to.equal(own);
      const served = withChildrenExtent(own, {
        parentId: 'c',
        count: 2,
        bbox: [1, 2, 3, 4],
        time: { start: '2020-01-01T00:00:00.000Z', end: null },
      });
      expect(served.extent).to.deep.equal({
        spatial: { bbox: [[1, 2, 3, 4]] },
        temporal: { interval: [['2020-01-01T00:00:00.000Z', null]] },
      });
      // Items without a time keep the declared interval.
      const boxesOnly = withChildrenExtent(own, { parentId: 'c', count: 1, bbox: [1, 2, 3, 4] });
      expect((boxesOnly.extent as { temporal: unknown }).temporal).to.deep.equal({
        interval: [['2000-01-01T00:00:00Z', null]],
      });
    });

    it('meets boxes edge to edge and across the antimeridian', () => {
      expect(boxesIntersect([0, 0, 1, 1], [1, 1, 2, 2])).to.equal(true);
      expect(boxesIntersect([0, 0, 1, 1], [1.01, 0, 2, 1])).to.equal(false);
      expect(boxesIntersect([170, -10, -170, 10], [-175, 0, -174, 1])).to.equal(true);
      expect(boxesIntersect([170, -10, -170, 10], [0, 0, 1, 1])).to.equal(false);
      expect(boxesIntersect([170, -10, -170, 10], [175, -5, -175, 5])).to.equal(true);
      expect(boxesIntersect([0, 0, 1, 1], [0, 2, 1, 3])).to.equal(false);
    });

    it('matches any box and any interval of the served extent', () => {
      const document = collection(
        [[-30, -30, 30, 30, 0, 100].slice(0, 4), [-30, -30, 0, -20, 5, 6]],
        [
          ['1990-01-01T00:00:00Z', '1990-12-31T23:59:59Z'],
          ['1995-01-01', null],
        ],
      );
      expect(collectionExtentMatches(document, [-1, -1, 1, 1], undefined)).to.equal(true);
      expect(collectionExtentMatches(document, [40, 40, 50, 50], undefined)).to.equal(false);
      const at = (start: string | null, end: string | null) => ({ start, end });
      const match = (start: string | null, end: string | null) =>
        collectionExtentMatches(document, undefined, at(start, end));
      expect(match('1990-06-01T00:00:00.000Z', '1990-06-01T00:00:00.000Z')).to.equal(true);
      expect(match('1992-01-01T00:00:00.000Z', '1993-01-01T00:00:00.000Z')).to.equal(false);
      expect(match('2030-01-01T00:00:00.000Z', null)).to.equal(true);
      expect(match(null, '1989-12-31T23:59:59.999Z')).to.equal(false);
      expect(match(null, '1990-01-01T00:00:00.000Z')).to.equal(true);
      // Both: a box and an interval must each match.
      expect(
        collectionExtentMatches(document, [40, 40, 50, 50], at('1990-06-01T00:00:00.000Z', null)),
      ).to.equal(false);
    });
  });
});

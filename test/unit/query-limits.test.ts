/**
 * The query cost limits (shared/query/query-limits.ts): what is counted, and that every refusal
 * is a QueryLimitError naming its setting and value.
 */
import { expect } from 'chai';
import { QueryLimitError } from '../../shared/errors/index.js';
import { parseCql2Json } from '../../shared/query/cql2/index.js';
import { operator, propertyRef, literal, type Expression } from '../../shared/query/filter-ast.js';
import {
  checkFilterJsonSize,
  checkFilterTextSize,
  checkFacetCount,
  checkQueryLimits,
  countTextTokens,
  isCostlyLikePattern,
  likePatternWildcards,
  isDeepPage,
  isIndexOrder,
  measureFilter,
  pagingKey,
  measureGeometry,
  prepareQuery,
} from '../../shared/query/query-limits.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import { checkFilter } from '../../shared/query/check-filter.js';
import { NextPageOffsets } from '../../shared/search/next-page-offsets.js';
import { defined } from '../support/defined.js';
import { smallQueryLimits } from '../support/small-query-limits.js';
import { loadConfig } from '../../shared/config/index.js';
import { FACET_PROPERTIES } from '../../services/api/protocols/records/parse.js';

const LIMITS = smallQueryLimits();

const query = (parts: Partial<SearchQuery>): SearchQuery => ({
  sort: [],
  offset: 0,
  limit: 10,
  ...parts,
});

function refusal(check: () => void): QueryLimitError {
  try {
    check();
  } catch (error) {
    expect(error).to.be.instanceOf(QueryLimitError);
    expect((error as QueryLimitError).status).to.equal(400);
    expect((error as QueryLimitError).code).to.equal('QUERY_LIMIT_EXCEEDED');
    return error as QueryLimitError;
  }
  throw new Error('expected a QueryLimitError');
}

const square = (x: number): number[][] => [
  [x, 0],
  [x + 1, 0],
  [x + 1, 1],
  [x, 1],
  [x, 0],
];

describe('query cost limits', () => {
  it('measures geometries in parts (rings, lines, points) and vertices', () => {
    expect(measureGeometry({ type: 'Point', coordinates: [1, 2] })).to.deep.equal({
      parts: 1,
      vertices: 1,
    });
    expect(
      measureGeometry({
        type: 'MultiPolygon',
        coordinates: [[square(0), square(0.2)], [square(5)]],
      }),
    ).to.deep.equal({ parts: 3, vertices: 15 });
    expect(
      measureGeometry({
        type: 'GeometryCollection',
        geometries: [
          {
            type: 'LineString',
            coordinates: [
              [0, 0],
              [1, 1],
            ],
          },
          {
            type: 'MultiPoint',
            coordinates: [
              [0, 0],
              [1, 1],
              [2, 2],
            ],
          },
        ],
      }),
    ).to.deep.equal({ parts: 4, vertices: 5 });
  });

  it('measures filter depth and nodes without counting plain array items', () => {
    const filter = operator(
      'and',
      operator('a_contains', propertyRef('keywords'), {
        kind: 'array',
        items: Array.from({ length: 9 }, (_, i) => literal(`k${i}`)),
      }),
      operator('not', operator('=', propertyRef('title'), literal('x'))),
    );
    const measured = measureFilter(filter);
    expect(measured.depth).to.equal(4);
    expect(measured.nodes).to.equal(8);
    expect(measured.longestArray).to.equal(9);
  });

  it('refuses each limit with a message naming the setting and its value', () => {
    let deep: Expression = operator('=', propertyRef('title'), literal('x'));
    for (let i = 0; i < 8; i++) deep = operator('not', deep);
    expect(
      refusal(() => checkQueryLimits(query({ filter: checkFilter(deep) }), LIMITS)).message,
    ).to.contain('QUERY_MAX_FILTER_DEPTH');
    const wide = operator(
      'or',
      ...Array.from({ length: 20 }, (_, i) =>
        operator('=', propertyRef('title'), literal(String(i))),
      ),
    );
    expect(refusal(() => checkQueryLimits(query({ filter: checkFilter(wide) }), LIMITS)).message)
      .to.contain('QUERY_MAX_FILTER_NODES')
      .and.to.contain('50');
    const long = operator('in', propertyRef('title'), {
      kind: 'array',
      items: Array.from({ length: 11 }, (_, i) => literal(String(i))),
    });
    expect(
      refusal(() => checkQueryLimits(query({ filter: checkFilter(long) }), LIMITS)).message,
    ).to.contain('QUERY_MAX_ARRAY_ITEMS');
    const parts = refusal(() =>
      checkQueryLimits(
        query({
          spatial: {
            relation: 'intersects',
            geometry: { type: 'MultiPolygon', coordinates: [0, 2, 4, 6].map((x) => [square(x)]) },
          },
        }),
        LIMITS,
      ),
    );
    expect(parts.message).to.contain('QUERY_MAX_GEOMETRY_PARTS').and.to.contain('4 parts');
    expect(parts.locator).to.equal('geometry');
    expect(
      refusal(() =>
        checkQueryLimits(
          query({
            text: [
              ['a', 'b', 'c'],
              ['d', 'e', 'f'],
            ],
          }),
          LIMITS,
        ),
      ).message,
    ).to.contain('QUERY_MAX_TEXT_WORDS');
    expect(
      refusal(() => checkQueryLimits(query({ text: [['a\u0000b']] }), LIMITS)).locator,
    ).to.equal('q');
    expect(
      refusal(() =>
        checkQueryLimits(query({ ids: Array.from({ length: 11 }, (_, i) => `id${i}`) }), LIMITS),
      ).locator,
    ).to.equal('ids');
  });

  it('accepts a query at every limit', () => {
    const filter = operator(
      'and',
      operator('a_overlaps', propertyRef('keywords'), {
        kind: 'array',
        items: Array.from({ length: 10 }, (_, i) => literal(`k${i}`)),
      }),
      operator('s_intersects', propertyRef('geometry'), {
        kind: 'geometry',
        geometry: { type: 'MultiPolygon', coordinates: [[square(0)], [square(2)], [square(4)]] },
      }),
    );
    expect(() =>
      checkQueryLimits(
        query({ filter: checkFilter(filter), text: [['a', 'b', 'c', 'd', 'e']] }),
        LIMITS,
      ),
    ).not.to.throw();
  });

  it('refuses oversized CQL2 JSON before validating it, counting operands as nodes', () => {
    const items = Array.from({ length: 11 }, (_, i) => i);
    expect(
      refusal(() => checkFilterJsonSize({ op: 'in', args: [{ property: 'x' }, items] }, LIMITS))
        .message,
    ).to.contain('QUERY_MAX_ARRAY_ITEMS');
    const wide = { op: 'or', args: Array.from({ length: 60 }, () => ({ op: '=', args: [] })) };
    expect(refusal(() => checkFilterJsonSize(wide, LIMITS)).message).to.contain(
      'QUERY_MAX_FILTER_NODES',
    );
    const ring = Array.from({ length: 21 }, (_, i) => [i, i]);
    expect(
      refusal(() =>
        checkFilterJsonSize(
          {
            op: 's_intersects',
            args: [{ property: 'geometry' }, { type: 'Polygon', coordinates: [ring] }],
          },
          LIMITS,
        ),
      ).message,
    ).to.contain('QUERY_MAX_GEOMETRY_VERTICES');
    // Refused through the parser too, before the schema sees it.
    expect(() => parseCql2Json({ op: 'in', args: [{ property: 'x' }, items] }, LIMITS)).to.throw(
      QueryLimitError,
    );
    expect(() =>
      parseCql2Json({ op: 'in', args: [{ property: 'x' }, [1, 2]] }, LIMITS),
    ).not.to.throw();
  });

  it('refuses a filter text with more tokens than any filter within the limits', () => {
    const text = Array.from({ length: 200 }, (_, i) => `title = 't${i}'`).join(' OR ');
    expect(refusal(() => checkFilterTextSize(text, LIMITS)).message).to.contain('tokens');
    expect(() => checkFilterTextSize("title = 'it''s' AND x < 3", LIMITS)).not.to.throw();
  });

  describe('the cost model at the door', () => {
    it('drops repeated sort keys, the first occurrence of each property winning', () => {
      const prepared = prepareQuery(
        query({
          sort: [
            { field: 'title', direction: 'asc' },
            { field: 'title', direction: 'desc' },
            { field: 'updated', direction: 'desc' },
            { field: 'title', direction: 'asc' },
            { field: 'updated', direction: 'asc' },
          ],
        }),
        LIMITS,
      );
      expect(prepared.sort).to.deep.equal([
        { field: 'title', direction: 'asc' },
        { field: 'updated', direction: 'desc' },
      ]);
    });

    it('accepts 900 repeats of a few keys, and refuses more distinct keys than QUERY_MAX_SORT_KEYS', () => {
      const fields = ['title', 'updated', 'created'];
      const repeated = Array.from({ length: 900 }, (_, i) => ({
        field: defined(fields[i % 3], 'a sort field'),
        direction: i % 2 ? ('desc' as const) : ('asc' as const),
      }));
      expect(prepareQuery(query({ sort: repeated }), LIMITS).sort).to.have.length(3);
      const four = [...fields, 'type'].map((field) => ({ field, direction: 'asc' as const }));
      const error = refusal(() => prepareQuery(query({ sort: four }), LIMITS));
      expect(error.message).to.contain('QUERY_MAX_SORT_KEYS').and.to.contain('4');
      expect(error.locator).to.equal('sortby');
    });

    it('hands an ordinary query on unchanged', () => {
      const ordinary = query({ sort: [{ field: 'title', direction: 'asc' }], text: [['soil']] });
      expect(prepareQuery(ordinary, LIMITS)).to.equal(ordinary);
    });

    it('counts free-text tokens as the standard tokenizer splits them', () => {
      expect(countTextTokens('soil')).to.equal(1);
      expect(countTextTokens('a-b-c')).to.equal(3);
      expect(countTextTokens('x/y_z+w')).to.equal(3);
      expect(countTextTokens("e.g. don't 3.14")).to.equal(3);
      expect(countTextTokens('---')).to.equal(0);
      expect(countTextTokens('土壤水分')).to.equal(4);
      expect(countTextTokens('x'.repeat(600))).to.equal(3);
      expect(countTextTokens('a-'.repeat(1000))).to.equal(1000);
    });

    it('refuses free text over QUERY_MAX_TEXT_WORDS as the engine splits it, and over QUERY_MAX_TEXT_LENGTH', () => {
      const hyphenated = refusal(() => prepareQuery(query({ text: [['a-b-c-d-e-f']] }), LIMITS));
      expect(hyphenated.message).to.contain('QUERY_MAX_TEXT_WORDS').and.to.contain('6 words');
      expect(hyphenated.locator).to.equal('q');
      expect(() => prepareQuery(query({ text: [['a-b-c', 'd-e']] }), LIMITS)).not.to.throw();
      const long = refusal(() => prepareQuery(query({ text: [['x'.repeat(41)]] }), LIMITS));
      expect(long.message).to.contain('QUERY_MAX_TEXT_LENGTH').and.to.contain('41 characters');
      expect(() => prepareQuery(query({ text: [['x'.repeat(40)]] }), LIMITS)).not.to.throw();
    });

    it('tells the index order (no sort keys but id ascending, no free text) from the others', () => {
      expect(isIndexOrder(query({}))).to.equal(true);
      expect(isIndexOrder(query({ sort: [{ field: 'id', direction: 'asc' }] }))).to.equal(true);
      expect(isIndexOrder(query({ sort: [{ field: 'id', direction: 'desc' }] }))).to.equal(false);
      expect(isIndexOrder(query({ sort: [{ field: 'title', direction: 'asc' }] }))).to.equal(false);
      expect(isIndexOrder(query({ text: [['soil']] }))).to.equal(false);
    });

    it('refuses a cold page beyond QUERY_MAX_OFFSET in a sorted or free-text order only', () => {
      const sorted = query({ sort: [{ field: 'title', direction: 'asc' }], offset: 101 });
      expect(isDeepPage(sorted, LIMITS)).to.equal(true);
      const error = refusal(() => prepareQuery(sorted, LIMITS));
      expect(error.message).to.contain('QUERY_MAX_OFFSET').and.to.contain('"next" links');
      expect(error.locator).to.equal('offset');
      refusal(() => prepareQuery(query({ text: [['soil']], offset: 2 ** 53 - 1 }), LIMITS));
      for (const fine of [
        { ...sorted, offset: 100 },
        { ...sorted, limit: 0 },
        query({ offset: 2 ** 53 - 1 }),
        query({ sort: [{ field: 'id', direction: 'asc' }], offset: 5000 }),
      ]) {
        expect(isDeepPage(fine, LIMITS)).to.equal(false);
        expect(() => prepareQuery(fine, LIMITS)).not.to.throw();
      }
    });

    it('answers a deep page that continues an earlier page (where its next link points)', () => {
      const pages = new NextPageOffsets();
      const sorted = query({ sort: [{ field: 'title', direction: 'asc' }], offset: 110 });
      const continues = (prepared: SearchQuery) => pages.has(pagingKey(prepared), prepared.offset);
      refusal(() => prepareQuery(sorted, LIMITS, continues));
      pages.add(pagingKey({ ...sorted, offset: 100, limit: 50 }), 110);
      expect(prepareQuery(sorted, LIMITS, continues)).to.equal(sorted);
      refusal(() => prepareQuery({ ...sorted, offset: 120 }, LIMITS, continues));
      refusal(() => prepareQuery({ ...sorted, text: [['soil']] }, LIMITS, continues));
    });

    it('keeps the offsets of the most recently used queries', () => {
      const pages = new NextPageOffsets(2, 2);
      pages.add('a', 10);
      pages.add('b', 10);
      expect(pages.has('a', 10)).to.equal(true);
      pages.add('c', 10);
      expect(pages.has('b', 10)).to.equal(false);
      expect(pages.has('a', 10)).to.equal(true);
      pages.add('a', 20);
      pages.add('a', 30);
      expect(pages.has('a', 10)).to.equal(false);
      expect(pages.has('a', 20)).to.equal(true);
      expect(pages.has('a', 30)).to.equal(true);
    });

    it('refuses more facets than QUERY_MAX_FACETS', () => {
      expect(() => checkFacetCount(2, LIMITS)).not.to.throw();
      const error = refusal(() => checkFacetCount(3, LIMITS));
      expect(error.message).to.contain('QUERY_MAX_FACETS').and.to.contain('3 distinct');
      expect(error.locator).to.equal('facets');
    });

    it('admits every facet the catalogue offers by default', () => {
      const { maxFacets } = loadConfig({}).query;
      expect(maxFacets).to.be.at.least(FACET_PROPERTIES.length);
      expect(() => checkFacetCount(FACET_PROPERTIES.length, loadConfig({}).query)).not.to.throw();
    });

    it('tells LIKE patterns costlier than a prefix', () => {
      for (const cheap of ['soil', 'soil%', 'soil%%', 'a\\%b', 'a\\_b%', '']) {
        expect(isCostlyLikePattern(cheap), cheap).to.equal(false);
      }
      for (const costly of ['%soil', 'so%il', 'soil_', '%x________y%', 'a%\\%', '_']) {
        expect(isCostlyLikePattern(costly), costly).to.equal(true);
      }
    });

    it('refuses more costly LIKE patterns than QUERY_MAX_WILDCARD_PATTERNS, prefixes not counted', () => {
      const like = (pattern: string, folded = false): Expression =>
        operator(
          'like',
          folded ? operator('casei', propertyRef('title')) : propertyRef('title'),
          folded ? operator('casei', literal(pattern)) : literal(pattern),
        );
      const within = operator('or', like('%a'), like('b_', true), like('c%'), like('d%'));
      expect(measureFilter(within).wildcardPatterns).to.equal(2);
      expect(() => prepareQuery(query({ filter: checkFilter(within) }), LIMITS)).not.to.throw();
      const over = operator('or', like('%a'), like('b_', true), like('%x________y%'));
      const error = refusal(() => checkFilter(over, LIMITS));
      expect(error.message).to.contain('QUERY_MAX_WILDCARD_PATTERNS').and.to.contain('3 LIKE');
      refusal(() => checkQueryLimits(query({ filter: checkFilter(over) }), LIMITS));
    });

    it('counts the wildcards of a LIKE pattern: each _, each run of %, never an escaped one', () => {
      const cases: [string, number][] = [
        ['soil', 0],
        ['soil%', 1],
        ['%%soil%%%', 2],
        ['%x________y%', 10],
        ['a\\%b\\_c', 0],
        ['a\\%%b', 1],
        ['%\\%%', 2],
        ['_%_', 3],
      ];
      for (const [pattern, wildcards] of cases) {
        expect(likePatternWildcards(pattern), pattern).to.equal(wildcards);
      }
    });

    it('refuses a LIKE pattern with more wildcards than QUERY_MAX_PATTERN_WILDCARDS', () => {
      const like = (pattern: string): Expression =>
        operator('like', propertyRef('title'), literal(pattern));
      const limits = smallQueryLimits({ maxPatternWildcards: 4 });
      const atBound = operator('or', like('%a%b%c%'), like('%%a_b%'));
      expect(measureFilter(atBound).mostPatternWildcards).to.equal(4);
      expect(() => checkFilter(atBound, limits)).not.to.throw();
      const over = operator('or', like('%a'), like('%a%b%c%d%'));
      const error = refusal(() => checkFilter(over, limits));
      expect(error.message)
        .to.contain('QUERY_MAX_PATTERN_WILDCARDS')
        .and.to.contain('has 5 wildcards')
        .and.to.contain('at most 4');
      // A prefix with many trailing % is one run: one wildcard, and not costly at all.
      expect(() => checkFilter(like('abc%%%%%%'), limits)).not.to.throw();
    });
  });
});

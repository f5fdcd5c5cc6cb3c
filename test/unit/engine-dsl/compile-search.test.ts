import { expect } from 'chai';
import type { SearchQuery } from '../../../shared/query/search-query.js';
import type { FilterContext } from '../../../shared/search/engine/compile-filter.js';
import {
  compileExternalIds,
  compileFreeText,
  compileSearchQuery,
  compileSort,
  compileTemporal,
  MISSING_DATE_LAST_ASC,
  MISSING_DATE_LAST_DESC,
} from '../../../shared/search/engine/compile-search.js';
import type { Query } from '../../../shared/search/engine/dsl.js';
import {
  MAX_STEMMED_QUERY_WORDS,
  STEMMED_LANGUAGES,
  stemText,
} from '../../../shared/records/stems.js';

const context: FilterContext = {
  spatial: 'envelope',
  engineName: 'Elasticsearch',
  mappedKind: (path) => (path === 'props.score' ? 'number' : 'absent'),
};

const compile = (query: Partial<SearchQuery>): Query =>
  compileSearchQuery({ sort: [], offset: 0, limit: 10, ...query }, context).query;

const exists = (field: string): Query => ({ exists: { field } });

describe('engine DSL: search query compiler', () => {
  it('matches everything without constraints, ordered by id', () => {
    expect(compileSearchQuery({ sort: [], offset: 0, limit: 10 }, context)).to.deep.equal({
      query: { match_all: {} },
      sort: [{ id: { order: 'asc' } }],
    });
  });

  /** One word as compileFreeText matches it: the folded phrase, or its stems per language. */
  function wordClause(word: string, folded: string): unknown {
    return {
      bool: {
        should: [
          { match_phrase: { anytext: folded } },
          ...Object.keys(STEMMED_LANGUAGES).map((language) => ({
            match_phrase: { [`stems.${language}`]: stemText(word, language).join(' ') },
          })),
        ],
        minimum_should_match: 1,
      },
    };
  }

  it('free text: OR over terms, every word a phrase on the accent-folded catch-all field or its stems', () => {
    expect(compileFreeText([['glacier']])).to.deep.equal({
      bool: { must: [wordClause('glacier', 'glacier')] },
    });
    expect(compileFreeText([['Climate', 'Change'], ['Rivière']])).to.deep.equal({
      bool: {
        should: [
          { bool: { must: [wordClause('Climate', 'Climate'), wordClause('Change', 'Change')] } },
          { bool: { must: [wordClause('Rivière', 'Riviere')] } },
        ],
        minimum_should_match: 1,
      },
    });
    // The stems are the language's: "rivers" is "river" in English, "Rivière" "rivi" in French.
    const [english] = stemText('rivers', 'en');
    const [french] = stemText('Rivière', 'fr');
    expect([english, french]).to.deep.equal(['river', 'rivi']);
  });

  it('free text of more than MAX_STEMMED_QUERY_WORDS words is matched word for word', () => {
    const words = Array.from({ length: MAX_STEMMED_QUERY_WORDS + 1 }, (_, i) => `word${i}s`);
    expect(compileFreeText([words])).to.deep.equal({
      bool: { must: words.map((word) => ({ match_phrase: { anytext: word } })) },
    });
    const fewer = words.slice(1);
    const compiled = compileFreeText([fewer]) as { bool: { must: unknown[] } };
    expect(compiled.bool.must[0]).to.deep.equal(wordClause('word1s', 'word1s'));
  });

  it('free text scores (must) while every other constraint filters; relevance orders', () => {
    const compiled = compileSearchQuery(
      { text: [['ice']], types: ['dataset'], sort: [], offset: 0, limit: 10 },
      context,
    );
    expect(compiled.query).to.deep.equal({
      bool: {
        must: [{ bool: { must: [wordClause('ice', 'ice')] } }],
        filter: [{ terms: { 'props.type': ['dataset'] } }],
      },
    });
    expect(compiled.sort).to.deep.equal([{ _score: { order: 'desc' } }, { id: { order: 'asc' } }]);
  });

  it('ids, types, parent collections', () => {
    expect(compile({ ids: ['a', 'b'], types: ['series'], collections: ['hydro'] })).to.deep.equal({
      bool: {
        filter: [
          {
            bool: {
              filter: [
                { terms: { id: ['a', 'b'] } },
                { terms: { 'props.type': ['series'] } },
                { terms: { 'props.parentId': ['hydro'] } },
              ],
            },
          },
        ],
      },
    });
  });

  it('externalIds in the scheme:value, scheme: and value forms', () => {
    expect(compileExternalIds(['doi:10.1/abc'])).to.deep.equal({
      term: { 'props.externalIds': 'doi:10.1/abc' },
    });
    expect(compileExternalIds(['doi:'])).to.deep.equal({
      prefix: { 'props.externalIds': { value: 'doi:', case_insensitive: true } },
    });
    expect(compileExternalIds(['10.1/a*c'])).to.deep.equal({
      bool: {
        should: [
          { term: { 'props.externalIds': '10.1/a*c' } },
          {
            wildcard: {
              'props.externalIds': { value: '*:10.1/a\\*c', case_insensitive: true },
            },
          },
        ],
        minimum_should_match: 1,
      },
    });
  });

  it('property equality uses the mapped kind (numbers, dates, unknown properties)', () => {
    expect(
      compile({ properties: [{ name: 'eo:cloudCover', values: ['12.5', 'high'] }] }),
    ).to.deep.equal({ bool: { filter: [{ terms: { 'props.cloudCover': [12.5] } }] } });
    expect(compile({ properties: [{ name: 'score', values: ['3'] }] })).to.deep.equal({
      bool: { filter: [{ terms: { 'props.score': [3] } }] },
    });
    expect(compile({ properties: [{ name: 'platform', values: ['S2'] }] })).to.deep.equal({
      bool: { filter: [{ terms: { 'props.platform': ['S2'] } }] },
    });
    expect(compile({ properties: [{ name: 'nothing', values: ['x'] }] })).to.deep.equal({
      match_none: {},
    });
  });

  it('bbox: envelope relations, antimeridian queries split in two', () => {
    const query = compile({ spatial: { bbox: [170, -10, -170, 10], relation: 'intersects' } });
    const parts = JSON.stringify(query);
    expect(parts).to.contain('"box0.minx":{"lte":180}');
    expect(parts).to.contain('"box1.maxx":{"gte":-180}');
    expect(compile({ spatial: { bbox: [1, 2, 3, 4], relation: 'equals' } })).to.deep.equal({
      bool: {
        filter: [
          {
            bool: {
              filter: [
                exists('bbox.west'),
                { term: { 'bbox.west': 1 } },
                { term: { 'bbox.south': 2 } },
                { term: { 'bbox.east': 3 } },
                { term: { 'bbox.north': 4 } },
              ],
            },
          },
        ],
      },
    });
  });

  it('bbox in shape mode: geo_shape envelopes, degenerate boxes as points, dropped shapes on their envelopes', () => {
    const shape = (query: Partial<SearchQuery>): Query =>
      compileSearchQuery(
        { sort: [], offset: 0, limit: 10, ...query },
        { ...context, spatial: 'shape' },
      ).query;
    const compiled = shape({ spatial: { bbox: [7.5, 50, 7.5, 50], relation: 'intersects' } });
    const either = (compiled as { bool: { filter: { bool: { should: Query[] } }[] } }).bool
      .filter[0]?.bool;
    expect(either).to.include({ minimum_should_match: 1 });
    expect(either?.should).to.have.length(2);
    expect(either?.should[0]).to.deep.equal({
      bool: {
        filter: [
          exists('geometry'),
          {
            geo_shape: {
              geometry: {
                shape: { type: 'Point', coordinates: [7.5, 50] },
                relation: 'intersects',
              },
            },
          },
        ],
      },
    });
    // Footprints the engine dropped as malformed are related on their envelopes instead.
    const dropped = (either?.should[1] as { bool: { filter: Query[] } }).bool.filter;
    expect(dropped[0]).to.deep.equal({ term: { _ignored: 'geometry' } });
    expect(JSON.stringify(dropped[1])).to.match(/"box[0-9]\./);
  });

  describe('temporal constraints, as the SQLite backend defines them', () => {
    const range = { start: '2020-01-01T00:00:00.000Z', end: '2020-12-31T23:59:59.999Z' };

    it('intersects: a date_range relation with open ends left out', () => {
      expect(compileTemporal({ ...range, relation: 'intersects' })).to.deep.equal({
        bool: {
          filter: [
            exists('time.range'),
            {
              range: { 'time.range': { gte: range.start, lte: range.end, relation: 'intersects' } },
            },
          ],
        },
      });
      expect(
        compileTemporal({ start: null, end: range.end, relation: 'intersects' }),
      ).to.deep.equal({
        bool: {
          filter: [
            exists('time.range'),
            { range: { 'time.range': { lte: range.end, relation: 'intersects' } } },
          ],
        },
      });
      expect(compileTemporal({ start: null, end: null, relation: 'intersects' })).to.deep.equal(
        exists('time.range'),
      );
    });

    it('during, disjoint and equals', () => {
      expect(compileTemporal({ ...range, relation: 'during' })).to.deep.equal({
        bool: {
          filter: [
            exists('time.range'),
            { range: { 'time.start': { gte: range.start } } },
            { range: { 'time.end': { lte: range.end } } },
          ],
        },
      });
      expect(compileTemporal({ start: null, end: null, relation: 'disjoint' })).to.deep.equal({
        match_none: {},
      });
      expect(compileTemporal({ start: range.start, end: null, relation: 'equals' })).to.deep.equal({
        bool: {
          filter: [
            exists('time.range'),
            { term: { 'time.start': range.start } },
            { bool: { must_not: [exists('time.end')] } },
          ],
        },
      });
    });
  });

  describe('sort', () => {
    const sort = (keys: SearchQuery['sort']): unknown =>
      compileSort({ sort: keys, offset: 0, limit: 10 }, context);

    it('ends in the id; missing values go last in both directions', () => {
      // Text sorts by its folded copy first (case- and accent-insensitive), then by itself.
      expect(sort([{ field: 'title', direction: 'asc' }])).to.deep.equal([
        { 'sort.title': { order: 'asc', missing: '_last', unmapped_type: 'keyword' } },
        { 'props.title.keyword': { order: 'asc', missing: '_last', unmapped_type: 'keyword' } },
        { id: { order: 'asc' } },
      ]);
      expect(sort([{ field: 'eo:cloudCover', direction: 'desc' }])).to.deep.equal([
        { 'props.cloudCover': { order: 'desc', missing: '_last', unmapped_type: 'keyword' } },
        { id: { order: 'asc' } },
      ]);
    });

    it('sorts a learned property by its own field (encoded), missing last, without folding', () => {
      expect(
        sort([
          { field: 'pop_est', direction: 'desc' },
          { field: 'survey.depth', direction: 'asc' },
        ]),
      ).to.deep.equal([
        { 'props.pop_est': { order: 'desc', missing: '_last', unmapped_type: 'keyword' } },
        { 'props.survey%2Edepth': { order: 'asc', missing: '_last', unmapped_type: 'keyword' } },
        { id: { order: 'asc' } },
      ]);
    });

    it('dates sort with explicit missing values JavaScript can carry back in search_after', () => {
      expect(sort([{ field: 'updated', direction: 'asc' }])).to.deep.equal([
        {
          'props.updated': { order: 'asc', missing: MISSING_DATE_LAST_ASC, unmapped_type: 'date' },
        },
        { id: { order: 'asc' } },
      ]);
      expect(sort([{ field: 'datetime', direction: 'desc' }])).to.deep.equal([
        { 'time.start': { order: 'desc', missing: MISSING_DATE_LAST_DESC, unmapped_type: 'date' } },
        { id: { order: 'asc' } },
      ]);
      expect(Number.isSafeInteger(MISSING_DATE_LAST_ASC)).to.equal(true);
    });

    it('an explicit id key is not repeated', () => {
      expect(sort([{ field: 'id', direction: 'desc' }])).to.deep.equal([{ id: { order: 'desc' } }]);
    });
  });
});

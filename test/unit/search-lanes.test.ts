/**
 * The lanes at the door: which searches are expensive (shared/query/search-lanes.ts), and the
 * expensive lane's places (shared/search/expensive-lane.ts): bounds per process and per client,
 * one place per request shared by its calls, refusals as 503 with Retry-After, and every place
 * given back once.
 */
import { expect } from 'chai';
import { ServiceUnavailableError } from '../../shared/errors/index.js';
import { checkFilter } from '../../shared/query/check-filter.js';
import { literal, operator, propertyRef } from '../../shared/query/filter-ast.js';
import { classifySearch, type LaneThresholds } from '../../shared/query/search-lanes.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import { ExpensiveLane } from '../../shared/search/expensive-lane.js';
import { SearchScope } from '../../shared/search/search-scope.js';

const THRESHOLDS: LaneThresholds = {
  maxOffset: 100,
  cheapWildcardPatterns: 2,
  cheapFacets: 3,
  cheapFacetBuckets: 30,
  cheapOffset: 20,
  cheapSortKeys: 2,
  cheapTextWords: 4,
};
const page = (query: Partial<SearchQuery> = {}): SearchQuery => ({
  sort: [],
  offset: 0,
  limit: 10,
  ...query,
});
const likes = (patterns: string[]): NonNullable<SearchQuery['filter']> =>
  checkFilter(
    operator(
      'or',
      ...patterns.map((pattern) => operator('like', propertyRef('title'), literal(pattern))),
    ),
  );

describe('classifySearch', () => {
  it('calls an ordinary page cheap', () => {
    expect(classifySearch(page(), THRESHOLDS)).to.deep.equal({ lane: 'cheap', reasons: [] });
  });

  it('calls a search the backend refines in Node expensive', () => {
    expect(classifySearch(page(), THRESHOLDS, { refines: true }).reasons).to.deep.equal([
      'refinement',
    ]);
  });

  it('calls a page beyond QUERY_MAX_OFFSET expensive unless it continues an earlier page', () => {
    expect(classifySearch(page({ offset: 101 }), THRESHOLDS).reasons).to.deep.equal(['deep-walk']);
    expect(classifySearch(page({ offset: 101 }), THRESHOLDS, { continued: true }).lane).to.equal(
      'cheap',
    );
    expect(classifySearch(page({ offset: 100 }), THRESHOLDS).lane).to.equal('cheap');
    // A count alone (limit 0) is not paged.
    expect(classifySearch(page({ offset: 5000, limit: 0 }), THRESHOLDS).lane).to.equal('cheap');
  });

  it('calls a sorted or relevance page beyond the cheap offset expensive, not an index-order one', () => {
    const byTitle = [{ field: 'title', direction: 'asc' as const }];
    expect(classifySearch(page({ offset: 20, sort: byTitle }), THRESHOLDS).lane).to.equal('cheap');
    expect(classifySearch(page({ offset: 21, sort: byTitle }), THRESHOLDS).reasons).to.deep.equal([
      'deep-page',
    ]);
    expect(
      classifySearch(page({ offset: 50, text: [['forest']] }), THRESHOLDS).reasons,
    ).to.deep.equal(['deep-page']);
    // Even when it continues an earlier page: the engine still sorts every record before it.
    expect(
      classifySearch(page({ offset: 50, sort: byTitle }), THRESHOLDS, { continued: true }).reasons,
    ).to.deep.equal(['deep-page']);
    expect(classifySearch(page({ offset: 100 }), THRESHOLDS).lane).to.equal('cheap');
    expect(
      classifySearch(page({ offset: 50, sort: [{ field: 'id', direction: 'asc' }] }), THRESHOLDS)
        .lane,
    ).to.equal('cheap');
    // Beyond QUERY_MAX_OFFSET it is a walk, or cheap where an earlier page ended.
    expect(classifySearch(page({ offset: 101, sort: byTitle }), THRESHOLDS).reasons).to.deep.equal([
      'deep-walk',
    ]);
    expect(
      classifySearch(page({ offset: 101, sort: byTitle }), THRESHOLDS, { continued: true }).lane,
    ).to.equal('cheap');
    expect(classifySearch(page({ offset: 50, limit: 0, sort: byTitle }), THRESHOLDS).lane).to.equal(
      'cheap',
    );
  });

  it('calls a search sorting by more distinct keys than the threshold expensive (id aside)', () => {
    const keys = (...fields: string[]) =>
      fields.map((field) => ({ field, direction: 'desc' as const }));
    expect(classifySearch(page({ sort: keys('title', 'updated') }), THRESHOLDS).lane).to.equal(
      'cheap',
    );
    expect(
      classifySearch(page({ sort: keys('title', 'updated', 'title', 'id') }), THRESHOLDS).lane,
    ).to.equal('cheap');
    expect(
      classifySearch(page({ sort: keys('title', 'updated', 'created') }), THRESHOLDS).reasons,
    ).to.deep.equal(['sort-keys']);
    expect(
      classifySearch(page({ limit: 0, sort: keys('title', 'updated', 'created') }), THRESHOLDS)
        .lane,
    ).to.equal('cheap');
  });

  it('counts only costly LIKE patterns against the wildcard threshold', () => {
    expect(classifySearch(page({ filter: likes(['%a_', '%b%c']) }), THRESHOLDS).lane).to.equal(
      'cheap',
    );
    expect(
      classifySearch(page({ filter: likes(['%a_', '%b%c', 'x_y']) }), THRESHOLDS).reasons,
    ).to.deep.equal(['wildcards']);
    expect(
      classifySearch(page({ filter: likes(['a%', 'b%', 'c%', 'd%', 'plain']) }), THRESHOLDS).lane,
    ).to.equal('cheap');
  });

  it('counts free-text words as the engine splits them against the text threshold', () => {
    // Four words in two terms: at the threshold.
    expect(
      classifySearch(
        page({
          text: [
            ['lake', 'ice'],
            ['snow', 'cover'],
          ],
        }),
        THRESHOLDS,
      ).lane,
    ).to.equal('cheap');
    // One word as the protocols see it, five tokens to the analyzer.
    expect(classifySearch(page({ text: [['a-b-c-d-e']] }), THRESHOLDS).reasons).to.deep.equal([
      'text-words',
    ]);
    // Facet counts (limit 0) with such text are expensive too: the engine matches the same terms.
    expect(
      classifySearch(
        page({
          limit: 0,
          text: [
            ['one', 'two'],
            ['three', 'four', 'five'],
          ],
        }),
        THRESHOLDS,
      ).reasons,
    ).to.deep.equal(['text-words']);
  });

  it('calls a request with more facets than the threshold expensive, and gives every reason', () => {
    expect(classifySearch(page(), THRESHOLDS, { facets: 3 }).lane).to.equal('cheap');
    expect(
      classifySearch(page({ offset: 200, filter: likes(['%a_', '%b_', '%c_']) }), THRESHOLDS, {
        facets: 4,
        refines: true,
      }).reasons,
    ).to.deep.equal(['refinement', 'deep-walk', 'wildcards', 'facets']);
  });

  it('calls a request whose facets ask for more buckets than the threshold expensive', () => {
    expect(classifySearch(page(), THRESHOLDS, { facets: 1, facetBuckets: 30 }).lane).to.equal(
      'cheap',
    );
    expect(classifySearch(page(), THRESHOLDS, { facets: 1, facetBuckets: 31 })).to.deep.equal({
      lane: 'expensive',
      reasons: ['facets'],
    });
  });
});

describe('ExpensiveLane', () => {
  const lane = (concurrency: number, perClient: number, refusals: string[] = []) =>
    new ExpensiveLane({
      concurrency,
      perClient,
      retryAfterSeconds: 3,
      onRefused: (bound) => refusals.push(bound),
    });
  const scope = (client: string | undefined) => new SearchScope({ client });
  const refusal = (enter: () => unknown): ServiceUnavailableError => {
    try {
      enter();
    } catch (error) {
      expect(error).to.be.instanceOf(ServiceUnavailableError);
      return error as ServiceUnavailableError;
    }
    throw new Error('expected a refusal');
  };

  it('admits up to the concurrency, refuses the next at once with Retry-After, frees on leave', () => {
    const refusals: string[] = [];
    const places = lane(2, 5, refusals);
    const a = places.enter(scope('a'), ['wildcards']);
    const b = places.enter(scope('b'), ['wildcards']);
    expect(places.inFlight).to.equal(2);
    const third = scope('c');
    const error = refusal(() => places.enter(third, ['refinement']));
    expect(error.status).to.equal(503);
    expect(error.retryAfter).to.equal(3);
    expect(error.message).to.contain('QUERY_EXPENSIVE_CONCURRENCY');
    expect(third.signal.aborted, 'the refused request is aborted').to.equal(true);
    expect(refusals).to.deep.equal(['process']);
    a();
    a(); // leaving twice frees one place only
    expect(places.inFlight).to.equal(1);
    const c = places.enter(scope('c'), ['refinement']);
    expect(places.inFlight).to.equal(2);
    b();
    c();
    expect(places.inFlight).to.equal(0);
  });

  it('holds each client to its own bound', () => {
    const refusals: string[] = [];
    const places = lane(10, 1, refusals);
    const first = places.enter(scope('a'), ['deep-walk']);
    const error = refusal(() => places.enter(scope('a'), ['deep-walk']));
    expect(error.message).to.contain('QUERY_EXPENSIVE_PER_CLIENT');
    expect(refusals).to.deep.equal(['client']);
    const other = places.enter(scope('b'), ['deep-walk']);
    expect(places.heldBy('a')).to.equal(1);
    first();
    expect(places.heldBy('a')).to.equal(0);
    places.enter(scope('a'), ['deep-walk'])();
    other();
    expect(places.inFlight).to.equal(0);
  });

  it('gives the calls of one request one place, freed after the last of them', () => {
    const places = lane(1, 1);
    const request = scope('a');
    const search = places.enter(request, ['facets']);
    const facet = places.enter(request, ['facets']);
    expect(places.inFlight).to.equal(1);
    search();
    expect(places.inFlight).to.equal(1);
    facet();
    expect(places.inFlight).to.equal(0);
  });

  it('counts calls without a scope against the process bound only', () => {
    const places = lane(2, 1);
    const a = places.enter(undefined, ['wildcards']);
    const b = places.enter(undefined, ['wildcards']);
    refusal(() => places.enter(undefined, ['wildcards']));
    a();
    b();
    expect(places.inFlight).to.equal(0);
  });
});

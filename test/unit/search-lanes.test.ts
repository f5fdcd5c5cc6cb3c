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
import { ExpensiveLane, type ExpensiveLaneOptions } from '../../shared/search/expensive-lane.js';
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
  /** A lane holding crowding clients to half the time, on a clock the test sets. */
  const halfShare = (options: Partial<ExpensiveLaneOptions> = {}) => {
    const clock = { now: 0 };
    const places = new ExpensiveLane({
      concurrency: 10,
      perClient: 1,
      retryAfterSeconds: 3,
      clientShare: 0.5,
      now: () => clock.now,
      ...options,
    });
    return { clock, places };
  };
  const refusal = async (enter: () => Promise<unknown>): Promise<ServiceUnavailableError> => {
    try {
      await enter();
    } catch (error) {
      expect(error).to.be.instanceOf(ServiceUnavailableError);
      return error as ServiceUnavailableError;
    }
    throw new Error('expected a refusal');
  };

  it('admits up to the concurrency, refuses the next at once with Retry-After, frees on leave', async () => {
    const refusals: string[] = [];
    const places = lane(2, 5, refusals);
    const a = await places.enter(scope('a'), ['wildcards']);
    const b = await places.enter(scope('b'), ['wildcards']);
    expect(places.inFlight).to.equal(2);
    const third = scope('c');
    const error = await refusal(() => places.enter(third, ['refinement']));
    expect(error.status).to.equal(503);
    expect(error.retryAfter).to.equal(3);
    expect(error.message).to.contain('QUERY_EXPENSIVE_CONCURRENCY');
    expect(third.signal.aborted, 'the refused request is aborted').to.equal(true);
    expect(refusals).to.deep.equal(['process']);
    a();
    a(); // leaving twice frees one place only
    expect(places.inFlight).to.equal(1);
    const c = await places.enter(scope('c'), ['refinement']);
    expect(places.inFlight).to.equal(2);
    b();
    c();
    expect(places.inFlight).to.equal(0);
  });

  it('holds each client to its own bound', async () => {
    const refusals: string[] = [];
    const places = lane(10, 1, refusals);
    const first = await places.enter(scope('a'), ['deep-walk']);
    const error = await refusal(() => places.enter(scope('a'), ['deep-walk']));
    expect(error.message).to.contain('QUERY_EXPENSIVE_PER_CLIENT');
    expect(refusals).to.deep.equal(['client']);
    const other = await places.enter(scope('b'), ['deep-walk']);
    expect(places.heldBy('a')).to.equal(1);
    first();
    expect(places.heldBy('a')).to.equal(0);
    (await places.enter(scope('a'), ['deep-walk']))();
    other();
    expect(places.inFlight).to.equal(0);
  });

  it('gives the calls of one request one place, freed after the last of them', async () => {
    const places = lane(1, 1);
    const request = scope('a');
    const search = await places.enter(request, ['facets']);
    const facet = await places.enter(request, ['facets']);
    expect(places.inFlight).to.equal(1);
    search();
    expect(places.inFlight).to.equal(1);
    facet();
    expect(places.inFlight).to.equal(0);
  });

  it('rests a client that sent more than it may at once for its share of the time: waited out when short, refused when long', async () => {
    const refusals: string[] = [];
    const { clock, places } = halfShare({
      maxRestWaitMs: 50,
      onRefused: (bound) => refusals.push(bound),
    });
    // A client that sends one expensive search at a time never rests.
    const alone = await places.enter(scope('a'), ['facets']);
    clock.now = 1000;
    alone();
    (await places.enter(scope('a'), ['facets']))();
    // Client a sends two at once: refused for its own bound, it is held to its share. Its
    // search runs 1,000 ms: with a share of one half, a rests 1,000 ms after it.
    clock.now = 0;
    const a = await places.enter(scope('a'), ['facets']);
    await refusal(() => places.enter(scope('a'), ['facets']));
    clock.now = 1000;
    a();
    // 500 ms into the rest: 500 ms left, longer than the wait allowed, so refused at once.
    clock.now = 1500;
    const error = await refusal(() => places.enter(scope('a'), ['facets']));
    expect(error.message).to.contain('QUERY_EXPENSIVE_CLIENT_SHARE');
    expect(error.retryAfter).to.equal(1);
    expect(refusals).to.deep.equal(['client', 'client']);
    // Another client is not resting.
    (await places.enter(scope('b'), ['facets']))();
    // 10 ms before the rest ends: the request waits them out (real time) holding a's place,
    // and the other call of its request joins it; another request of a's is refused meanwhile.
    clock.now = 1990;
    const request = scope('a');
    const started = performance.now();
    const waited = places.enter(request, ['facets']);
    const joined = places.enter(request, ['facets']);
    expect(places.inFlight, 'no process place while waiting').to.equal(0);
    expect((await refusal(() => places.enter(scope('a'), ['facets']))).message).to.contain(
      'QUERY_EXPENSIVE_PER_CLIENT',
    );
    const [search, facet] = await Promise.all([waited, joined]);
    expect(performance.now() - started).to.be.at.least(8);
    expect(places.inFlight).to.equal(1);
    expect(places.heldBy('a')).to.equal(1);
    search();
    facet();
    expect(places.inFlight).to.equal(0);
    expect(places.heldBy('a')).to.equal(0);
  });

  it("fails a request aborted while it waits out its client's rest with the abort's reason", async () => {
    const { clock, places } = halfShare({ maxRestWaitMs: 5000 });
    const a = await places.enter(scope('a'), ['facets']);
    await refusal(() => places.enter(scope('a'), ['facets']));
    clock.now = 1000;
    a();
    // a rests until 2000: this request would wait 1,000 ms, and is aborted after 10.
    const request = scope('a');
    const waiting = places.enter(request, ['facets']);
    const reason = new Error('the client went away');
    setTimeout(() => request.abort(reason), 10);
    let caught: unknown;
    try {
      await waiting;
    } catch (error) {
      caught = error;
    }
    expect(caught).to.equal(reason);
    expect(places.heldBy('a'), 'the waiting place is given back').to.equal(0);
    expect(places.inFlight).to.equal(0);
  });

  it('forgets the oldest rest beyond the clients it may remember', async () => {
    const { clock, places } = halfShare({ maxRestWaitMs: 0, maxResting: 2 });
    const searches = await Promise.all(
      ['a', 'b', 'c'].map((client) => places.enter(scope(client), ['facets'])),
    );
    for (const client of ['a', 'b', 'c']) {
      await refusal(() => places.enter(scope(client), ['facets']));
    }
    clock.now = 1000;
    for (const leave of searches) leave();
    // a, b and c rest until 2000; a's rest was forgotten to remember c's.
    (await places.enter(scope('a'), ['facets']))();
    await refusal(() => places.enter(scope('c'), ['facets']));
    // A share of 1 never rests.
    const whole = lane(10, 1);
    (await whole.enter(scope('a'), ['facets']))();
    (await whole.enter(scope('a'), ['facets']))();
  });

  it("gives the client's place back when its request ends, the process's when its last call does", async () => {
    const places = lane(10, 1);
    const request = scope('a');
    const search = await places.enter(request, ['facets']);
    await refusal(() => places.enter(scope('a'), ['facets']));
    // The request is answered (its scope aborts) while its search still runs.
    request.abort(new Error('The request was answered'));
    expect(places.heldBy('a')).to.equal(0);
    expect(places.inFlight).to.equal(1);
    const next = await places.enter(scope('a'), ['facets']);
    expect(places.heldBy('a')).to.equal(1);
    search();
    expect(places.heldBy('a'), 'the ended request gives nothing back twice').to.equal(1);
    expect(places.inFlight).to.equal(1);
    next();
    expect(places.inFlight).to.equal(0);
    expect(places.heldBy('a')).to.equal(0);
  });

  it('counts calls without a scope against the process bound only', async () => {
    const places = lane(2, 1);
    const a = await places.enter(undefined, ['wildcards']);
    const b = await places.enter(undefined, ['wildcards']);
    await refusal(() => places.enter(undefined, ['wildcards']));
    a();
    b();
    expect(places.inFlight).to.equal(0);
  });
});

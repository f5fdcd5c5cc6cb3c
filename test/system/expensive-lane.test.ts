/**
 * Lanes, not a queue: over HTTP, on the system backend (SQLite by default, or an engine by
 * CAIRN_TEST_SYSTEM_BACKEND). Expensive searches (here: filters with many inner-wildcard LIKE
 * patterns, which every backend classifies alike) hold a place of the expensive lane while they
 * run. To hold them in flight for as long as the test needs, the app runs over the real
 * backend behind a gate that keeps every search with a LIKE filter waiting until the test opens
 * it (or until the request's scope aborts, as the backends themselves stop on abort). That they
 * are in flight is read from the lane's gauge on /metrics, never from a sleep.
 *
 * With QUERY_EXPENSIVE_CONCURRENCY=2 and QUERY_EXPENSIVE_PER_CLIENT=1 (clients told apart by
 * X-Forwarded-For behind TRUST_PROXY): two expensive searches in flight make the next one a 503
 * with Retry-After at once, in each protocol's error format, while a cheap search answers; a
 * client's second expensive search is refused while another client's is admitted; and every
 * place is given back after an answer, an error, and a client that goes away. A client refused
 * for its own bound rests after each expensive search three times as long as it ran
 * (QUERY_EXPENSIVE_CLIENT_SHARE 0.25): its next expensive search waits a short rest out and is
 * refused when the rest is long; a client that sends one at a time does not rest.
 */
import http from 'node:http';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../services/api/app.js';
import { createLogger } from '../../shared/logging/index.js';
import { measureFilter } from '../../shared/query/query-limits.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import type { DomainOptions, SearchBackend, SearchOptions } from '../../shared/search/backend.js';
import { listen, type Listening } from '../support/fuzz-http.js';
import { sample } from '../support/metrics-sample.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const ITEMS = '/catalogue/collections/metadata:main/items';
const SEARCH = '/catalogue/search';
const CSW = '/catalogue/csw';

/** A CQL2 text filter with `n` LIKE patterns that have inner wildcards (never a prefix). */
const wildcards = (n: number): string =>
  Array.from({ length: n }, (_, i) => `title LIKE '%${'aeiou'[i % 5]}_%'`).join(' OR ');
/** Expensive: four costly patterns, above QUERY_EXPENSIVE_WILDCARD_PATTERNS (3). */
const EXPENSIVE = wildcards(4);
/** Cheap: three costly patterns. */
const CHEAP = wildcards(3);

/** A gate in front of the backend: searches with a LIKE filter wait for `open` (or an abort). */
class Gate {
  private waiting: (() => void)[] = [];
  /** When set, a gated search fails with this error once let through. */
  failWith: Error | undefined;

  /** Lets every waiting search go on. */
  open(): void {
    for (const go of this.waiting.splice(0)) go();
  }

  wrap(backend: SearchBackend): SearchBackend {
    const gated = (query: SearchQuery | undefined): boolean =>
      query?.filter !== undefined && measureFilter(query.filter).wildcardPatterns > 0;
    const wait = (options: SearchOptions | undefined): Promise<void> =>
      new Promise((resolve, reject) => {
        const signal = options?.scope?.signal;
        const go = (): void => {
          signal?.removeEventListener('abort', stop);
          if (this.failWith) reject(this.failWith);
          else resolve();
        };
        const stop = (): void => {
          this.waiting = this.waiting.filter((entry) => entry !== go);
          reject(signal?.reason as Error);
        };
        if (signal?.aborted) return stop();
        signal?.addEventListener('abort', stop, { once: true });
        this.waiting.push(go);
      });
    return new Proxy(backend, {
      get: (target, property, receiver) => {
        if (property === 'search') {
          return async (query: SearchQuery, options?: SearchOptions) => {
            if (gated(query)) await wait(options);
            return target.search(query, options);
          };
        }
        if (property === 'domain') {
          return async (field: string, options?: DomainOptions) => {
            if (gated(options?.query)) await wait(options);
            return target.domain(field, options);
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function'
          ? (value as (...a: unknown[]) => unknown).bind(target)
          : value;
      },
    });
  }
}

describe('the expensive lane: a few places, no queue', function () {
  this.timeout(60_000);
  let test: TestApp;
  let app: Express;
  const gate = new Gate();

  /** The lane's gauge now. */
  const inFlight = async (): Promise<number> => {
    const metrics = await request(app).get('/metrics');
    return sample(metrics.text, 'cairn_search_expensive_in_flight') ?? -1;
  };
  /** Waits until the gauge reads `expected` (bounded by the test's timeout). */
  const untilInFlight = async (expected: number): Promise<void> => {
    while ((await inFlight()) !== expected) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  /** An expensive Records search from a client, sent now (its answer when it comes). */
  const expensiveFrom = (client: string): Promise<request.Response> =>
    request(app)
      .get(`${ITEMS}?filter=${encodeURIComponent(EXPENSIVE)}&limit=5`)
      .set('X-Forwarded-For', client)
      .then((response) => response);

  before(async () => {
    test = await createTestApp(40, {
      TRUST_PROXY: 'true',
      QUERY_EXPENSIVE_CONCURRENCY: '2',
      QUERY_EXPENSIVE_PER_CLIENT: '1',
      QUERY_MAX_OFFSET: '20',
      QUERY_EXPENSIVE_OFFSET: '10',
      QUERY_EXPENSIVE_SORT_KEYS: '2',
    });
    app = createApp({
      config: test.config,
      backend: gate.wrap(test.backend),
      logger: createLogger('silent', 'test'),
    });
  });
  afterEach(() => {
    gate.failWith = undefined;
    gate.open();
  });
  after(async () => {
    await test?.close();
  });

  it('refuses the next expensive search at once with 503 and Retry-After in every protocol, while a cheap one answers', async () => {
    const first = expensiveFrom('10.0.0.1');
    const second = expensiveFrom('10.0.0.2');
    await untilInFlight(2);

    const refused = await request(app)
      .get(`${ITEMS}?filter=${encodeURIComponent(EXPENSIVE)}`)
      .set('X-Forwarded-For', '10.0.0.3');
    expect(refused.status, refused.text.slice(0, 300)).to.equal(503);
    expect(refused.headers['retry-after']).to.match(/^[1-9]\d*$/);
    expect(refused.body.code).to.equal('SERVICE_UNAVAILABLE');
    expect(refused.body.description).to.contain('QUERY_EXPENSIVE_CONCURRENCY');

    const stac = await request(app)
      .post(SEARCH)
      .set('X-Forwarded-For', '10.0.0.3')
      .send({ 'filter-lang': 'cql2-text', filter: EXPENSIVE });
    expect(stac.status, stac.text.slice(0, 300)).to.equal(503);
    expect(stac.headers['retry-after']).to.match(/^[1-9]\d*$/);
    expect(stac.body.code).to.equal('SERVICE_UNAVAILABLE');

    const csw = await request(app)
      .get(
        `${CSW}?service=CSW&version=3.0.0&request=GetRecords&typeNames=csw:Record&constraintLanguage=CQL_TEXT&constraint=${encodeURIComponent(EXPENSIVE.replaceAll('title', 'dc:title'))}`,
      )
      .set('X-Forwarded-For', '10.0.0.3');
    expect(csw.status, csw.text.slice(0, 300)).to.equal(503);
    expect(csw.headers['retry-after']).to.match(/^[1-9]\d*$/);
    expect(csw.text).to.contain('ExceptionReport');

    // Cheap searches pass beside the full lane: no filter, and a filter under the threshold
    // (which the gate holds too, were it sent to the lane).
    const cheap = await request(app).get(`${ITEMS}?limit=3`).set('X-Forwarded-For', '10.0.0.3');
    expect(cheap.status, cheap.text.slice(0, 300)).to.equal(200);
    expect(await inFlight()).to.equal(2);

    gate.open();
    expect((await first).status).to.equal(200);
    expect((await second).status).to.equal(200);
    await untilInFlight(0);
    const metrics = (await request(app).get('/metrics')).text;
    expect(sample(metrics, 'cairn_search_expensive_refused_total', { bound: 'process' })).to.equal(
      3,
    );
    expect(
      sample(metrics, 'cairn_search_expensive_admitted_total', { reason: 'wildcards' }),
    ).to.be.at.least(2);
  });

  it('answers a filter under the wildcard threshold without a place', async () => {
    const first = expensiveFrom('10.0.1.1');
    const second = expensiveFrom('10.0.1.2');
    await untilInFlight(2);
    const pending = request(app)
      .get(`${ITEMS}?filter=${encodeURIComponent(CHEAP)}&limit=3`)
      .set('X-Forwarded-For', '10.0.1.3')
      .then((response) => response);
    // Held by the gate, not by the lane: the gauge stays at 2 and nothing is refused.
    expect(await inFlight()).to.equal(2);
    gate.open();
    expect((await pending).status).to.equal(200);
    expect((await first).status).to.equal(200);
    expect((await second).status).to.equal(200);
    await untilInFlight(0);
  });

  it('counts many facets or facet buckets as expensive: refused when the lane is full, a few facets answered', async () => {
    const first = expensiveFrom('10.0.2.1');
    const second = expensiveFrom('10.0.2.2');
    await untilInFlight(2);
    const many = await request(app)
      .get(`${ITEMS}?facets=type,keywords,language,platform,instrument&limit=1`)
      .set('X-Forwarded-For', '10.0.2.3');
    expect(many.status, many.text.slice(0, 300)).to.equal(503);
    expect(many.headers['retry-after']).to.match(/^[1-9]\d*$/);
    // One facet of 100 buckets asks for more than QUERY_EXPENSIVE_FACET_BUCKETS (50).
    const large = await request(app)
      .get(`${ITEMS}?facets=keywords:100:value_asc&limit=1`)
      .set('X-Forwarded-For', '10.0.2.3');
    expect(large.status, large.text.slice(0, 300)).to.equal(503);
    expect(large.text).to.contain('QUERY_EXPENSIVE_FACET_BUCKETS');
    // The HTML search page's facets (25 buckets) stay cheap.
    const few = await request(app)
      .get(`${ITEMS}?facets=type:10,keywords:15&limit=1`)
      .set('X-Forwarded-For', '10.0.2.3');
    expect(few.status, few.text.slice(0, 300)).to.equal(200);
    gate.open();
    await Promise.all([first, second]);
    await untilInFlight(0);
  });

  it('counts deep pages not reached through a next link, and filters the engines refine in Node', async () => {
    // The page before ends beyond QUERY_MAX_OFFSET (20): the page after it continues it.
    const before = await request(app).get(`${ITEMS}?offset=16&limit=5`);
    expect(before.status, before.text.slice(0, 300)).to.equal(200);
    const first = expensiveFrom('10.0.6.1');
    const second = expensiveFrom('10.0.6.2');
    await untilInFlight(2);
    const client = '10.0.6.3';
    const cold = await request(app)
      .get(`${ITEMS}?offset=25&limit=5`)
      .set('X-Forwarded-For', client);
    expect(cold.status, cold.text.slice(0, 300)).to.equal(503);
    const continued = await request(app)
      .get(`${ITEMS}?offset=21&limit=5`)
      .set('X-Forwarded-For', client);
    expect(continued.status, continued.text.slice(0, 300)).to.equal(200);
    // Comparing two properties: SQLite decides it in SQL, the engines refine candidates in Node.
    const refined = await request(app)
      .get(`${ITEMS}?filter=${encodeURIComponent('updated > created')}&limit=2`)
      .set('X-Forwarded-For', client);
    expect(refined.status, refined.text.slice(0, 300)).to.equal(
      test.backend.kind === 'sqlite' ? 200 : 503,
    );
    gate.open();
    await Promise.all([first, second]);
    await untilInFlight(0);
  });

  it('counts a sorted page beyond QUERY_EXPENSIVE_OFFSET and a sort by many properties, not an index-order page', async () => {
    const first = expensiveFrom('10.0.7.1');
    const second = expensiveFrom('10.0.7.2');
    await untilInFlight(2);
    const get = (query: string) =>
      request(app).get(`${ITEMS}?${query}`).set('X-Forwarded-For', '10.0.7.3');
    const deep = await get('offset=12&limit=2&sortby=title');
    expect(deep.status, deep.text.slice(0, 300)).to.equal(503);
    expect(deep.body.description).to.contain('QUERY_EXPENSIVE_OFFSET');
    const shallow = await get('offset=10&limit=2&sortby=title');
    expect(shallow.status, shallow.text.slice(0, 300)).to.equal(200);
    const indexOrder = await get('offset=15&limit=2');
    expect(indexOrder.status, indexOrder.text.slice(0, 300)).to.equal(200);
    const manyKeys = await get('limit=2&sortby=title,-updated,created');
    expect(manyKeys.status, manyKeys.text.slice(0, 300)).to.equal(503);
    expect(manyKeys.body.description).to.contain('QUERY_EXPENSIVE_SORT_KEYS');
    const twoKeys = await get('limit=2&sortby=title,-updated,title');
    expect(twoKeys.status, twoKeys.text.slice(0, 300)).to.equal(200);
    gate.open();
    await Promise.all([first, second]);
    await untilInFlight(0);
  });

  it('rests a client that sent two at once after its expensive search: a short rest waited out, a long one a 503 naming QUERY_EXPENSIVE_CLIENT_SHARE', async () => {
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    /** An expensive search (a facet of 100 buckets) the gate does not hold. */
    const facetsFrom = (client: string) =>
      request(app).get(`${ITEMS}?facets=keywords:100&limit=1`).set('X-Forwarded-For', client);
    /** A second expensive search while one runs: refused, so the client is held to its share. */
    const crowd = async (client: string) => expect((await facetsFrom(client)).status).to.equal(503);
    // A client that sends one at a time does not rest.
    const single = expensiveFrom('10.0.9.4');
    await untilInFlight(1);
    await pause(200);
    gate.open();
    expect((await single).status).to.equal(200);
    const started = Date.now();
    expect((await facetsFrom('10.0.9.4')).status).to.equal(200);
    expect(Date.now() - started, 'no rest').to.be.below(550);
    // Held about 150 ms, so the client rests three times that (the share is a quarter): less
    // than half the 3 s budget, so its next expensive search waits the rest out and is answered.
    const short = expensiveFrom('10.0.9.1');
    await untilInFlight(1);
    await crowd('10.0.9.1');
    await pause(150);
    gate.open();
    expect((await short).status).to.equal(200);
    const restStarted = Date.now();
    const waited = await facetsFrom('10.0.9.1');
    expect(waited.status, waited.text.slice(0, 300)).to.equal(200);
    expect(Date.now() - restStarted, 'the rest was waited out').to.be.at.least(400);
    // Another client does not rest.
    expect((await facetsFrom('10.0.9.3')).status).to.equal(200);
    // Held over 1.2 s: a rest of over 3.6 s is longer than the request may wait, so a 503 at
    // once, with the rest as Retry-After.
    const long = expensiveFrom('10.0.9.2');
    await untilInFlight(1);
    await crowd('10.0.9.2');
    await pause(1200);
    gate.open();
    expect((await long).status).to.equal(200);
    const refused = await facetsFrom('10.0.9.2');
    expect(refused.status, refused.text.slice(0, 300)).to.equal(503);
    expect(refused.body.description).to.contain('QUERY_EXPENSIVE_CLIENT_SHARE');
    expect(Number(refused.headers['retry-after'])).to.be.at.least(3);
    await untilInFlight(0);
  });

  it('holds one client to QUERY_EXPENSIVE_PER_CLIENT while another client is admitted', async () => {
    const first = expensiveFrom('10.0.3.1');
    await untilInFlight(1);
    const again = await request(app)
      .get(`${ITEMS}?filter=${encodeURIComponent(EXPENSIVE)}`)
      .set('X-Forwarded-For', '10.0.3.1');
    expect(again.status, again.text.slice(0, 300)).to.equal(503);
    expect(again.headers['retry-after']).to.match(/^[1-9]\d*$/);
    expect(again.body.description).to.contain('QUERY_EXPENSIVE_PER_CLIENT');
    // Another client takes the second place.
    const other = expensiveFrom('10.0.3.2');
    await untilInFlight(2);
    gate.open();
    expect((await first).status).to.equal(200);
    expect((await other).status).to.equal(200);
    await untilInFlight(0);
    // The first client has its place back.
    const later = expensiveFrom('10.0.3.1');
    await untilInFlight(1);
    gate.open();
    expect((await later).status).to.equal(200);
  });

  it('gives the place back after an error', async () => {
    gate.failWith = new Error('the backend failed');
    const failing = expensiveFrom('10.0.4.1');
    await untilInFlight(1);
    gate.open();
    expect((await failing).status).to.equal(500);
    await untilInFlight(0);
  });

  it('gives the place back when the client goes away before its answer', async () => {
    const server: Listening = await listen(app);
    try {
      const { port } = new URL(server.baseUrl);
      const sent = http.get({
        host: '127.0.0.1',
        port: Number(port),
        path: `${ITEMS}?filter=${encodeURIComponent(EXPENSIVE)}`,
        headers: { 'X-Forwarded-For': '10.0.5.1' },
      });
      sent.on('error', () => undefined);
      await untilInFlight(1);
      const closed = new Promise((resolve) => sent.once('close', resolve));
      sent.destroy();
      await closed;
      // The request's scope aborts, the gated search stops, and its place is free again.
      await untilInFlight(0);
    } finally {
      await server.close();
    }
  });
});

/**
 * Issue 47: the cost model at the door. Over HTTP, on the system backend (SQLite by default):
 * sort keys repeated on a property add nothing and are dropped (the answer is that of the single
 * key), more distinct keys than QUERY_MAX_SORT_KEYS are a 400 in each protocol's format naming
 * the setting; free text is counted in the words the engine's analyzer makes of it (split at
 * hyphens and punctuation too) and in characters; a cold page beyond QUERY_MAX_OFFSET in a sorted
 * order is refused, while following the `next` links reaches every page; facets named again in
 * any spelling are counted once, and more distinct facets than QUERY_MAX_FACETS are a 400; LIKE
 * patterns beyond a prefix are counted against QUERY_MAX_WILDCARD_PATTERNS.
 */
import { expect } from 'chai';
import request from 'supertest';
import { openNextPages } from '../../shared/search/next-page-offsets.js';
import { withQueryLimits } from '../../shared/search/query-limited-backend.js';
import { systemBackend } from '../support/system-backend.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { defined } from '../support/defined.js';

const ITEMS = '/catalogue/collections/metadata:main/items';
const SEARCH = '/catalogue/search';
const CSW = '/catalogue/csw';

/** Eight sortable properties beyond `title` (nine distinct keys in all). */
const SORTABLE = [
  'title',
  'updated',
  'created',
  'type',
  'language',
  'platform',
  'instrument',
  'parentId',
  'processingLevel',
];

/** A 400 `{code, description}` naming the setting. */
function expectJsonLimit(response: request.Response, setting: string): void {
  expect(response.status, response.text.slice(0, 300)).to.equal(400);
  expect(response.body.code).to.equal('QUERY_LIMIT_EXCEEDED');
  expect(response.body.description).to.contain(setting);
}

/** A 400 ows:ExceptionReport (InvalidParameterValue) naming the setting. */
function expectCswLimit(response: request.Response, setting: string): void {
  expect(response.status, response.text.slice(0, 300)).to.equal(400);
  expect(response.text).to.contain('ExceptionReport');
  expect(response.text).to.contain('exceptionCode="InvalidParameterValue"');
  expect(response.text).to.contain(setting);
}

const idsOf = (response: request.Response): string[] =>
  (response.body.features as { id: string }[]).map((feature) => feature.id);

/** The record identifiers of a CSW 3.0 GetRecords JSON-less answer (dc:identifier). */
const cswIds = (response: request.Response): string[] =>
  [...response.text.matchAll(/<dc:identifier>([^<]*)<\/dc:identifier>/g)].map(([, id]) =>
    defined(id, 'a dc:identifier'),
  );

describe('the cost model at the door', function () {
  this.timeout(120_000);
  let cairn: TestApp;

  before(async () => {
    // A lower facet bound than the default (16, above the 14 facets offered), to reach it; a
    // search body limit as large as the write limit, so that bodies larger than the default
    // 1 MiB reach the cost model (the default refuses them first: limits.test.ts).
    cairn = await createTestApp(60, {
      QUERY_MAX_FACETS: '10',
      SEARCH_BODY_LIMIT_BYTES: String(5 * 1024 * 1024),
    });
  });
  after(async () => {
    await cairn?.close();
  });

  describe('sort keys', () => {
    const repeated = Array.from(
      { length: 900 },
      (_, i) => ['title', '-title', 'updated', '-updated'][i % 4],
    ).join(',');

    it('Records items: 900 repeated keys answer as the first of each property', async () => {
      const single = await request(cairn.app).get(`${ITEMS}?sortby=title,updated&limit=20`);
      const many = await request(cairn.app).get(`${ITEMS}?sortby=${repeated}&limit=20`);
      expect(many.status, many.text.slice(0, 300)).to.equal(200);
      expect(idsOf(many)).to.deep.equal(idsOf(single));
    });

    it('STAC GET and POST search: repeated keys answer as the single key', async () => {
      const single = await request(cairn.app).get(`${SEARCH}?sortby=-title&limit=20`);
      const get = await request(cairn.app).get(`${SEARCH}?sortby=-title,title,-title&limit=20`);
      const post = await request(cairn.app)
        .post(SEARCH)
        .send({
          limit: 20,
          sortby: Array.from({ length: 500 }, (_, i) => ({
            field: 'title',
            direction: i % 2 ? 'asc' : 'desc',
          })),
        });
      expect(get.status).to.equal(200);
      expect(post.status, post.text.slice(0, 300)).to.equal(200);
      expect(idsOf(get)).to.deep.equal(idsOf(single));
      expect(idsOf(post)).to.deep.equal(idsOf(single));
    });

    it('CSW GetRecords: repeated SortBy keys answer as the single key', async () => {
      const base = `${CSW}?service=CSW&version=3.0.0&request=GetRecords&typeNames=csw:Record&elementSetName=brief&maxRecords=20`;
      const single = await request(cairn.app).get(`${base}&sortBy=dc:title:D`);
      const many = await request(cairn.app).get(
        `${base}&sortBy=${Array.from({ length: 300 }, (_, i) => `dc:title:${i % 2 ? 'A' : 'D'}`).join(',')}`,
      );
      expect(many.status, many.text.slice(0, 300)).to.equal(200);
      expect(cswIds(single)).to.have.length(20);
      expect(cswIds(many)).to.deep.equal(cswIds(single));
    });

    it('refuses more distinct keys than QUERY_MAX_SORT_KEYS in every protocol', async () => {
      const nine = SORTABLE.join(',');
      expectJsonLimit(
        await request(cairn.app).get(`${ITEMS}?sortby=${nine}`),
        'QUERY_MAX_SORT_KEYS',
      );
      expectJsonLimit(
        await request(cairn.app).get(`${SEARCH}?sortby=${nine}`),
        'QUERY_MAX_SORT_KEYS',
      );
      expectJsonLimit(
        await request(cairn.app)
          .post(SEARCH)
          .send({ sortby: SORTABLE.map((field) => ({ field, direction: 'desc' })) }),
        'QUERY_MAX_SORT_KEYS',
      );
      expectCswLimit(
        await request(cairn.app).get(
          `${CSW}?service=CSW&version=3.0.0&request=GetRecords&typeNames=csw:Record&sortBy=${nine}`,
        ),
        'QUERY_MAX_SORT_KEYS',
      );
    });

    it('answers QUERY_MAX_SORT_KEYS distinct keys', async () => {
      const eight = SORTABLE.slice(0, 8).join(',');
      const response = await request(cairn.app).get(`${ITEMS}?sortby=${eight}`);
      expect(response.status, response.text.slice(0, 300)).to.equal(200);
    });
  });

  describe('free text', () => {
    const hyphenated = Array.from({ length: 1001 }, (_, i) => `w${i}`).join('-');

    it('refuses 1,001 hyphen-joined words in STAC POST q and Records q (QUERY_MAX_TEXT_WORDS)', async () => {
      const stac = await request(cairn.app)
        .post(SEARCH)
        .send({ q: [hyphenated] });
      expectJsonLimit(stac, 'QUERY_MAX_TEXT_WORDS');
      expect(stac.body.description).to.contain('1,001');
      expectJsonLimit(
        await request(cairn.app).get(`${ITEMS}?q=${hyphenated}`),
        'QUERY_MAX_TEXT_WORDS',
      );
    });

    it('refuses them in CSW q with an ows:ExceptionReport', async () => {
      expectCswLimit(
        await request(cairn.app).get(
          `${CSW}?service=CSW&version=3.0.0&request=GetRecords&typeNames=csw:Record&q=${hyphenated}`,
        ),
        'QUERY_MAX_TEXT_WORDS',
      );
    });

    it('refuses a 4.6 MB word without spaces (QUERY_MAX_TEXT_LENGTH) at once', async () => {
      const started = performance.now();
      const response = await request(cairn.app)
        .post(SEARCH)
        .send({ q: ['a-b-'.repeat(1_150_000)] });
      expectJsonLimit(response, 'QUERY_MAX_TEXT_LENGTH');
      expect(performance.now() - started).to.be.below(5000);
    });

    it('answers hyphenated words within the limits', async () => {
      const response = await request(cairn.app)
        .post(SEARCH)
        .send({ q: ['soil-moisture'] });
      expect(response.status, response.text.slice(0, 300)).to.equal(200);
    });
  });

  describe('deep offsets (QUERY_MAX_OFFSET=20 over 60 records)', () => {
    let shallow: TestApp;
    before(async () => {
      shallow = await createTestApp(60, { QUERY_MAX_OFFSET: '20' });
    });
    after(async () => {
      await shallow?.close();
    });

    interface Link {
      rel: string;
      href: string;
      method?: string;
      body?: Record<string, unknown>;
    }
    const nextOf = (response: request.Response): Link | undefined =>
      (response.body.links as Link[]).find((link) => link.rel === 'next');
    const pathOf = (href: string): string => {
      const url = new URL(href);
      return `${url.pathname}${url.search}`;
    };

    it('Records items and STAC GET: following the next links reaches every record', async () => {
      const filter = encodeURIComponent(
        "title <> 'none' AND S_INTERSECTS(geometry, BBOX(-180,-90,180,90)) OR title IS NULL",
      );
      for (const start of [
        `${ITEMS}?sortby=-title&limit=7`,
        `${SEARCH}?sortby=-title&limit=7`,
        `${ITEMS}?sortby=updated&limit=6&filter=${filter}`,
      ]) {
        const seen: string[] = [];
        let response = await request(shallow.app).get(start);
        for (;;) {
          expect(response.status, response.text.slice(0, 300)).to.equal(200);
          seen.push(...idsOf(response));
          const next = nextOf(response);
          if (!next) break;
          response = await request(shallow.app).get(pathOf(next.href));
        }
        expect(seen).to.have.length(response.body.numberMatched);
        expect(new Set(seen).size).to.equal(seen.length);
        expect(seen.length).to.be.above(40);
      }
    });

    it('STAC POST: following the next links (token in the body) reaches every record', async () => {
      const seen: string[] = [];
      let response = await request(shallow.app)
        .post(SEARCH)
        .send({ limit: 9, sortby: [{ field: 'updated', direction: 'desc' }] });
      for (;;) {
        expect(response.status, response.text.slice(0, 300)).to.equal(200);
        seen.push(...idsOf(response));
        const next = nextOf(response);
        if (!next) break;
        expect(next.method).to.equal('POST');
        response = await request(shallow.app).post(pathOf(next.href)).send(next.body);
      }
      expect(new Set(seen).size).to.equal(60);
    });

    it('CSW: following nextRecord reaches every record', async () => {
      const base = `${CSW}?service=CSW&version=3.0.0&request=GetRecords&typeNames=csw:Record&elementSetName=brief&maxRecords=8&sortBy=dc:title:D`;
      const seen: string[] = [];
      let position = 1;
      while (position > 0) {
        const response = await request(shallow.app).get(`${base}&startPosition=${position}`);
        expect(response.status, response.text.slice(0, 300)).to.equal(200);
        seen.push(...cswIds(response));
        position = Number(/nextRecord="(\d+)"/.exec(response.text)?.[1] ?? 0);
      }
      expect(new Set(seen).size).to.equal(60);
    });

    it('refuses a cold deep offset in a sorted order in every protocol, naming QUERY_MAX_OFFSET', async () => {
      const records = await request(shallow.app).get(`${ITEMS}?sortby=title&offset=41`);
      expectJsonLimit(records, 'QUERY_MAX_OFFSET');
      expect(records.body.description).to.contain('"next" links');
      const token = Buffer.from(JSON.stringify({ offset: 2 ** 53 - 1 })).toString('base64url');
      expectJsonLimit(
        await request(shallow.app).get(`${SEARCH}?sortby=title&token=${token}`),
        'QUERY_MAX_OFFSET',
      );
      expectJsonLimit(
        await request(shallow.app)
          .post(SEARCH)
          .send({ q: ['soil'], token }),
        'QUERY_MAX_OFFSET',
      );
      expectCswLimit(
        await request(shallow.app).get(
          `${CSW}?service=CSW&version=3.0.0&request=GetRecords&typeNames=csw:Record&sortBy=dc:title&startPosition=35`,
        ),
        'QUERY_MAX_OFFSET',
      );
    });

    it('answers deep offsets in the index order, and counts at any offset', async () => {
      const records = await request(shallow.app).get(`${ITEMS}?offset=50`);
      expect(records.status).to.equal(200);
      expect(idsOf(records)).to.have.length(10);
      const hits = await request(shallow.app).get(
        `${CSW}?service=CSW&version=3.0.0&request=GetRecords&typeNames=csw:Record&resultType=hits&sortBy=dc:title&startPosition=35`,
      );
      expect(hits.status, hits.text.slice(0, 300)).to.equal(200);
    });
  });

  describe('facets', () => {
    /** The 256 upper/lower-case spellings of `keywords`. */
    const spellings = Array.from({ length: 256 }, (_, mask) =>
      [...'keywords'].map((c, i) => (mask & (1 << i) ? c.toUpperCase() : c)).join(''),
    );

    it('counts a property asked for in 300 spellings once, as the single facet', async () => {
      const many = Array.from(
        { length: 300 },
        (_, i) => `${spellings[i % spellings.length]}:100:value_asc`,
      ).join(',');
      const single = await request(cairn.app).get(`${ITEMS}?limit=1&facets=keywords:100:value_asc`);
      const repeated = await request(cairn.app).get(`${ITEMS}?limit=1&facets=${many}`);
      expect(repeated.status, repeated.text.slice(0, 300)).to.equal(200);
      expect(single.body.facets.keywords.buckets).to.have.length.above(1);
      expect(Object.keys(repeated.body.facets)).to.deep.equal(['keywords']);
      expect(repeated.body.facets).to.deep.equal(single.body.facets);
    });

    it('refuses more distinct facets than QUERY_MAX_FACETS, naming it', async () => {
      const eleven =
        'type,keywords,themes,formats,organisations,language,license,parentId,platform,instrument,sensorType';
      expectJsonLimit(
        await request(cairn.app).get(`${ITEMS}?facets=${eleven}`),
        'QUERY_MAX_FACETS',
      );
      const ten = eleven.split(',').slice(0, 10).join(',');
      const answer = await request(cairn.app).get(`${ITEMS}?limit=1&facets=${ten}`);
      expect(answer.status, answer.text.slice(0, 300)).to.equal(200);
      expect(Object.keys(answer.body.facets)).to.have.length(10);
    });
  });

  describe('wildcard patterns', () => {
    const like = (pattern: string) => ({ op: 'like', args: [{ property: 'title' }, pattern] });
    const costly = (n: number) => ({
      op: 'or',
      args: Array.from({ length: n }, (_, i) => like(`%x${i}________y%`)),
    });

    it('refuses an OR of 80 costly LIKE patterns in CQL2 JSON and text, naming the setting', async () => {
      expectJsonLimit(
        await request(cairn.app).post(ITEMS).send(costly(80)),
        'QUERY_MAX_WILDCARD_PATTERNS',
      );
      const text = Array.from({ length: 80 }, (_, i) => `title LIKE '%x${i}________y%'`).join(
        ' OR ',
      );
      expectJsonLimit(
        await request(cairn.app).post(SEARCH).send({ 'filter-lang': 'cql2-text', filter: text }),
        'QUERY_MAX_WILDCARD_PATTERNS',
      );
      expectJsonLimit(
        await request(cairn.app).get(`${ITEMS}?filter=${encodeURIComponent(text)}`),
        'QUERY_MAX_WILDCARD_PATTERNS',
      );
    });

    it('refuses them in a CSW FES filter with an ows:ExceptionReport', async () => {
      const likes = Array.from(
        { length: 11 },
        (_, i) =>
          `<fes:PropertyIsLike wildCard="*" singleChar="?" escapeChar="\\"><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>*x${i}?y*</fes:Literal></fes:PropertyIsLike>`,
      ).join('');
      const body = `<csw:GetRecords xmlns:csw="http://www.opengis.net/cat/csw/3.0" xmlns:fes="http://www.opengis.net/fes/2.0" service="CSW" version="3.0.0" resultType="results"><csw:Query typeNames="csw:Record"><csw:Constraint version="2.0.0"><fes:Filter><fes:Or>${likes}</fes:Or></fes:Filter></csw:Constraint></csw:Query></csw:GetRecords>`;
      expectCswLimit(
        await request(cairn.app).post(CSW).type('application/xml').send(body),
        'QUERY_MAX_WILDCARD_PATTERNS',
      );
    });

    it('answers 10 costly patterns, and 150 prefix patterns', async () => {
      const ten = await request(cairn.app).post(ITEMS).send(costly(10));
      expect(ten.status, ten.text.slice(0, 300)).to.equal(200);
      const prefixes = {
        op: 'or',
        args: Array.from({ length: 150 }, (_, i) => like(`t${i}%`)),
      };
      const answer = await request(cairn.app).post(ITEMS).send(prefixes);
      expect(answer.status, answer.text.slice(0, 300)).to.equal(200);
    });

    it('refuses one pattern with more wildcards than QUERY_MAX_PATTERN_WILDCARDS (16), in CQL2 and FES, and answers one with 16', async () => {
      // 17 wildcards: 9 runs of % and 8 single characters.
      const seventeen = `%${'a_'.repeat(8)}%`.replace(/a/g, '%a');
      expect(seventeen.split('_').length - 1).to.equal(8);
      expectJsonLimit(
        await request(cairn.app).post(ITEMS).send(like(seventeen)),
        'QUERY_MAX_PATTERN_WILDCARDS',
      );
      expectJsonLimit(
        await request(cairn.app).get(
          `${ITEMS}?filter=${encodeURIComponent(`title LIKE '${seventeen}'`)}`,
        ),
        'QUERY_MAX_PATTERN_WILDCARDS',
      );
      const fes = seventeen.replace(/%/g, '*').replace(/_/g, '?');
      const body = `<csw:GetRecords xmlns:csw="http://www.opengis.net/cat/csw/3.0" xmlns:fes="http://www.opengis.net/fes/2.0" service="CSW" version="3.0.0" resultType="results"><csw:Query typeNames="csw:Record"><csw:Constraint version="2.0.0"><fes:Filter><fes:PropertyIsLike wildCard="*" singleChar="?" escapeChar="\\"><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>${fes}</fes:Literal></fes:PropertyIsLike></fes:Filter></csw:Constraint></csw:Query></csw:GetRecords>`;
      expectCswLimit(
        await request(cairn.app).post(CSW).type('application/xml').send(body),
        'QUERY_MAX_PATTERN_WILDCARDS',
      );
      const sixteen = seventeen.slice(0, -1);
      const answer = await request(cairn.app).post(ITEMS).send(like(sixteen));
      expect(answer.status, answer.text.slice(0, 300)).to.equal(200);
    });
  });

  // Scaled mode needs a search engine: this block is declared in the engine runs of the suite
  // only (the SQLite run has no scaled mode to test), and there it needs Redis.
  const describeScaled = systemBackend().kind === 'sqlite' ? undefined : describe;
  describeScaled?.('deep offsets in scaled mode (a search engine and Redis)', function () {
    let scaled: TestApp;
    before(async function () {
      const redisUrl = process.env.CAIRN_TEST_REDIS_URL;
      if (!redisUrl)
        throw new Error('CAIRN_TEST_REDIS_URL is not set: the scaled mode needs Redis');
      scaled = await createTestApp(60, {
        QUERY_MAX_OFFSET: '20',
        REDIS_URL: redisUrl,
        WORKER_QUEUE_PREFIX: `cost-${process.pid}-${Date.now()}`,
      });
    });
    after(async () => {
      await scaled?.close();
    });

    it('a page past QUERY_MAX_OFFSET continues on another API process', async () => {
      const pagesA = openNextPages(scaled.config);
      const pagesB = openNextPages(scaled.config);
      try {
        const doorA = withQueryLimits(scaled.backend, scaled.config.query, pagesA);
        const doorB = withQueryLimits(scaled.backend, scaled.config.query, pagesB);
        const page = (offset: number) => ({
          sort: [{ field: 'title', direction: 'desc' as const }],
          offset,
          limit: 10,
        });
        for (const offset of [0, 10, 20]) await doorA.search(page(offset));
        const next = await doorB.search(page(30));
        expect(next.records).to.have.length(10);
        const cold = await doorB.search(page(50)).then(
          () => undefined,
          (error: Error) => error,
        );
        expect(cold?.message).to.contain('QUERY_MAX_OFFSET');
      } finally {
        await pagesA.close();
        await pagesB.close();
      }
    });
  });
});

/**
 * Issue 27 (H1, H2, M1, M2): no single query may hold the server. The API runs in a child
 * process over SQLite with 300 generated records (as `npm start` loads), so that this process
 * can ask `/healthz` while a hostile request is served: it must answer within 0.5 s. Inputs
 * over the QUERY_MAX_* limits are a 400 in each protocol's format naming the limit; inputs at
 * the limits are answered; the time budget cancels a query that runs too long with a 503.
 */
import { expect } from 'chai';
import request from 'supertest';
import {
  expectServerFree,
  sendWatchingHealth,
  startChildCatalogue,
  type ChildCatalogue,
  type TimedAnswer,
} from '../support/child-catalogue.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { defined } from '../support/defined.js';

const HEALTHZ_MS = 500;
const ITEMS = '/catalogue/collections/metadata:main/items';
const CSW = '/catalogue/csw';

const strings = (count: number): string[] => Array.from({ length: count }, (_, i) => `kw${i}`);

/** A MultiPolygon of `parts` small squares in a grid, with no two touching. */
function multiPolygon(parts: number): { type: 'MultiPolygon'; coordinates: [number[][]][] } {
  const side = Math.ceil(Math.sqrt(parts));
  return {
    type: 'MultiPolygon',
    coordinates: Array.from({ length: parts }, (_, i) => {
      const [x, y] = [-170 + (i % side) * 0.5, -80 + Math.floor(i / side) * 0.5];
      return [
        [
          [x, y],
          [x + 0.2, y],
          [x + 0.2, y + 0.2],
          [x, y + 0.2],
          [x, y],
        ],
      ];
    }),
  };
}

/** The same MultiPolygon as a GML 3.2 MultiSurface (FES 2.0), in CRS84 axis order. */
function multiSurface(parts: number): string {
  const members = multiPolygon(parts)
    .coordinates.map(
      ([ring]) =>
        `<gml:surfaceMember><gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>${ring
          .flat()
          .join(
            ' ',
          )}</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></gml:surfaceMember>`,
    )
    .join('');
  return `<gml:MultiSurface srsName="http://www.opengis.net/def/crs/OGC/1.3/CRS84">${members}</gml:MultiSurface>`;
}

/** A CSW 3.0 GetRecords POST whose constraint is an FES 2.0 filter. */
function getRecordsFes(filter: string): string {
  return `<csw:GetRecords xmlns:csw="http://www.opengis.net/cat/csw/3.0" xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2" service="CSW" version="3.0.0" resultType="results"><csw:Query typeNames="csw:Record"><csw:Constraint version="2.0.0"><fes:Filter>${filter}</fes:Filter></csw:Constraint></csw:Query></csw:GetRecords>`;
}

/** A CSW 2.0.2 GetRecords POST whose constraint is CQL_TEXT. */
function getRecordsCql(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return `<csw:GetRecords xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" service="CSW" version="2.0.2" resultType="results"><csw:Query typeNames="csw:Record"><csw:Constraint version="1.1.0"><csw:CqlText>${escaped}</csw:CqlText></csw:Constraint></csw:Query></csw:GetRecords>`;
}

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const xml = (body: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/xml' },
  body,
});

/** A 400 `{code, description}` refusing the query, naming the setting and its value. */
function expectJsonLimit(answer: TimedAnswer, setting: string, value: string): void {
  expect(answer.status, answer.body.slice(0, 300)).to.equal(400);
  const error = JSON.parse(answer.body) as { code: string; description: string };
  expect(error.code).to.equal('QUERY_LIMIT_EXCEEDED');
  expect(error.description).to.contain(setting).and.to.contain(value);
}

/** A 400 ows:ExceptionReport (InvalidParameterValue) naming the setting and its value. */
function expectCswLimit(answer: TimedAnswer, setting: string, value: string): void {
  expect(answer.status, answer.body.slice(0, 300)).to.equal(400);
  expect(answer.body).to.contain('ExceptionReport');
  expect(answer.body).to.contain('exceptionCode="InvalidParameterValue"');
  expect(answer.body).to.contain(setting).and.to.contain(value);
}

function expectHealthy(answer: TimedAnswer): void {
  expectServerFree(answer, HEALTHZ_MS);
}

describe('query cost limits on SQLite, server in a child process', function () {
  this.timeout(120_000);
  let catalogue: ChildCatalogue;

  before(async () => {
    catalogue = await startChildCatalogue(300);
  });
  after(async () => {
    await catalogue?.stop();
  });

  const send = (path: string, init: Parameters<typeof sendWatchingHealth>[2]) =>
    sendWatchingHealth(catalogue.baseUrl, path, init, 100);

  describe('H1: A_* with long arrays', () => {
    for (const op of ['a_contains', 'a_overlaps', 'a_equals']) {
      it(`refuses ${op.toUpperCase()} with 30,000 strings (STAC search) while /healthz stays fast`, async () => {
        const answer = await send(
          '/catalogue/search',
          json({
            'filter-lang': 'cql2-json',
            filter: { op, args: [{ property: 'keywords' }, strings(30_000)] },
          }),
        );
        expectJsonLimit(answer, 'QUERY_MAX_ARRAY_ITEMS', '1,000');
        expect(answer.body).to.contain('30,000');
        expectHealthy(answer);
      });
    }

    it('refuses A_OVERLAPS with 30,000 strings on POST …/items', async () => {
      const answer = await send(
        ITEMS,
        json({ op: 'a_overlaps', args: [{ property: 'keywords' }, strings(30_000)] }),
      );
      expectJsonLimit(answer, 'QUERY_MAX_ARRAY_ITEMS', '1,000');
      expectHealthy(answer);
    });

    it('answers A_* at the limit (1,000 strings) and /healthz stays fast', async () => {
      for (const op of ['a_contains', 'a_overlaps', 'a_equals', 'a_containedBy']) {
        const items = strings(999).concat(['soil']);
        const answer = await send(ITEMS, json({ op, args: [{ property: 'keywords' }, items] }));
        expect(answer.status, `${op}: ${answer.body.slice(0, 200)}`).to.equal(200);
        expectHealthy(answer);
      }
    });

    it('refuses an IN list over the limit', async () => {
      const answer = await send(
        ITEMS,
        json({ op: 'in', args: [{ property: 'title' }, strings(1001)] }),
      );
      expectJsonLimit(answer, 'QUERY_MAX_ARRAY_ITEMS', '1,000');
    });
  });

  describe('H2: geometries with many parts', () => {
    // Each refused body is sent once before it is timed: the first time the fresh child parses
    // 850 KB of GML it compiles the parsers' code as well (about 290 ms against 80 once warm, on
    // a quiet machine), a cost of the process's start, not of the request the tests time.
    before(async () => {
      const bodies: [string, Parameters<typeof sendWatchingHealth>[2]][] = [
        ['/catalogue/search', json({ intersects: multiPolygon(4000) })],
        [ITEMS, json({ op: 's_intersects', args: [{ property: 'geometry' }, multiPolygon(4000)] })],
        [
          CSW,
          xml(
            getRecordsFes(
              `<fes:Intersects><fes:ValueReference>ows:BoundingBox</fes:ValueReference>${multiSurface(4000)}</fes:Intersects>`,
            ),
          ),
        ],
      ];
      for (const [path, init] of bodies) {
        const warm = await fetch(`${catalogue.baseUrl}${path}`, init);
        expect(warm.status, await warm.text()).to.equal(400);
      }
    });

    it('refuses a 4,000-part MultiPolygon in STAC intersects while /healthz stays fast', async () => {
      const answer = await send('/catalogue/search', json({ intersects: multiPolygon(4000) }));
      expectJsonLimit(answer, 'QUERY_MAX_GEOMETRY_PARTS', '100');
      expect(answer.body).to.contain('4,000');
      expectHealthy(answer);
    });

    it('refuses it in CQL2 S_INTERSECTS on POST …/items', async () => {
      const answer = await send(
        ITEMS,
        json({ op: 's_intersects', args: [{ property: 'geometry' }, multiPolygon(4000)] }),
      );
      expectJsonLimit(answer, 'QUERY_MAX_GEOMETRY_PARTS', '100');
      expectHealthy(answer);
    });

    it('refuses it as a CSW FES gml:MultiSurface with an ows:ExceptionReport', async () => {
      const answer = await send(
        CSW,
        xml(
          getRecordsFes(
            `<fes:Intersects><fes:ValueReference>ows:BoundingBox</fes:ValueReference>${multiSurface(4000)}</fes:Intersects>`,
          ),
        ),
      );
      expectCswLimit(answer, 'QUERY_MAX_GEOMETRY_PARTS', '100');
      expectHealthy(answer);
    });

    it('answers a MultiPolygon at the limit (100 parts) in every language and /healthz stays fast', async () => {
      const answers = [
        await send('/catalogue/search', json({ intersects: multiPolygon(100) })),
        await send(
          ITEMS,
          json({ op: 's_within', args: [{ property: 'geometry' }, multiPolygon(100)] }),
        ),
        await send(
          CSW,
          xml(
            getRecordsFes(
              `<fes:Intersects><fes:ValueReference>ows:BoundingBox</fes:ValueReference>${multiSurface(100)}</fes:Intersects>`,
            ),
          ),
        ),
      ];
      for (const answer of answers) {
        expect(answer.status, answer.body.slice(0, 300)).to.equal(200);
        expectHealthy(answer);
      }
    });

    it('refuses a polygon over the vertex limit', async () => {
      const ring = Array.from({ length: 10_001 }, (_, i) => {
        const angle = (2 * Math.PI * i) / 10_001;
        return [10 * Math.cos(angle), 10 * Math.sin(angle)];
      });
      ring.push(defined(ring[0], 'the first vertex'));
      const answer = await send(
        '/catalogue/search',
        json({ intersects: { type: 'Polygon', coordinates: [ring] } }),
      );
      expectJsonLimit(answer, 'QUERY_MAX_GEOMETRY_VERTICES', '10,000');
    });
  });

  describe('M1: deep and wide filters', () => {
    const equal = (i: number) => ({ op: '=', args: [{ property: 'title' }, `t${i}`] });

    it('refuses 1,000 nesting levels in CQL2 JSON and CQL2 text with a 400', async () => {
      let nested: unknown = equal(0);
      for (let i = 0; i < 1000; i++) nested = { op: 'not', args: [nested] };
      const answers = [
        await send(ITEMS, json(nested)),
        await send(
          '/catalogue/search',
          json({
            'filter-lang': 'cql2-text',
            filter: `${'NOT ('.repeat(1000)}title = 'x'${')'.repeat(1000)}`,
          }),
        ),
      ];
      for (const answer of answers) {
        expect(answer.status, answer.body.slice(0, 300)).to.equal(400);
        expect(JSON.parse(answer.body).description).to.match(/nest/);
      }
    });

    it('refuses 1,000 flat OR operands in CQL2 JSON and text, FES and CQL_TEXT with a 400 naming the limit', async () => {
      const flat = { op: 'or', args: Array.from({ length: 1000 }, (_, i) => equal(i)) };
      const text = Array.from({ length: 1000 }, (_, i) => `title = 't${i}'`).join(' OR ');
      expectJsonLimit(await send(ITEMS, json(flat)), 'QUERY_MAX_FILTER_NODES', '500');
      expectJsonLimit(
        await send('/catalogue/search', json({ 'filter-lang': 'cql2-text', filter: text })),
        'QUERY_MAX_FILTER_NODES',
        '500',
      );
      const fes = Array.from(
        { length: 1000 },
        (_, i) =>
          `<fes:PropertyIsEqualTo><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>t${i}</fes:Literal></fes:PropertyIsEqualTo>`,
      ).join('');
      expectCswLimit(
        await send(CSW, xml(getRecordsFes(`<fes:Or>${fes}</fes:Or>`))),
        'QUERY_MAX_FILTER_NODES',
        '500',
      );
      expectCswLimit(
        await send(CSW, xml(getRecordsCql(text.replace(/title/g, 'dc:title')))),
        'QUERY_MAX_FILTER_NODES',
        '500',
      );
    });

    it('refuses 20,000 operands in CQL2 text and CSW CQL_TEXT before parsing them, /healthz fast', async () => {
      const text = Array.from({ length: 20_000 }, (_, i) => `title = 't${i}'`).join(' OR ');
      const cql2 = await send(
        '/catalogue/search',
        json({ 'filter-lang': 'cql2-text', filter: text }),
      );
      expectJsonLimit(cql2, 'QUERY_MAX_FILTER_NODES', '500');
      expectHealthy(cql2);
      const csw = await send(CSW, xml(getRecordsCql(text.replace(/title/g, 'dc:title'))));
      expectCswLimit(csw, 'QUERY_MAX_FILTER_NODES', '500');
      expectHealthy(csw);
    });

    it('refuses nesting over QUERY_MAX_FILTER_DEPTH and answers at it', async () => {
      let nested: unknown = equal(0);
      for (let i = 0; i < 40; i++) nested = { op: i % 2 ? 'and' : 'or', args: [nested, equal(i)] };
      expectJsonLimit(await send(ITEMS, json(nested)), 'QUERY_MAX_FILTER_DEPTH', '32');
      let atLimit: unknown = equal(0);
      for (let i = 0; i < 29; i++)
        atLimit = { op: i % 2 ? 'and' : 'not', args: i % 2 ? [atLimit, equal(i)] : [atLimit] };
      const answer = await send(ITEMS, json(atLimit));
      expect(answer.status, answer.body.slice(0, 300)).to.equal(200);
      expectHealthy(answer);
    });
  });

  describe('M2: NUL in free text', () => {
    it('is a 400 for Records, STAC, CSW q and csw:AnyText, in each format', async () => {
      expectJsonLimit(await send(`${ITEMS}?q=a%00b`, {}), 'NUL', 'U+0000');
      expectJsonLimit(await send('/catalogue/search?q=a%00b', {}), 'NUL', 'U+0000');
      const kvp = await send(
        `${CSW}?service=CSW&version=3.0.0&request=GetRecords&typeNames=csw:Record&q=a%00b`,
        {},
      );
      expect(kvp.status, kvp.body.slice(0, 300)).to.equal(400);
      expect(kvp.body).to.contain('ExceptionReport').and.to.contain('U+0000');
      const anyText = await send(
        CSW,
        xml(
          getRecordsFes(
            '<fes:PropertyIsLike wildCard="*" singleChar="?" escapeChar="\\"><fes:ValueReference>csw:AnyText</fes:ValueReference><fes:Literal>soil&#x0;x</fes:Literal></fes:PropertyIsLike>',
          ),
        ),
      );
      expect(anyText.status, anyText.body.slice(0, 300)).to.be.within(400, 499);
      expect(anyText.body).to.contain('ExceptionReport');
    });
  });
});

describe('query cost limits: operands past SQLite expression depth, and the time budget', function () {
  this.timeout(120_000);
  let wide: TestApp;
  let budget: TestApp;

  before(async () => {
    wide = await createTestApp(50, { QUERY_MAX_FILTER_NODES: '100000' });
    budget = await createTestApp(300, {
      QUERY_MAX_FILTER_NODES: '100000',
      QUERY_TIME_BUDGET_MS: '100',
    });
  });
  after(async () => {
    await wide?.close();
    await budget?.close();
  });

  it('answers 3,000 flat OR operands when the limit allows them (was SqliteError: expression tree too large)', async () => {
    const flat = {
      op: 'or',
      args: Array.from({ length: 3000 }, (_, i) => ({
        op: '=',
        args: [{ property: 'title' }, `t${i}`],
      })),
    };
    const response = await request(wide.app).post(ITEMS).send(flat);
    expect(response.status, response.text.slice(0, 300)).to.equal(200);
  });

  /** 3,000 case-insensitive comparisons per record: seconds of work without a budget. */
  const manyCaseInsensitive = {
    op: 'or',
    args: Array.from({ length: 3000 }, (_, i) => ({
      op: '=',
      args: [
        { op: 'casei', args: [{ property: 'title' }] },
        { op: 'casei', args: [`t${i}`] },
      ],
    })),
  };

  it('cancels a query past QUERY_TIME_BUDGET_MS with a 503 QUERY_TIMEOUT (Records JSON)', async () => {
    const started = performance.now();
    const response = await request(budget.app).post(ITEMS).send(manyCaseInsensitive);
    const elapsed = performance.now() - started;
    expect(response.status, response.text.slice(0, 300)).to.equal(503);
    expect(response.body.code).to.equal('QUERY_TIMEOUT');
    expect(response.body.description).to.contain('QUERY_TIME_BUDGET_MS').and.to.contain('100 ms');
    // Parsing and compiling the filter take their time; running it stops at the budget.
    expect(elapsed).to.be.below(10_000);
  });

  it('cancels it with an ows:ExceptionReport in CSW (FES matchCase="false")', async () => {
    const fes = Array.from(
      { length: 3000 },
      (_, i) =>
        `<fes:PropertyIsEqualTo matchCase="false"><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>t${i}</fes:Literal></fes:PropertyIsEqualTo>`,
    ).join('');
    const response = await request(budget.app)
      .post(CSW)
      .type('application/xml')
      .send(getRecordsFes(`<fes:Or>${fes}</fes:Or>`));
    expect(response.status, response.text.slice(0, 300)).to.equal(503);
    expect(response.text).to.contain('ExceptionReport').and.to.contain('QUERY_TIME_BUDGET_MS');
  });

  it('still answers a query that fits the budget', async () => {
    const response = await request(budget.app).get(`${ITEMS}?q=soil&limit=5`);
    expect(response.status).to.equal(200);
  });
});

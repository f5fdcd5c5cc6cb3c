/**
 * The API over HTTP against each search engine: the same requests, on the same generated
 * records, must give the same answers as the embedded SQLite backend — through OGC API –
 * Records, STAC and CSW. Needs CAIRN_TEST_ELASTICSEARCH_URL and CAIRN_TEST_OPENSEARCH_URL
 * (scripts/test-all.sh starts the engines); a missing URL fails the suite, it never skips.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../services/api/app.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { loadConfig } from '../../shared/config/index.js';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { createLogger } from '../../shared/logging/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import type { SpatialMode } from '../../shared/search/engine/index-templates.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { createTestBackend, requireEngineUrl } from '../integration/engine-backend-cases.js';

const ITEMS = '/catalogue/collections/metadata:main/items';

/** Requests whose answers (ids, in order where sorted) every backend must agree on. */
const REQUESTS = [
  // Free text orders by relevance, which each backend scores its own way: these pages hold
  // every match (LIMIT_MAX is the corpus size), so the same set is the same answer.
  `${ITEMS}?q=flood,geology&limit=600`,
  `${ITEMS}?q=sea%20ice,bathymetry&limit=600`,
  `${ITEMS}?bbox=5,44,17,49&limit=100`,
  `${ITEMS}?bbox=170,-30,-170,0&limit=100`,
  `${ITEMS}?datetime=2000-01-01T00:00:00Z/2005-12-31T23:59:59Z&limit=100`,
  `${ITEMS}?datetime=2020-01-01T00:00:00Z/..&bbox=-180,-90,0,90&limit=100`,
  `${ITEMS}?filter=${encodeURIComponent("cloudCover < 30 AND platform = 'Landsat-8'")}&limit=100`,
  `${ITEMS}?type=service&sortby=-updated&limit=20`,
  `${ITEMS}?sortby=title&offset=40&limit=15`,
  '/catalogue/search?bbox=-10,35,30,60&datetime=1995-01-01T00:00:00Z/2015-01-01T00:00:00Z&limit=100',
];

interface Answer {
  status: number;
  matched: number;
  ids: string[];
}

async function ask(app: Express, path: string): Promise<Answer> {
  const response = await request(app).get(path);
  const body = response.body as { numberMatched: number; features: { id: string }[] };
  return {
    status: response.status,
    matched: body.numberMatched,
    ids: body.features.map((f) => f.id),
  };
}

async function cswMatched(app: Express, query: string): Promise<number> {
  const response = await request(app).get(
    `/catalogue/csw?service=CSW&version=3.0.0&request=GetRecords&typeNames=csw:Record&maxRecords=0&${query}`,
  );
  expect(response.status).to.equal(200);
  const match = /numberOfRecordsMatched="(\d+)"/.exec(response.text);
  expect(match, response.text.slice(0, 300)).to.not.equal(null);
  return Number(match![1]);
}

function describeEngine(engine: 'elasticsearch' | 'opensearch', spatial: SpatialMode): void {
  const url = requireEngineUrl(engine);
  if (!url) return;

  describe(`the API over HTTP on ${engine} (${spatial}) answers as on SQLite`, function () {
    this.timeout(180_000);
    const directory = mkdtempSync(join(tmpdir(), 'cairn-engines-http-'));
    let sqlite: SearchBackend;
    let engineBackend: SearchBackend;
    let reference: Express;
    let candidate: Express;

    before(async () => {
      const config = loadConfig({ LOG_LEVEL: 'silent', LIMIT_MAX: '600' });
      const logger = createLogger('silent', 'test');
      sqlite = new SqliteBackend({ path: join(directory, 'reference.sqlite') });
      engineBackend = await createTestBackend(engine, url, { spatial });
      const documents = [...generateRecords(600, 11)].map((record, index) => ({
        name: `generated ${index}`,
        content: JSON.stringify(record),
      }));
      for (const backend of [sqlite, engineBackend]) {
        const summary = await ingestDocuments(backend, documents);
        expect(summary.written).to.equal(600);
      }
      reference = createApp({ config, backend: sqlite, logger });
      candidate = createApp({ config, backend: engineBackend, logger });
    });

    after(async () => {
      await engineBackend?.close();
      await sqlite?.close();
      rmSync(directory, { recursive: true, force: true });
    });

    for (const path of REQUESTS) {
      it(`GET ${decodeURIComponent(path)}`, async () => {
        const expected = await ask(reference, path);
        expect(expected.status).to.equal(200);
        expect(expected.matched, 'the request must select something to compare').to.be.greaterThan(
          0,
        );
        const actual = await ask(candidate, path);
        expect(actual.status).to.equal(200);
        expect(actual.matched).to.equal(expected.matched);
        const sorted = /sortby=/.test(path) || !/[?&]q=/.test(path);
        if (sorted) expect(actual.ids).to.deep.equal(expected.ids);
        else {
          expect(expected.ids.length, 'a page in relevance order must hold every match').to.equal(
            expected.matched,
          );
          expect([...actual.ids].sort()).to.deep.equal([...expected.ids].sort());
        }
      });
    }

    it('declares every CQL2 class SQLite declares, and answers them alike (refined in Node)', async () => {
      const classes = ['spatial-functions', 'property-property', 'arithmetic'].map(
        (name) => `http://www.opengis.net/spec/cql2/1.0/conf/${name}`,
      );
      const declared = async (app: Express, path: string) =>
        ((await request(app).get(path).expect(200)).body as { conformsTo: string[] }).conformsTo;
      for (const path of ['/catalogue/conformance?f=json', '/catalogue?f=json']) {
        const onSqlite = await declared(reference, path);
        expect(onSqlite).to.include.members(classes);
        expect(await declared(candidate, path), path).to.deep.equal(onSqlite);
      }
      // One filter of each class, with a count and a page that must equal SQLite's.
      for (const filter of [
        'updated > created',
        'cloudCover * 2 > 40',
        'S_OVERLAPS(geometry, BBOX(-180,-90,0,90))',
        'S_CROSSES(geometry, LINESTRING(-180 0,180 0))',
      ]) {
        const path = `${ITEMS}?filter=${encodeURIComponent(filter)}&sortby=title&offset=3&limit=7`;
        const expected = await ask(reference, path);
        expect(expected.status, filter).to.equal(200);
        expect(expected.matched, `${filter} must select something to compare`).to.be.greaterThan(
          10,
        );
        const actual = await ask(candidate, path);
        expect(actual.status, filter).to.equal(200);
        expect(actual.matched, filter).to.equal(expected.matched);
        expect(actual.ids, filter).to.deep.equal(expected.ids);
      }
    });

    it('CSW GetRecords counts the same records', async () => {
      for (const query of ['q=ocean', 'bbox=-10,35,30,60', '']) {
        expect(await cswMatched(candidate, query), query).to.equal(
          await cswMatched(reference, query),
        );
      }
    });

    it('answers A_* with long arrays as SQLite does, and at the 1,000-item limit never a 5xx', async () => {
      const keywords = (count: number) => [
        ...Array.from({ length: count - 4 }, (_, i) => `kw${i}`),
        ...['flood', 'geology', 'soil', 'Europe'],
      ];
      for (const op of ['a_overlaps', 'a_contains', 'a_containedBy', 'a_equals']) {
        const filter = { op, args: [{ property: 'keywords' }, keywords(500)] };
        const [expected, actual] = await Promise.all([
          request(reference).post(ITEMS).send(filter),
          request(candidate).post(ITEMS).send(filter),
        ]);
        expect(expected.status, op).to.equal(200);
        expect(actual.status, `${op}: ${actual.text.slice(0, 200)}`).to.equal(200);
        expect(actual.body.numberMatched, op).to.equal(expected.body.numberMatched);
        // At the limit, OpenSearch's clause limit (1,024) may refuse A_EQUALS: a 400, not a 500.
        const atLimit = await request(candidate)
          .post(ITEMS)
          .send({ op, args: [{ property: 'keywords' }, keywords(1000)] });
        expect(atLimit.status, `${op}: ${atLimit.text.slice(0, 200)}`).to.be.oneOf([200, 400]);
      }
    });

    it('refuses the hostile queries (huge arrays, geometries, nesting, operand lists) with the same 400s', async () => {
      const multiPolygon = {
        type: 'MultiPolygon',
        coordinates: Array.from({ length: 4000 }, (_, i) => {
          const [x, y] = [-170 + (i % 64) * 0.5, -80 + Math.floor(i / 64) * 0.5];
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
      const hostile: [string, (app: Express) => request.Test][] = [
        [
          'QUERY_MAX_ARRAY_ITEMS',
          (app) =>
            request(app)
              .post('/catalogue/search')
              .send({
                filter: {
                  op: 'a_contains',
                  args: [
                    { property: 'keywords' },
                    Array.from({ length: 30_000 }, (_, i) => `kw${i}`),
                  ],
                },
              }),
        ],
        [
          'QUERY_MAX_GEOMETRY_PARTS',
          (app) => request(app).post('/catalogue/search').send({ intersects: multiPolygon }),
        ],
        [
          'QUERY_MAX_FILTER_NODES',
          (app) =>
            request(app)
              .post(ITEMS)
              .send({
                op: 'or',
                args: Array.from({ length: 1000 }, (_, i) => ({
                  op: '=',
                  args: [{ property: 'title' }, `t${i}`],
                })),
              }),
        ],
        ['U+0000', (app) => request(app).get(`${ITEMS}?q=a%00b`)],
      ];
      for (const [limit, send] of hostile) {
        const response = await send(candidate);
        expect(response.status, `${limit}: ${response.text.slice(0, 200)}`).to.equal(400);
        expect(response.body.code).to.equal('QUERY_LIMIT_EXCEEDED');
        expect(response.body.description).to.contain(limit);
      }
    });

    it('pages through every record by OGC API next links, each exactly once', async () => {
      const seen = new Set<string>();
      let path: string | undefined = `${ITEMS}?limit=100`;
      while (path) {
        const response: request.Response = await request(candidate).get(path).expect(200);
        for (const feature of response.body.features as { id: string }[]) {
          expect(seen.has(feature.id), feature.id).to.equal(false);
          seen.add(feature.id);
        }
        const next: { href: string } | undefined = (
          response.body.links as { rel: string; href: string }[]
        ).find((l) => l.rel === 'next');
        path = next ? new URL(next.href).pathname + new URL(next.href).search : undefined;
      }
      expect(seen.size).to.equal(600);
    });

    // Last: it adds records to both backends.
    it('lists the same STAC Collections and their items (STAC API root)', async () => {
      const children = ['child-a', 'child-b'].map((id) => ({
        name: id,
        content: JSON.stringify({
          type: 'Feature',
          id,
          geometry: null,
          properties: { type: 'dataset', title: id, parentId: 'parent-dataset' },
          links: [],
        }),
      }));
      const parent = {
        name: 'parent',
        content: JSON.stringify({
          type: 'Feature',
          id: 'parent-dataset',
          geometry: null,
          properties: { type: 'dataset', title: 'A dataset that others name as parent' },
          links: [],
        }),
      };
      for (const backend of [sqlite, engineBackend]) {
        expect((await ingestDocuments(backend, [parent, ...children])).written).to.equal(3);
      }
      const list = async (app: Express): Promise<{ matched: number; ids: string[] }> => {
        const body = (await request(app).get('/catalogue/stac/collections?limit=100').expect(200))
          .body as { numberMatched: number; collections: { id: string }[] };
        return { matched: body.numberMatched, ids: body.collections.map((c) => c.id) };
      };
      const expected = await list(reference);
      expect(expected.ids).to.include.members(['metadata:main', 'parent-dataset']);
      expect(await list(candidate)).to.deep.equal(expected);
      const items = await ask(candidate, '/catalogue/stac/collections/parent-dataset/items');
      expect(items.ids).to.deep.equal(['child-a', 'child-b']);
      const item = await request(candidate)
        .get('/catalogue/stac/collections/parent-dataset/items/child-a')
        .expect(200);
      expect(item.body).to.include({ id: 'child-a', collection: 'parent-dataset' });
    });
  });
}

describeEngine('elasticsearch', 'envelope');
describeEngine('opensearch', 'shape');

/**
 * Refinement off the event loop, on each search engine over HTTP: a search whose filter the
 * engine cannot decide alone (a property compared with another, beside an intersection with a
 * 2,000-vertex polygon that jsts evaluates on every candidate) refines 1,500 candidates in the
 * refinement threads (SEARCH_REFINE_WORKERS=1). While it is proven in flight (the expensive
 * lane's gauge on /metrics reads 1), /healthz is asked, and answers before the search does:
 * the event loop was free. No wall time is measured. Under a budget of 200 ms the same search
 * is a 503 QUERY_TIMEOUT: the request's one deadline holds every candidate batch. The engines
 * only: SQLite decides every filter in SQL.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { engineTarget } from '../support/system-backend.js';
import { startApp, type TestApp } from '../support/test-app.js';

const ITEMS = '/catalogue/collections/metadata:main/items';
const RECORDS = 1_500;

/** A valid ring of `vertices` points on an ellipse over most of the world. */
function ellipse(vertices: number): number[][] {
  const ring = Array.from({ length: vertices }, (_, i) => {
    const angle = (2 * Math.PI * i) / vertices;
    return [170 * Math.cos(angle), 80 * Math.sin(angle)];
  });
  return [...ring, ring[0]!];
}

const FILTER = {
  op: 'and',
  args: [
    {
      op: 's_intersects',
      args: [{ property: 'geometry' }, { type: 'Polygon', coordinates: [ellipse(2_000)] }],
    },
    { op: '>', args: [{ property: 'updated' }, { property: 'created' }] },
  ],
};

/** The expensive lane's gauge in a /metrics text. */
function inFlight(text: string): number | undefined {
  const line = text
    .split('\n')
    .find((entry) => entry.startsWith('cairn_search_expensive_in_flight '));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

for (const kind of ['elasticsearch', 'opensearch'] as const) {
  describe(`refinement off the event loop on ${kind}`, function () {
    this.timeout(180_000);
    let test: TestApp;

    before(async () => {
      const documents = [...generateRecords(RECORDS, 7)].map((record, index) => ({
        name: `generated ${index}`,
        content: JSON.stringify(record),
      }));
      test = await startApp(engineTarget(kind), documents, {
        LIMIT_MAX: '100',
        SEARCH_REFINE_WORKERS: '1',
      });
    });
    after(async () => {
      await test?.close();
    });

    it('answers /healthz while a refinement-heavy search is in flight, before that search', async () => {
      let searchDone = false;
      const search = request(test.app)
        .post(`${ITEMS}?limit=5`)
        .send(FILTER)
        .then((response) => {
          searchDone = true;
          return response;
        });
      // Proven in flight: the search holds its place in the expensive lane.
      while (inFlight((await request(test.app).get('/metrics')).text) !== 1) {
        expect(searchDone, 'the search ended before it was seen in flight').to.equal(false);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const health = await request(test.app).get('/healthz');
      const searchDoneAtHealth = searchDone;
      expect(health.status).to.equal(200);
      expect(searchDoneAtHealth, '/healthz answered after the search').to.equal(false);
      const answer = await search;
      expect(answer.status, answer.text.slice(0, 300)).to.equal(200);
      expect(answer.body.numberMatched).to.be.above(0);
      expect((test.backend as EngineBackend).refinedInThreads).to.be.above(0);
    });
  });

  describe(`one deadline over a refinement on ${kind}`, function () {
    this.timeout(180_000);
    let test: TestApp;

    before(async () => {
      const documents = [...generateRecords(600, 11)].map((record, index) => ({
        name: `generated ${index}`,
        content: JSON.stringify(record),
      }));
      test = await startApp(engineTarget(kind), documents, {
        LIMIT_MAX: '100',
        SEARCH_REFINE_WORKERS: '1',
        QUERY_TIME_BUDGET_MS: '200',
      });
    });
    after(async () => {
      await test?.close();
    });

    it('answers 503 QUERY_TIMEOUT when the batches outlast the budget, and frees the lane', async () => {
      const answer = await request(test.app).post(`${ITEMS}?limit=5`).send(FILTER);
      expect(answer.status, answer.text.slice(0, 300)).to.equal(503);
      expect(answer.body.code).to.equal('QUERY_TIMEOUT');
      expect(answer.body.description).to.contain('200 ms');
      expect(inFlight((await request(test.app).get('/metrics')).text)).to.equal(0);
    });
  });
}

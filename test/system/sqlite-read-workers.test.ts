/**
 * Issue 29: with SQLite searches on read workers, the event loop stays free while a heavy query
 * runs. The API runs in a child process (test/support/serve-catalogue.ts) so that this process
 * can watch `/healthz` from outside while the query is served.
 */
import { expect } from 'chai';
import request from 'supertest';
import {
  expectServerFree,
  sendWatchingHealth,
  startChildCatalogue,
  type ChildCatalogue,
} from '../support/child-catalogue.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const ITEMS = '/catalogue/collections/metadata:main/items';
const HEALTHZ_MS = 500;
/**
 * When /healthz is asked: after the server has parsed and compiled the filter (its 3,000
 * operands take the event loop a while on a loaded machine), while the statement runs.
 */
const DELAY_MS = 1000;

/**
 * 3,000 case-insensitive comparisons per record: seconds of work in one statement over 1,000
 * records. Reading on the event loop, /healthz waited 9.7 s behind it (measured with
 * SQLITE_READ_WORKERS=0, load average 13); on one read worker it answered at once.
 */
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

describe('SQLite read workers: /healthz while a heavy query runs (child process)', function () {
  this.timeout(120_000);
  let catalogue: ChildCatalogue;

  before(async () => {
    catalogue = await startChildCatalogue(1000, {
      SQLITE_READ_WORKERS: '1',
      QUERY_MAX_FILTER_NODES: '100000',
      QUERY_TIME_BUDGET_MS: '120000',
    });
  });
  after(async () => {
    await catalogue?.stop();
  });

  it('answers /healthz at once while the query runs on a worker, then answers the query', async () => {
    const answer = await sendWatchingHealth(
      catalogue.baseUrl,
      ITEMS,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(manyCaseInsensitive),
      },
      DELAY_MS,
    );
    expect(answer.status, answer.body.slice(0, 300)).to.equal(200);
    expect(JSON.parse(answer.body).numberMatched).to.equal(0);
    // The query was still running when /healthz answered: the check saw a busy server.
    expect(answer.healthzDuring, 'a /healthz answered while the query ran').to.be.above(0);
    expectServerFree(answer, HEALTHZ_MS);
  });
});

describe('SQLite read workers: the time budget cancels a query on a worker', function () {
  this.timeout(120_000);
  let budget: TestApp;

  before(async () => {
    budget = await createTestApp(300, {
      SQLITE_READ_WORKERS: '1',
      QUERY_MAX_FILTER_NODES: '100000',
      QUERY_TIME_BUDGET_MS: '100',
    });
  });
  after(async () => {
    await budget?.close();
  });

  it('answers 503 QUERY_TIMEOUT naming the budget, and the worker serves the next query', async () => {
    const response = await request(budget.app).post(ITEMS).send(manyCaseInsensitive);
    expect(response.status, response.text.slice(0, 300)).to.equal(503);
    expect(response.body.code).to.equal('QUERY_TIMEOUT');
    expect(response.body.description).to.contain('QUERY_TIME_BUDGET_MS').and.to.contain('100 ms');
    const next = await request(budget.app).get(`${ITEMS}?limit=5`);
    expect(next.status).to.equal(200);
    expect(next.body.numberMatched).to.equal(300);
  });
});

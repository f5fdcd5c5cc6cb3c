/**
 * Refusals at a client's pace, over HTTP on the system backend (SQLite by default, or an engine
 * by CAIRN_TEST_SYSTEM_BACKEND). With REFUSAL_PACE_PER_SECOND=2, REFUSAL_PACE_BURST=2 and
 * REFUSAL_PACE_MAX_DELAY_MS=400 (clients told apart by X-Forwarded-For behind TRUST_PROXY), a
 * client refused for cost (here: more sort keys than QUERY_MAX_SORT_KEYS) gets its first two
 * refusals at once and its third held, then answered unchanged in its protocol's format; another
 * client's refusal, and the first client's good request, are not held. Whether an answer was
 * held is read from /metrics (cairn_refusals_held_total); the one time measured is a lower
 * bound (a held answer cannot come sooner than its hold), never an upper one.
 */
import { expect } from 'chai';
import request from 'supertest';
import { sample } from '../support/metrics-sample.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const ITEMS = '/catalogue/collections/metadata:main/items';
const CSW = '/catalogue/csw';
/** Three distinct sort keys: over QUERY_MAX_SORT_KEYS (2) here. */
const THREE_KEYS = 'title,updated,created';

describe('refusals at a client pace', function () {
  this.timeout(60_000);
  let test: TestApp;

  before(async () => {
    test = await createTestApp(20, {
      TRUST_PROXY: 'true',
      QUERY_MAX_SORT_KEYS: '2',
      REFUSAL_PACE_PER_SECOND: '2',
      REFUSAL_PACE_BURST: '2',
      REFUSAL_PACE_MAX_DELAY_MS: '400',
    });
  });
  after(async () => {
    await test?.close();
  });

  const held = async (): Promise<number> =>
    sample((await request(test.app).get('/metrics')).text, 'cairn_refusals_held_total') ?? 0;
  const refusedItems = (client: string): Promise<request.Response> =>
    request(test.app)
      .get(`${ITEMS}?sortby=${THREE_KEYS}`)
      .set('X-Forwarded-For', client)
      .then((response) => response);

  it('answers a burst of refusals at once, holds the next, and answers it unchanged', async () => {
    const before = await held();
    for (const response of [await refusedItems('10.1.0.1'), await refusedItems('10.1.0.1')]) {
      expect(response.status).to.equal(400);
    }
    expect(await held()).to.equal(before);

    const sent = Date.now();
    const third = await refusedItems('10.1.0.1');
    const elapsed = Date.now() - sent;
    expect(third.status, third.text.slice(0, 300)).to.equal(400);
    expect(third.body.code).to.equal('QUERY_LIMIT_EXCEEDED');
    expect(third.body.description).to.contain('QUERY_MAX_SORT_KEYS');
    expect(await held()).to.equal(before + 1);
    // Two refusals at once at 2 a second put the client one second ahead of the pace, a
    // burst (0.5 s) beyond it: held for the bound, 400 ms.
    expect(elapsed).to.be.at.least(350);
  });

  it('keeps other clients, and the client’s good requests, out of its pace', async () => {
    await refusedItems('10.1.0.2');
    await refusedItems('10.1.0.2');
    await refusedItems('10.1.0.2'); // held: the client is ahead of its pace now
    const before = await held();

    const other = await refusedItems('10.1.0.3');
    expect(other.status).to.equal(400);
    const good = await request(test.app)
      .get(`${ITEMS}?sortby=title&limit=2`)
      .set('X-Forwarded-For', '10.1.0.2');
    expect(good.status, good.text.slice(0, 300)).to.equal(200);
    expect(good.body.features).to.have.length(2);
    expect(await held()).to.equal(before);
  });

  it('holds a CSW refusal the same way and answers it as an ows:ExceptionReport', async () => {
    const url = `${CSW}?service=CSW&version=3.0.0&request=GetRecords&typeNames=csw:Record&sortBy=${THREE_KEYS}`;
    const before = await held();
    for (let i = 0; i < 3; i += 1) {
      const response = await request(test.app).get(url).set('X-Forwarded-For', '10.1.0.4');
      expect(response.status, response.text.slice(0, 300)).to.equal(400);
      expect(response.text).to.contain('ExceptionReport');
      expect(response.text).to.contain('QUERY_MAX_SORT_KEYS');
    }
    expect(await held()).to.equal(before + 1);
  });
});

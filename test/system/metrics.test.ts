/**
 * The API's Prometheus endpoint over the app (supertest, SQLite): after some traffic, /metrics
 * shows the requests by route template and status, their latency and the backend's calls;
 * METRICS_ENABLED=false removes the endpoint.
 */
import { strict as assert } from 'node:assert';
import request from 'supertest';
import { sample } from '../support/metrics-sample.js';
import { ServiceUnavailableError } from '../../shared/errors/index.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const ITEMS = '/catalogue/collections/metadata:main/items';
/** The route template the OpenAPI document gives the items path. */
const ITEMS_ROUTE = '/catalogue/collections/{collectionId}/items';

describe('API /metrics (Prometheus)', function () {
  this.timeout(60000);

  describe('enabled (the default)', () => {
    let test: TestApp;
    before(async () => {
      test = await createTestApp(20);
    });
    after(async () => test?.close());

    it('counts requests by route template and status, with latency and backend timings', async () => {
      for (const id of ['a', 'b', 'c'])
        assert.equal((await request(test.app).get(`${ITEMS}/missing-${id}`)).status, 404);
      for (let i = 0; i < 2; i += 1)
        assert.equal((await request(test.app).get(`${ITEMS}?limit=2`)).status, 200);
      assert.equal((await request(test.app).get(`${ITEMS}?limit=nope`)).status, 400);
      assert.equal(
        (await request(test.app).get('/catalogue/csw?service=CSW&request=GetCapabilities')).status,
        200,
      );

      const scraped = await request(test.app).get('/metrics');
      assert.equal(scraped.status, 200);
      assert.match(String(scraped.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      const text = scraped.text;
      const requests = (route: string, status: string): number | undefined =>
        sample(text, 'cairn_http_requests_total', { method: 'GET', route, status });
      assert.equal(requests(`${ITEMS_ROUTE}/{recordId}`, '404'), 3, text);
      assert.equal(requests(ITEMS_ROUTE, '200'), 2);
      assert.equal(requests(ITEMS_ROUTE, '400'), 1);
      assert.equal(requests('/catalogue/csw', '200'), 1);
      assert.ok(!text.includes('missing-a'), 'raw paths never become label values');
      assert.equal(
        sample(text, 'cairn_http_request_duration_seconds_count', {
          method: 'GET',
          route: ITEMS_ROUTE,
        }),
        3,
      );
      assert.ok(
        (sample(text, 'cairn_backend_request_duration_seconds_count', {
          backend: 'sqlite',
          operation: 'search',
        }) ?? 0) >= 2,
      );
      assert.equal(
        sample(text, 'cairn_backend_request_duration_seconds_count', {
          backend: 'sqlite',
          operation: 'get',
        }),
        3,
      );
    });

    it('counts backend errors by operation and code', async () => {
      const backend = test.backend as { search: (...args: unknown[]) => Promise<unknown> };
      // A fault that cannot be provoked through the API otherwise: the backend throws once.
      const original = backend.search;
      backend.search = async () => {
        throw new ServiceUnavailableError('backend down (test)');
      };
      try {
        assert.equal((await request(test.app).get(`${ITEMS}?limit=1`)).status, 503);
      } finally {
        backend.search = original;
      }
      const text = (await request(test.app).get('/metrics')).text;
      assert.equal(
        sample(text, 'cairn_backend_errors_total', {
          backend: 'sqlite',
          operation: 'search',
          code: 'SERVICE_UNAVAILABLE',
        }),
        1,
        text,
      );
      assert.equal(
        sample(text, 'cairn_http_requests_total', { route: ITEMS_ROUTE, status: '503' }),
        1,
      );
    });
  });

  it('is absent with METRICS_ENABLED=false', async () => {
    const test = await createTestApp(1, { METRICS_ENABLED: 'false' });
    try {
      assert.equal((await request(test.app).get('/metrics')).status, 404);
    } finally {
      await test.close();
    }
  });
});

/**
 * The benchmark measures Cairn's overhead by replaying each case's engine request straight at
 * the engine (scripts/bench/engine-direct.ts). That request is compiled from the case's
 * `buildQuery`, so `buildQuery` must give exactly the SearchQuery the API gives its backend for
 * the case's HTTP request; here each case is sent to the API and the backend's first search is
 * compared with it. (It once did not: the items and CSW cases read every record's whole stored
 * document on the engine side while the API read only the record.)
 */
import { assert } from 'chai';
import request from 'supertest';
import { createApp } from '../../services/api/app.js';
import { createLogger } from '../../shared/logging/index.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { readApiLimits } from '../../scripts/bench/backend-timing.js';
import { buildQueryMix } from '../../scripts/bench/query-mix.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** The backend, recording the query of every search it is asked for. */
function recordingSearches(backend: SearchBackend, searches: SearchQuery[]): SearchBackend {
  return new Proxy(backend, {
    get(target, name) {
      if (name === 'search') {
        return (query: SearchQuery) => {
          searches.push(structuredClone(query));
          return target.search(query);
        };
      }
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe("bench: each case's query is the one the API gives its backend", function () {
  this.timeout(60000);
  let test: TestApp;

  before(async () => {
    test = await createTestApp(20);
  });

  after(async () => {
    await test?.close();
  });

  const cases = buildQueryMix({ corpusSize: 20, deepOffset: 100010, pageSize: 10 });

  it('covers the whole mix', () => {
    assert.isAtLeast(cases.length, 12);
  });

  for (const queryCase of cases) {
    it(`${queryCase.name}: ${queryCase.method} ${queryCase.path.split('?')[0]}`, async () => {
      const searches: SearchQuery[] = [];
      const app = createApp({
        config: test.config,
        backend: recordingSearches(test.backend, searches),
        logger: createLogger('silent', 'test'),
      });
      const sent =
        queryCase.method === 'GET'
          ? request(app).get(queryCase.path)
          : request(app)
              .post(queryCase.path)
              .send(queryCase.body as object);
      const response = await sent;
      assert.equal(response.status, 200, response.text.slice(0, 300));
      assert.isAtLeast(searches.length, 1, 'the API searched the backend');
      assert.deepEqual(searches[0], queryCase.buildQuery(readApiLimits(test.config)));
    });
  }
});

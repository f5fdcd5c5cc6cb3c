/**
 * Minimised inputs the fuzz suites found, kept as ordinary regression tests: each broke an
 * entry point once (a 5xx, or the wrong error first) and must keep answering a typed 4xx in
 * the protocol's own format.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { CLIENT, ISSUER } from '../integration/keycloak/keycloak-support.js';

const ITEMS = '/catalogue/collections/metadata:main/items';

describe('fuzz-found regressions', function () {
  this.timeout(30_000);
  let test: TestApp;

  before(async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cairn-fuzz-regressions-'));
    // The issuer is never contacted: every request here is refused before a token is checked.
    test = await createTestApp(3, {
      AUTH_ISSUER_URL: ISSUER,
      AUTH_CLIENT_ID: CLIENT.catalogue,
      WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
    });
  });
  after(async () => test?.close());

  it('a malformed percent-encoding in a path parameter (GET …/items/%) is a 400, not a 500', async () => {
    for (const id of ['%', '%E0%A4%A', '%uD800']) {
      const response = await request(test.app)
        .get(`${ITEMS}/${id}`)
        .set('Accept', 'application/json');
      expect(response.status, id).to.equal(400);
      expect(response.body).to.include({ code: 'INVALID_PARAMETER' });
      expect(response.body.description).to.match(/percent-encoding/);
    }
  });

  it('an unauthenticated write with a malformed JSON body is a 401, not a 400 (the body is not read)', async () => {
    for (const [method, path] of [
      ['post', '/catalogue/admin/ingest'],
      ['put', `${ITEMS}/x`],
    ] as const) {
      const agent = request(test.app);
      const response = await agent[method](path).set('Content-Type', 'application/json').send(' {');
      expect(response.status, `${method} ${path}`).to.equal(401);
      expect(response.headers['www-authenticate']).to.match(/^Bearer/);
      expect(response.body).to.have.property('code');
    }
  });

  it('a corrupt gzip, deflate or br body is a 400 in the protocol format, not a 500', async () => {
    const corrupt = Buffer.concat([
      gzipSync('{"limit": 1}').subarray(0, 12),
      Buffer.from('garbage'),
    ]);
    const routes = [
      { path: '/catalogue/search', type: 'application/json', json: true },
      { path: ITEMS, type: 'application/json', json: true },
      { path: '/catalogue/csw', type: 'application/xml', json: false },
    ];
    for (const route of routes)
      for (const encoding of ['gzip', 'deflate', 'br']) {
        const response = await request(test.app)
          .post(route.path)
          .set('Content-Type', route.type)
          .set('Content-Encoding', encoding)
          .send(corrupt);
        const label = `${encoding} ${route.path}`;
        expect(response.status, `${label}: ${response.text}`).to.equal(400);
        if (route.json) {
          expect(response.body, label).to.include({ code: 'INVALID_PARAMETER' });
          expect(response.body.description, label).to.match(/could not be decompressed/);
        } else {
          expect(response.text, label).to.match(/ExceptionReport/);
          expect(response.text, label).to.match(/could not be decompressed/);
        }
      }
  });
});

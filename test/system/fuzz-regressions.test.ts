/**
 * Minimised inputs the fuzz suites found, kept as ordinary regression tests: each broke an
 * entry point once (a 5xx, or the wrong error first) and must keep answering a typed 4xx in
 * the protocol's own format.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
});

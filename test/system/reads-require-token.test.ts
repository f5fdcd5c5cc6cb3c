/**
 * AUTH_READS_REQUIRE_TOKEN with real Keycloak tokens: every read interface (Records, STAC,
 * CSW, OpenSearch) answers 401 in its own error format without a token and serves a valid
 * token for the catalogue (any role); health probes stay open. Without the setting, reads
 * are public.
 */
import { strict as assert } from 'node:assert';
import request from 'supertest';
import { createTestApp, type TestApp } from '../support/test-app.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';

const READS = [
  '/catalogue',
  '/catalogue/collections/metadata:main/items?limit=2',
  '/catalogue/search?limit=2',
  '/catalogue/csw?service=CSW&version=3.0.0&request=GetRecords&typeNames=csw:Record',
  '/catalogue/opensearch',
];

describe('reads that require a token (real Keycloak)', function () {
  this.timeout(60000);
  let test: TestApp;
  let bob: string;

  before(async () => {
    await requireKeycloak();
    bob = (await userTokens('bob')).accessToken;
    test = await createTestApp(3, {
      AUTH_ISSUER_URL: ISSUER,
      AUTH_CLIENT_ID: CLIENT.catalogue,
      AUTH_READS_REQUIRE_TOKEN: 'true',
    });
  });
  after(async () => test?.close());

  for (const path of READS) {
    it(`refuses ${path} without a token and serves it with one`, async () => {
      const anonymous = await request(test.app).get(path);
      assert.equal(anonymous.status, 401, `${path} without a token`);
      assert.match(String(anonymous.headers['www-authenticate']), /^Bearer/);
      const allowed = await request(test.app).get(path).set('Authorization', `Bearer ${bob}`);
      assert.equal(allowed.status, 200, `${path} with bob's token`);
    });
  }

  it('answers in each protocol’s error format', async () => {
    const records = await request(test.app).get('/catalogue/collections').accept('json');
    assert.equal(records.body.code, 'UNAUTHORIZED');
    const csw = await request(test.app).get(
      '/catalogue/csw?service=CSW&version=2.0.2&request=GetCapabilities',
    );
    assert.match(csw.text, /ExceptionReport/);
  });

  it('refuses a forged token and keeps health probes open', async () => {
    const forged = `${bob.slice(0, -4)}AAAA`;
    const refused = await request(test.app)
      .get('/catalogue/collections')
      .set('Authorization', `Bearer ${forged}`);
    assert.equal(refused.status, 401);
    assert.equal((await request(test.app).get('/healthz')).status, 200);
    assert.equal((await request(test.app).get('/readyz')).status, 200);
  });

  it('leaves reads public without the setting', async () => {
    const open = await createTestApp(1, {
      AUTH_ISSUER_URL: ISSUER,
      AUTH_CLIENT_ID: CLIENT.catalogue,
    });
    try {
      assert.equal((await request(open.app).get('/catalogue/collections')).status, 200);
    } finally {
      await open.close();
    }
  });
});

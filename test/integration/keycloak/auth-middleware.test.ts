/**
 * The verification middleware against the real Keycloak JWKS: a tiny Express app with public
 * reads and a write route protected by requireAuth (role `editor` or scope `ingest`), driven by
 * supertest with real tokens from the cairn-test realm and with forged ones.
 */
import { createHmac, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { expect } from 'chai';
import express, { type Express } from 'express';
import request from 'supertest';
import { JwksKeyStore, createJwksFetcher } from '../../../shared/auth/jwks.js';
import { createTokenVerifier } from '../../../shared/auth/verify.js';
import { loadConfig, type AuthConfig } from '../../../shared/config/index.js';
import { createLogger } from '../../../shared/logging/index.js';
import {
  authChallengeHeaders,
  createAuthMiddleware,
  type AuthMiddleware,
} from '../../../services/api/middleware/auth.js';
import { renderJsonError } from '../../../services/api/middleware/errors.js';
import { requestContext } from '../../../services/api/middleware/request-context.js';
import {
  audienceOf as audienceOfToken,
  claimsOf,
  CLIENT,
  clientFor,
  closedLoopbackPort,
  ISSUER,
  JWKS_URL,
  requireKeycloak,
  userTokens,
  waitUntilExpired,
} from './keycloak-support.js';
import { defined } from '../../support/defined.js';

function authConfig(extra: Record<string, string> = {}): AuthConfig {
  return loadConfig({
    LOG_LEVEL: 'silent',
    AUTH_ISSUER_URL: ISSUER,
    AUTH_CLIENT_ID: CLIENT.catalogue,
    AUTH_WRITE_SCOPE: 'ingest',
    ...extra,
  }).auth;
}

function buildApp(auth: AuthMiddleware): Express {
  const app = express();
  app.use(requestContext({ trustProxy: false }, createLogger('silent', 'test')));
  app.get('/records', auth.readAccess, (req, res) => {
    res.json({ subject: req.auth?.subject ?? null });
  });
  app.post('/records', auth.writeAccess, (req, res) => {
    res.status(201).json({ subject: req.auth?.subject, roles: req.auth?.clientRoles });
  });
  app.use(authChallengeHeaders);
  app.use(renderJsonError);
  return app;
}

function keyStore(refetchCooldownMs = 30_000, now?: () => number): JwksKeyStore {
  return new JwksKeyStore({
    fetchKeys: createJwksFetcher(JWKS_URL, 2000),
    cacheMs: 600_000,
    refetchCooldownMs,
    now,
  });
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const partsOf = (token: string) => {
  const [first, second, signature] = token.split('.');
  const header = defined(first, 'the JWT header');
  const payload = defined(second, 'the JWT payload');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString()) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>,
    raw: { header, payload, signature },
  };
};

/** Signs header.payload with an attacker's RSA key (RS256). */
const attackerKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
function forgeRs256(header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), attackerKey).toString('base64url')}`;
}

function expectInvalidToken(response: request.Response, description: RegExp): void {
  expect(response.status, JSON.stringify(response.body)).to.equal(401);
  const challenge = response.headers['www-authenticate'] as string;
  expect(challenge).to.match(/^Bearer realm="cairn", error="invalid_token", error_description="/);
  expect(challenge).to.match(description);
  expect(response.body.code).to.equal('UNAUTHORIZED');
}

describe('auth middleware with the real Keycloak JWKS', function () {
  this.timeout(30_000);
  let alice: string;
  let bob: string;
  let store: JwksKeyStore;
  let app: Express;

  before(async () => {
    await requireKeycloak();
    alice = (await userTokens('alice')).accessToken;
    bob = (await userTokens('bob')).accessToken;
  });
  beforeEach(() => {
    const config = authConfig();
    store = keyStore();
    app = buildApp(
      createAuthMiddleware(config, {
        verifier: createTokenVerifier(config.provider!, { keys: store }),
      }),
    );
  });

  describe('accepts', () => {
    it('a user token whose aud contains the catalogue, with the editor role, for a write', async () => {
      expect(claimsOf(alice).azp).to.equal(CLIENT.web);
      const response = await request(app).post('/records').auth(alice, { type: 'bearer' });
      expect(response.status, JSON.stringify(response.body)).to.equal(201);
      expect(response.body).to.deep.equal({ subject: claimsOf(alice).sub, roles: ['editor'] });
    });

    it('a machine token (client_credentials) with the write scope, aud containing the catalogue', async () => {
      const machine = await clientFor(CLIENT.worker).clientCredentials({ scope: ['ingest'] });
      const response = await request(app)
        .post('/records')
        .auth(machine.accessToken, { type: 'bearer' });
      expect(response.status, JSON.stringify(response.body)).to.equal(201);
    });

    it('an exchanged token whose aud is the catalogue', async () => {
      const exchanged = await clientFor(CLIENT.worker).exchange({
        subjectToken: alice,
        audience: [CLIENT.catalogue],
      });
      expect(claimsOf(exchanged.accessToken).aud).to.equal(CLIENT.catalogue);
      const response = await request(app)
        .post('/records')
        .auth(exchanged.accessToken, { type: 'bearer' });
      expect(response.status).to.equal(201);
    });

    it('a token accepted only through azp: aud lacks our client, azp is our client', async () => {
      // A catalogue whose own client id is cairn-worker: alice signs in through that client, so
      // the token's azp is cairn-worker while its aud (from the default scopes) is the
      // catalogue only.
      const config = authConfig({ AUTH_CLIENT_ID: CLIENT.worker });
      const workerApp = buildApp(createAuthMiddleware(config));
      const own = (await userTokens('alice', { clientId: CLIENT.worker, scope: ['ingest'] }))
        .accessToken;
      expect(claimsOf(own).azp).to.equal(CLIENT.worker);
      expect(audienceOfToken(own)).not.to.include(CLIENT.worker);
      const accepted = await request(workerApp).post('/records').auth(own, { type: 'bearer' });
      expect(accepted.status, JSON.stringify(accepted.body)).to.equal(201);
      // The same audience with another azp is refused: azp made the difference.
      const other = (await userTokens('alice', { clientId: CLIENT.webExchange })).accessToken;
      expect(audienceOfToken(other)).to.deep.equal(audienceOfToken(own));
      expect(claimsOf(other).azp).to.equal(CLIENT.webExchange);
      const refused = await request(workerApp).post('/records').auth(other, { type: 'bearer' });
      expect(refused.status).to.equal(401);
      expect(refused.body.description).to.match(/not intended for this service/);
    });

    it('reads without a token (public by default), ignoring any token sent', async () => {
      expect((await request(app).get('/records')).status).to.equal(200);
      const withJunk = await request(app).get('/records').auth('junk', { type: 'bearer' });
      expect(withJunk.status).to.equal(200);
    });
  });

  describe('rejects', () => {
    it('no token: 401 with a challenge that has no error', async () => {
      const response = await request(app).post('/records');
      expect(response.status).to.equal(401);
      expect(response.headers['www-authenticate']).to.equal('Bearer realm="cairn"');
    });

    it('a valid token without the role or scope: 403 insufficient_scope', async () => {
      const response = await request(app).post('/records').auth(bob, { type: 'bearer' });
      expect(response.status).to.equal(403);
      expect(response.headers['www-authenticate']).to.match(
        /^Bearer realm="cairn", error="insufficient_scope", error_description="[^"]+", scope="ingest"$/,
      );
      expect(response.body.code).to.equal('FORBIDDEN');
    });

    it('a token for another audience (exchanged toward the downstream API): 401', async () => {
      const downstream = await clientFor(CLIENT.worker).exchange({
        subjectToken: alice,
        scope: ['downstream-audience'],
        audience: [CLIENT.downstream],
      });
      const response = await request(app)
        .post('/records')
        .auth(downstream.accessToken, { type: 'bearer' });
      expectInvalidToken(response, /not intended for this service/);
    });

    it('a machine token of a client whose tokens do not name the catalogue: 401', async () => {
      const reports = await clientFor(CLIENT.reports).clientCredentials();
      expect(claimsOf(reports.accessToken).aud).not.to.include(CLIENT.catalogue);
      const response = await request(app)
        .post('/records')
        .auth(reports.accessToken, { type: 'bearer' });
      expectInvalidToken(response, /not intended for this service/);
    });

    it('a refresh token or an ID token presented as a bearer token: 401', async () => {
      const tokens = await userTokens('alice', { scope: ['openid'] });
      const refresh = await request(app)
        .post('/records')
        .auth(tokens.refreshToken as string, { type: 'bearer' });
      expectInvalidToken(refresh, /algorithm not allowed/);
      const id = await request(app)
        .post('/records')
        .auth(tokens.idToken as string, { type: 'bearer' });
      expectInvalidToken(id, /not an access token/);
    });

    it('alg "none" (unsigned): 401 before any key lookup', async () => {
      const { header, raw } = partsOf(alice);
      const unsigned = `${b64({ ...header, alg: 'none' })}.${raw.payload}.`;
      const response = await request(app).post('/records').auth(unsigned, { type: 'bearer' });
      expectInvalidToken(response, /algorithm not allowed/);
      expect(store.fetchCount).to.equal(0);
    });

    it('HS256 signed with the provider’s public key as the HMAC secret: 401', async () => {
      const { header, raw } = partsOf(alice);
      const jwks = (await (await fetch(JWKS_URL)).json()) as {
        keys: Array<Record<string, string>>;
      };
      const jwk = jwks.keys.find((key) => key.kid === header.kid);
      const pem = createPublicKey({ key: jwk as never, format: 'jwk' }).export({
        type: 'spki',
        format: 'pem',
      });
      const input = `${b64({ ...header, alg: 'HS256' })}.${raw.payload}`;
      const forged = `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`;
      const response = await request(app).post('/records').auth(forged, { type: 'bearer' });
      expectInvalidToken(response, /algorithm not allowed/);
    });

    it('a token from the right keys but another issuer (localhost vs 127.0.0.1): 401', async () => {
      const config = authConfig({ AUTH_ISSUER_URL: ISSUER.replace('127.0.0.1', 'localhost') });
      const strictApp = buildApp(
        createAuthMiddleware(config, {
          verifier: createTokenVerifier(config.provider!, { keys: keyStore() }),
        }),
      );
      const response = await request(strictApp).post('/records').auth(alice, { type: 'bearer' });
      expectInvalidToken(response, /issuer not accepted/);
    });

    it('an expired token (real signature): 401', async function () {
      this.timeout(15_000);
      const config = authConfig({ AUTH_CLOCK_TOLERANCE_SECONDS: '0' });
      const strictApp = buildApp(
        createAuthMiddleware(config, {
          verifier: createTokenVerifier(config.provider!, { keys: keyStore() }),
        }),
      );
      const shortLived = (await userTokens('alice', { clientId: CLIENT.webShortLived }))
        .accessToken;
      await waitUntilExpired(shortLived, 1100);
      const response = await request(strictApp)
        .post('/records')
        .auth(shortLived, { type: 'bearer' });
      expectInvalidToken(response, /token expired/);
    });

    it('a future nbf, signed by another key under the provider’s kid: 401', async () => {
      const { header, payload } = partsOf(alice);
      const forged = forgeRs256(header, { ...payload, nbf: Math.floor(Date.now() / 1000) + 3600 });
      const response = await request(app).post('/records').auth(forged, { type: 'bearer' });
      expectInvalidToken(response, /signature does not verify/);
    });

    it('an unknown kid: one re-fetch of the JWKS (after the cooldown), then 401; a second one within the cooldown fetches nothing', async () => {
      const config = authConfig();
      // The key store's clock is the test's: the cool-down passes when the test moves it, and
      // not while a slow machine runs the requests.
      let clock = Date.now();
      store = keyStore(30_000, () => clock);
      app = buildApp(
        createAuthMiddleware(config, {
          verifier: createTokenVerifier(config.provider!, { keys: store }),
        }),
      );
      const { header, payload } = partsOf(alice);
      expect((await request(app).post('/records').auth(alice, { type: 'bearer' })).status).to.equal(
        201,
      );
      expect(store.fetchCount).to.equal(1);
      clock += 30_000;
      const first = forgeRs256({ ...header, kid: 'rotated-key-1' }, payload);
      expectInvalidToken(
        await request(app).post('/records').auth(first, { type: 'bearer' }),
        /signing key not known/,
      );
      expect(store.fetchCount, 'one re-fetch').to.equal(2);
      const second = forgeRs256({ ...header, kid: 'rotated-key-2' }, payload);
      expectInvalidToken(
        await request(app).post('/records').auth(second, { type: 'bearer' }),
        /signing key not known/,
      );
      expect(store.fetchCount, 'cooldown').to.equal(2);
    });

    it('a tampered payload (role added to a real token, original signature): 401', async () => {
      const bobParts = partsOf(bob);
      const payload = {
        ...bobParts.payload,
        resource_access: { [CLIENT.catalogue]: { roles: ['editor'] } },
      };
      const tampered = `${bobParts.raw.header}.${b64(payload)}.${bobParts.raw.signature}`;
      const response = await request(app).post('/records').auth(tampered, { type: 'bearer' });
      expectInvalidToken(response, /signature does not verify/);
    });

    it('a malformed Authorization header or token: 401', async () => {
      for (const value of ['Bearer', 'Bearer a b', 'Bearer not-a-jwt']) {
        const response = await request(app).post('/records').set('Authorization', value);
        expect(response.status, value).to.equal(401);
        expect(response.headers['www-authenticate']).to.contain('error="invalid_token"');
      }
    });
  });

  describe('when the JWKS cannot be fetched', () => {
    it('answers 503 (never accepts), with Retry-After, for a genuine token', async () => {
      const port = await closedLoopbackPort();
      const config = authConfig({
        AUTH_JWKS_URL: `http://127.0.0.1:${port}/realms/${ISSUER.split('/').pop()}/certs`,
      });
      const downApp = buildApp(createAuthMiddleware(config));
      const response = await request(downApp).post('/records').auth(alice, { type: 'bearer' });
      expect(response.status).to.equal(503);
      expect(response.body.code).to.equal('AUTH_PROVIDER_UNAVAILABLE');
      expect(response.headers['retry-after']).to.equal('5');
      expect(JSON.stringify(response.body)).not.to.contain(String(port));
      expect((await request(downApp).get('/records')).status, 'public reads unaffected').to.equal(
        200,
      );
    });
  });

  describe('configuration', () => {
    it('reads can require a token (AUTH_READS_REQUIRE_TOKEN=true), no role needed', async () => {
      const config = authConfig({ AUTH_READS_REQUIRE_TOKEN: 'true' });
      const closedApp = buildApp(createAuthMiddleware(config));
      const anonymous = await request(closedApp).get('/records');
      expect(anonymous.status).to.equal(401);
      expect(anonymous.headers['www-authenticate']).to.equal('Bearer realm="cairn"');
      const withBob = await request(closedApp).get('/records').auth(bob, { type: 'bearer' });
      expect(withBob.status).to.equal(200);
      expect(withBob.body.subject).to.equal(claimsOf(bob).sub);
    });

    it('without an identity provider, protected routes answer 503 AUTH_NOT_CONFIGURED (never open)', async () => {
      const unconfigured = buildApp(createAuthMiddleware(loadConfig({ LOG_LEVEL: 'silent' }).auth));
      const response = await request(unconfigured).post('/records').auth(alice, { type: 'bearer' });
      expect(response.status).to.equal(503);
      expect(response.body.code).to.equal('AUTH_NOT_CONFIGURED');
      expect((await request(unconfigured).get('/records')).status).to.equal(200);
    });
  });
});

/**
 * Keycloak 26.x standard token exchange (v2), rule by rule, asserted THROUGH the project's
 * TokenClient against the real provider and the cairn-test realm. Each test names the rule; where
 * Keycloak 26.5.6 differs from the specification's wording, the test pins what Keycloak does and
 * says so (see also `npx tsx scripts/token-exchange-check.ts`).
 *
 * Realm (test/fixtures/keycloak/cairn-test-realm.json): user tokens come from the public client
 * cairn-web (default scopes add cairn-catalogue and cairn-worker to aud); cairn-worker is the
 * exchanging client (default scope catalogue-audience, optional downstream-audience, ingest,
 * offline_access; refresh in exchange = SAME_SESSION).
 */
import { expect } from 'chai';
import {
  AudienceNotAvailableError,
  AudienceNotFoundError,
  ClientAuthenticationError,
  ClientNotInAudienceError,
  ExchangeNotEnabledError,
  InvalidGrantError,
  InvalidScopeError,
  InvalidSubjectTokenError,
  MalformedExchangeRequestError,
  OfflineAccessNotAllowedError,
  PublicClientExchangeError,
  RefreshTokenNotAllowedError,
  RequestedTokenTypeUnsupportedError,
  SubjectTokenExpiredError,
  TokenEndpointError,
  UnauthorizedClientError,
  UnsupportedExchangeParameterError,
} from '../../../shared/auth/token-errors.js';
import {
  GRANT_TOKEN_EXCHANGE,
  TOKEN_TYPE_ACCESS,
  TOKEN_TYPE_REFRESH,
  TokenClient,
} from '../../../shared/auth/token-exchange.js';
import { createTokenVerifier } from '../../../shared/auth/verify.js';
import { loadConfig } from '../../../shared/config/index.js';
import { createHarvestTokenClient } from '../../../shared/harvest/index.js';
import { syncSignInClients } from '../../support/admin-sign-in.js';
import {
  audienceOf,
  ISSUER,
  claimsOf,
  CLIENT,
  clientFor,
  closedLoopbackPort,
  requireKeycloak,
  scopesOf,
  userTokens,
  waitUntilExpired,
} from './keycloak-support.js';

/** Scopes the worker's default client scopes put in `scope` (others are not listed in tokens). */
const WORKER_DEFAULT_SCOPES = ['catalogue-audience', 'email', 'profile'];

/** Runs a call that must fail and returns its error, typed. */
async function refusal<T extends Error>(
  call: Promise<unknown>,
  type: abstract new (...args: never[]) => T,
): Promise<T> {
  try {
    await call;
  } catch (error) {
    expect(error, (error as Error).message).to.be.instanceOf(type);
    return error as T;
  }
  throw new Error(`expected ${type.name}, but the call succeeded`);
}

function expectProvider(
  error: TokenEndpointError,
  status: number,
  oauthError: string,
  description: string | RegExp,
): void {
  expect(error.providerStatus, 'HTTP status').to.equal(status);
  expect(error.oauthError, 'error').to.equal(oauthError);
  if (typeof description === 'string') expect(error.errorDescription).to.equal(description);
  else expect(error.errorDescription).to.match(description);
}

describe('Keycloak standard token exchange v2 through TokenClient (real provider)', function () {
  this.timeout(30_000);
  let worker: TokenClient;
  let alice: string;

  before(async () => {
    await requireKeycloak();
    alice = (await userTokens('alice')).accessToken;
  });
  beforeEach(() => {
    worker = clientFor(CLIENT.worker);
  });

  describe('who may exchange', () => {
    it('a public client is refused: "not enabled" by default (400 invalid_request)', async () => {
      const error = await refusal(
        clientFor(CLIENT.web).exchange({ subjectToken: alice }),
        ExchangeNotEnabledError,
      );
      expectProvider(
        error,
        400,
        'invalid_request',
        'Standard token exchange is not enabled for the requested client',
      );
    });

    it('a public client with the exchange attribute forced on is refused (400 invalid_client)', async () => {
      const error = await refusal(
        clientFor(CLIENT.webExchange).exchange({ subjectToken: alice }),
        PublicClientExchangeError,
      );
      expectProvider(
        error,
        400,
        'invalid_client',
        'Public client is not allowed to exchange token',
      );
    });

    it('a confidential client without standard token exchange enabled is refused', async () => {
      const error = await refusal(
        clientFor(CLIENT.reports).exchange({ subjectToken: alice }),
        ExchangeNotEnabledError,
      );
      expectProvider(
        error,
        400,
        'invalid_request',
        'Standard token exchange is not enabled for the requested client',
      );
    });

    it('the requester must be in the subject token aud (403 access_denied)', async () => {
      expect(audienceOf(alice)).not.to.include(CLIENT.exporter);
      const error = await refusal(
        clientFor(CLIENT.exporter).exchange({ subjectToken: alice }),
        ClientNotInAudienceError,
      );
      expectProvider(error, 403, 'access_denied', 'Client is not within the token audience');
      const withExporter = (await userTokens('alice', { scope: ['exporter-audience'] }))
        .accessToken;
      const exchanged = await clientFor(CLIENT.exporter).exchange({ subjectToken: withExporter });
      expect(claimsOf(exchanged.accessToken).azp).to.equal(CLIENT.exporter);
    });

    it('exception: a client may exchange its own token (azp = requester) without being in aud', async () => {
      const own = await worker.clientCredentials();
      expect(claimsOf(own.accessToken).azp).to.equal(CLIENT.worker);
      expect(audienceOf(own.accessToken)).not.to.include(CLIENT.worker);
      const exchanged = await worker.exchange({ subjectToken: own.accessToken });
      expect(claimsOf(exchanged.accessToken).sub).to.equal(claimsOf(own.accessToken).sub);
    });

    it('a self-exchange with a scope is sent and accepted; the original session keeps its scopes (keycloak#38990 does not reproduce on 26.5.6)', async () => {
      // keycloak#38990: exchanging a token with the same client and a scope changed the client
      // session's scopes, so later refreshes of the original (even offline) token came back
      // with the exchange's scopes. The helper used to refuse such a request; on 26.5.6 the
      // refreshes below keep the original scopes, so it no longer does.
      for (const extra of [[], ['offline_access']]) {
        const original = await userTokens('alice', {
          clientId: CLIENT.worker,
          scope: ['downstream-audience', ...extra],
        });
        const before = scopesOf(original.accessToken);
        expect(before).to.include('downstream-audience');
        expect(claimsOf(original.accessToken).azp).to.equal(CLIENT.worker);
        const exchanged = await worker.exchange({
          subjectToken: original.accessToken,
          scope: ['ingest'],
        });
        expect(scopesOf(exchanged.accessToken)).to.include('ingest');
        expect(scopesOf(exchanged.accessToken)).not.to.include('downstream-audience');
        const first = await worker.refresh(original.refreshToken as string);
        expect(scopesOf(first.accessToken), `refresh ${extra.join()}`).to.deep.equal(before);
        const second = await worker.refresh(first.refreshToken as string);
        expect(scopesOf(second.accessToken), `second refresh ${extra.join()}`).to.deep.equal(
          before,
        );
      }
    });

    it('client authentication fails first: wrong secret 401 unauthorized_client, unknown client 401 invalid_client', async () => {
      const wrong = await refusal(
        clientFor(CLIENT.worker, 'not-the-secret').exchange({ subjectToken: alice }),
        ClientAuthenticationError,
      );
      expectProvider(
        wrong,
        401,
        'unauthorized_client',
        'Invalid client or Invalid client credentials',
      );
      const unknown = await refusal(
        clientFor('no-such-client', 'x').exchange({ subjectToken: alice }),
        ClientAuthenticationError,
      );
      expectProvider(
        unknown,
        401,
        'invalid_client',
        'Invalid client or Invalid client credentials',
      );
    });
  });

  describe('identity of the exchanged token', () => {
    it('keeps the user (sub) and session (sid), names the exchanging client in azp', async () => {
      const exchanged = await worker.exchange({ subjectToken: alice });
      const before = claimsOf(alice);
      const after = claimsOf(exchanged.accessToken);
      expect(after.sub).to.equal(before.sub);
      expect(after.azp).to.equal(CLIENT.worker);
      expect(after.sid, 'no new user session').to.equal(before.sid);
      expect(after.typ).to.equal('Bearer');
      expect(exchanged.issuedTokenType).to.equal(TOKEN_TYPE_ACCESS);
      expect(exchanged.refreshToken).to.equal(undefined);
    });
  });

  describe('scope', () => {
    it('scope unset: the REQUESTER’s default scopes, not the subject token’s (Keycloak differs from "keeps the original scopes")', async () => {
      const original = (await userTokens('alice', { scope: ['downstream-audience', 'ingest'] }))
        .accessToken;
      expect(scopesOf(original)).to.include.members(['downstream-audience', 'ingest']);
      const exchanged = await worker.exchange({ subjectToken: original });
      expect(scopesOf(exchanged.accessToken)).to.deep.equal(WORKER_DEFAULT_SCOPES);
      expect(exchanged.scope?.split(' ').sort()).to.deep.equal(WORKER_DEFAULT_SCOPES);
      expect(audienceOf(exchanged.accessToken)).to.deep.equal([CLIENT.catalogue]);
    });

    it('scope set: exactly the listed plus the default scopes; unlisted optional ones are dropped', async () => {
      const original = (await userTokens('alice', { scope: ['downstream-audience', 'ingest'] }))
        .accessToken;
      const exchanged = await worker.exchange({ subjectToken: original, scope: ['ingest'] });
      expect(scopesOf(exchanged.accessToken)).to.deep.equal(
        [...WORKER_DEFAULT_SCOPES, 'ingest'].sort(),
      );
      expect(audienceOf(exchanged.accessToken)).not.to.include(CLIENT.downstream);
    });

    it('scope may add a requester scope the subject token lacks (add-only, not intersected)', async () => {
      expect(scopesOf(alice)).not.to.include('ingest');
      const exchanged = await worker.exchange({ subjectToken: alice, scope: ['ingest'] });
      expect(scopesOf(exchanged.accessToken)).to.include('ingest');
    });

    it('scope extension is limited to the requester’s own client scopes (400 invalid_scope)', async () => {
      // "reports" belongs to cairn-reports; "worker-audience" is in the subject token but is
      // linked to cairn-web, not to the requester.
      for (const scope of ['reports', 'worker-audience']) {
        const error = await refusal(
          worker.exchange({ subjectToken: alice, scope: [scope] }),
          InvalidScopeError,
        );
        expectProvider(error, 400, 'invalid_scope', `Invalid scopes: ${scope}`);
      }
    });
  });

  describe('audience', () => {
    it('audience narrows aud to the requested client when a scope adds it (aud == "cairn-downstream")', async () => {
      const exchanged = await worker.exchange({
        subjectToken: alice,
        scope: ['downstream-audience'],
        audience: [CLIENT.downstream],
      });
      const claims = claimsOf(exchanged.accessToken);
      expect(claims.aud).to.equal(CLIENT.downstream);
      expect(claims.resource_access ?? {}, 'pruned to the audience').not.to.have.property(
        CLIENT.catalogue,
      );
    });

    it('audience only filters: {B, C} where only B is produced is REFUSED, not narrowed to {B} (Keycloak differs)', async () => {
      const error = await refusal(
        worker.exchange({
          subjectToken: alice,
          scope: ['downstream-audience'],
          audience: [CLIENT.downstream, CLIENT.reports],
        }),
        AudienceNotAvailableError,
      );
      expectProvider(
        error,
        400,
        'invalid_request',
        `Requested audience not available: ${CLIENT.reports}`,
      );
      expect(error.audiences).to.deep.equal([CLIENT.reports]);
    });

    it('audience never adds: a client no scope produces is refused even alone', async () => {
      const error = await refusal(
        worker.exchange({ subjectToken: alice, audience: [CLIENT.downstream] }),
        AudienceNotAvailableError,
      );
      expectProvider(
        error,
        400,
        'invalid_request',
        `Requested audience not available: ${CLIENT.downstream}`,
      );
    });

    it('an audience that names no client is refused (400 invalid_client "Audience not found")', async () => {
      const error = await refusal(
        worker.exchange({ subjectToken: alice, audience: ['no-such-client'] }),
        AudienceNotFoundError,
      );
      expectProvider(error, 400, 'invalid_client', 'Audience not found');
    });
  });

  describe('refresh tokens from exchange', () => {
    it('SAME_SESSION client: a refresh token is issued; Keycloak 26.5.6 WIDENS aud on refresh, the helper narrows it again', async () => {
      const exchanged = await worker.exchange({
        subjectToken: alice,
        scope: ['downstream-audience'],
        audience: [CLIENT.downstream],
        requestRefreshToken: true,
      });
      expect(exchanged.issuedTokenType).to.equal(TOKEN_TYPE_REFRESH);
      expect(audienceOf(exchanged.accessToken)).to.deep.equal([CLIENT.downstream]);
      expect(exchanged.refreshToken, 'refresh token').to.be.a('string');
      expect(exchanged.refreshExpiresIn).to.be.greaterThan(0);
      const refreshClaims = claimsOf(exchanged.refreshToken as string);
      expect(refreshClaims.typ).to.equal('Refresh');
      expect(refreshClaims.sid, 'same session').to.equal(claimsOf(alice).sid);
      expect(refreshClaims['req-aud'], 'the narrowing is recorded').to.deep.equal([
        CLIENT.downstream,
      ]);
      // What Keycloak answers to the refresh grant itself: every audience of the scopes again
      // (the reference says req-aud restores the narrowing; 26.5.6 ignores it).
      const raw = await worker.requestToken({
        grant_type: 'refresh_token',
        refresh_token: exchanged.refreshToken,
      });
      expect(audienceOf(raw.accessToken)).to.deep.equal(
        [CLIENT.catalogue, CLIENT.downstream].sort(),
      );
      // The helper's refresh narrows again, after every refresh.
      let refreshToken = raw.refreshToken as string;
      for (let round = 1; round <= 2; round += 1) {
        const refreshed = await worker.refresh(refreshToken);
        expect(audienceOf(refreshed.accessToken), `refresh ${round}`).to.deep.equal([
          CLIENT.downstream,
        ]);
        expect(claimsOf(refreshed.accessToken).sub).to.equal(claimsOf(alice).sub);
        expect(claimsOf(refreshed.accessToken).sid).to.equal(claimsOf(alice).sid);
        expect(scopesOf(refreshed.accessToken)).to.include('downstream-audience');
        expect(refreshed.refreshToken, 'the provider’s new refresh token').to.be.a('string');
        expect(claimsOf(refreshed.refreshToken as string)['req-aud']).to.deep.equal([
          CLIENT.downstream,
        ]);
        refreshToken = refreshed.refreshToken as string;
      }
    });

    it('a client without refresh-in-exchange is refused ("requested_token_type unsupported")', async () => {
      const subject = (await userTokens('alice', { scope: ['exporter-audience'] })).accessToken;
      const error = await refusal(
        clientFor(CLIENT.exporter).exchange({ subjectToken: subject, requestRefreshToken: true }),
        RequestedTokenTypeUnsupportedError,
      );
      expectProvider(error, 400, 'invalid_request', 'requested_token_type unsupported');
    });

    it('refresh in exchange allowed (SAME_SESSION) but use.refresh.tokens=false: refused ("requested_token_type unsupported")', async () => {
      await syncSignInClients([CLIENT.noRefresh]);
      const requester = clientFor(CLIENT.noRefresh);
      const own = (await userTokens('alice', { clientId: CLIENT.noRefresh })).accessToken;
      expect(claimsOf(own).azp).to.equal(CLIENT.noRefresh);
      const error = await refusal(
        requester.exchange({ subjectToken: own, requestRefreshToken: true }),
        RequestedTokenTypeUnsupportedError,
      );
      expectProvider(error, 400, 'invalid_request', 'requested_token_type unsupported');
      // The same client may exchange for an access token: only the refresh token is refused.
      const access = await requester.exchange({ subjectToken: own });
      expect(access.issuedTokenType).to.equal(TOKEN_TYPE_ACCESS);
      expect(access.refreshToken).to.equal(undefined);
    });

    it('not for a token derived from an offline token (access-token exchange still works)', async () => {
      const offline = await clientFor(CLIENT.web).requestToken({
        grant_type: 'password',
        username: 'alice',
        password: 'alice-password',
        scope: 'offline_access',
      });
      expect(claimsOf(offline.refreshToken as string).typ).to.equal('Offline');
      const derived = await clientFor(CLIENT.web).refresh(offline.refreshToken as string);
      const error = await refusal(
        worker.exchange({ subjectToken: derived.accessToken, requestRefreshToken: true }),
        RefreshTokenNotAllowedError,
      );
      expectProvider(
        error,
        400,
        'invalid_request',
        'Refresh token not valid as requested_token_type because creating a new session is needed',
      );
      const access = await worker.exchange({ subjectToken: derived.accessToken });
      expect(claimsOf(access.accessToken).sub).to.equal(claimsOf(alice).sub);
      // The reference expects no `sid` here (transient copy of the offline session); Keycloak
      // 26.5.6 keeps the offline session's sid.
      expect(claimsOf(access.accessToken).sid).to.equal(claimsOf(derived.accessToken).sid);
    });

    it('not for a transient-session token (client_credentials without refresh token)', async () => {
      const own = await worker.clientCredentials();
      expect(claimsOf(own.accessToken)).not.to.have.property('sid');
      const error = await refusal(
        worker.exchange({ subjectToken: own.accessToken, requestRefreshToken: true }),
        RefreshTokenNotAllowedError,
      );
      expectProvider(
        error,
        400,
        'invalid_request',
        /^Refresh token not valid as requested_token_type/,
      );
    });

    it('not with scope offline_access (an access token with offline_access is allowed)', async () => {
      const error = await refusal(
        worker.exchange({
          subjectToken: alice,
          scope: ['offline_access'],
          requestRefreshToken: true,
        }),
        OfflineAccessNotAllowedError,
      );
      expectProvider(
        error,
        400,
        'invalid_request',
        'Scope offline_access not allowed for token exchange',
      );
      const access = await worker.exchange({ subjectToken: alice, scope: ['offline_access'] });
      expect(scopesOf(access.accessToken)).to.include('offline_access');
    });
  });

  describe('impersonation and delegation', () => {
    const base = (subjectToken: string) => ({
      grant_type: GRANT_TOKEN_EXCHANGE,
      subject_token: subjectToken,
      subject_token_type: TOKEN_TYPE_ACCESS,
    });

    it('impersonation (requested_subject) and the foreign-issuer parameters are refused', async () => {
      for (const [parameter, value] of [
        ['requested_subject', 'bob'],
        ['requested_issuer', 'other'],
        ['subject_issuer', 'other'],
      ] as const) {
        const error = await refusal(
          worker.requestToken({ ...base(alice), [parameter]: value }),
          UnsupportedExchangeParameterError,
        );
        expect(error.parameter).to.equal(parameter);
        expectProvider(
          error,
          400,
          'invalid_request',
          `Parameter '${parameter}' is not supported for standard token exchange`,
        );
      }
    });

    it('delegation (actor_token) is silently ignored: the token is the user’s, with no act claim', async () => {
      const bob = (await userTokens('bob')).accessToken;
      const result = await worker.requestToken({
        ...base(alice),
        actor_token: bob,
        actor_token_type: TOKEN_TYPE_ACCESS,
      });
      const claims = claimsOf(result.accessToken);
      expect(claims.sub).to.equal(claimsOf(alice).sub);
      expect(claims.azp).to.equal(CLIENT.worker);
      expect(claims).not.to.have.property('act');
    });
  });

  describe('subject token checks', () => {
    it('only access tokens are accepted as subject_token_type', async () => {
      const error = await refusal(
        worker.requestToken({
          grant_type: GRANT_TOKEN_EXCHANGE,
          subject_token: alice,
          subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
        }),
        MalformedExchangeRequestError,
      );
      expectProvider(
        error,
        400,
        'invalid_request',
        "Parameter 'subject_token' supports access tokens only",
      );
    });

    it('an invalid subject token is refused (400 invalid_request "Invalid token")', async () => {
      const [header, payload] = alice.split('.');
      const error = await refusal(
        worker.exchange({ subjectToken: `${header}.${payload}.AAAA` }),
        InvalidSubjectTokenError,
      );
      expectProvider(error, 400, 'invalid_request', 'Invalid token');
    });

    it('an expired subject token is refused by the helper before any request', async function () {
      this.timeout(15_000);
      const strict = clientFor(CLIENT.worker, undefined, { clockToleranceSeconds: 0 });
      const shortLived = (await userTokens('alice', { clientId: CLIENT.webShortLived }))
        .accessToken;
      await waitUntilExpired(shortLived, 50);
      const sent = strict.requestCount;
      const local = await refusal(
        strict.exchange({ subjectToken: shortLived }),
        SubjectTokenExpiredError,
      );
      expect(local.status).to.equal(401);
      expect(local.expiredAt).to.equal(claimsOf(shortLived).exp);
      expect(strict.requestCount, 'nothing sent').to.equal(sent);
    });

    it('one clock tolerance for the API and the helper: what the verifier accepts is sent, what it refuses is refused locally', async function () {
      this.timeout(20_000);
      const config = loadConfig({
        AUTH_ISSUER_URL: ISSUER,
        AUTH_CLIENT_ID: CLIENT.catalogue,
        AUTH_EXCHANGE_CLIENT_ID: CLIENT.worker,
        AUTH_EXCHANGE_CLIENT_SECRET: 'cairn-worker-test-secret',
        AUTH_CLOCK_TOLERANCE_SECONDS: '2',
      });
      const verifier = createTokenVerifier(config.auth.provider!);
      const helper = createHarvestTokenClient(config.auth)!;
      const token = (await userTokens('alice', { clientId: CLIENT.webShortLived })).accessToken;
      // Past exp, within the tolerance: the API accepts it, so the helper sends it and the
      // provider decides (Keycloak accepts it only during the second after exp).
      await waitUntilExpired(token, 400);
      expect((await verifier.verify(token)).subject).to.equal(claimsOf(token).sub);
      const before = helper.requestCount;
      await helper.exchange({ subjectToken: token }).catch((error: unknown) => {
        expect(error).to.be.instanceOf(InvalidSubjectTokenError);
      });
      expect(helper.requestCount, 'sent').to.equal(before + 1);
      // Past the tolerance: both refuse, the helper without a request.
      await waitUntilExpired(token, 2100);
      await verifier.verify(token).then(
        () => expect.fail('the verifier accepted a token past the tolerance'),
        (error: Error) => expect(error.message).to.match(/token expired/),
      );
      await refusal(helper.exchange({ subjectToken: token }), SubjectTokenExpiredError);
      expect(helper.requestCount, 'nothing more sent').to.equal(before + 1);
    });

    it('what Keycloak does with an expired subject token: accepted during the second after exp, then 400 "Invalid token"', async function () {
      this.timeout(15_000);
      const rawExchange = (subjectToken: string) =>
        worker.requestToken({
          grant_type: GRANT_TOKEN_EXCHANGE,
          subject_token: subjectToken,
          subject_token_type: TOKEN_TYPE_ACCESS,
        });
      // Just after exp: Keycloak compares whole seconds (exp < now), so it still accepts.
      const first = (await userTokens('alice', { clientId: CLIENT.webShortLived })).accessToken;
      await waitUntilExpired(first, 150);
      const exp = claimsOf(first).exp as number;
      const outcome = await rawExchange(first).then(
        (tokens) => ({ accepted: true, tokens }),
        (error: unknown) => ({ accepted: false, error }),
      );
      if (Date.now() < (exp + 1) * 1000) {
        expect(outcome.accepted, 'accepted within the second after exp').to.equal(true);
      }
      // Well after exp: refused like any invalid subject token.
      const second = (await userTokens('alice', { clientId: CLIENT.webShortLived })).accessToken;
      await waitUntilExpired(second, 1500);
      const error = await refusal(rawExchange(second), InvalidSubjectTokenError);
      expectProvider(error, 400, 'invalid_request', 'Invalid token');
    });
  });

  describe('refresh_token and client_credentials grants', () => {
    it('the job manager refreshes its offline token (same client only)', async () => {
      const offline = await worker.requestToken({
        grant_type: 'password',
        username: 'alice',
        password: 'alice-password',
        scope: 'offline_access',
      });
      expect(claimsOf(offline.refreshToken as string).typ).to.equal('Offline');
      expect(offline.refreshExpiresIn, 'offline max lifespan disabled').to.equal(0);
      const refreshed = await worker.refresh(offline.refreshToken as string);
      expect(claimsOf(refreshed.accessToken).sub).to.equal(claimsOf(alice).sub);
      expect(audienceOf(refreshed.accessToken)).to.include(CLIENT.catalogue);
      // A refresh `scope` drops the optional scopes not listed (default scopes always stay)...
      const narrowed = await worker.refresh(offline.refreshToken as string, { scope: ['profile'] });
      expect(scopesOf(narrowed.accessToken)).to.deep.equal(WORKER_DEFAULT_SCOPES);
      // ...but the response's `scope` field still reports the offline token's scopes.
      expect(narrowed.scope?.split(' ')).to.include.members(['offline_access']);
      const error = await refusal(
        clientFor(CLIENT.web).refresh(offline.refreshToken as string),
        InvalidGrantError,
      );
      expect(error.oauthError).to.equal('invalid_grant');
      // The reference quotes "Unmatching clients"; 26.5.6 words it differently:
      expect(error.errorDescription).to.match(/client/i);
    });

    it('client_credentials gives only default scopes unless a minimal optional scope is asked for', async () => {
      const plain = await worker.clientCredentials();
      expect(scopesOf(plain.accessToken)).not.to.include('ingest');
      expect(plain.refreshToken).to.equal(undefined);
      const ingest = await worker.clientCredentials({ scope: ['ingest'] });
      expect(scopesOf(ingest.accessToken)).to.include('ingest');
      expect(claimsOf(ingest.accessToken).azp).to.equal(CLIENT.worker);
    });

    it('client_credentials without a service account is refused (unauthorized_client)', async () => {
      const error = await refusal(
        clientFor(CLIENT.exporter).clientCredentials(),
        UnauthorizedClientError,
      );
      expectProvider(
        error,
        401,
        'unauthorized_client',
        'Client not enabled to retrieve service account',
      );
    });
  });

  describe('helper behaviour against the provider', () => {
    it('caches results until shortly before expiry, per request (hash key), and shares concurrent calls', async () => {
      const client = clientFor(CLIENT.worker);
      const [first, second] = await Promise.all([
        client.exchange({ subjectToken: alice }),
        client.exchange({ subjectToken: alice }),
      ]);
      expect(client.requestCount).to.equal(1);
      expect(second).to.equal(first);
      expect(await client.exchange({ subjectToken: alice })).to.equal(first);
      expect(client.requestCount).to.equal(1);
      await client.exchange({ subjectToken: alice, scope: ['ingest'] });
      expect(client.requestCount).to.equal(2);
      expect(JSON.stringify(first)).not.to.contain(first.accessToken);
    });

    it('a chained exchange (exchanging an exchanged token again) works', async () => {
      const once = await worker.exchange({ subjectToken: alice });
      const twice = await clientFor(CLIENT.worker).exchange({ subjectToken: once.accessToken });
      expect(claimsOf(twice.accessToken).sub).to.equal(claimsOf(alice).sub);
      expect(claimsOf(twice.accessToken).azp).to.equal(CLIENT.worker);
    });

    it('an unreachable token endpoint is a TokenEndpointUnavailableError after bounded retries', async () => {
      const port = await closedLoopbackPort();
      const client = new TokenClient({
        tokenEndpoint: `http://127.0.0.1:${port}/realms/x/protocol/openid-connect/token`,
        clientId: CLIENT.worker,
        clientSecret: 'x',
        maxRetries: 2,
        retryDelayMs: 1,
      });
      try {
        await client.clientCredentials();
        expect.fail('should not succeed');
      } catch (error) {
        expect((error as Error).name).to.equal('TokenEndpointUnavailableError');
      }
      expect(client.requestCount).to.equal(3);
    });
  });
});

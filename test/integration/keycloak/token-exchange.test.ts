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
import {
  audienceOf,
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
    it('SAME_SESSION client: a refresh token is issued; refreshing it WIDENS aud again (Keycloak 26.5.6 differs from the reference)', async () => {
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
      const refreshed = await worker.refresh(exchanged.refreshToken as string);
      expect(claimsOf(refreshed.accessToken).sub).to.equal(claimsOf(alice).sub);
      // The reference says req-aud restores the narrowing on every refresh; on 26.5.6 the
      // refreshed token carries every audience of the scopes again. Re-exchange instead of
      // refreshing when a downstream must only ever see its own audience.
      expect(audienceOf(refreshed.accessToken)).to.deep.equal(
        [CLIENT.catalogue, CLIENT.downstream].sort(),
      );
    });

    it('a client without refresh-in-exchange is refused ("requested_token_type unsupported")', async () => {
      const subject = (await userTokens('alice', { scope: ['exporter-audience'] })).accessToken;
      const error = await refusal(
        clientFor(CLIENT.exporter).exchange({ subjectToken: subject, requestRefreshToken: true }),
        RequestedTokenTypeUnsupportedError,
      );
      expectProvider(error, 400, 'invalid_request', 'requested_token_type unsupported');
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
      ]) {
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
      const shortLived = (await userTokens('alice', { clientId: CLIENT.webShortLived }))
        .accessToken;
      await waitUntilExpired(shortLived, 50);
      const sent = worker.requestCount;
      const local = await refusal(
        worker.exchange({ subjectToken: shortLived }),
        SubjectTokenExpiredError,
      );
      expect(local.status).to.equal(401);
      expect(local.expiredAt).to.equal(claimsOf(shortLived).exp);
      expect(worker.requestCount, 'nothing sent').to.equal(sent);
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

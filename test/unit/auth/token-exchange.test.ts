/**
 * TokenClient without a network: an in-memory fetch records requests and answers. Covers the
 * form it sends, client authentication, the hashed expiry-aware cache, network-only retries,
 * local refusals (expired subject token) and that tokens never appear in logs or printouts.
 */
import { inspect } from 'node:util';
import { expect } from 'chai';
import winston from 'winston';
import {
  InvalidScopeError,
  SubjectTokenExpiredError,
  TokenEndpointError,
  TokenEndpointUnavailableError,
} from '../../../shared/auth/token-errors.js';
import {
  decodeUnverifiedClaims,
  GRANT_TOKEN_EXCHANGE,
  TOKEN_TYPE_ACCESS,
  TOKEN_TYPE_REFRESH,
  TokenClient,
} from '../../../shared/auth/token-exchange.js';
import { DEFAULT_CLOCK_TOLERANCE_SECONDS } from '../../../shared/config/index.js';
import { defined } from '../../support/defined.js';

const ENDPOINT = 'https://id.example.org/realms/cairn/protocol/openid-connect/token';
const NOW = 1_800_000_000_000;

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwtWith = (payload: Record<string, unknown>): string =>
  `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(payload)}.c2lnbmF0dXJl`;
const SUBJECT = jwtWith({ sub: 'user-1', azp: 'cairn-web', exp: NOW / 1000 + 300 });

interface Recorded {
  headers: Record<string, string>;
  form: URLSearchParams;
}

type Answer = { status: number; body: unknown } | Error;

function fakeFetch(answers: Answer[]) {
  const calls: Recorded[] = [];
  const fetchImpl = (async (_url: unknown, init?: RequestInit) => {
    calls.push({
      headers: init?.headers as Record<string, string>,
      form: new URLSearchParams(init?.body as string),
    });
    const answer = defined(answers.length > 1 ? answers.shift() : answers[0], 'a scripted answer');
    if (answer instanceof Error) throw answer;
    return new Response(JSON.stringify(answer.body), { status: answer.status });
  }) as typeof fetch;
  return { calls, fetchImpl };
}

const issued = (accessToken = 'issued-access-token', extra: Record<string, unknown> = {}) => ({
  status: 200,
  body: {
    access_token: accessToken,
    expires_in: 300,
    token_type: 'Bearer',
    issued_token_type: TOKEN_TYPE_ACCESS,
    scope: 'profile email',
    ...extra,
  },
});

function client(
  answers: Answer[],
  options: Partial<ConstructorParameters<typeof TokenClient>[0]> = {},
) {
  const fake = fakeFetch(answers);
  const state = { now: NOW, sleeps: [] as number[] };
  const tokenClient = new TokenClient({
    tokenEndpoint: ENDPOINT,
    clientId: 'cairn-worker',
    clientSecret: 's3cr:et',
    fetch: fake.fetchImpl,
    now: () => state.now,
    sleep: async (ms) => {
      state.sleeps.push(ms);
    },
    ...options,
  });
  return { tokenClient, calls: fake.calls, state };
}

const networkError = () =>
  Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });

describe('auth/token-exchange: TokenClient', () => {
  it('sends an RFC 8693 exchange with Basic client authentication', async () => {
    const { tokenClient, calls } = client([issued()]);
    const tokens = await tokenClient.exchange({
      subjectToken: SUBJECT,
      audience: ['cairn-downstream', 'cairn-archive'],
      scope: ['downstream-audience'],
    });
    expect(tokens.accessToken).to.equal('issued-access-token');
    expect(tokens.expiresAt).to.equal(NOW + 300_000);
    const { form, headers } = defined(calls[0], 'a token request');
    expect(form.get('grant_type')).to.equal(GRANT_TOKEN_EXCHANGE);
    expect(form.get('subject_token')).to.equal(SUBJECT);
    expect(form.get('subject_token_type')).to.equal(TOKEN_TYPE_ACCESS);
    expect(form.get('requested_token_type')).to.equal(TOKEN_TYPE_ACCESS);
    expect(form.getAll('audience')).to.deep.equal(['cairn-archive', 'cairn-downstream']);
    expect(form.get('scope')).to.equal('downstream-audience');
    expect(form.has('client_secret')).to.equal(false);
    expect(form.has('requested_subject')).to.equal(false);
    expect(form.has('actor_token')).to.equal(false);
    const basic = Buffer.from(
      defined(headers.authorization, 'an Authorization header').replace('Basic ', ''),
      'base64',
    ).toString();
    expect(basic).to.equal('cairn-worker:s3cr%3Aet');
  });

  it('requests a refresh token when asked; client_secret_post puts credentials in the form', async () => {
    const { tokenClient, calls } = client(
      [issued('a', { refresh_token: 'r', refresh_expires_in: 1800 })],
      {
        authMethod: 'client_secret_post',
      },
    );
    const tokens = await tokenClient.exchange({ subjectToken: SUBJECT, requestRefreshToken: true });
    expect(calls[0]?.form.get('requested_token_type')).to.equal(TOKEN_TYPE_REFRESH);
    expect(calls[0]?.form.get('client_id')).to.equal('cairn-worker');
    expect(calls[0]?.form.get('client_secret')).to.equal('s3cr:et');
    expect(defined(calls[0], 'the token request').headers.authorization).to.equal(undefined);
    expect(tokens.refreshToken).to.equal('r');
    expect(tokens.refreshExpiresIn).to.equal(1800);
  });

  it('refresh and client_credentials send their grants and a minimal scope', async () => {
    const { tokenClient, calls } = client([issued()]);
    await tokenClient.refresh('offline-token', { scope: ['profile'] });
    await tokenClient.clientCredentials({ scope: ['ingest'] });
    await tokenClient.clientCredentials();
    expect(calls.map((call) => call.form.get('grant_type'))).to.deep.equal([
      'refresh_token',
      'client_credentials',
      'client_credentials',
    ]);
    expect(calls[0]?.form.get('refresh_token')).to.equal('offline-token');
    expect(calls[1]?.form.get('scope')).to.equal('ingest');
    expect(calls[2]?.form.has('scope')).to.equal(false);
  });

  it('refuses a subject token expired beyond the clock tolerance locally, sending nothing', async () => {
    const { tokenClient, calls } = client([issued()]);
    expect(DEFAULT_CLOCK_TOLERANCE_SECONDS).to.equal(30);
    const expired = jwtWith({ sub: 'user-1', exp: NOW / 1000 - 30 });
    try {
      await tokenClient.exchange({ subjectToken: expired });
      expect.fail('sent');
    } catch (error) {
      expect(error).to.be.instanceOf(SubjectTokenExpiredError);
      expect((error as SubjectTokenExpiredError).expiredAt).to.equal(NOW / 1000 - 30);
      expect((error as Error).message).not.to.contain(expired);
    }
    expect(calls).to.have.length(0);
  });

  it('passes an opaque (non-JWT) subject token to the provider', async () => {
    const { tokenClient, calls } = client([issued()]);
    await tokenClient.exchange({ subjectToken: 'opaque-token' });
    expect(calls).to.have.length(1);
  });

  it('sends a subject token within the tolerance (the API would accept it too); the tolerance is a setting', async () => {
    const { tokenClient, calls } = client([issued()]);
    await tokenClient.exchange({ subjectToken: jwtWith({ sub: 'u', exp: NOW / 1000 - 29 }) });
    expect(calls).to.have.length(1);
    const strict = client([issued()], { clockToleranceSeconds: 0 });
    try {
      await strict.tokenClient.exchange({ subjectToken: jwtWith({ sub: 'u', exp: NOW / 1000 }) });
      expect.fail('sent');
    } catch (error) {
      expect(error).to.be.instanceOf(SubjectTokenExpiredError);
    }
    expect(strict.calls).to.have.length(0);
  });

  it('sends a self-exchange with a scope (no keycloak#38990 guard: no harm on 26.5.6)', async () => {
    const { tokenClient, calls } = client([issued()]);
    const own = jwtWith({ azp: 'cairn-worker', exp: NOW / 1000 + 300 });
    await tokenClient.exchange({ subjectToken: own, scope: ['ingest'] });
    expect(calls).to.have.length(1);
    expect(calls[0]?.form.get('scope')).to.equal('ingest');
  });

  it('re-narrows aud after refreshing a refresh token that carries req-aud', async () => {
    const refreshed = jwtWith({
      azp: 'cairn-worker',
      aud: ['cairn-catalogue', 'cairn-downstream'],
      scope: 'profile downstream-audience',
      exp: NOW / 1000 + 300,
    });
    const { tokenClient, calls } = client([
      issued(refreshed, { refresh_token: 'rotated-refresh', refresh_expires_in: 1800 }),
      issued('narrowed-access'),
    ]);
    const narrowedRefresh = jwtWith({ typ: 'Refresh', 'req-aud': ['cairn-downstream'] });
    const tokens = await tokenClient.refresh(narrowedRefresh);
    expect(calls.map((call) => call.form.get('grant_type'))).to.deep.equal([
      'refresh_token',
      GRANT_TOKEN_EXCHANGE,
    ]);
    expect(calls[1]?.form.get('subject_token')).to.equal(refreshed);
    expect(calls[1]?.form.getAll('audience')).to.deep.equal(['cairn-downstream']);
    expect(calls[1]?.form.get('scope')).to.equal('downstream-audience profile');
    expect(tokens.accessToken).to.equal('narrowed-access');
    expect(tokens.refreshToken).to.equal('rotated-refresh');
    expect(tokens.refreshExpiresIn).to.equal(1800);
    expect(JSON.stringify(tokens)).not.to.contain('rotated-refresh');
  });

  it('does not exchange again when the refreshed aud is already within req-aud, or there is none', async () => {
    const inside = jwtWith({ aud: 'cairn-downstream', exp: NOW / 1000 + 300 });
    const { tokenClient, calls } = client([issued(inside)]);
    await tokenClient.refresh(jwtWith({ typ: 'Refresh', 'req-aud': 'cairn-downstream' }));
    await tokenClient.refresh(jwtWith({ typ: 'Refresh' }));
    expect(calls.map((call) => call.form.get('grant_type'))).to.deep.equal([
      'refresh_token',
      'refresh_token',
    ]);
  });

  describe('cache', () => {
    it('reuses a result until shortly before expiry, then asks again', async () => {
      const { tokenClient, calls, state } = client([issued('first'), issued('second')]);
      expect((await tokenClient.exchange({ subjectToken: SUBJECT })).accessToken).to.equal('first');
      state.now += 269_000;
      expect((await tokenClient.exchange({ subjectToken: SUBJECT })).accessToken).to.equal('first');
      state.now += 1_000;
      expect((await tokenClient.exchange({ subjectToken: SUBJECT })).accessToken).to.equal(
        'second',
      );
      expect(calls).to.have.length(2);
    });

    it('keys by the whole request: other audience, scope or subject → another call', async () => {
      const { tokenClient, calls } = client([issued()]);
      await tokenClient.exchange({ subjectToken: SUBJECT });
      await tokenClient.exchange({ subjectToken: SUBJECT, audience: ['a'] });
      await tokenClient.exchange({ subjectToken: SUBJECT, scope: ['ingest'] });
      await tokenClient.exchange({ subjectToken: SUBJECT, audience: ['a'] });
      await tokenClient.exchange({
        subjectToken: jwtWith({ sub: 'user-2', exp: NOW / 1000 + 60 }),
      });
      expect(calls).to.have.length(4);
    });

    it('shares one call among concurrent identical requests', async () => {
      const { tokenClient, calls } = client([issued()]);
      const results = await Promise.all(
        [1, 2, 3].map(() => tokenClient.exchange({ subjectToken: SUBJECT })),
      );
      expect(calls).to.have.length(1);
      expect(results[1]).to.equal(results[0]);
    });

    it('does not cache short-lived or failed results; clearCache forgets everything', async () => {
      const { tokenClient, calls } = client([
        issued('short', { expires_in: 20 }),
        { status: 400, body: { error: 'invalid_scope', error_description: 'Invalid scopes: x' } },
        issued('long'),
      ]);
      await tokenClient.clientCredentials(); // 1: short-lived, not cached
      try {
        await tokenClient.clientCredentials(); // 2: refused, not cached
        expect.fail('succeeded');
      } catch (error) {
        expect(error).to.be.instanceOf(InvalidScopeError);
      }
      await tokenClient.clientCredentials(); // 3: cached from here on
      await tokenClient.clientCredentials();
      tokenClient.clearCache();
      await tokenClient.clientCredentials(); // 4
      expect(calls.length).to.equal(4);
    });

    it('evicts the oldest entries beyond maxCacheEntries', async () => {
      const { tokenClient, calls } = client([issued()], { maxCacheEntries: 2 });
      for (const scope of ['a', 'b', 'c', 'a'])
        await tokenClient.clientCredentials({ scope: [scope] });
      expect(calls).to.have.length(4);
    });
  });

  describe('retries', () => {
    it('retries network errors with exponential backoff, then succeeds', async () => {
      const { tokenClient, calls, state } = client([networkError(), networkError(), issued()], {
        retryDelayMs: 100,
      });
      await tokenClient.clientCredentials();
      expect(calls).to.have.length(3);
      expect(state.sleeps).to.have.length(2);
      expect(state.sleeps[0]).to.be.within(100, 199);
      expect(state.sleeps[1]).to.be.within(200, 299);
    });

    it('gives up after maxRetries with TokenEndpointUnavailableError (503, retryable)', async () => {
      const { tokenClient, calls } = client([networkError()], { maxRetries: 1 });
      try {
        await tokenClient.clientCredentials();
        expect.fail('succeeded');
      } catch (error) {
        expect(error).to.be.instanceOf(TokenEndpointUnavailableError);
        expect((error as TokenEndpointUnavailableError).status).to.equal(503);
        expect((error as TokenEndpointUnavailableError).retryable).to.equal(true);
        expect((error as Error).message).to.contain('ECONNREFUSED');
      }
      expect(calls).to.have.length(2);
    });

    it('never retries an HTTP answer, not even a 5xx', async () => {
      const { tokenClient, calls } = client([{ status: 502, body: 'Bad gateway' }, issued()]);
      try {
        await tokenClient.clientCredentials();
        expect.fail('succeeded');
      } catch (error) {
        expect(error).to.be.instanceOf(TokenEndpointError);
        expect((error as TokenEndpointError).providerStatus).to.equal(502);
        expect((error as TokenEndpointError).retryable).to.equal(true);
      }
      expect(calls).to.have.length(1);
    });

    it('a 200 without access_token is an error', async () => {
      const { tokenClient } = client([{ status: 200, body: { token_type: 'Bearer' } }]);
      try {
        await tokenClient.clientCredentials();
        expect.fail('succeeded');
      } catch (error) {
        expect((error as TokenEndpointError).errorDescription).to.match(/no access_token/);
      }
    });
  });

  describe('no token in logs or printouts', () => {
    it('inspect() and JSON.stringify() of a token set hide the tokens', async () => {
      const { tokenClient } = client([
        issued('secret-access', { refresh_token: 'secret-refresh', id_token: 'secret-id' }),
      ]);
      const tokens = await tokenClient.clientCredentials();
      for (const printed of [
        inspect(tokens),
        JSON.stringify(tokens),
        `${JSON.stringify({ tokens })}`,
      ]) {
        expect(printed).not.to.match(/secret-(access|refresh|id)/);
        expect(printed).to.contain('[REDACTED]');
      }
      expect(tokens.accessToken).to.equal('secret-access');
    });

    it('log lines carry the grant, status and a hash, never the token or secret', async () => {
      const lines: string[] = [];
      const logger = winston.createLogger({
        level: 'debug',
        transports: [
          new winston.transports.Stream({
            stream: new (await import('node:stream')).Writable({
              write(chunk, _encoding, done) {
                lines.push(String(chunk));
                done();
              },
            }),
          }),
        ],
        format: winston.format.json(),
      });
      const { tokenClient } = client([issued('secret-access'), networkError()], {
        logger,
        maxRetries: 0,
      });
      await tokenClient.exchange({ subjectToken: SUBJECT });
      try {
        await tokenClient.exchange({ subjectToken: SUBJECT, scope: ['x'] });
      } catch {
        // unreachable endpoint: logged at warn
      }
      const text = lines.join('\n');
      expect(lines.length).to.be.greaterThan(1);
      expect(text).to.contain(GRANT_TOKEN_EXCHANGE);
      for (const secret of [SUBJECT, 'secret-access', 's3cr:et', SUBJECT.split('.')[1]]) {
        expect(text).not.to.contain(secret);
      }
    });
  });
});

describe('auth/token-exchange: decodeUnverifiedClaims', () => {
  it('reads a JWT payload and returns undefined for anything else', () => {
    expect(decodeUnverifiedClaims(jwtWith({ exp: 5 }))).to.deep.equal({ exp: 5 });
    for (const value of ['opaque', 'a.b.c', `x.${b64([1, 2])}.y`, `x.${b64('text')}.y`]) {
      expect(decodeUnverifiedClaims(value), value).to.equal(undefined);
    }
  });
});

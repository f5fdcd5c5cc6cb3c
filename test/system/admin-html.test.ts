/**
 * The admin HTML pages and their sign-in (authorization code flow with PKCE) over HTTP against
 * the real Keycloak: a browser without a session is sent to Keycloak, the test submits
 * Keycloak's login form as alice (editor), follows the callback with its cookie jar and sees
 * real jobs of the ingest log (an HTTP write in embedded mode; a worker job with a rejected
 * record, its failures and its dead letter in scaled mode on real Redis). Bob (no editor role)
 * and a token for another audience get a 403 page; a tampered, replayed or absent state is
 * refused; sign-out ends the session here and at Keycloak; an expired access token is
 * refreshed; without configuration the pages answer 503; bearer JSON access is unchanged.
 *
 * The app is driven with supertest (no port): its redirect base is http://127.0.0.1:8000, a
 * redirect URI the realm's cairn-web client allows, and the test carries Keycloak's redirect
 * back to the app itself.
 */
import { expect } from 'chai';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import { Redis } from 'ioredis';
import request from 'supertest';
import { Writable } from 'node:stream';
import winston from 'winston';
import { createApp } from '../../services/api/app.js';
import { startWorkers } from '../../services/worker/start-workers.js';
import { createLogger } from '../../shared/logging/index.js';
import { JobQueues } from '../../shared/queue/job-queues.js';
import { SqliteIngestLog } from '../../shared/search/sqlite/sqlite-ingest-log.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import {
  CookieJar,
  isLoginForm,
  loginAtProvider,
  providerGet,
  syncSignInClients,
} from '../support/admin-sign-in.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import {
  CLIENT,
  closedLoopbackPort,
  ISSUER,
  REALM,
  requireKeycloak,
  userTokens,
  waitUntilExpired,
} from '../integration/keycloak/keycloak-support.js';
import { REDIS_URL, requireRedis, waitFor } from '../integration/worker/worker-support.js';
import { defined } from '../support/defined.js';

const REDIRECT_BASE = 'http://127.0.0.1:8000';
const JOBS = '/catalogue/admin/jobs';
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function signInEnvironment(overrides: Record<string, string> = {}): Record<string, string> {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-admin-html-'));
  return {
    AUTH_ISSUER_URL: ISSUER,
    AUTH_CLIENT_ID: CLIENT.catalogue,
    AUTH_WEB_CLIENT_ID: CLIENT.web,
    AUTH_WEB_REDIRECT_BASE: REDIRECT_BASE,
    WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
    ...overrides,
  };
}

/** A browser: sends the jar's cookies to the app, keeps what it sets, asks for HTML. */
async function browse(
  app: Express,
  jar: CookieJar,
  url: string,
  options: { method?: 'get' | 'post'; accept?: string; headers?: Record<string, string> } = {},
) {
  const target = new URL(url, REDIRECT_BASE);
  const cookie = jar.header(target.pathname);
  let pending = request(app)[options.method ?? 'get'](`${target.pathname}${target.search}`);
  pending = pending.set('Accept', options.accept ?? HTML);
  if (cookie) pending = pending.set('Cookie', cookie);
  for (const [name, value] of Object.entries(options.headers ?? {}))
    pending = pending.set(name, value);
  const response = await pending;
  jar.store(response.headers['set-cookie']);
  return response;
}

/** The whole code flow as `user`: page → Keycloak login form → callback → back to the page. */
async function signIn(
  app: Express,
  user: 'alice' | 'bob',
  jar = new CookieJar(),
  page = `${JOBS}?f=html`,
): Promise<{ jar: CookieJar; returnedTo: string }> {
  const start = await browse(app, jar, page);
  expect(start.status, start.text).to.equal(303);
  const callback = await loginAtProvider(String(start.headers.location), jar, user);
  expect(callback.startsWith(`${REDIRECT_BASE}/catalogue/admin/callback?`), callback).to.equal(
    true,
  );
  const done = await browse(app, jar, callback);
  expect(done.status, done.text).to.equal(303);
  return { jar, returnedTo: String(done.headers.location) };
}

/** A generated record (a GeoJSON Feature) that is not among the test app's records. */
function newRecord(index: number): Record<string, unknown> {
  return [...generateRecords(1, 99, 60000 + index)][0] as unknown as Record<string, unknown>;
}

describe('Admin HTML pages with PKCE sign-in (real Keycloak)', function () {
  this.timeout(90_000);
  let aliceBearer: string;

  before(async () => {
    await requireKeycloak();
    await syncSignInClients();
    aliceBearer = (await userTokens('alice')).accessToken;
  });

  describe('embedded mode', () => {
    let test: TestApp;
    let jobId: string;

    before(async () => {
      test = await createTestApp(3, signInEnvironment());
      // A real job: an HTTP write applied at once is logged as a job of queue "http".
      const created = await request(test.app)
        .post('/catalogue/collections/metadata:main/items')
        .set('Authorization', `Bearer ${aliceBearer}`)
        .send(newRecord(1));
      expect(created.status, created.text).to.equal(201);
      const log = await request(test.app).get(JOBS).set('Authorization', `Bearer ${aliceBearer}`);
      expect(log.status).to.equal(200);
      jobId = defined((log.body as { jobs: { jobId: string }[] }).jobs[0], 'the newest job').jobId;
    });
    after(async () => test?.close());

    it('sends a browser without a session to Keycloak with PKCE S256, state and nonce', async () => {
      const jar = new CookieJar();
      const response = await browse(test.app, jar, JOBS);
      expect(response.status).to.equal(303);
      const location = new URL(String(response.headers.location));
      expect(`${location.origin}${location.pathname}`).to.equal(
        `${ISSUER}/protocol/openid-connect/auth`,
      );
      const parameters = Object.fromEntries(location.searchParams);
      expect(parameters).to.include({
        client_id: CLIENT.web,
        response_type: 'code',
        code_challenge_method: 'S256',
        redirect_uri: `${REDIRECT_BASE}/catalogue/admin/callback`,
      });
      expect(parameters.scope?.split(' ')).to.include('openid');
      expect(parameters.code_challenge).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(parameters.state).to.have.length.greaterThan(20);
      expect(parameters.nonce).to.have.length.greaterThan(20);
      expect(parameters.nonce).to.not.equal(parameters.state);
      const binding = jar.get('cairn_admin_sign_in');
      expect(binding, 'sign-in cookie').to.include({
        path: '/catalogue/admin',
        httpOnly: true,
        secure: false,
        sameSite: 'Lax',
      });
      expect(response.headers['cache-control']).to.equal('no-store');
    });

    it('signs alice in through Keycloak’s login form and shows the job from the ingest log', async () => {
      const { jar, returnedTo } = await signIn(test.app, 'alice');
      expect(returnedTo).to.equal(`${REDIRECT_BASE}${JOBS}?f=html`);
      const session = jar.get('cairn_admin_session');
      expect(session, 'session cookie').to.include({
        path: '/catalogue/admin',
        httpOnly: true,
        secure: false,
        sameSite: 'Lax',
      });
      expect(session!.value).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(jar.get('cairn_admin_sign_in'), 'sign-in cookie cleared').to.equal(undefined);

      const jobs = await browse(test.app, jar, returnedTo);
      expect(jobs.status, jobs.text).to.equal(200);
      expect(jobs.headers['content-type']).to.match(/^text\/html/);
      expect(jobs.headers['cache-control']).to.equal('no-store');
      expect(jobs.text).to.include(`data-job-id="${jobId}"`);
      expect(jobs.text).to.include('Signed in as <strong id="operator">alice</strong>');
      expect(jobs.text).to.match(/Jobs 1–1 of 1, newest first/);

      const job = await browse(test.app, jar, `${JOBS}/${encodeURIComponent(jobId)}`);
      expect(job.status).to.equal(200);
      expect(job.text).to.include(`<code>${jobId}</code>`);
      expect(job.text).to.match(/<dt>Queue<\/dt><dd>http<\/dd>/);
      expect(job.text).to.match(/<dt>Written<\/dt><dd>1<\/dd>/);

      const failures = await browse(test.app, jar, `${JOBS}/${encodeURIComponent(jobId)}/failures`);
      expect(failures.status).to.equal(200);
      expect(failures.text).to.include('This job has no failed records.');

      const missing = await browse(test.app, jar, `${JOBS}/no-such-job`);
      expect(missing.status).to.equal(404);
      expect(missing.text).to.include('No job &quot;no-such-job&quot; in the ingest log');

      const letters = await browse(test.app, jar, '/catalogue/admin/dead-letters');
      expect(letters.status).to.equal(200);
      expect(letters.text).to.include('No queue is configured (embedded mode)');

      const bad = await browse(test.app, jar, `${JOBS}?limit=-1`);
      expect(bad.status).to.equal(400);
      expect(bad.text).to.include('limit must be an integer');
    });

    it('gives the session cookie no access to the JSON endpoints; bearer tokens work as before', async () => {
      const { jar } = await signIn(test.app, 'alice');
      const cookieOnly = await browse(test.app, jar, JOBS, { accept: 'application/json' });
      expect(cookieOnly.status).to.equal(401);
      expect(cookieOnly.headers['www-authenticate']).to.match(/^Bearer/);
      const bearer = await request(test.app)
        .get(`${JOBS}/${encodeURIComponent(jobId)}`)
        .set('Authorization', `Bearer ${aliceBearer}`);
      expect(bearer.status).to.equal(200);
      expect(bearer.headers['content-type']).to.match(/^application\/json/);
      expect((bearer.body as { jobId: string }).jobId).to.equal(jobId);
    });

    it('answers bob (no editor role) with a 403 page and lets him sign out', async () => {
      const { jar, returnedTo } = await signIn(test.app, 'bob');
      const page = await browse(test.app, jar, returnedTo);
      expect(page.status).to.equal(403);
      expect(page.headers['content-type']).to.match(/^text\/html/);
      expect(page.headers['www-authenticate']).to.equal(undefined);
      expect(page.text).to.include('Access denied');
      expect(page.text).to.include('role &quot;editor&quot;');
      expect(page.text).to.not.include(`data-job-id="${jobId}"`);
      expect(page.text).to.include('id="sign-out"');
    });

    it('refuses a tampered state, a replayed callback and a callback without a sign-in', async () => {
      const jar = new CookieJar();
      const start = await browse(test.app, jar, JOBS);
      const callback = new URL(await loginAtProvider(String(start.headers.location), jar, 'alice'));
      const genuine = callback.toString();
      callback.searchParams.set('state', `${callback.searchParams.get('state')}x`);

      const tampered = await browse(test.app, jar, callback.toString());
      expect(tampered.status).to.equal(400);
      expect(tampered.text).to.include('Sign-in failed');
      expect(tampered.text).to.include('(state)');
      expect(jar.get('cairn_admin_session'), 'no session').to.equal(undefined);

      // The sign-in in progress was used up: the genuine response cannot be replayed either.
      const replayed = await browse(test.app, jar, genuine);
      expect(replayed.status).to.equal(400);
      expect(replayed.text).to.include('no sign-in is in progress in this browser');
      expect(jar.get('cairn_admin_session'), 'no session').to.equal(undefined);

      // A callback link opened in another browser (no sign-in cookie) is refused.
      const elsewhere = await browse(test.app, new CookieJar(), genuine);
      expect(elsewhere.status).to.equal(400);

      // No state at all.
      const noStateJar = new CookieJar();
      await browse(test.app, noStateJar, JOBS);
      const absent = await browse(test.app, noStateJar, '/catalogue/admin/callback?code=abc');
      expect(absent.status).to.equal(400);
      expect(absent.text).to.include('(state)');
      expect(noStateJar.get('cairn_admin_session')).to.equal(undefined);
    });

    it('signs out: ends the session here and the single sign-on session at Keycloak', async () => {
      const { jar } = await signIn(test.app, 'alice');
      expect((await browse(test.app, jar, JOBS)).status).to.equal(200);
      const oldSession = jar.header('/catalogue/admin');

      const signOut = await browse(test.app, jar, '/catalogue/admin/sign-out', { method: 'post' });
      expect(signOut.status).to.equal(303);
      const logout = new URL(String(signOut.headers.location));
      expect(`${logout.origin}${logout.pathname}`).to.equal(
        `${ISSUER}/protocol/openid-connect/logout`,
      );
      expect(logout.searchParams.get('post_logout_redirect_uri')).to.equal(
        `${REDIRECT_BASE}/catalogue/admin/signed-out`,
      );
      expect(logout.searchParams.get('id_token_hint')).to.be.a('string');
      expect(jar.get('cairn_admin_session'), 'session cookie cleared').to.equal(undefined);

      const atProvider = await providerGet(logout.toString(), jar);
      expect(atProvider.status).to.equal(302);
      expect(atProvider.location).to.equal(`${REDIRECT_BASE}/catalogue/admin/signed-out`);
      const signedOut = await browse(test.app, jar, String(atProvider.location));
      expect(signedOut.status).to.equal(200);
      expect(signedOut.text).to.include('You are signed out');

      // The old session id is dead, and Keycloak asks for the password again (no SSO).
      const again = await request(test.app).get(JOBS).set('Accept', HTML).set('Cookie', oldSession);
      expect(again.status).to.equal(303);
      expect(isLoginForm(await providerGet(String(again.headers.location), jar))).to.equal(true);
    });
  });

  describe('forms from other sites', () => {
    let test: TestApp;
    before(async () => {
      test = await createTestApp(1, signInEnvironment());
    });
    after(async () => test?.close());

    it('refuses a sign-out posted from another origin or site (403, the session lives on); its own pages’ form signs out', async () => {
      const { jar } = await signIn(test.app, 'alice');
      const foreign: Record<string, string>[] = [
        { Origin: 'https://evil.example' },
        { Origin: 'null' },
        { Origin: REDIRECT_BASE, 'Sec-Fetch-Site': 'cross-site' },
        { Referer: 'https://evil.example/attack.html' },
      ];
      for (const headers of foreign) {
        const refused = await browse(test.app, jar, '/catalogue/admin/sign-out', {
          method: 'post',
          headers,
        });
        expect(refused.status, JSON.stringify(headers)).to.equal(403);
        expect(refused.text).to.include('sent from another');
        expect(refused.headers['set-cookie'], 'no cookie cleared').to.equal(undefined);
        expect(jar.get('cairn_admin_session'), 'session cookie kept').to.not.equal(undefined);
        const page = await browse(test.app, jar, JOBS);
        expect(page.status, 'still signed in').to.equal(200);
      }
      const own = await browse(test.app, jar, '/catalogue/admin/sign-out', {
        method: 'post',
        headers: { Origin: REDIRECT_BASE, 'Sec-Fetch-Site': 'same-origin' },
      });
      expect(own.status).to.equal(303);
      expect(jar.get('cairn_admin_session')).to.equal(undefined);
      expect((await browse(test.app, jar, JOBS)).status, 'signed out').to.equal(303);
    });
  });

  describe('logging', () => {
    let test: TestApp;
    before(async () => {
      test = await createTestApp(1, signInEnvironment());
    });
    after(async () => test?.close());

    it('logs sign-in and sign-out without codes, state, tokens or session ids', async () => {
      const lines: string[] = [];
      const logger = createLogger('info', 'test');
      logger.clear().add(
        new winston.transports.Stream({
          stream: new Writable({
            write(chunk: Buffer, _encoding, done) {
              lines.push(chunk.toString());
              done();
            },
          }),
        }),
      );
      const app = createApp({ config: test.config, backend: test.backend, logger });
      const jar = new CookieJar();
      const start = await browse(app, jar, JOBS);
      const callback = new URL(await loginAtProvider(String(start.headers.location), jar, 'alice'));
      expect((await browse(app, jar, callback.toString())).status).to.equal(303);
      const sessionId = jar.get('cairn_admin_session')!.value;
      expect((await browse(app, jar, JOBS)).status).to.equal(200);
      expect(
        (await browse(app, jar, '/catalogue/admin/sign-out', { method: 'post' })).status,
      ).to.equal(303);

      const log = lines.join('');
      expect(log).to.include('"message":"admin sign-in"');
      expect(log).to.include('"user":"alice"');
      expect(log).to.include('"message":"admin sign-out"');
      const secrets = [
        callback.searchParams.get('code')!,
        callback.searchParams.get('state')!,
        new URL(String(start.headers.location)).searchParams.get('nonce')!,
        sessionId,
      ];
      for (const secret of secrets) expect(log).to.not.include(secret);
      expect(log).to.not.match(/eyJ[A-Za-z0-9_-]{10,}/); // no JWT (access, ID or refresh token)
    });
  });

  describe('refresh', () => {
    let test: TestApp;
    let app: Express;
    let queue: JobQueues;
    let redis: Redis;
    const prefix = `cairn-test-admin-refresh-${process.pid}-${Date.now()}`;
    before(async () => {
      await requireRedis();
      // Access tokens of cairn-web-short-tokens live 3 s; no clock tolerance: an expired token
      // fails verification, so a page after expiry loads only with a refreshed token. Sessions
      // are kept in Redis (scaled mode), where the test reads the token the session holds.
      test = await createTestApp(
        1,
        signInEnvironment({
          AUTH_WEB_CLIENT_ID: 'cairn-web-short-tokens',
          AUTH_CLOCK_TOLERANCE_SECONDS: '0',
          REDIS_URL,
          WORKER_QUEUE_PREFIX: prefix,
        }),
      );
      queue = new JobQueues(REDIS_URL, test.config.worker);
      app = createApp({
        config: test.config,
        backend: test.backend,
        logger: createLogger('silent', 'test'),
        queue,
      });
      redis = new Redis(REDIS_URL);
    });
    after(async () => {
      await queue?.obliterate();
      await queue?.close();
      const keys = (await redis?.keys(`${prefix}:*`)) ?? [];
      if (keys.length > 0) await redis.del(...keys);
      redis?.disconnect();
      await test?.close();
    });

    /** The session's tokens as the API processes keep them in Redis. */
    async function sessionTokens(
      jar: CookieJar,
    ): Promise<{ accessToken: string; accessExpiresAt: number }> {
      const id = defined(jar.get('cairn_admin_session'), 'the session cookie').value;
      const [key, ...others] = await redis.keys(`${prefix}:*:${id}`);
      expect(others, 'one session entry').to.deep.equal([]);
      const stored = defined(await redis.get(defined(key, 'the session entry')), 'the session');
      return (JSON.parse(stored) as { tokens: { accessToken: string; accessExpiresAt: number } })
        .tokens;
    }

    it('refreshes the session’s access token after it expires', async () => {
      const { jar, returnedTo } = await signIn(app, 'alice');
      const original = await sessionTokens(jar);
      expect((await browse(app, jar, returnedTo)).status).to.equal(200);
      // Waits for the state the test needs, not a fixed time: the session's own token expired,
      // both by its exp claim (the verifier's view) and by the expiry the session recorded.
      await waitUntilExpired(original.accessToken);
      while (Date.now() <= original.accessExpiresAt) {
        await new Promise((resolve) =>
          setTimeout(resolve, original.accessExpiresAt + 1 - Date.now()),
        );
      }
      const later = await browse(app, jar, returnedTo);
      expect(later.status, later.text).to.equal(200);
      expect(later.text).to.include('id="operator">alice<');
      // The page was served on a new token, written back to the session.
      const refreshed = await sessionTokens(jar);
      expect(refreshed.accessToken).to.not.equal(original.accessToken);
      expect(refreshed.accessExpiresAt).to.be.above(original.accessExpiresAt);
    });
  });

  describe('a token for another audience', () => {
    let test: TestApp;
    before(async () => {
      // The catalogue calls itself cairn-downstream: cairn-web tokens are not addressed to it.
      test = await createTestApp(1, signInEnvironment({ AUTH_CLIENT_ID: CLIENT.downstream }));
    });
    after(async () => test?.close());

    it('gets a 403 page after signing in', async () => {
      const { jar, returnedTo } = await signIn(test.app, 'alice');
      const page = await browse(test.app, jar, returnedTo);
      expect(page.status).to.equal(403);
      expect(page.text).to.include('not intended for this service');
    });
  });

  describe('configuration', () => {
    it('answers 503 with an explanation when sign-in is not configured, and stays closed', async () => {
      const bearerOnly = await createTestApp(1, {
        AUTH_ISSUER_URL: ISSUER,
        AUTH_CLIENT_ID: CLIENT.catalogue,
      });
      const nothing = await createTestApp(1);
      try {
        for (const app of [bearerOnly.app, nothing.app]) {
          for (const path of [JOBS, '/catalogue/admin/sign-in', '/catalogue/admin/dead-letters']) {
            const page = await request(app).get(path).set('Accept', HTML);
            expect(page.status, path).to.equal(503);
            expect(page.text).to.include('AUTH_WEB_CLIENT_ID');
          }
        }
        // JSON stays as it was: bearer tokens where a provider is configured, 503 otherwise.
        const json = await request(bearerOnly.app)
          .get(JOBS)
          .set('Authorization', `Bearer ${aliceBearer}`);
        expect(json.status).to.equal(200);
        expect((await request(nothing.app).get(JOBS)).status).to.equal(503);
      } finally {
        await bearerOnly.close();
        await nothing.close();
      }
    });

    it('answers 503 (never a redirect or an open page) when the provider cannot be reached', async () => {
      const port = await closedLoopbackPort();
      const test = await createTestApp(
        1,
        signInEnvironment({ AUTH_ISSUER_URL: `http://127.0.0.1:${port}/realms/${REALM}` }),
      );
      try {
        const page = await request(test.app).get(JOBS).set('Accept', HTML);
        expect(page.status).to.equal(503);
        expect(page.headers['retry-after']).to.equal('5');
        expect(page.text).to.include('The identity provider cannot be reached for sign-in');
        expect(page.text).to.not.include(String(port));
      } finally {
        await test.close();
      }
    });

    it('marks the cookies Secure and redirects to https behind an https proxy', async () => {
      const environment = signInEnvironment({ TRUST_PROXY: 'true' });
      delete environment.AUTH_WEB_REDIRECT_BASE;
      const test = await createTestApp(1, environment);
      try {
        const jar = new CookieJar();
        const response = await request(test.app)
          .get(JOBS)
          .set('Accept', HTML)
          .set('Host', 'catalogue.example.org')
          .set('X-Forwarded-Proto', 'https');
        jar.store(response.headers['set-cookie']);
        expect(response.status).to.equal(303);
        expect(
          new URL(String(response.headers.location)).searchParams.get('redirect_uri'),
        ).to.equal('https://catalogue.example.org/catalogue/admin/callback');
        expect(jar.get('cairn_admin_sign_in')).to.include({ secure: true, httpOnly: true });
      } finally {
        await test.close();
      }
    });
  });

  describe('scaled mode (real Redis and worker)', () => {
    let test: TestApp;
    let app: Express;
    let queue: JobQueues;
    let ingestLog: SqliteIngestLog;
    let stopWorkers: (() => Promise<void>) | undefined;
    let jobId: string;
    /** A second API process of the same deployment: its own queues and Redis connections. */
    let other: Express;
    let otherQueue: JobQueues;

    before(async () => {
      await requireRedis();
      test = await createTestApp(
        1,
        signInEnvironment({
          REDIS_URL,
          WORKER_QUEUE_PREFIX: `cairn-test-admin-html-${process.pid}-${Date.now()}`,
        }),
      );
      ingestLog = new SqliteIngestLog(test.config.worker.ingestLogPath);
      queue = new JobQueues(REDIS_URL, test.config.worker);
      const logger = createLogger('silent', 'test');
      app = createApp({ config: test.config, backend: test.backend, logger, queue, ingestLog });
      otherQueue = new JobQueues(REDIS_URL, test.config.worker);
      other = createApp({
        config: test.config,
        backend: test.backend,
        logger,
        queue: otherQueue,
        ingestLog,
      });
      stopWorkers = startWorkers({
        redisUrl: REDIS_URL,
        config: test.config.worker,
        backend: test.backend,
        logger,
        ingestLog,
      }).close;
      // Two good records and one that is not a record: the worker writes two and keeps the
      // third as a dead letter.
      jobId = await queue.enqueue('ingest', {
        documents: [
          { name: 'good-1', content: JSON.stringify(newRecord(2)) },
          { name: 'not-a-record', content: '{"type":"Nonsense","id":"not-a-record"}' },
          { name: 'good-2', content: JSON.stringify(newRecord(3)) },
        ],
        requestedBy: 'admin-html-test',
      });
      await waitFor(async () => (await ingestLog.get(jobId)) !== null, 30_000, 'the job');
    });
    after(async () => {
      await stopWorkers?.();
      await queue?.obliterate();
      await queue?.close();
      await otherQueue?.close();
      await ingestLog?.close();
      await test?.close();
    });

    it('keeps sessions in Redis: a session opened on one API process works on another, and a sign-in begun on one completes on the other', async () => {
      const { jar } = await signIn(app, 'alice');
      const page = await browse(other, jar, JOBS);
      expect(page.status, page.text).to.equal(200);
      expect(page.text).to.include('Signed in as <strong id="operator">alice</strong>');

      const crossed = new CookieJar();
      const start = await browse(other, crossed, `${JOBS}?f=html`);
      expect(start.status, start.text).to.equal(303);
      const callback = await loginAtProvider(String(start.headers.location), crossed, 'alice');
      const done = await browse(app, crossed, callback);
      expect(done.status, done.text).to.equal(303);
      expect((await browse(other, crossed, JOBS)).status).to.equal(200);

      const signedOut = await browse(app, jar, '/catalogue/admin/sign-out', { method: 'post' });
      expect(signedOut.status).to.equal(303);
      expect((await browse(other, jar, JOBS)).status, 'signed out everywhere').to.equal(303);
    });

    it('a flood of anonymous sign-in starts stores nothing and cannot push out a real sign-in in progress', async function () {
      // 10,050 requests: on a machine shared with other work they took over the suite's 90 s,
      // which says nothing of what is tested here.
      this.timeout(300_000);
      // Alice starts signing in (on one process) before the flood and finishes after it.
      const jar = new CookieJar();
      const start = await browse(app, jar, `${JOBS}?f=html`);
      expect(start.status).to.equal(303);
      const sealed = jar.get('cairn_admin_sign_in')!.value;
      expect(sealed.length, 'the sign-in lives in its cookie').to.be.greaterThan(200);

      // 10,050 anonymous starts over real HTTP, on both processes (more than the 10,000 the
      // server-side store once kept, evicting the oldest).
      const servers = [app.listen(0, '127.0.0.1'), other.listen(0, '127.0.0.1')];
      try {
        await Promise.all(servers.map((server) => once(server, 'listening')));
        const bases = servers.map(
          (server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        );
        let next = 0;
        let redirected = 0;
        const flood = async (lane: number) => {
          while (next < 10_050) {
            next += 1;
            const response = await fetch(`${bases[lane % 2]}/catalogue/admin/sign-in`, {
              redirect: 'manual',
            });
            await response.arrayBuffer();
            if (response.status === 303) redirected += 1;
          }
        };
        await Promise.all(Array.from({ length: 16 }, (_, lane) => flood(lane)));
        expect(redirected).to.equal(10_050);
      } finally {
        for (const server of servers) server.close();
      }
      const redis = new Redis(REDIS_URL);
      try {
        const keys = await redis.keys(`${test.config.worker.queuePrefix}:admin:sign-in*`);
        expect(keys, 'only the deployment’s one secret').to.deep.equal([
          `${test.config.worker.queuePrefix}:admin:sign-in-secret`,
        ]);
      } finally {
        redis.disconnect();
      }

      const callback = await loginAtProvider(String(start.headers.location), jar, 'alice');
      const done = await browse(other, jar, callback);
      expect(done.status, done.text).to.equal(303);
      expect((await browse(app, jar, JOBS)).status).to.equal(200);
    });

    it('shows the worker’s job, its failure and the dead letter with its payload', async () => {
      const { jar } = await signIn(app, 'alice');
      const jobs = await browse(app, jar, JOBS);
      expect(jobs.status).to.equal(200);
      expect(jobs.text).to.include(`data-job-id="${jobId}"`);
      expect(jobs.text).to.include('admin-html-test');

      const job = await browse(app, jar, `${JOBS}/${encodeURIComponent(jobId)}`);
      expect(job.text).to.match(/<dt>Written<\/dt><dd>2<\/dd>/);
      expect(job.text).to.match(/<dt>Rejected<\/dt><dd>1<\/dd>/);
      expect(job.text).to.include('1 failed record<');

      const failures = await browse(app, jar, `${JOBS}/${encodeURIComponent(jobId)}/failures`);
      expect(failures.status).to.equal(200);
      expect(failures.text).to.include('Failures 1–1 of 1');
      expect(failures.text).to.include('<code>not-a-record (id not-a-record)</code>');
      expect(failures.text).to.include('not a known JSON metadata format');

      const letters = await browse(app, jar, '/catalogue/admin/dead-letters');
      expect(letters.status).to.equal(200);
      expect(letters.text).to.include('Dead letters 1–1 of 1');
      expect(letters.text).to.include(`<code>${jobId}</code>`);
      expect(letters.text).to.include('&quot;Nonsense&quot;');
    });
  });
});

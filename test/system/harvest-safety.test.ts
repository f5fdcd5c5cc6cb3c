/**
 * Safe harvesting: a harvest reaches public addresses only, unless
 * HARVEST_ALLOWED_ADDRESSES names an internal one. An "internal" server on loopback stands for
 * the services behind the catalogue: without the allow-list nothing reaches it however its
 * address is written (literal IPv4 or IPv6, IPv4-mapped IPv6, a name that resolves to it, a
 * redirect), through the admin source endpoints and CSW-T Harvest alike; the allow-list opens
 * an address with its port, redirects stay within their origin, the body is capped
 * after decompression, and a refusal never carries what the source answered. DNS rebinding is
 * provoked with a stand-in resolver (the only mock here: a resolver whose answers change).
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { UnrecoverableError } from 'bullmq';
import request from 'supertest';
import { createTokenClient } from '../../shared/auth/token-exchange.js';
import { AddressPolicy, SourceClient } from '../../shared/harvest/index.js';
import { SqliteHarvestStore } from '../../shared/search/open-stores.js';
import type { Resolver } from '../../shared/harvest/guarded-fetch.js';
import { loadConfig, type HarvestConfig } from '../../shared/config/index.js';
import { createLogger } from '../../shared/logging/index.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import type { JobContext } from '../../services/worker/cairn-job.js';
import { HarvestJob } from '../../services/worker/jobs/harvest-job.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { createCatalogueApp } from '../support/catalogue-app.js';
import type { TestApp } from '../support/test-app.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  TOKEN_ENDPOINT,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';
import { allIds } from './harvest-support.js';
import { defined } from '../support/defined.js';

const WORKER_SECRET = 'cairn-worker-test-secret';
/** Text only the internal server knows: it must never reach a client or the catalogue. */
const SECRET = 'INTERNAL-ONLY-7f3a';
const SECRET_RECORD = { ...[...generateRecords(1, 41, 900)][0], id: 'internal-secret-record' };
const PUBLIC_RECORD = { ...[...generateRecords(1, 42, 901)][0], id: 'allowed-record' };

interface InternalServer {
  port: number;
  /** Every request received: path and whether it carried an Authorization header. */
  hits: { path: string; authorized: boolean }[];
  close(): Promise<void>;
}

/** The internal service: a record, an error page that names secrets, redirects, a gzip bomb. */
async function startInternalServer(): Promise<InternalServer> {
  const hits: InternalServer['hits'] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://internal');
    hits.push({ path: url.pathname, authorized: req.headers.authorization !== undefined });
    const json = (value: unknown) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(value));
    };
    switch (url.pathname) {
      case '/secret.json':
        return json(SECRET_RECORD);
      case '/record.json':
        return json(PUBLIC_RECORD);
      case '/record.json.gz':
        res.setHeader('content-type', 'application/json');
        res.setHeader('content-encoding', 'gzip');
        return res.end(gzipSync(JSON.stringify(PUBLIC_RECORD)));
      case '/bomb':
        // 38 KB on the wire, 8 MiB once inflated.
        res.setHeader('content-type', 'application/json');
        res.setHeader('content-encoding', 'gzip');
        return res.end(gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20)));
      case '/error':
        res.statusCode = 500;
        return res.end(`database password=${SECRET} at /srv/internal/app.js:12`);
      case '/echo': {
        const parts: Buffer[] = [];
        req.on('data', (part: Buffer) => parts.push(part));
        req.on('end', () => json({ method: req.method, body: Buffer.concat(parts).toString() }));
        return;
      }
      case '/hang':
        // Headers, the start of a body, then nothing: the deadline covers the body too.
        res.setHeader('content-type', 'application/json');
        res.write('{"id":');
        return;
      case '/redirect':
        res.statusCode = Number(url.searchParams.get('status') ?? '302');
        res.setHeader('location', url.searchParams.get('to') ?? '/');
        return res.end(SECRET);
      case '/loop':
        res.statusCode = 307;
        res.setHeader('location', '/loop');
        return res.end();
      default:
        res.statusCode = 404;
        return res.end(SECRET);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function environment(extra: Record<string, string> = {}): Record<string, string> {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-harvest-safety-'));
  return {
    AUTH_ISSUER_URL: ISSUER,
    AUTH_CLIENT_ID: CLIENT.catalogue,
    AUTH_EXCHANGE_CLIENT_ID: CLIENT.worker,
    AUTH_EXCHANGE_CLIENT_SECRET: WORKER_SECRET,
    WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
    ...extra,
  };
}

describe('safe harvesting: internal addresses, redirects, sizes, error bodies (real Keycloak)', function () {
  this.timeout(60000);
  let alice: string;
  let internal: InternalServer;

  before(async () => {
    await requireKeycloak();
    alice = (await userTokens('alice')).accessToken;
    internal = await startInternalServer();
  });
  after(async () => {
    await internal?.close();
  });

  /** Registers a document source and runs it; the run's HTTP answer. */
  const harvestDocument = async (target: TestApp, id: string, url: string) => {
    const registered = await request(target.app)
      .post('/catalogue/admin/sources')
      .set('Authorization', `Bearer ${alice}`)
      .send({ id, protocol: 'document', url });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    return request(target.app)
      .post(`/catalogue/admin/sources/${id}/run`)
      .set('Authorization', `Bearer ${alice}`);
  };

  describe('without an allow-list (the default)', () => {
    let target: TestApp;
    before(async () => {
      target = await createCatalogueApp([], environment());
    });
    after(async () => target?.close());

    it('refuses loopback however it is written, before connecting, and writes nothing', async () => {
      const { port } = internal;
      const hits = internal.hits.length;
      const cases: [string, RegExp][] = [
        [
          `http://127.0.0.1:${port}/secret.json`,
          /127\.0\.0\.1 is not a public address \(loopback\)/,
        ],
        [
          `http://127.1.2.3:${port}/secret.json`,
          /127\.1\.2\.3 is not a public address \(loopback\)/,
        ],
        [
          `http://2130706433:${port}/secret.json`,
          /127\.0\.0\.1 is not a public address \(loopback\)/,
        ],
        [`http://[::1]:${port}/secret.json`, /::1 is not a public address \(loopback\)/],
        [
          `http://[::ffff:127.0.0.1]:${port}/secret.json`,
          /::ffff:7f00:1 is not a public address \(loopback\)/,
        ],
        [`http://0.0.0.0:${port}/secret.json`, /0\.0\.0\.0 is not a public address \(unspecified/],
        [
          `http://localhost:${port}/secret.json`,
          /localhost resolves to .*, which is not a public address \(loopback\)/,
        ],
      ];
      for (const [index, [url, message]] of cases.entries()) {
        const response = await harvestDocument(target, `internal-${index}`, url);
        assert.equal(response.status, 502, `${url}: ${JSON.stringify(response.body)}`);
        const body = JSON.stringify(response.body);
        assert.match(body, message, url);
        assert.match(body, /HARVEST_ALLOWED_ADDRESSES/);
        assert.doesNotMatch(body, new RegExp(SECRET));
      }
      assert.equal(internal.hits.length, hits, 'the internal server was never contacted');
      assert.deepEqual(await allIds(target), []);
      assert.equal(await target.backend.get(SECRET_RECORD.id), null);
    });

    it('refuses a CSW-T Harvest of an internal document with an ExceptionReport', async () => {
      const before = internal.hits.length;
      const response = await request(target.app)
        .post('/catalogue/csw')
        .set('Authorization', `Bearer ${alice}`)
        .set('Content-Type', 'application/xml')
        .send(
          `<csw:Harvest xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" service="CSW" version="2.0.2"><csw:Source>http://127.0.0.1:${internal.port}/secret.json</csw:Source><csw:ResourceType>http://purl.org/dc/elements/1.1/</csw:ResourceType></csw:Harvest>`,
        );
      assert.equal(response.status, 502, response.text);
      assert.match(response.text, /ExceptionReport/);
      assert.match(response.text, /not a public address \(loopback\)/);
      assert.doesNotMatch(response.text, new RegExp(SECRET));
      assert.equal(internal.hits.length, before);
      assert.equal(await target.backend.get(SECRET_RECORD.id), null);
    });
  });

  describe('with HARVEST_ALLOWED_ADDRESSES=127.0.0.1:<the internal port>', () => {
    let target: TestApp;
    before(async () => {
      target = await createCatalogueApp(
        [],
        environment({
          HARVEST_ALLOWED_ADDRESSES: `127.0.0.1:${internal.port}`,
          HARVEST_MAX_BYTES: '65536',
        }),
      );
    });
    after(async () => target?.close());
    const base = () => `http://127.0.0.1:${internal.port}`;

    it('harvests from the allowed address, a gzip body included', async () => {
      const plain = await harvestDocument(target, 'allowed', `${base()}/record.json`);
      assert.equal(plain.status, 200, JSON.stringify(plain.body));
      assert.equal((plain.body as { written: number }).written, 1);
      const zipped = await harvestDocument(target, 'allowed-gz', `${base()}/record.json.gz`);
      assert.equal(zipped.status, 200, JSON.stringify(zipped.body));
      assert.equal((zipped.body as { written: number }).written, 1);
      assert.ok(await target.backend.get(PUBLIC_RECORD.id));
    });

    it('never echoes what the source answered: an error page is a 502 naming the status', async () => {
      const response = await harvestDocument(target, 'error-page', `${base()}/error`);
      assert.equal(response.status, 502);
      const body = JSON.stringify(response.body);
      assert.match(body, /answered HTTP 500/);
      assert.doesNotMatch(body, new RegExp(SECRET));
      assert.doesNotMatch(body, /password|app\.js/);
      const state = await request(target.app)
        .get('/catalogue/admin/sources/error-page')
        .set('Authorization', `Bearer ${alice}`);
      assert.doesNotMatch(JSON.stringify(state.body), new RegExp(SECRET));
    });

    it('follows redirects within the origin only: another host name, address or port is refused', async () => {
      const allowed = await harvestDocument(
        target,
        'redirect-allowed',
        `${base()}/redirect?to=${encodeURIComponent('/record.json')}`,
      );
      assert.equal(allowed.status, 200, JSON.stringify(allowed.body));

      const before = internal.hits.length;
      for (const [id, to] of [
        ['redirect-by-name', `http://localhost:${internal.port}/secret.json`],
        ['redirect-address', `http://127.0.0.2:${internal.port}/secret.json`],
        ['redirect-port', `http://127.0.0.1:${internal.port + 1}/secret.json`],
      ] as const) {
        const refused = await harvestDocument(
          target,
          id,
          `${base()}/redirect?to=${encodeURIComponent(to)}`,
        );
        assert.equal(refused.status, 502, JSON.stringify(refused.body));
        const origin = new URL(to).origin.replace(/[.]/g, '\\.');
        assert.match(
          JSON.stringify(refused.body),
          new RegExp(`redirected to another origin \\(${origin}\\), which is not followed`),
        );
      }
      assert.deepEqual(
        internal.hits.slice(before).map((hit) => hit.path),
        ['/redirect', '/redirect', '/redirect'],
      );
      assert.equal(await target.backend.get(SECRET_RECORD.id), null);

      const loop = await harvestDocument(target, 'redirect-loop', `${base()}/loop`);
      assert.equal(loop.status, 502);
      assert.match(JSON.stringify(loop.body), /redirected more than 5 times/);
      const scheme = await harvestDocument(
        target,
        'redirect-file',
        `${base()}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`,
      );
      assert.equal(scheme.status, 502);
      assert.match(JSON.stringify(scheme.body), /not an http\(s\) URL/);
    });

    it('caps the body after decompression (a gzip bomb is refused)', async () => {
      const response = await harvestDocument(target, 'bomb', `${base()}/bomb`);
      assert.equal(response.status, 502, JSON.stringify(response.body));
      assert.match(JSON.stringify(response.body), /answered more than 65536 bytes/);
    });
  });

  it('redirects keep the method and body on 307, turn a POST into a GET on 302; a deadline covers the body', async () => {
    const client = new SourceClient({
      auth: { type: 'none' },
      policy: new AddressPolicy([`127.0.0.1:${internal.port}`]),
      timeoutMs: 500,
    });
    const base = `http://127.0.0.1:${internal.port}`;
    const post = (status: number) =>
      client.request(`${base}/redirect?status=${status}&to=%2Fecho`, {
        method: 'POST',
        body: '<GetRecords/>',
        contentType: 'application/xml',
      });
    assert.deepEqual(JSON.parse((await post(307)).text), {
      method: 'POST',
      body: '<GetRecords/>',
    });
    assert.deepEqual(JSON.parse((await post(302)).text), { method: 'GET', body: '' });
    const started = Date.now();
    await assert.rejects(client.request(`${base}/hang`), /did not answer in time/);
    assert.ok(Date.now() - started < 5000);
  });

  it('the worker’s harvest job (scaled mode) refuses too, as final, unless its configuration allows the address', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cairn-harvest-job-'));
    const backend = new SqliteBackend({ path: join(directory, 'cairn.sqlite') });
    await backend.init();
    try {
      const config = loadConfig({
        LOG_LEVEL: 'silent',
        WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
        HARVEST_ALLOWED_ADDRESSES: `127.0.0.1:${internal.port}`,
      });
      const harvestStore = new SqliteHarvestStore(config.worker.ingestLogPath);
      const context = (harvest?: HarvestConfig): JobContext => ({
        jobId: 'job-1',
        backend,
        config: config.worker,
        ...(harvest === undefined ? {} : { harvest }),
        harvestStore,
        logger: createLogger('silent', 'test'),
        deadLetter: async () => undefined,
      });
      const payload = { source: { url: `http://127.0.0.1:${internal.port}/record.json` } };
      const before = internal.hits.length;
      // Started without the harvest settings (as before this change): public addresses only.
      await assert.rejects(new HarvestJob().perform(payload, context()), (error: Error) => {
        assert.ok(error instanceof UnrecoverableError, 'not retried');
        assert.match(error.message, /not a public address \(loopback\)/);
        return true;
      });
      assert.equal(internal.hits.length, before);
      const result = await new HarvestJob().perform(payload, context(config.harvest));
      assert.equal(result.written, 1);
    } finally {
      await backend.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('a redirect to another port of an allowed address is refused, credentials never leave', async () => {
    const other = await startInternalServer();
    try {
      const client = new SourceClient({
        auth: { type: 'client-credentials' },
        tokens: defined(
          createTokenClient(TOKEN_ENDPOINT, {
            clientId: CLIENT.worker,
            clientSecret: WORKER_SECRET,
          }),
          'the token client',
        ),
        // Every port of 127.0.0.1: the redirect rule alone keeps the second server out.
        policy: new AddressPolicy(['127.0.0.1:*']),
      });
      const target = `http://127.0.0.1:${other.port}/record.json`;
      await assert.rejects(
        client.request(
          `http://127.0.0.1:${internal.port}/redirect?to=${encodeURIComponent(target)}`,
        ),
        /redirected to another origin/,
      );
      assert.equal(internal.hits.at(-1)?.authorized, true);
      assert.deepEqual(other.hits, []);
    } finally {
      await other.close();
    }
  });

  it('a bare allow-list entry opens ports 80 and 443 only, not the internal server’s port', async () => {
    const client = new SourceClient({
      auth: { type: 'none' },
      policy: new AddressPolicy(['127.0.0.1']),
    });
    const before = internal.hits.length;
    await assert.rejects(
      client.request(`http://127.0.0.1:${internal.port}/record.json`),
      new RegExp(
        `127\\.0\\.0\\.1 is not a public address \\(loopback; port ${internal.port} is not allowed for it\\)`,
      ),
    );
    assert.equal(internal.hits.length, before, 'never contacted');
  });

  it('DNS rebinding: the address is checked where the socket connects, on every request', async () => {
    // Stand-in resolver (the fault cannot be provoked without a DNS server): the name first
    // resolves to the allowed 127.0.0.1, then to a private address.
    const answers = ['127.0.0.1', '10.0.0.7'];
    const calls: string[] = [];
    const resolve: Resolver = (hostname, _options, callback) => {
      calls.push(hostname);
      const address = defined(answers[Math.min(calls.length - 1, answers.length - 1)], 'an answer');
      callback(null, [{ address, family: 4 }]);
    };
    const client = new SourceClient({
      auth: { type: 'none' },
      policy: new AddressPolicy([`127.0.0.1:${internal.port}`]),
      resolve,
    });
    const url = `http://catalogue.example:${internal.port}/record.json`;
    const first = await client.request(url);
    assert.equal(JSON.parse(first.text).id, PUBLIC_RECORD.id);
    const before = internal.hits.length;
    await assert.rejects(client.request(url), (error: Error) => {
      assert.match(
        error.message,
        /catalogue\.example resolves to 10\.0\.0\.7, which is not a public address \(private\)/,
      );
      return true;
    });
    assert.equal(internal.hits.length, before, 'the second request never left');
    assert.deepEqual(calls, ['catalogue.example', 'catalogue.example']);
  });
});

/**
 * Harvesting against hostile sources (issue 47), in scaled mode: the API and the worker's
 * harvest code in this process over a real Redis queue and dead-letter store, SQLite as the
 * catalogue, tokens from the real Keycloak. Each source is a small HTTP server of the test:
 *
 * - one that redirects to another port of the allowed address, where a stand-in "engine"
 *   answers `_cat/indices` (index names, UUIDs, sizes), and the real search engine itself;
 * - one that answers such a payload on its own (allowed) port.
 *
 * Nothing is mocked.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { loadConfig, type Config } from '../../shared/config/index.js';
import type { IngestLogEntry } from '../../shared/ingest/ingest-log.js';
import type { JobQueues } from '../../shared/queue/job-queues.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import type { SqliteIngestLog } from '../../shared/search/sqlite/sqlite-ingest-log.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';
import { REDIS_URL, requireRedis, waitFor } from '../integration/worker/worker-support.js';
import { startScaledApp, type ScaledApp } from '../support/scaled-app.js';

/** What the engine's `_cat/indices` shows: never to reach a dead letter or a client whole. */
const INDEX_UUID = 'Zq4mN8xTQ0-7f3aINTERNAL';
const CAT_INDICES = [
  'health status index                 uuid                    pri rep docs.count store.size',
  ...Array.from(
    { length: 40 },
    (_, index) =>
      `green  open   cairn-records-v${index}      ${INDEX_UUID}${index}   1   0      ${1000 + index}     ${index}mb`,
  ),
].join('\n');

interface HostileServer {
  port: number;
  base: string;
  hits: string[];
  close(): Promise<void>;
}

/** An HTTP server on loopback answering with `handle`; every request path is recorded. */
async function startServer(
  handle: (path: string, response: import('node:http').ServerResponse) => void,
): Promise<HostileServer> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://source').pathname;
    hits.push(path);
    handle(path, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The stand-in engine: `_cat/indices` as text. */
function engineLike(): Promise<HostileServer> {
  return startServer((_path, res) => {
    res.setHeader('content-type', 'text/plain; charset=UTF-8');
    res.end(CAT_INDICES);
  });
}

describe('harvesting hostile sources (scaled mode: real Redis, worker code, Keycloak)', function () {
  this.timeout(120000);
  let alice: string;
  let backend: SqliteBackend;
  let scaled: ScaledApp | undefined;
  let app: Express;
  let queue: JobQueues;
  let ingestLog: SqliteIngestLog;
  let config: Config;
  let source: HostileServer;
  let engine: HostileServer;
  const engineUrl = process.env.CAIRN_TEST_ELASTICSEARCH_URL;

  before(async () => {
    await requireKeycloak();
    await requireRedis();
    alice = (await userTokens('alice')).accessToken;
    engine = await engineLike();
    // The hostile source: redirects (to wherever `?to=` says) and answers `_cat/indices` itself.
    source = await startServer((path, res) => {
      if (path === '/to-engine') {
        res.statusCode = 302;
        res.setHeader('location', `${engine.base}/_cat/indices?v`);
        return res.end();
      }
      if (path === '/to-real-engine') {
        res.statusCode = 302;
        res.setHeader('location', `${engineUrl ?? 'http://127.0.0.1:9'}/_cat/indices?v`);
        return res.end();
      }
      if (path === '/_cat/indices') {
        res.setHeader('content-type', 'text/plain');
        return res.end(CAT_INDICES);
      }
      res.statusCode = 404;
      res.end();
    });
    const directory = mkdtempSync(join(tmpdir(), 'cairn-harvest-hostile-'));
    backend = new SqliteBackend({ path: join(directory, 'cairn.sqlite') });
    await backend.init();
    config = loadConfig({
      LOG_LEVEL: 'silent',
      REDIS_URL,
      AUTH_ISSUER_URL: ISSUER,
      AUTH_CLIENT_ID: CLIENT.catalogue,
      WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
      WORKER_QUEUE_PREFIX: `cairn-test-harvest-hostile-${process.pid}-${Date.now()}`,
      WORKER_BACKOFF_MS: '50',
      // The source's own port only: not the engine beside it on the same address.
      HARVEST_ALLOWED_ADDRESSES: `127.0.0.1:${source.port}`,
    });
    scaled = startScaledApp(config, backend);
    ({ app, queue, ingestLog } = scaled);
  });
  after(async () => {
    await scaled?.close();
    await backend?.close();
    await source?.close();
    await engine?.close();
  });

  const asAlice = (call: request.Test) => call.set('Authorization', `Bearer ${alice}`);

  /** Registers a document source, runs it through the queue, waits for the job's end. */
  const runDocument = async (id: string, url: string): Promise<IngestLogEntry> => {
    const created = await asAlice(request(app).post('/catalogue/admin/sources')).send({
      id,
      protocol: 'document',
      url,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const accepted = await asAlice(request(app).post(`/catalogue/admin/sources/${id}/run`));
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    const { jobId } = accepted.body as { jobId: string };
    await waitFor(
      async () => ['completed', 'failed'].includes((await ingestLog.get(jobId))?.status ?? ''),
      60000,
      `harvest job ${jobId}`,
    );
    return (await ingestLog.get(jobId)) as IngestLogEntry;
  };

  /** Every dead letter as an editor reads it over HTTP (the list, then each one whole). */
  const deadLettersAsEditor = async (): Promise<string> => {
    const list = await asAlice(request(app).get('/catalogue/admin/dead-letters?limit=1000'));
    assert.equal(list.status, 200);
    const letters = (list.body as { deadLetters: { id: string }[] }).deadLetters;
    const bodies = await Promise.all(
      letters.map(async (letter) => {
        const one = await asAlice(
          request(app).get(`/catalogue/admin/dead-letters/${encodeURIComponent(letter.id)}`),
        );
        return JSON.stringify(one.body);
      }),
    );
    return JSON.stringify(list.body) + bodies.join('\n');
  };

  it('a redirect to another port of the allowed address (an engine) is refused and never followed', async () => {
    const entry = await runDocument('to-engine', `${source.base}/to-engine`);
    assert.equal(entry.status, 'failed', JSON.stringify(entry));
    assert.match(
      entry.error ?? '',
      new RegExp(`redirected to another origin \\(http://127\\.0\\.0\\.1:${engine.port}\\)`),
    );
    assert.deepEqual(engine.hits, [], 'the engine was never contacted');
    const letters = await deadLettersAsEditor();
    assert.doesNotMatch(letters, new RegExp(INDEX_UUID));
    assert.doesNotMatch(letters, /cairn-records-v/);
  });

  it('the real search engine is refused both through a redirect and as a source of its own', async function () {
    if (!engineUrl) this.skip();
    const redirected = await runDocument('to-real-engine', `${source.base}/to-real-engine`);
    assert.equal(redirected.status, 'failed');
    assert.match(redirected.error ?? '', /redirected to another origin/);
    // Registered at the engine's own address: the allow-list names the source's port only.
    const direct = await runDocument('real-engine', `${engineUrl}/_cat/indices?v`);
    assert.equal(direct.status, 'failed');
    const port = new URL(engineUrl!).port;
    assert.match(
      direct.error ?? '',
      new RegExp(`is not a public address \\(loopback; port ${port} is not allowed for it\\)`),
    );
    assert.doesNotMatch(await deadLettersAsEditor(), /cairn-records|health status index/);
  });

  it('a payload that is not metadata is dead-lettered as a short excerpt, never verbatim', async () => {
    const entry = await runDocument('cat-indices', `${source.base}/_cat/indices`);
    assert.equal(entry.status, 'completed', JSON.stringify(entry));
    assert.equal(entry.rejected, 1);
    assert.deepEqual(entry.failures, [
      { name: `${source.base}/_cat/indices`, reason: 'neither JSON nor XML' },
    ]);
    const page = await queue.deadLetters.page({ limit: 1000, offset: 0 });
    const letter = page.letters.find((item) => item.jobId === entry.jobId);
    assert.ok(letter, JSON.stringify(page));
    const payload = letter.payload as { excerpt: string; bytes: number; truncated: boolean };
    assert.equal(payload.bytes, Buffer.byteLength(CAT_INDICES));
    assert.equal(payload.truncated, true);
    assert.ok(payload.excerpt.length <= 160, `${payload.excerpt.length} characters kept`);
    assert.equal(payload.excerpt, CAT_INDICES.slice(0, payload.excerpt.length));
    const asEditor = await deadLettersAsEditor();
    // The fortieth index (far past the excerpt) and its UUID are nowhere.
    assert.doesNotMatch(asEditor, /cairn-records-v39/);
    assert.doesNotMatch(asEditor, new RegExp(`${INDEX_UUID}39`));
    assert.ok(asEditor.length < 20_000);
  });
});

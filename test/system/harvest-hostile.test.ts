/**
 * Harvesting against hostile sources, in scaled mode: the API and the worker's
 * harvest code in this process over a real Redis queue and dead-letter store, SQLite as the
 * catalogue, tokens from the real Keycloak. Each source is a small HTTP server of the test:
 *
 * - one that redirects to another port of the allowed address, where a stand-in "engine"
 *   answers `_cat/indices` (index names, UUIDs, sizes), and the real search engine itself;
 * - one that answers such a payload on its own (allowed) port;
 * - one that trickles OGC API – Records pages (one record each, a `next` link every time, each
 *   page after a delay), one that stalls, and one that trickles a single document — against
 *   the run and page deadlines, deletion of the source mid-run, a second run of the same source,
 *   and the real worker process receiving SIGTERM.
 *
 * Nothing is mocked.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { loadConfig, type Config } from '../../shared/config/index.js';
import { JobQueues } from '../../shared/queue/job-queues.js';
import type { IngestLogEntry } from '../../shared/ingest/ingest-log.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import type { SqliteIngestLog } from '../../shared/search/sqlite/sqlite-ingest-log.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';
import {
  buildTestEnvironment,
  REDIS_URL,
  requireRedis,
  waitFor,
} from '../integration/worker/worker-support.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { startScaledApp, type ScaledApp } from '../support/scaled-app.js';
import { defined } from '../support/defined.js';

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
      return;
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
    if (!engineUrl)
      throw new Error('CAIRN_TEST_ELASTICSEARCH_URL is not set: this test needs the real engine');
    const redirected = await runDocument('to-real-engine', `${source.base}/to-real-engine`);
    assert.equal(redirected.status, 'failed');
    assert.match(redirected.error ?? '', /redirected to another origin/);
    // Registered at the engine's own address: the allow-list names the source's port only.
    const direct = await runDocument('real-engine', `${engineUrl}/_cat/indices?v`);
    assert.equal(direct.status, 'failed');
    const port = new URL(engineUrl).port;
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

/** A never-ending Records source: `/{name}/items?page=N` after `delays[name]` ms, with `next`. */
interface TricklingSource extends HostileServer {
  /** Requests per source name, with when each started and ended. */
  log: { name: string; page: number; start: number; end?: number }[];
}

async function startTrickler(delays: Record<string, number>): Promise<TricklingSource> {
  const log: TricklingSource['log'] = [];
  let base = '';
  const server = await startServer((path, res) => {
    const [, name, rest] = path.split('/');
    const page = Number(new URL(res.req.url ?? '/', 'http://x').searchParams.get('page') ?? '0');
    if (rest !== 'items' || name === undefined || delays[name] === undefined) {
      res.statusCode = 404;
      return res.end();
    }
    const entry: TricklingSource['log'][number] = { name, page, start: Date.now() };
    log.push(entry);
    const timer = setTimeout(() => {
      entry.end = Date.now();
      const [record] = [...generateRecords(1, 7, page)];
      res.setHeader('content-type', 'application/geo+json');
      res.end(
        JSON.stringify({
          type: 'FeatureCollection',
          features: [{ ...record, id: `${name}-${page}` }],
          links: [
            {
              rel: 'next',
              type: 'application/geo+json',
              href: `${base}/${name}/items?page=${page + 1}`,
            },
          ],
        }),
      );
    }, delays[name]);
    res.on('close', () => {
      clearTimeout(timer);
      entry.end ??= Date.now();
    });
    return;
  });
  base = server.base;
  return { ...server, log };
}

describe('harvest runs end (scaled mode: real Redis, worker code, Keycloak)', function () {
  this.timeout(120000);
  let alice: string;
  let backend: SqliteBackend;
  let scaled: ScaledApp | undefined;
  let app: Express;
  let ingestLog: SqliteIngestLog;
  let trickler: TricklingSource;
  const RUN_MS = 3000;
  const PAGE_MS = 1000;

  before(async () => {
    await requireKeycloak();
    await requireRedis();
    alice = (await userTokens('alice')).accessToken;
    trickler = await startTrickler({ slow: 250, busy: 250, doomed: 250, stall: 5000, quick: 0 });
    const directory = mkdtempSync(join(tmpdir(), 'cairn-harvest-deadlines-'));
    backend = new SqliteBackend({ path: join(directory, 'cairn.sqlite') });
    await backend.init();
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      REDIS_URL,
      AUTH_ISSUER_URL: ISSUER,
      AUTH_CLIENT_ID: CLIENT.catalogue,
      WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
      WORKER_QUEUE_PREFIX: `cairn-test-harvest-deadlines-${process.pid}-${Date.now()}`,
      WORKER_CONCURRENCY: '2',
      // A stalled page is final here, so that its one attempt shows in the log.
      WORKER_ATTEMPTS: '1',
      HARVEST_ALLOWED_ADDRESSES: `127.0.0.1:${trickler.port}`,
      HARVEST_RUN_TIMEOUT_MS: String(RUN_MS),
      HARVEST_PAGE_TIMEOUT_MS: String(PAGE_MS),
    });
    scaled = startScaledApp(config, backend);
    ({ app, ingestLog } = scaled);
  });
  after(async () => {
    await scaled?.close();
    await backend?.close();
    await trickler?.close();
  });

  const asAlice = (call: request.Test) => call.set('Authorization', `Bearer ${alice}`);
  const register = async (id: string, name: string) => {
    const created = await asAlice(request(app).post('/catalogue/admin/sources')).send({
      id,
      protocol: 'records',
      url: `${trickler.base}/${name}/items`,
      pageSize: 1,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  };
  const start = async (id: string): Promise<string> => {
    const accepted = await asAlice(request(app).post(`/catalogue/admin/sources/${id}/run`));
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
    return (accepted.body as { jobId: string }).jobId;
  };
  const finished = async (jobId: string): Promise<IngestLogEntry> => {
    await waitFor(
      async () => ['completed', 'failed'].includes((await ingestLog.get(jobId))?.status ?? ''),
      60000,
      `harvest job ${jobId}`,
    );
    return (await ingestLog.get(jobId)) as IngestLogEntry;
  };
  const requestsOf = (name: string) => trickler.log.filter((entry) => entry.name === name);

  it('a source trickling pages for ever is stopped at HARVEST_RUN_TIMEOUT_MS, for good', async () => {
    await register('slow', 'slow');
    const started = Date.now();
    const entry = await finished(await start('slow'));
    const took = Date.now() - started;
    assert.equal(entry.status, 'failed', JSON.stringify(entry));
    assert.equal(entry.attempts, 1);
    assert.match(entry.error ?? '', /took longer than HARVEST_RUN_TIMEOUT_MS \(3000 ms\)/);
    assert.ok(took < RUN_MS + 3000, `the run ended after ${took} ms`);
    const pages = requestsOf('slow').length;
    assert.ok(pages >= 3, `${pages} pages were read before the deadline`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(requestsOf('slow').length, pages, 'nothing fetched after the deadline');
    const state = await asAlice(request(app).get('/catalogue/admin/sources/slow'));
    assert.match(
      JSON.stringify((state.body as { lastRun: unknown }).lastRun),
      /"status":"failed".*HARVEST_RUN_TIMEOUT_MS/,
    );
  });

  it('a page that does not arrive within HARVEST_PAGE_TIMEOUT_MS ends the run', async () => {
    await register('stall', 'stall');
    const started = Date.now();
    const entry = await finished(await start('stall'));
    assert.equal(entry.status, 'failed');
    assert.match(
      entry.error ?? '',
      /a page of source "stall" took longer than HARVEST_PAGE_TIMEOUT_MS \(1000 ms\)/,
    );
    assert.ok(Date.now() - started < 4000);
    const request = defined(requestsOf('stall')[0], 'a request of "stall"');
    assert.ok(request.end !== undefined && request.end - request.start < 2500, 'request aborted');
  });

  it('deleting the source cancels its run at the next page', async () => {
    await register('doomed', 'doomed');
    const jobId = await start('doomed');
    await waitFor(async () => requestsOf('doomed').length >= 2, 10000, 'two pages');
    const deleted = await asAlice(request(app).delete('/catalogue/admin/sources/doomed'));
    assert.equal(deleted.status, 204);
    const deletedAt = Date.now();
    const entry = await finished(jobId);
    assert.equal(entry.status, 'failed');
    assert.match(entry.error ?? '', /cancelled: the source was deleted while it ran/);
    assert.ok(Date.now() - deletedAt < 1500, 'stopped within about a page');
    const pages = requestsOf('doomed').length;
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal(requestsOf('doomed').length, pages, 'nothing fetched after the cancellation');
  });

  it('a second run of the same source waits without a slot; another source runs meanwhile', async () => {
    await register('busy', 'busy');
    await register('quick', 'quick');
    const first = await start('busy');
    await waitFor(async () => requestsOf('busy').length >= 1, 10000, 'the first run');
    const second = await start('busy');
    // Only one run of "busy" fetches at a time: every request starts after the one before ended.
    const quickJob = await start('quick');
    await waitFor(async () => requestsOf('quick').length >= 1, 5000, 'the other source to start');
    const firstEntry = await finished(first);
    const secondEntry = await finished(second);
    for (const entry of [firstEntry, secondEntry])
      assert.match(entry.error ?? '', /HARVEST_RUN_TIMEOUT_MS/, JSON.stringify(entry));
    const busy = requestsOf('busy');
    for (let index = 1; index < busy.length; index += 1)
      assert.ok(
        defined(busy[index], `request ${index} of "busy"`).start >=
          (defined(busy[index - 1], `request ${index - 1} of "busy"`).end ?? Infinity),
        `request ${index} of "busy" overlapped the one before`,
      );
    // The quick source started while the first run of "busy" was still going.
    const quickStart = defined(requestsOf('quick')[0], 'a request of "quick"').start;
    assert.ok(quickStart < Date.parse(firstEntry.finishedAt), 'the other source was not held up');
    const secondStart = Date.parse(secondEntry.startedAt);
    assert.ok(secondStart >= Date.parse(firstEntry.finishedAt) - 50, 'the second run waited');
    await finished(quickJob).catch(() => undefined);
  });
});

describe('the worker process stops harvesting at SIGTERM (real worker, real Redis)', function () {
  this.timeout(120000);

  it('aborts the fetch in flight, exits 0 within the bound, and leaves the job queued', async () => {
    await requireRedis();
    // One document trickled a byte every 200 ms: the request never ends by itself.
    let closedAt: number | undefined;
    const hits: number[] = [];
    const source = await startServer((_path, res) => {
      hits.push(Date.now());
      res.setHeader('content-type', 'application/json');
      const timer = setInterval(() => res.write(' '), 200);
      res.on('close', () => {
        clearInterval(timer);
        closedAt = Date.now();
      });
    });
    const environment = {
      ...buildTestEnvironment('harvest-sigterm'),
      WORKER_CONCURRENCY: '1',
      HARVEST_ALLOWED_ADDRESSES: `127.0.0.1:${source.port}`,
      WORKER_SHUTDOWN_TIMEOUT_MS: '5000',
    };
    const queues = new JobQueues(REDIS_URL, loadConfig(environment).worker);
    let output = '';
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/worker/main.ts'], {
      env: { ...process.env, ...environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const jobId = await queues.enqueue('harvest', { source: { url: `${source.base}/doc` } });
      await waitFor(async () => hits.length === 1, 60000, 'the worker to fetch');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const signalled = Date.now();
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      const exitedAfter = Date.now() - signalled;
      assert.equal(code, 0, output);
      assert.ok(exitedAfter < 5000, `exited ${exitedAfter} ms after SIGTERM`);
      assert.ok(closedAt !== undefined && closedAt - signalled < 2000, 'the fetch was aborted');
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(hits.length, 1, 'no fetch after SIGTERM');
      const job = await queues.queues.harvest.getJob(jobId);
      const state = await job?.getState();
      assert.ok(state === 'delayed' || state === 'waiting', `the job is ${state}`);
      assert.equal(job?.attemptsMade ?? 0, 0, 'no attempt spent');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await queues.obliterate();
      await queues.close();
      await source.close();
    }
  });
});

/**
 * Operators' endpoints with real Keycloak tokens, a real Redis and the worker in process:
 * dead letters listed and read back with their payload and reason, reindex refused on the
 * embedded backend, and the worker's /metrics after jobs (jobs, records, queue depth).
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../services/api/app.js';
import { startWorkers, type RunningWorkers } from '../../services/worker/start-workers.js';
import { createLogger } from '../../shared/logging/index.js';
import { serveMetrics, type MetricsServer } from '../../shared/metrics/metrics-server.js';
import { WorkerMetrics } from '../../shared/metrics/worker-metrics.js';
import { JobQueues } from '../../shared/queue/job-queues.js';
import type { JobDocument } from '../../shared/queue/job-payloads.js';
import { SqliteIngestLog } from '../../shared/search/sqlite/sqlite-ingest-log.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';
import {
  generatedDocuments,
  REDIS_URL,
  requireRedis,
  waitFor,
} from '../integration/worker/worker-support.js';
import { defined } from '../support/defined.js';

/** A document the worker cannot use: JSON that is no known metadata format. */
const BAD_DOCUMENT: JobDocument = {
  name: 'bad upload',
  content: JSON.stringify({ hello: 'not a metadata record' }),
};

describe('admin operations: dead letters, reindex, worker metrics (real Keycloak, Redis)', function () {
  this.timeout(60000);
  let alice: string;
  let bob: string;
  let test: TestApp;
  let app: Express;
  let queue: JobQueues;
  let ingestLog: SqliteIngestLog;
  let running: RunningWorkers | undefined;
  let metricsServer: MetricsServer | undefined;
  let jobId: string;

  before(async () => {
    await requireKeycloak();
    await requireRedis();
    alice = (await userTokens('alice')).accessToken;
    bob = (await userTokens('bob')).accessToken;
    const directory = mkdtempSync(join(tmpdir(), 'cairn-admin-ops-'));
    test = await createTestApp(2, {
      AUTH_ISSUER_URL: ISSUER,
      AUTH_CLIENT_ID: CLIENT.catalogue,
      REDIS_URL,
      WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
      WORKER_QUEUE_PREFIX: `cairn-test-admin-ops-${process.pid}-${Date.now()}`,
    });
    ingestLog = new SqliteIngestLog(test.config.worker.ingestLogPath);
    queue = new JobQueues(REDIS_URL, test.config.worker);
    const logger = createLogger('silent', 'test');
    app = createApp({ config: test.config, backend: test.backend, logger, queue, ingestLog });
    const metrics = new WorkerMetrics();
    running = startWorkers({
      redisUrl: REDIS_URL,
      config: test.config.worker,
      backend: test.backend,
      logger,
      ingestLog,
      metrics,
    });
    metricsServer = await serveMetrics(metrics.registry, { host: '127.0.0.1', port: 0 });

    jobId = await queue.enqueue('ingest', {
      documents: [...generatedDocuments(3, 700), BAD_DOCUMENT],
    });
    await waitFor(async () => (await ingestLog.get(jobId)) !== null, 30000, 'the ingest job');
  });

  after(async () => {
    await running?.close();
    await metricsServer?.close();
    await queue?.obliterate();
    await queue?.close();
    await ingestLog?.close();
    await test?.close();
  });

  it('lists dead letters only for the write role (401 anonymous, 403 bob)', async () => {
    assert.equal((await request(app).get('/catalogue/admin/dead-letters')).status, 401);
    const forbidden = await request(app)
      .get('/catalogue/admin/dead-letters')
      .set('Authorization', `Bearer ${bob}`);
    assert.equal(forbidden.status, 403);
  });

  it('lists the bad record with its reason, and gives it back with its full payload', async () => {
    const listed = await request(app)
      .get('/catalogue/admin/dead-letters')
      .set('Authorization', `Bearer ${alice}`);
    assert.equal(listed.status, 200, listed.text);
    const body = listed.body as {
      total: number;
      deadLetters: { id: string; jobId: string; name: string; reason: string; href: string }[];
    };
    assert.equal(body.total, 1);
    const letter = defined(body.deadLetters[0], 'the dead letter');
    assert.equal(letter.jobId, jobId);
    assert.equal(letter.name, 'bad upload');
    assert.match(letter.reason, /format/i);
    assert.ok(!('payload' in letter), 'the listing leaves payloads out');

    const one = await request(app)
      .get(new URL(letter.href).pathname)
      .set('Authorization', `Bearer ${alice}`);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual((one.body as { payload: unknown }).payload, BAD_DOCUMENT);
    assert.equal((one.body as { reason: string }).reason, letter.reason);

    const empty = await request(app)
      .get('/catalogue/admin/dead-letters?limit=0')
      .set('Authorization', `Bearer ${alice}`);
    assert.deepEqual(empty.body, { total: 1, deadLetters: [] });
    const missing = await request(app)
      .get('/catalogue/admin/dead-letters/ingest%3Anone%3Anothing')
      .set('Authorization', `Bearer ${alice}`);
    assert.equal(missing.status, 404);
    const badPaging = await request(app)
      .get('/catalogue/admin/dead-letters?offset=-1')
      .set('Authorization', `Bearer ${alice}`);
    assert.equal(badPaging.status, 400);
  });

  it('refuses a reindex on the embedded backend with a 409 saying why', async () => {
    assert.equal((await request(app).post('/catalogue/admin/reindex')).status, 401);
    const refused = await request(app)
      .post('/catalogue/admin/reindex')
      .set('Authorization', `Bearer ${alice}`);
    assert.equal(refused.status, 409);
    const body = refused.body as { code: string; description: string };
    assert.equal(body.code, 'REINDEX_NOT_AVAILABLE');
    assert.match(body.description, /search engine operation/);
    assert.equal(await queue.queues.reindex.count(), 0, 'nothing was enqueued');
  });

  it('serves worker metrics: jobs, records written and rejected, jobs by queue state', async () => {
    const text = await (await fetch(metricsServer!.url)).text();
    const value = (line: string): number | undefined => {
      const found = text.split('\n').find((candidate) => candidate.startsWith(`${line} `));
      return found === undefined ? undefined : Number(found.slice(line.length + 1));
    };
    assert.equal(value('cairn_worker_jobs_total{queue="ingest",outcome="completed"}'), 1, text);
    assert.equal(value('cairn_worker_records_total{queue="ingest",outcome="written"}'), 3);
    assert.equal(value('cairn_worker_records_total{queue="ingest",outcome="rejected"}'), 1);
    assert.equal(
      value('cairn_worker_job_duration_seconds_count{queue="ingest",outcome="completed"}'),
      1,
    );
    assert.equal(value('cairn_queue_jobs{queue="ingest",state="completed"}'), 1);
    assert.equal(value('cairn_queue_jobs{queue="ingest",state="waiting"}'), 0);
    assert.equal((await fetch(metricsServer!.url.replace('/metrics', '/other'))).status, 404);
  });
});

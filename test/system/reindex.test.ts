/**
 * Reindex over HTTP on a real Elasticsearch, through the queue (real Redis) and the worker
 * (its own backend over the same alias, as in a deployment): POST /catalogue/admin/reindex
 * answers 202 with a job link; a write and a delete made by the API process while the job is
 * running and the next version is being built (both observed before the write, the job still
 * running after it) survive the swap; every search before, during and after the rebuild sees
 * every record; the job is in the engine's ingest log; the alias ends on the next index version.
 * The write block's 503 and the rollback are provoked in test/integration/reindex-faults.test.ts.
 */
import { strict as assert } from 'node:assert';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../services/api/app.js';
import { startWorkers, type RunningWorkers } from '../../services/worker/start-workers.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { loadConfig } from '../../shared/config/index.js';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { createLogger } from '../../shared/logging/index.js';
import { JobQueues } from '../../shared/queue/job-queues.js';
import { createEngineBackend } from '../../shared/search/create-backend.js';
import type { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import {
  createAdapter,
  createTestBackend,
  requireEngineUrl,
} from '../integration/engine-backend-cases.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';
import { REDIS_URL, requireRedis } from '../integration/worker/worker-support.js';

const RECORDS = 3000;
const ITEMS = '/catalogue/collections/metadata:main/items';
const url = requireEngineUrl('elasticsearch');

if (url)
  describe('reindex over HTTP (real Elasticsearch, Redis, Keycloak)', function () {
    this.timeout(240000);
    let api: EngineBackend;
    let workerBackend: EngineBackend | undefined;
    let queue: JobQueues;
    let running: RunningWorkers | undefined;
    let app: Express;
    let alice: string;

    before(async () => {
      await requireKeycloak();
      await requireRedis();
      alice = (await userTokens('alice')).accessToken;
      api = await createTestBackend('elasticsearch', url, { spatial: 'envelope', refresh: false });
      const documents = [...generateRecords(RECORDS, 31)].map((record, index) => ({
        name: `generated ${index}`,
        content: JSON.stringify(record),
      }));
      const loaded = await ingestDocuments(api, documents);
      assert.deepEqual(loaded.rejected, []);
      assert.equal(loaded.written, RECORDS);
      await api.refresh();
      const config = loadConfig({
        LOG_LEVEL: 'silent',
        AUTH_ISSUER_URL: ISSUER,
        AUTH_CLIENT_ID: CLIENT.catalogue,
        REDIS_URL,
        ELASTICSEARCH_URL: url,
        SEARCH_INDEX_ALIAS: api.alias,
        WORKER_QUEUE_PREFIX: `cairn-test-reindex-${process.pid}-${Date.now()}`,
      });
      const logger = createLogger('silent', 'test');
      queue = new JobQueues(REDIS_URL, config.worker);
      app = createApp({ config, backend: api, logger, queue });
      workerBackend = createEngineBackend({ engine: 'elasticsearch', url, alias: api.alias });
      await workerBackend.init();
      running = startWorkers({
        redisUrl: REDIS_URL,
        config: config.worker,
        backend: workerBackend,
        logger,
        ingestLog: workerBackend.createIngestLog(),
      });
    });

    after(async () => {
      await running?.close();
      await workerBackend?.close();
      await queue?.obliterate();
      await queue?.close();
      await api?.close();
    });

    const matched = async (): Promise<number> => {
      const response = await request(app).get(`${ITEMS}?limit=1&q=water,ocean,climate,land`);
      assert.equal(response.status, 200, response.text);
      return (response.body as { numberMatched: number }).numberMatched;
    };

    /** The reindex job's state in the queue (BullMQ: waiting, active, completed, ...). */
    const jobState = async (jobId: string): Promise<string> => {
      const job = await queue.queues.reindex.getJob(jobId);
      return job ? await job.getState() : 'missing';
    };

    it('rebuilds behind the alias while every search keeps seeing every record, and keeps a write and a delete made during the build', async () => {
      assert.ok((await matched()) > 0);
      const total = async (): Promise<number> =>
        ((await request(app).get(`${ITEMS}?limit=1`)).body as { numberMatched: number })
          .numberMatched;
      assert.equal(await total(), RECORDS);
      const from = api.liveIndex;
      assert.equal(from, `${api.alias}-v1`);
      const next = `${api.alias}-v2`;
      const adapter = createAdapter('elasticsearch', url);

      try {
        const accepted = await request(app)
          .post('/catalogue/admin/reindex')
          .set('Authorization', `Bearer ${alice}`);
        assert.equal(accepted.status, 202, accepted.text);
        const { jobId } = accepted.body as { jobId: string };
        assert.ok(String(accepted.headers.location).endsWith(`/catalogue/admin/jobs/${jobId}`));

        // Waits for the build: the job running and the next version created (the reindex
        // creates it before copying), polled rather than guessed with a sleep.
        const started = Date.now() + 60_000;
        while (!((await jobState(jobId)) === 'active' && (await adapter.indexExists(next)))) {
          assert.ok(Date.now() < started, `the reindex did not start (${await jobState(jobId)})`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }

        // Another process (the API's own backend, not the worker's) writes a new record and
        // deletes one into the old version, as a deployment's API would during the build.
        const added = [...generateRecords(1, 31, RECORDS)][0]!;
        const removed = 'cairn-31-0000000';
        const written = await ingestDocuments(api, [
          { name: 'written during the reindex', content: JSON.stringify(added) },
        ]);
        assert.deepEqual(written.rejected, []);
        assert.equal(await api.delete([removed]), 1);
        await api.refresh();
        // The overlap is proven, not assumed: the job was still running after both.
        assert.equal(await jobState(jobId), 'active', 'the write and delete overlap the build');
        const expected = await matched();

        // During the build: the alias still serves the old version, whole.
        let status: string | undefined;
        let searchesDuring = 0;
        const deadline = Date.now() + 200000;
        while (status !== 'completed' && status !== 'failed' && Date.now() < deadline) {
          assert.equal(await total(), RECORDS);
          assert.equal(await matched(), expected);
          searchesDuring += 1;
          const job = await request(app)
            .get(`/catalogue/admin/jobs/${jobId}`)
            .set('Authorization', `Bearer ${alice}`);
          if (job.status === 200) status = (job.body as { status: string }).status;
          else assert.equal(job.status, 404, job.text);
        }
        assert.equal(status, 'completed');
        assert.ok(searchesDuring > 0);

        const job = await request(app)
          .get(`/catalogue/admin/jobs/${jobId}`)
          .set('Authorization', `Bearer ${alice}`);
        assert.equal((job.body as { queue: string }).queue, 'reindex');

        assert.deepEqual(await adapter.aliasTargets(api.alias), [next]);
        assert.equal(await total(), RECORDS);
        assert.equal(await matched(), expected);
        // The write and the delete made during the build survived the swap.
        const kept = await request(app).get(`${ITEMS}/${encodeURIComponent(String(added.id))}`);
        assert.equal(kept.status, 200, `the record written during the reindex: ${kept.text}`);
        const gone = await request(app).get(`${ITEMS}/${removed}`);
        assert.equal(gone.status, 404, `the record deleted during the reindex: ${gone.text}`);
      } finally {
        await adapter.close();
      }
    });
  });

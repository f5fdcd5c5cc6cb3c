/**
 * Harvesting in scaled mode: the API on Elasticsearch (envelope mode) with a real Redis queue
 * and the worker, harvesting a second Cairn instance on loopback through OGC API – Records
 * and CSW. Runs answer 202 with a job link; the worker harvests every record once; a second
 * run is incremental and changes nothing; a record deleted at the source disappears. A source
 * with an interval gets a BullMQ job scheduler, removed with the source.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { loadConfig, type Config } from '../../shared/config/index.js';
import type { IngestLogEntry } from '../../shared/ingest/ingest-log.js';
import { harvestKey, JobQueues } from '../../shared/queue/job-queues.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { SqliteIngestLog } from '../../shared/search/sqlite/sqlite-ingest-log.js';
import { createTestBackend, requireEngineUrl } from '../integration/engine-backend-cases.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';
import { REDIS_URL, requireRedis, waitFor } from '../integration/worker/worker-support.js';
import { startScaledApp, type ScaledApp } from '../support/scaled-app.js';
import {
  allIds,
  changeSource,
  startSourceCatalogue,
  type SourceCatalogue,
} from './harvest-support.js';
import { defined } from '../support/defined.js';

const SOURCE_RECORDS = 17;
const url = requireEngineUrl('elasticsearch');

if (url)
  describe('harvesting in scaled mode (Elasticsearch, Redis, worker, real Keycloak)', function () {
    this.timeout(180000);
    let alice: string;
    let backend: SearchBackend;
    let queue: JobQueues;
    let ingestLog: SqliteIngestLog;
    let scaled: ScaledApp | undefined;
    let app: Express;
    let config: Config;
    const sources: SourceCatalogue[] = [];

    before(async () => {
      await requireKeycloak();
      await requireRedis();
      alice = (await userTokens('alice')).accessToken;
      const directory = mkdtempSync(join(tmpdir(), 'cairn-harvest-scaled-'));
      config = loadConfig({
        LOG_LEVEL: 'silent',
        REDIS_URL,
        AUTH_ISSUER_URL: ISSUER,
        AUTH_CLIENT_ID: CLIENT.catalogue,
        WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
        WORKER_QUEUE_PREFIX: `cairn-test-harvest-scaled-${process.pid}-${Date.now()}`,
        WORKER_BACKOFF_MS: '50',
        // The sources are on loopback, which harvesting refuses unless named here.
        HARVEST_ALLOWED_ADDRESSES: '127.0.0.1:*',
      });
      backend = await createTestBackend('elasticsearch', url, { spatial: 'envelope' });
      scaled = startScaledApp(config, backend);
      ({ app, queue, ingestLog } = scaled);
    });
    after(async () => {
      await scaled?.close();
      await backend?.close();
      for (const source of sources) await source.close();
    });

    const admin = (method: 'get' | 'post' | 'delete', path: string) => {
      const agent = request(app);
      const url = `/catalogue/admin/sources${path}`;
      const call =
        method === 'get' ? agent.get(url) : method === 'post' ? agent.post(url) : agent.delete(url);
      return call.set('Authorization', `Bearer ${alice}`);
    };

    /** Runs a source through the queue and waits for the worker's outcome. */
    const run = async (id: string): Promise<IngestLogEntry> => {
      const accepted = await admin('post', `/${id}/run`);
      assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
      const { jobId } = accepted.body as { jobId: string };
      assert.ok(String(accepted.headers.location).endsWith(`/catalogue/admin/jobs/${jobId}`));
      await waitFor(
        async () => ['completed', 'failed'].includes((await ingestLog.get(jobId))?.status ?? ''),
        90000,
        `harvest job ${jobId}`,
      );
      const entry = (await ingestLog.get(jobId)) as IngestLogEntry;
      assert.equal(entry.status, 'completed', JSON.stringify(entry));
      return entry;
    };

    const harvestedIds = async (ids: string[]): Promise<string[]> => {
      const found = await Promise.all(ids.map((id) => backend.get(id)));
      return found.filter((record) => record !== null).map((record) => record.id);
    };

    for (const [name, definition] of [
      [
        'OGC API – Records',
        (base: string) => ({ protocol: 'records', url: `${base}/collections/metadata:main/items` }),
      ],
      [
        'CSW 2.0.2 (ISO, POST)',
        (base: string) => ({
          protocol: 'csw',
          url: `${base}/csw`,
          outputSchema: 'gmd',
          method: 'POST',
        }),
      ],
    ] as const)
      it(`${name}: every record once, incremental run changes nothing, deletions follow`, async () => {
        const source = await startSourceCatalogue(SOURCE_RECORDS);
        sources.push(source);
        const id = `scaled-${defined(name.split(' ')[0], 'the first word').toLowerCase()}`;
        const created = await admin('post', '').send({
          id,
          pageSize: 6,
          ...definition(source.base),
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));

        const first = await run(id);
        assert.equal(first.written, SOURCE_RECORDS);
        const sourceIds = await allIds(source.test);
        assert.deepEqual((await harvestedIds(sourceIds)).sort(), sourceIds);
        const total = (await backend.search({ sort: [], offset: 0, limit: 0 })).total;

        const second = await run(id);
        assert.deepEqual([second.written, second.deleted, second.rejected], [0, 0, 0]);
        assert.equal((await backend.search({ sort: [], offset: 0, limit: 0 })).total, total);

        const change = await changeSource(source);
        const third = await run(id);
        assert.deepEqual([third.written, third.deleted], [2, 1]);
        assert.equal(await backend.get(change.deleted), null);
        assert.equal((await backend.get(change.modified))?.title, change.title);
        const state = await admin('get', `/${id}`);
        assert.equal((state.body as { recordCount: number }).recordCount, SOURCE_RECORDS);
      });

    it('a source with an interval gets a job scheduler; unregistering removes it', async () => {
      const created = await admin('post', '').send({
        id: 'hourly',
        protocol: 'stac',
        url: 'http://127.0.0.1:9/search',
        intervalMinutes: 60,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const schedulers = await queue.queues.harvest.getJobSchedulers();
      const scheduler = schedulers.find((item) => item.key === 'harvest-source:hourly');
      assert.ok(scheduler, JSON.stringify(schedulers));
      assert.equal(Number(scheduler.every), 3_600_000);
      assert.equal((await admin('delete', '/hourly')).status, 204);
      const after = await queue.queues.harvest.getJobSchedulers();
      assert.equal(
        after.find((item) => item.key === 'harvest-source:hourly'),
        undefined,
      );
    });

    it('keeps sources and their ownership in Redis, nothing in a file the processes would share', async () => {
      const listed = (await admin('get', '')).body as { sources: { id: string }[] };
      assert.ok(listed.sources.length > 0);
      const redis = new Redis(REDIS_URL);
      try {
        const ids = await redis.smembers(`${harvestKey(config.worker)}:ids`);
        assert.deepEqual(ids.sort(), listed.sources.map((source) => source.id).sort());
      } finally {
        redis.disconnect();
      }
      const file = new Database(config.worker.ingestLogPath, { readonly: true });
      try {
        const tables = file
          .prepare("SELECT name FROM sqlite_master WHERE name LIKE 'harvest%'")
          .pluck()
          .all();
        assert.deepEqual(tables, []);
      } finally {
        file.close();
      }
    });
  });

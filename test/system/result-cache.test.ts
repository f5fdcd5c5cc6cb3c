/**
 * Strong ETags, 304 answers and the result cache over HTTP, on the backend
 * CAIRN_TEST_SYSTEM_BACKEND chooses, with real Keycloak tokens for the writes.
 *
 * One API process: every protocol's reads are tagged and served again from the cache; errors
 * and requests with credentials are never kept; a create, a replace and a delete show in the
 * very next answer. Two API processes over one catalogue (two SQLite connections to one file;
 * on the engines, two backends over one alias with the job queues, the workers and the
 * generation in Redis, as scaled mode runs): a write acknowledged through one (201/200/204, or
 * its job completed) is in every later answer of both, and a deleted record is gone from them,
 * although both had kept the answer from before the write.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../services/api/app.js';
import { startWorkers, type RunningWorkers } from '../../services/worker/start-workers.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { createLogger } from '../../shared/logging/index.js';
import { JobQueues } from '../../shared/queue/job-queues.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { embeddedGeneration, LocalGeneration } from '../../shared/search/catalogue-generation.js';
import { createEngineBackend } from '../../shared/search/create-backend.js';
import type { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { SqliteIngestLog } from '../../shared/search/sqlite/sqlite-ingest-log.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';
import { REDIS_URL, requireRedis, waitFor } from '../integration/worker/worker-support.js';
import { engineUrl, systemBackend } from '../support/system-backend.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const ITEMS = '/catalogue/collections/metadata:main/items';
const target = systemBackend();
const silent = createLogger('silent', 'test');

function authEnvironment(): Record<string, string> {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-result-cache-'));
  return {
    // supertest listens on a new port per request, and answers embed their base URL (part of
    // the cache key): one base URL makes the requests the same.
    PUBLIC_BASE_URL: 'http://catalogue.test',
    AUTH_ISSUER_URL: ISSUER,
    AUTH_CLIENT_ID: CLIENT.catalogue,
    WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
  };
}

/** A generated record (a GeoJSON Feature) that is not among the test app's records. */
function newRecord(index: number): Record<string, unknown> & { id: string } {
  const record = [...generateRecords(1, 77, 70000 + index)][0] as unknown as Record<
    string,
    unknown
  >;
  return { ...record, id: `cache-test-${process.pid}-${index}` };
}

/** What the cache did for an answer: hit, miss, bypass, or undefined when it did not see it. */
function cacheOutcome(response: request.Response): string | undefined {
  return /cache;desc=(\w+)/.exec(String(response.headers['server-timing'] ?? ''))?.[1];
}

/** How many records the items search matches for an id. */
async function matchedById(app: Express, id: string): Promise<number> {
  const response = await request(app).get(`${ITEMS}?ids=${encodeURIComponent(id)}`);
  assert.equal(response.status, 200, response.text);
  return (response.body as { numberMatched: number }).numberMatched;
}

/** `target` with each call of its method `name` reported to `onCall` first. */
function countingCalls<T extends object>(target: T, name: string, onCall: () => void): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (property !== name || typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        onCall();
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}
describe(`result cache and ETags (${target.label})`, function () {
  this.timeout(120000);
  let alice: string;

  before(async () => {
    await requireKeycloak();
    alice = (await userTokens('alice')).accessToken;
  });

  describe('one API process', () => {
    let test: TestApp;
    let app: Express;
    before(async () => {
      test = await createTestApp(20, authEnvironment());
      // SQLite: the app's own choice (the file's change counter). An engine without Redis has
      // no generation shared between processes; one process writing alone may count its own.
      app =
        target.kind === 'sqlite'
          ? test.app
          : createApp({
              config: test.config,
              backend: test.backend,
              logger: silent,
              generation: new LocalGeneration(),
            });
    });
    after(async () => test?.close());

    it('tags a search with a strong ETag, serves it again from the cache and answers 304 to If-None-Match', async () => {
      const first = await request(app).get(`${ITEMS}?limit=3&sortby=id`);
      assert.equal(first.status, 200);
      const etag = String(first.headers.etag);
      assert.match(etag, /^"[A-Za-z0-9_-]+"$/, 'a strong ETag');
      assert.equal(cacheOutcome(first), 'miss');
      // The same request with its parameters in another order is the same answer.
      const second = await request(app).get(`${ITEMS}?sortby=id&limit=3`);
      assert.equal(cacheOutcome(second), 'hit');
      assert.equal(second.headers.etag, etag);
      assert.equal(second.text, first.text);
      assert.equal(second.headers['content-type'], first.headers['content-type']);
      const notModified = await request(app)
        .get(`${ITEMS}?limit=3&sortby=id`)
        .set('If-None-Match', etag);
      assert.equal(notModified.status, 304);
      assert.equal(notModified.text, '');
      assert.equal(notModified.headers.etag, etag);
      const head = await request(app).head(`${ITEMS}?limit=3&sortby=id`);
      assert.equal(head.status, 200);
      assert.equal(head.headers.etag, etag);
      const changed = await request(app)
        .get(`${ITEMS}?limit=3&sortby=id`)
        .set('If-None-Match', '"something-else"');
      assert.equal(changed.status, 200);
      assert.equal(changed.text, first.text);
    });

    it('keeps each representation apart: HTML and JSON of one resource', async () => {
      const json = await request(app).get('/catalogue').set('Accept', 'application/json');
      const html = await request(app).get('/catalogue').set('Accept', 'text/html');
      assert.equal(json.status, 200);
      assert.equal(html.status, 200);
      assert.notEqual(json.headers.etag, html.headers.etag);
      const htmlAgain = await request(app).get('/catalogue').set('Accept', 'text/html');
      assert.equal(cacheOutcome(htmlAgain), 'hit');
      assert.match(String(htmlAgain.headers['content-type']), /^text\/html/);
      const jsonAgain = await request(app).get('/catalogue').set('Accept', 'application/json');
      assert.equal(cacheOutcome(jsonAgain), 'hit');
      assert.match(String(jsonAgain.headers['content-type']), /json/);
    });

    it('tags and keeps the reads of every protocol', async () => {
      const reads = [
        '/catalogue/conformance',
        '/catalogue/stac',
        '/catalogue/search?limit=2',
        '/catalogue/csw?service=CSW&request=GetCapabilities',
        '/catalogue/csw?service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&resultType=results',
        '/catalogue/oai?verb=Identify',
        '/catalogue/opensearch',
        '/catalogue/sitemap.xml',
      ];
      for (const path of reads) {
        const first = await request(app).get(path);
        assert.equal(first.status, 200, `${path}: ${first.text.slice(0, 300)}`);
        assert.match(String(first.headers.etag), /^"/, path);
        const again = await request(app).get(path);
        assert.equal(cacheOutcome(again), 'hit', path);
        assert.equal(again.headers.etag, first.headers.etag, path);
      }
    });

    it('keeps no error answer and no answer to a request with credentials', async () => {
      const missing = await request(app).get(`${ITEMS}/no-such-record`);
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.etag, undefined);
      const missingAgain = await request(app).get(`${ITEMS}/no-such-record`);
      assert.equal(missingAgain.status, 404);
      assert.notEqual(cacheOutcome(missingAgain), 'hit');
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const signedIn = await request(app)
          .get(`${ITEMS}?limit=2`)
          .set('Authorization', `Bearer ${alice}`);
        assert.equal(signedIn.status, 200);
        assert.equal(cacheOutcome(signedIn), 'bypass');
        assert.match(String(signedIn.headers.etag), /^"/);
      }
      const admin = await request(app)
        .get('/catalogue/admin/jobs')
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(cacheOutcome(admin), undefined, 'the admin pages are not seen by the cache');
    });

    it('shows a create, a replace and a delete in the very next answer', async () => {
      const record = newRecord(1);
      const item = `${ITEMS}/${encodeURIComponent(record.id)}`;
      assert.equal(await matchedById(app, record.id), 0);
      assert.equal(await matchedById(app, record.id), 0); // now kept
      assert.equal((await request(app).get(item)).status, 404);
      const created = await request(app)
        .post(ITEMS)
        .set('Authorization', `Bearer ${alice}`)
        .send(record);
      assert.equal(created.status, 201, created.text);
      assert.equal(await matchedById(app, record.id), 1);
      const read = await request(app).get(item);
      assert.equal(read.status, 200);
      assert.equal((await request(app).get(item)).headers.etag, read.headers.etag);

      const properties = { ...(record.properties as object), title: 'Replaced for the cache' };
      const replaced = await request(app)
        .put(item)
        .set('Authorization', `Bearer ${alice}`)
        .send({ ...record, properties });
      assert.equal(replaced.status, 200, replaced.text);
      const reread = await request(app).get(item);
      assert.equal(
        (reread.body as { properties: { title: string } }).properties.title,
        'Replaced for the cache',
      );
      assert.notEqual(reread.headers.etag, read.headers.etag);

      const deleted = await request(app).delete(item).set('Authorization', `Bearer ${alice}`);
      assert.equal(deleted.status, 204);
      assert.equal(await matchedById(app, record.id), 0);
      assert.equal((await request(app).get(item)).status, 404);
    });
  });

  describe('parent lookups remembered for the generation', () => {
    let test: TestApp;
    let writer: Express;
    let reader: Express;
    let searches = 0;
    let generationReads = 0;
    before(async () => {
      test = await createTestApp(5, authEnvironment());
      // The reader counts its backend's searches; both apps share one generation.
      const generation =
        test.config.search.kind === 'sqlite'
          ? embeddedGeneration(test.config.search.path)
          : new LocalGeneration();
      const counting = countingCalls(test.backend, 'search', () => (searches += 1));
      // The reader also counts its reads of the generation.
      const countingGeneration = countingCalls(generation, 'current', () => (generationReads += 1));
      writer =
        target.kind === 'sqlite'
          ? test.app
          : createApp({ config: test.config, backend: test.backend, logger: silent, generation });
      reader = createApp({
        config: test.config,
        backend: counting,
        logger: silent,
        generation: countingGeneration,
      });
    });
    after(async () => test?.close());

    it('asks no search again for the same parent until a write, and then sees the new parent, reading the generation once a request', async () => {
      const parent = newRecord(60);
      const base = newRecord(61);
      const child = {
        ...base,
        properties: { ...(base.properties as object), parentId: parent.id },
      };
      const post = (record: object) =>
        request(writer).post(ITEMS).set('Authorization', `Bearer ${alice}`).send(record);
      assert.equal((await post(child)).status, 201);
      /** The STAC search for the child (limit varies: each is a request of its own). */
      const childCollection = async (limit: number): Promise<unknown> => {
        const readsBefore = generationReads;
        const response = await request(reader).get(
          `/catalogue/search?ids=${encodeURIComponent(child.id)}&limit=${limit}`,
        );
        assert.equal(response.status, 200, response.text);
        assert.notEqual(cacheOutcome(response), 'hit');
        // The result cache and the parent lookup share the request's one read.
        assert.equal(generationReads - readsBefore, 1, 'one read of the generation a request');
        const features = (response.body as { features: { collection?: unknown }[] }).features;
        assert.equal(features.length, 1);
        return features[0]!.collection;
      };
      let before = searches;
      assert.equal(await childCollection(1), undefined, 'no such parent yet');
      assert.equal(searches - before, 2, 'the page and the parent lookup');
      before = searches;
      assert.equal(await childCollection(2), undefined);
      assert.equal(searches - before, 1, 'the page only: the parent lookup was remembered');
      assert.equal((await post(parent)).status, 201);
      before = searches;
      assert.equal(await childCollection(3), parent.id, 'the new parent at once');
      assert.equal(searches - before, 2, 'a write makes the lookup run again');
    });
  });

  describe('two API processes over one catalogue', () => {
    let test: TestApp;
    let replicaA: Express;
    let replicaB: Express;
    let backendB: SearchBackend;
    let queues: JobQueues[] = [];
    let workers: RunningWorkers | undefined;
    let ingestLog: SqliteIngestLog | undefined;

    before(async () => {
      if (target.kind === 'sqlite') {
        test = await createTestApp(10, authEnvironment());
        if (test.config.search.kind !== 'sqlite') throw new Error('expected a SQLite file');
        const sqlite = new SqliteBackend({ path: test.config.search.path });
        await sqlite.init();
        backendB = sqlite;
        replicaA = test.app;
        replicaB = createApp({ config: test.config, backend: backendB, logger: silent });
        return;
      }
      await requireRedis();
      test = await createTestApp(10, {
        ...authEnvironment(),
        REDIS_URL,
        WORKER_QUEUE_PREFIX: `cairn-test-result-cache-${process.pid}-${Date.now()}`,
        SEARCH_REFRESH: 'wait_for',
      });
      const { config } = test;
      if (config.search.kind === 'sqlite') throw new Error('expected a search engine');
      const engine = createEngineBackend({
        engine: config.search.kind,
        url: engineUrl(target),
        alias: config.search.alias,
        spatial: target.spatial!,
        refresh: 'wait_for',
      });
      await engine.init();
      backendB = engine;
      ingestLog = new SqliteIngestLog(config.worker.ingestLogPath);
      queues = [new JobQueues(REDIS_URL, config.worker), new JobQueues(REDIS_URL, config.worker)];
      replicaA = createApp({
        config,
        backend: test.backend,
        logger: silent,
        queue: queues[0],
        ingestLog,
      });
      replicaB = createApp({
        config,
        backend: backendB,
        logger: silent,
        queue: queues[1],
        ingestLog,
      });
      workers = startWorkers({
        redisUrl: REDIS_URL,
        config: config.worker,
        backend: test.backend,
        logger: silent,
        ingestLog,
      });
      // Each process reads the generation from its own Redis connection, and keeps nothing
      // until that connection is up: wait for both before the rounds count on kept answers.
      for (const app of [replicaA, replicaB]) {
        await waitFor(
          async () => cacheOutcome(await request(app).get('/catalogue/conformance')) !== 'bypass',
          10000,
          "the process's generation",
        );
      }
    });
    after(async () => {
      await workers?.close();
      await queues[0]?.obliterate();
      for (const queue of queues) await queue.close();
      await ingestLog?.close();
      await backendB?.close();
      await test?.close();
    });

    /**
     * Sends a write and returns once it is acknowledged: its answer (embedded), or its job
     * completed (scaled mode: 202, then the worker's entry in the job log).
     */
    async function acknowledged(
      app: Express,
      method: 'post' | 'delete',
      path: string,
      body?: object,
    ): Promise<void> {
      const sent = request(app)[method](path).set('Authorization', `Bearer ${alice}`);
      const response = body === undefined ? await sent : await sent.send(body);
      if (response.status !== 202) {
        assert.ok([201, 204].includes(response.status), `${response.status} ${response.text}`);
        return;
      }
      const { jobId } = response.body as { jobId: string };
      await waitFor(async () => (await ingestLog!.get(jobId)) !== null, 30000, 'the job');
      assert.equal((await ingestLog!.get(jobId))?.status, 'completed');
    }

    it('answers every read after an acknowledged write with it, whichever process wrote or reads', async () => {
      for (let round = 0; round < 4; round += 1) {
        const record = newRecord(100 + round);
        const item = `${ITEMS}/${encodeURIComponent(record.id)}`;
        const [writer, other] = round % 2 === 0 ? [replicaA, replicaB] : [replicaB, replicaA];
        // Both processes keep the answer from before the write.
        for (const app of [replicaA, replicaB]) {
          assert.equal(await matchedById(app, record.id), 0);
          const kept = await request(app).get(`${ITEMS}?ids=${encodeURIComponent(record.id)}`);
          assert.equal(cacheOutcome(kept), 'hit', 'the answer before the write was kept');
          assert.equal((await request(app).get(item)).status, 404);
        }
        await acknowledged(writer, 'post', ITEMS, record);
        for (let read = 0; read < 3; read += 1) {
          for (const app of [other, writer]) {
            assert.equal(await matchedById(app, record.id), 1, `round ${round}: created`);
            assert.equal((await request(app).get(item)).status, 200, `round ${round}: item`);
          }
        }
        await acknowledged(other, 'delete', item);
        for (let read = 0; read < 3; read += 1) {
          for (const app of [writer, other]) {
            assert.equal(await matchedById(app, record.id), 0, `round ${round}: deleted`);
            assert.equal((await request(app).get(item)).status, 404, `round ${round}: gone`);
          }
        }
      }
    });

    it('answers a filter on a property new to the catalogue with the record written through either process, and keeps that answer', async () => {
      const stamp = Date.now().toString(36);
      for (let round = 0; round < 4; round += 1) {
        const name = `fresh_depth_${stamp}_${round}`;
        const base = newRecord(200 + round);
        const record = { ...base, properties: { ...(base.properties as object), [name]: 42 } };
        const [writer, other] = round % 2 === 0 ? [replicaA, replicaB] : [replicaB, replicaA];
        const items = `${ITEMS}?filter=${encodeURIComponent(`${name} > 10`)}`;
        const csw = `/catalogue/csw?${new URLSearchParams({
          service: 'CSW',
          version: '2.0.2',
          request: 'GetRecords',
          typeNames: 'csw:Record',
          resultType: 'hits',
          constraintLanguage: 'CQL_TEXT',
          constraint_language_version: '1.1.0',
          constraint: `${name} > 10`,
        }).toString()}`;
        const cswMatched = async (app: Express): Promise<string> => {
          const response = await request(app).get(csw);
          assert.equal(response.status, 200, response.text);
          return /numberOfRecordsMatched="(\d+)"/.exec(response.text)?.[1] ?? response.text;
        };
        // Before the write no record has the property. OGC API – Records refuses the name (a
        // 400, never kept); CSW does not check names and answers 0, kept. Each process's
        // backend has thereby looked the name up in its catalogue just before the write.
        for (const app of [replicaA, replicaB]) {
          assert.equal((await request(app).get(items)).status, 400, `round ${round}: unknown`);
          assert.equal(await cswMatched(app), '0', `round ${round}: CSW before the write`);
          assert.equal(await cswMatched(app), '0', `round ${round}: CSW before the write, kept`);
        }
        await acknowledged(writer, 'post', ITEMS, record);
        // Right after the acknowledgement, and again from the cache, in both processes.
        for (let read = 0; read < 3; read += 1) {
          for (const app of [other, writer]) {
            const response = await request(app).get(items);
            assert.equal(response.status, 200, `round ${round}: ${response.text}`);
            const found = (response.body as { features: { id: string }[] }).features;
            assert.deepEqual(
              found.map((feature) => feature.id),
              [record.id],
              `round ${round}, read ${read}: the new record through the filter`,
            );
            if (read > 0) assert.equal(cacheOutcome(response), 'hit', `round ${round}: kept`);
            assert.equal(await cswMatched(app), '1', `round ${round}, read ${read}: CSW`);
          }
        }
      }
    });

    // Only the engines refine in Node (a comparison of two properties); SQLite decides it in SQL.
    if (target.kind !== 'sqlite')
      it('pages a refined search from the survivors each process kept at its generation, and shows a write acknowledged through either process in the next page', async () => {
        const stamp = Date.now().toString(36);
        const [a, b] = [`refine_a_${stamp}`, `refine_b_${stamp}`];
        const withValues = (index: number, first: number, second: number) => {
          const base = newRecord(300 + index);
          return {
            ...base,
            properties: { ...(base.properties as object), [a]: first, [b]: second },
          };
        };
        // Three records where a < b, one where it is not.
        const written = [
          withValues(0, 1, 2),
          withValues(1, 5, 3),
          withValues(2, 2, 9),
          withValues(3, 0, 1),
        ];
        for (const record of written) await acknowledged(replicaA, 'post', ITEMS, record);
        const page = async (app: Express, offset: number) => {
          const response = await request(app).get(
            `${ITEMS}?${new URLSearchParams({ filter: `${a} < ${b}`, sortby: 'id', limit: '2', offset: String(offset) }).toString()}`,
          );
          assert.equal(response.status, 200, response.text);
          const body = response.body as { numberMatched: number; features: { id: string }[] };
          return { matched: body.numberMatched, ids: body.features.map((feature) => feature.id) };
        };
        const stats = (backend: SearchBackend) => (backend as EngineBackend).survivorStats;
        const backends = [test.backend, backendB];
        const before = backends.map((backend) => ({ ...stats(backend) }));
        const expected = [written[0]!.id, written[2]!.id, written[3]!.id];
        for (const app of [replicaA, replicaB]) {
          const first = await page(app, 0);
          const second = await page(app, 2);
          assert.deepEqual([first.matched, second.matched], [3, 3]);
          assert.deepEqual([...first.ids, ...second.ids], expected);
        }
        // Each process decided the query once and sliced its second page from what it kept.
        backends.forEach((backend, index) => {
          assert.equal(
            stats(backend).decided - before[index]!.decided,
            1,
            `process ${index}: decided`,
          );
          assert.equal(
            stats(backend).reused - before[index]!.reused,
            1,
            `process ${index}: reused`,
          );
        });
        const late = withValues(4, 3, 4);
        await acknowledged(replicaB, 'post', ITEMS, late);
        const all = [...expected, late.id].sort();
        for (const app of [replicaA, replicaB]) {
          const second = await page(app, 2);
          assert.equal(
            second.matched,
            4,
            'the write acknowledged through the other process counts',
          );
          assert.deepEqual(second.ids, all.slice(2, 4));
        }
      });
  });
});

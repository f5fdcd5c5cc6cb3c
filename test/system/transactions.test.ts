/**
 * HTTP writes over the app (supertest) with real Keycloak tokens: OGC API – Records item
 * create/replace/delete and bulk ingest in embedded mode, the admin job log, deny by default
 * (401 without a token, 403 without the write role, 503 without a provider), and in scaled
 * mode (real Redis) 202 with a job link that the worker completes.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { JobQueues } from '../../shared/queue/job-queues.js';
import { createApp } from '../../services/api/app.js';
import { createLogger } from '../../shared/logging/index.js';
import { SqliteIngestLog } from '../../shared/search/sqlite/sqlite-ingest-log.js';
import { startWorkers } from '../../services/worker/start-workers.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';
import { REDIS_URL, requireRedis, waitFor } from '../integration/worker/worker-support.js';

const ITEMS = '/catalogue/collections/metadata:main/items';

function authEnvironment(): Record<string, string> {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-transactions-'));
  return {
    AUTH_ISSUER_URL: ISSUER,
    AUTH_CLIENT_ID: CLIENT.catalogue,
    WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
  };
}

/** A generated record (a GeoJSON Feature) that is not among the test app's records. */
function newRecord(index: number): Record<string, unknown> {
  return [...generateRecords(1, 99, 50000 + index)][0] as unknown as Record<string, unknown>;
}

async function recordCount(test: TestApp): Promise<number> {
  return (await test.backend.health()).records ?? -1;
}

describe('HTTP writes (real Keycloak)', function () {
  this.timeout(60000);
  let alice: string;
  let bob: string;

  before(async () => {
    await requireKeycloak();
    alice = (await userTokens('alice')).accessToken;
    bob = (await userTokens('bob')).accessToken;
  });

  describe('embedded mode', () => {
    let test: TestApp;
    before(async () => {
      test = await createTestApp(5, authEnvironment());
    });
    after(async () => test?.close());

    it('refuses a create without a token (401 + challenge) and with bob’s (403)', async () => {
      const record = newRecord(1);
      const anonymous = await request(test.app).post(ITEMS).send(record);
      assert.equal(anonymous.status, 401);
      assert.match(String(anonymous.headers['www-authenticate']), /^Bearer/);
      const forbidden = await request(test.app)
        .post(ITEMS)
        .set('Authorization', `Bearer ${bob}`)
        .send(record);
      assert.equal(forbidden.status, 403);
      assert.equal(await recordCount(test), 5);
    });

    it('creates (201 + Location), refuses a duplicate (409), replaces (200) and deletes (204/404)', async () => {
      const record = newRecord(2);
      const id = String(record.id);
      const created = await request(test.app)
        .post(ITEMS)
        .set('Authorization', `Bearer ${alice}`)
        .send(record);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.ok(String(created.headers.location).endsWith(`${ITEMS}/${encodeURIComponent(id)}`));
      assert.equal((await request(test.app).get(`${ITEMS}/${encodeURIComponent(id)}`)).status, 200);

      const again = await request(test.app)
        .post(ITEMS)
        .set('Authorization', `Bearer ${alice}`)
        .send(record);
      assert.equal(again.status, 409);

      const properties = { ...(record.properties as object), title: 'Replaced title' };
      const replaced = await request(test.app)
        .put(`${ITEMS}/${encodeURIComponent(id)}`)
        .set('Authorization', `Bearer ${alice}`)
        .send({ ...record, properties });
      assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
      const stored = await test.backend.get(id);
      assert.equal(stored?.title, 'Replaced title');

      const mismatch = await request(test.app)
        .put(`${ITEMS}/other-id`)
        .set('Authorization', `Bearer ${alice}`)
        .send(record);
      assert.equal(mismatch.status, 400);

      const deleted = await request(test.app)
        .delete(`${ITEMS}/${encodeURIComponent(id)}`)
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(deleted.status, 204);
      const missing = await request(test.app)
        .delete(`${ITEMS}/${encodeURIComponent(id)}`)
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(missing.status, 404);
    });

    it('keeps POST …/items with a CQL2 JSON body a public search', async () => {
      const search = await request(test.app)
        .post(ITEMS)
        .send({ op: '=', args: [{ property: 'id' }, 'nothing-has-this-id'] });
      assert.equal(search.status, 200, JSON.stringify(search.body));
      assert.equal((search.body as { numberMatched?: number }).numberMatched, 0);
    });

    it('bulk-ingests NDJSON (200 with a per-record summary)', async () => {
      const body = [newRecord(3), newRecord(4), newRecord(5)]
        .map((r) => JSON.stringify(r))
        .join('\n');
      const before = await recordCount(test);
      const response = await request(test.app)
        .post('/catalogue/admin/ingest')
        .set('Authorization', `Bearer ${alice}`)
        .set('Content-Type', 'application/x-ndjson')
        .send(body);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.equal((response.body as { written: number }).written, 3);
      assert.equal(await recordCount(test), before + 3);
    });

    it('refuses a batch with bad records (400 naming them) and writes nothing', async () => {
      const before = await recordCount(test);
      const response = await request(test.app)
        .post('/catalogue/admin/ingest')
        .set('Authorization', `Bearer ${alice}`)
        .send({
          type: 'FeatureCollection',
          features: [newRecord(6), { type: 'Nonsense', id: 'bad-one' }],
        });
      assert.equal(response.status, 400);
      assert.match(JSON.stringify(response.body), /bad-one/);
      assert.equal(await recordCount(test), before);
    });

    it('creates a record from an XML body (csw:Record)', async () => {
      const xml = [
        '<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2"',
        ' xmlns:dc="http://purl.org/dc/elements/1.1/">',
        '<dc:identifier>xml-created-1</dc:identifier><dc:title>Created from XML</dc:title>',
        '</csw:Record>',
      ].join('');
      const response = await request(test.app)
        .post(ITEMS)
        .set('Authorization', `Bearer ${alice}`)
        .set('Content-Type', 'application/xml')
        .send(xml);
      assert.equal(response.status, 201, JSON.stringify(response.body));
      assert.equal((await test.backend.get('xml-created-1'))?.title, 'Created from XML');
    });

    it('honours the XML encoding of a body (ISO-8859-1, UTF-16 with BOM) and refuses bytes not valid in it', async () => {
      const record = (id: string, declaration: string) =>
        `${declaration}<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier>${id}</dc:identifier><dc:title>Géologie du Québec – été</dc:title></csw:Record>`;
      const post = (body: Buffer, type = 'application/xml') =>
        request(test.app)
          .post(ITEMS)
          .set('Authorization', `Bearer ${alice}`)
          .set('Content-Type', type)
          .send(body);
      // "–" is not in ISO-8859-1: a Latin-1 document writes it as a character reference.
      const latin1 = Buffer.from(
        record('latin1-1', '<?xml version="1.0" encoding="ISO-8859-1"?>').replace('–', '&#8211;'),
        'latin1',
      );
      const created = await post(latin1);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const stored = await test.backend.get('latin1-1');
      assert.equal(stored?.title, 'Géologie du Québec – été');
      assert.ok(!stored?.source.content.includes('\uFFFD'), 'no replacement characters');
      assert.match(stored?.source.content ?? '', /^<\?xml version="1.0" encoding="UTF-8"\?>/);

      const utf16 = Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        Buffer.from(record('utf16-1', '<?xml version="1.0" encoding="UTF-16"?>'), 'utf16le'),
      ]);
      assert.equal((await post(utf16)).status, 201);
      assert.equal((await test.backend.get('utf16-1'))?.title, 'Géologie du Québec – été');

      const before = await recordCount(test);
      // Latin-1 bytes without a declaration are not UTF-8: refused, not stored as U+FFFD.
      const undeclared = await post(Buffer.from(record('bad-1', ''), 'latin1'));
      assert.equal(undeclared.status, 400, JSON.stringify(undeclared.body));
      assert.match(undeclared.body.description, /not valid utf-8/);
      const unknown = await post(
        Buffer.from(record('bad-2', '<?xml version="1.0" encoding="x-klingon"?>'), 'latin1'),
      );
      assert.equal(unknown.status, 400, JSON.stringify(unknown.body));
      assert.match(unknown.body.description, /"x-klingon" is not supported/);
      assert.equal(await recordCount(test), before, 'nothing written');
    });

    it('refuses coordinates the read side refuses (Point [999, 999]): 400, nothing written', async () => {
      const before = await recordCount(test);
      const record = { ...newRecord(11), geometry: { type: 'Point', coordinates: [999, 999] } };
      const created = await request(test.app)
        .post(ITEMS)
        .set('Authorization', `Bearer ${alice}`)
        .send(record);
      assert.equal(created.status, 400, JSON.stringify(created.body));
      assert.match(
        created.body.description,
        /geometry\.coordinates has longitude 999, outside −180\.\.180/,
      );
      const stacItem = {
        type: 'Feature',
        stac_version: '1.0.0',
        id: 'stac-out-of-range',
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [10, 0],
              [10, 95],
              [0, 0],
            ],
          ],
        },
        properties: { datetime: '2020-01-01T00:00:00Z' },
        links: [],
        assets: {},
      };
      const ingested = await request(test.app)
        .post('/catalogue/admin/ingest')
        .set('Authorization', `Bearer ${alice}`)
        .send(stacItem);
      assert.equal(ingested.status, 400, JSON.stringify(ingested.body));
      assert.match(
        ingested.body.description,
        /stac-out-of-range.*invalid geometry: geometry\.coordinates\[0\]\[2\] has latitude 95/,
      );
      assert.equal(await recordCount(test), before);
    });

    it('refuses records nested deeper than JSON_DEPTH_LIMIT (400, not a stack overflow); a deep allowed record has a small page', async () => {
      const nestedRecord = (index: number, depth: number): Record<string, unknown> => {
        let nested: unknown = 'leaf';
        for (let level = 0; level < depth; level += 1) nested = { a: nested };
        const record = newRecord(index);
        return { ...record, properties: { ...(record.properties as object), nested } };
      };
      const before = await recordCount(test);
      for (const depth of [5000, 4000, 64]) {
        const response = await request(test.app)
          .post(ITEMS)
          .set('Authorization', `Bearer ${alice}`)
          .send(nestedRecord(20 + depth, depth));
        assert.equal(response.status, 400, `${depth}: ${JSON.stringify(response.body)}`);
        // At 5,000 levels V8's JSON.parse itself gives up first (a 400 too).
        assert.match(
          response.body.description,
          depth === 5000 ? /nested deeper than 64 levels|not valid JSON/ : /nested deeper than 64/,
        );
      }
      const ndjson = [nestedRecord(21, 10), nestedRecord(22, 4000)]
        .map((record) => JSON.stringify(record))
        .join('\n');
      const ingested = await request(test.app)
        .post('/catalogue/admin/ingest')
        .set('Authorization', `Bearer ${alice}`)
        .set('Content-Type', 'application/x-ndjson')
        .send(ndjson);
      assert.equal(ingested.status, 400, JSON.stringify(ingested.body));
      assert.equal(await recordCount(test), before, 'nothing written');

      const allowed = nestedRecord(23, 56);
      const created = await request(test.app)
        .post(ITEMS)
        .set('Authorization', `Bearer ${alice}`)
        .send(allowed);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const page = await request(test.app)
        .get(`${ITEMS}/${encodeURIComponent(String(allowed.id))}`)
        .set('Accept', 'text/html');
      assert.equal(page.status, 200);
      assert.ok(page.text.length < 200_000, `the HTML page is ${page.text.length} characters`);
    });

    it('refuses a bulk body over the size limit (413)', async () => {
      const line = JSON.stringify(newRecord(9));
      const body = Array.from({ length: Math.ceil(6e6 / line.length) }, () => line).join('\n');
      const response = await request(test.app)
        .post('/catalogue/admin/ingest')
        .set('Authorization', `Bearer ${alice}`)
        .set('Content-Type', 'application/x-ndjson')
        .send(body);
      assert.equal(response.status, 413);
    });

    it('serves the job log to the write role only', async () => {
      assert.equal((await request(test.app).get('/catalogue/admin/jobs')).status, 401);
      const asBob = await request(test.app)
        .get('/catalogue/admin/jobs')
        .set('Authorization', `Bearer ${bob}`);
      assert.equal(asBob.status, 403);
      const asAlice = await request(test.app)
        .get('/catalogue/admin/jobs')
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(asAlice.status, 200);
      // Every write applied above is logged as a job of queue "http": create, replace,
      // delete, NDJSON bulk, XML create, the ISO-8859-1 and UTF-16 XML creates, and the
      // record nested 56 deep.
      const { total, jobs } = asAlice.body as { total: number; jobs: { queue: string }[] };
      assert.equal(total, 8);
      assert.ok(jobs.every((job) => job.queue === 'http'));
      const unknown = await request(test.app)
        .get('/catalogue/admin/jobs/no-such-job')
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(unknown.status, 404);
    });
  });

  describe('without an identity provider', () => {
    let test: TestApp;
    before(async () => {
      test = await createTestApp(1);
    });
    after(async () => test?.close());

    it('answers 503 to every write and admin request, whatever the token', async () => {
      const create = await request(test.app)
        .post(ITEMS)
        .set('Authorization', `Bearer ${alice}`)
        .send(newRecord(7));
      assert.equal(create.status, 503);
      const remove = await request(test.app).delete(`${ITEMS}/anything`);
      assert.equal(remove.status, 503);
      assert.equal((await request(test.app).get('/catalogue/admin/jobs')).status, 503);
    });
  });

  describe('scaled mode (real Redis)', () => {
    let test: TestApp;
    let app: Express;
    let queue: JobQueues;
    let stopWorkers: (() => Promise<void>) | undefined;
    let ingestLog: SqliteIngestLog;
    before(async () => {
      await requireRedis();
      const environment = {
        ...authEnvironment(),
        REDIS_URL,
        WORKER_QUEUE_PREFIX: `cairn-test-transactions-${process.pid}-${Date.now()}`,
      };
      test = await createTestApp(2, environment);
      ingestLog = new SqliteIngestLog(test.config.worker.ingestLogPath);
      queue = new JobQueues(REDIS_URL, test.config.worker);
      app = createApp({
        config: test.config,
        backend: test.backend,
        logger: createLogger('silent', 'test'),
        queue,
        ingestLog,
      });
      const running = startWorkers({
        redisUrl: REDIS_URL,
        config: test.config.worker,
        backend: test.backend,
        logger: createLogger('silent', 'test'),
        ingestLog,
      });
      stopWorkers = running.close;
    });
    after(async () => {
      await stopWorkers?.();
      await queue?.obliterate();
      await queue?.close();
      await ingestLog?.close();
      await test?.close();
    });

    it('answers 202 with a job link, and the job log shows the worker’s outcome', async () => {
      const record = newRecord(8);
      const accepted = await request(app)
        .post(ITEMS)
        .set('Authorization', `Bearer ${alice}`)
        .send(record);
      assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
      const { jobId } = accepted.body as { jobId: string };
      assert.ok(String(accepted.headers.location).endsWith(`/catalogue/admin/jobs/${jobId}`));
      await waitFor(async () => (await ingestLog.get(jobId)) !== null, 30000, 'the job');
      const job = await request(app)
        .get(`/catalogue/admin/jobs/${jobId}`)
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(job.status, 200);
      assert.equal((job.body as { status: string }).status, 'completed');
      assert.equal((job.body as { written: number }).written, 1);
      const failures = await request(app)
        .get(`/catalogue/admin/jobs/${jobId}/failures`)
        .set('Authorization', `Bearer ${alice}`);
      assert.deepEqual((failures.body as { failures: unknown[] }).failures, []);
      assert.ok(await test.backend.get(String(record.id)));

      const removal = await request(app)
        .delete(`${ITEMS}/${encodeURIComponent(String(record.id))}`)
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(removal.status, 202);
      await waitFor(
        async () => (await test.backend.get(String(record.id))) === null,
        30000,
        'delete',
      );
    });
  });
});
